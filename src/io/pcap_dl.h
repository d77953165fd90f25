/*
 * pcap_dl.h - libpcap, loaded the first time it is needed (internal).
 *
 * dmlscope reads capture files with a reader of its own (reader.c); libpcap
 * serves only BPF filters, live capture and writing pcap files.  Linked
 * the usual way, libpcap and what Debian builds it with (D-Bus, systemd,
 * libgcrypt, zstd, lz4: 10 more shared objects) are loaded and relocated
 * at every start: 4.6 ms of the 9 ms `dmlscope --version` took on a
 * virtual machine, a third of analyzing a short capture.  So the few
 * libpcap calls dmlscope makes go through pointers resolved by dlopen on
 * the first call (pcap_dl.c).
 *
 * A file that calls libpcap includes this header instead of <pcap/pcap.h>:
 * the types and constants are libpcap's, and each function it uses is
 * renamed (by a macro) to its twin here, with the same signature.
 * dmls_pcap_load says whether libpcap could be loaded; the twins of the
 * functions that make a handle (pcap_create, pcap_open_dead*) fail as
 * libpcap's do (NULL, errbuf filled) when it cannot, and no other twin can
 * be reached without a handle.
 */
#ifndef DMLS_IO_PCAP_DL_H
#define DMLS_IO_PCAP_DL_H

#include <pcap/pcap.h>

#include "dmlscope/error.h"

/* 0 when libpcap is loaded (or was already); else DMLS_EIO with err
 * saying which library could not be loaded and why. */
int dmls_pcap_load(dmls_error *err);

/* pcap_create's twin: NULL and errbuf filled when libpcap cannot load. */
pcap_t *dmls_pcap_create(const char *source, char *errbuf);

/* X(return type, name, parameters, arguments, value when not loaded) */
#define DMLS_PCAP_FUNCS(X)                                                                 \
	X(pcap_t *, pcap_open_dead, (int a, int b), (a, b), NULL)                          \
	X(pcap_t *, pcap_open_dead_with_tstamp_precision, (int a, int b, u_int c),         \
	  (a, b, c), NULL)                                                                 \
	X(int, pcap_activate, (pcap_t * p), (p), PCAP_ERROR)                               \
	X(char *, pcap_geterr, (pcap_t * p), (p), NULL)                                    \
	X(int, pcap_set_snaplen, (pcap_t * p, int a), (p, a), PCAP_ERROR)                  \
	X(int, pcap_set_promisc, (pcap_t * p, int a), (p, a), PCAP_ERROR)                  \
	X(int, pcap_set_timeout, (pcap_t * p, int a), (p, a), PCAP_ERROR)                  \
	X(int, pcap_set_buffer_size, (pcap_t * p, int a), (p, a), PCAP_ERROR)              \
	X(int, pcap_set_tstamp_precision, (pcap_t * p, int a), (p, a), PCAP_ERROR)         \
	X(int, pcap_get_tstamp_precision, (pcap_t * p), (p), PCAP_ERROR)                   \
	X(int, pcap_datalink, (pcap_t * p), (p), PCAP_ERROR)                               \
	X(int, pcap_set_datalink, (pcap_t * p, int a), (p, a), PCAP_ERROR)                 \
	X(int, pcap_setnonblock, (pcap_t * p, int a, char *e), (p, a, e), PCAP_ERROR)      \
	X(int, pcap_get_selectable_fd, (pcap_t * p), (p), PCAP_ERROR)                      \
	X(int, pcap_dispatch, (pcap_t * p, int a, pcap_handler h, u_char *u), (p, a, h, u), \
	  PCAP_ERROR)                                                                      \
	X(int, pcap_stats, (pcap_t * p, struct pcap_stat * s), (p, s), PCAP_ERROR)         \
	X(int, pcap_compile, (pcap_t * p, struct bpf_program * f, const char *s, int o,    \
			      bpf_u_int32 m),                                              \
	  (p, f, s, o, m), PCAP_ERROR)                                                     \
	X(int, pcap_setfilter, (pcap_t * p, struct bpf_program * f), (p, f), PCAP_ERROR)   \
	X(int, pcap_offline_filter,                                                        \
	  (const struct bpf_program *f, const struct pcap_pkthdr *h, const u_char *d),     \
	  (f, h, d), 0)                                                                    \
	X(pcap_dumper_t *, pcap_dump_open, (pcap_t * p, const char *a), (p, a), NULL)     \
	X(pcap_dumper_t *, pcap_dump_fopen, (pcap_t * p, FILE * f), (p, f), NULL)         \
	X(FILE *, pcap_dump_file, (pcap_dumper_t * d), (d), NULL)                         \
	X(int, pcap_dump_flush, (pcap_dumper_t * d), (d), PCAP_ERROR)

/* V(name, parameters, arguments): those returning nothing */
#define DMLS_PCAP_VOIDS(V)                                                                 \
	V(pcap_close, (pcap_t * p), (p))                                                   \
	V(pcap_breakloop, (pcap_t * p), (p))                                               \
	V(pcap_freecode, (struct bpf_program * f), (f))                                    \
	V(pcap_dump, (u_char * u, const struct pcap_pkthdr *h, const u_char *d), (u, h, d)) \
	V(pcap_dump_close, (pcap_dumper_t * d), (d))

#define DMLS_PCAP_DECLARE(ret, name, params, args, fail) ret dmls_##name params;
#define DMLS_PCAP_DECLARE_VOID(name, params, args) void dmls_##name params;
DMLS_PCAP_FUNCS(DMLS_PCAP_DECLARE)
DMLS_PCAP_VOIDS(DMLS_PCAP_DECLARE_VOID)
#undef DMLS_PCAP_DECLARE
#undef DMLS_PCAP_DECLARE_VOID

#ifndef DMLS_PCAP_DL_IMPL
#define pcap_create dmls_pcap_create
#define pcap_open_dead dmls_pcap_open_dead
#define pcap_open_dead_with_tstamp_precision dmls_pcap_open_dead_with_tstamp_precision
#define pcap_activate dmls_pcap_activate
#define pcap_set_datalink dmls_pcap_set_datalink
#define pcap_close dmls_pcap_close
#define pcap_geterr dmls_pcap_geterr
#define pcap_set_snaplen dmls_pcap_set_snaplen
#define pcap_set_promisc dmls_pcap_set_promisc
#define pcap_set_timeout dmls_pcap_set_timeout
#define pcap_set_buffer_size dmls_pcap_set_buffer_size
#define pcap_set_tstamp_precision dmls_pcap_set_tstamp_precision
#define pcap_get_tstamp_precision dmls_pcap_get_tstamp_precision
#define pcap_datalink dmls_pcap_datalink
#define pcap_setnonblock dmls_pcap_setnonblock
#define pcap_get_selectable_fd dmls_pcap_get_selectable_fd
#define pcap_dispatch dmls_pcap_dispatch
#define pcap_breakloop dmls_pcap_breakloop
#define pcap_stats dmls_pcap_stats
#define pcap_compile dmls_pcap_compile
#define pcap_setfilter dmls_pcap_setfilter
#define pcap_freecode dmls_pcap_freecode
#define pcap_offline_filter dmls_pcap_offline_filter
#define pcap_dump_open dmls_pcap_dump_open
#define pcap_dump_fopen dmls_pcap_dump_fopen
#define pcap_dump dmls_pcap_dump
#define pcap_dump_file dmls_pcap_dump_file
#define pcap_dump_flush dmls_pcap_dump_flush
#define pcap_dump_close dmls_pcap_dump_close
#endif

#endif
