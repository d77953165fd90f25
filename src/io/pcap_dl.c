/*
 * pcap_dl.c - libpcap's functions, resolved by dlopen on first use (see
 * pcap_dl.h for why).
 */
#define DMLS_PCAP_DL_IMPL
#include "io/pcap_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The library's soname, as the build found it (CMake), then the usual
 * ones: Debian's libpcap0.8 installs libpcap.so.0.8, others libpcap.so.1. */
static const char *const sonames[] = {
#ifdef DMLS_PCAP_SONAME
	DMLS_PCAP_SONAME,
#endif
	"libpcap.so.0.8", "libpcap.so.1", "libpcap.so",
};

static struct {
	pcap_t *(*pcap_create)(const char *, char *);
#define DMLS_PCAP_POINTER(ret, name, params, args, fail) ret(*name) params;
#define DMLS_PCAP_POINTER_VOID(name, params, args) void(*name) params;
	DMLS_PCAP_FUNCS(DMLS_PCAP_POINTER)
	DMLS_PCAP_VOIDS(DMLS_PCAP_POINTER_VOID)
#undef DMLS_PCAP_POINTER
#undef DMLS_PCAP_POINTER_VOID
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[200]; /* fits an errbuf (PCAP_ERRBUF_SIZE 256) with its prefix */

static void load_once(void)
{
	void *h = NULL;
	for (size_t i = 0; i < sizeof(sonames) / sizeof(sonames[0]) && !h; i++) {
		h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (!h && i == 0) {
			const char *e = dlerror();
			snprintf(why, sizeof(why), "%s", e ? e : sonames[0]);
		}
	}
	if (!h)
		return;
	/* dlsym returns void *; a function pointer takes it through memcpy */
#define DMLS_PCAP_RESOLVE_ONE(name)                                                         \
	do {                                                                                \
		void *sym = dlsym(h, #name);                                                \
		if (!sym) {                                                                 \
			snprintf(why, sizeof(why), "%s has no %s", sonames[0], #name);      \
			return;                                                             \
		}                                                                           \
		memcpy(&fn.name, &sym, sizeof(sym));                                        \
	} while (0);
#define DMLS_PCAP_RESOLVE(ret, name, params, args, fail) DMLS_PCAP_RESOLVE_ONE(name)
#define DMLS_PCAP_RESOLVE_VOID(name, params, args) DMLS_PCAP_RESOLVE_ONE(name)
	DMLS_PCAP_RESOLVE_ONE(pcap_create)
	DMLS_PCAP_FUNCS(DMLS_PCAP_RESOLVE)
	DMLS_PCAP_VOIDS(DMLS_PCAP_RESOLVE_VOID)
	loaded = 1;
}

static int load(void)
{
	pthread_once(&once, load_once);
	return loaded ? 0 : -1;
}

int dmls_pcap_load(dmls_error *err)
{
	if (load() == 0)
		return 0;
	return dmls_fail(err, DMLS_EIO, "cannot load libpcap: %s", why);
}

/* The twins of the functions that make a handle say why in errbuf, as
 * libpcap does; the others are reached only with a handle (loaded). */
pcap_t *dmls_pcap_create(const char *a, char *e)
{
	if (load()) {
		snprintf(e, PCAP_ERRBUF_SIZE, "cannot load libpcap: %s", why);
		return NULL;
	}
	return fn.pcap_create(a, e);
}

#define DMLS_PCAP_DEFINE(ret, name, params, args, fail)                                     \
	ret dmls_##name params                                                              \
	{                                                                                   \
		if (load())                                                                 \
			return fail;                                                        \
		return fn.name args;                                                        \
	}
#define DMLS_PCAP_DEFINE_VOID(name, params, args)                                           \
	void dmls_##name params                                                             \
	{                                                                                   \
		if (load() == 0)                                                            \
			fn.name args;                                                       \
	}

DMLS_PCAP_FUNCS(DMLS_PCAP_DEFINE)
DMLS_PCAP_VOIDS(DMLS_PCAP_DEFINE_VOID)
