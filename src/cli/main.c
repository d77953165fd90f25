/*
 * main.c - dmlscope's entry point: one table maps each subcommand to its
 * handler (as git.c does); everything else lives in the library.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli_mpi.h"
#include "cli/commands.h"
#include "dmlscope/error.h"
#include "dmlscope/version.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"analyze", cmd_analyze, "analyze one job: captures or a run folder"},
	{"compare", cmd_compare, "compare runs: the study's table and figures, CSV, JSON, HTML"},
	{"fit", cmd_fit, "fit the study's regression (or any formula) on runs or a CSV"},
	{"generate", cmd_generate, "synthetic training traffic from a job description or a run"},
	{"predict", cmd_predict, "predict traffic for a job from a saved model"},
	{"watch", cmd_watch, "watch a job's traffic live on network interfaces"},
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: dmlscope COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\n'dmlscope COMMAND --help' for a command's options; man dmlscope.\n");
}

/* Under mpirun (an MPI build, doc/mpi.md) analyze and compare spread over
 * the ranks; any other command runs on rank 0 alone. */
static int run_command(const struct command *c, int argc, char **argv)
{
	if (cli_mpi_init(&argc, &argv)) {
		fprintf(stderr, "dmlscope: MPI did not start\n");
		return 3;
	}
	int rc = 0;
	if (cli_mpi_is_root() || !strcmp(c->name, "analyze") || !strcmp(c->name, "compare"))
		rc = dmls_exit_code(c->run(argc - 1, argv + 1));
	cli_mpi_finalize();
	return rc;
}

/*
 * Back the heap with transparent huge pages where the kernel offers them
 * on request (/sys/kernel/mm/transparent_hugepage/enabled "madvise", the
 * default of most distributions; "always" needs nothing, "never" ignores
 * the request).  Page faults were a third of the time of a 10-minute
 * capture on a 2-core VM (2666 faults, one for each 4 KiB the series, the
 * job series and the transforms first touch): with 2 MiB pages, 400-600.
 * The heap is grown once by 64 MiB (M_TOP_PAD: address space, not memory;
 * pages are only backed when touched) and that range is advised; what the
 * heap takes beyond it gets ordinary pages.  Peak RSS is 1-3 MiB higher,
 * the last huge page of what is touched being whole.
 *
 * Below the first 2 MiB boundary the heap has ordinary pages (where it
 * starts is random): every run touches most of them, one fault each, so
 * they are backed at once, in one call (MADV_POPULATE_WRITE, Linux 5.14;
 * older kernels refuse it, and the pages fault in as before).  Medians of
 * alternating runs on a 2-core VM: the bundled sample 373 -> 144 faults,
 * 11.5 -> 10.6 ms CPU; a 10-minute capture 40.0 -> 39.3 ms.  Peak RSS is
 * up to 2 MiB higher.
 */
static void heap_in_huge_pages(void)
{
	const uintptr_t huge = 2u << 20, page = 4096;
	mallopt(M_TOP_PAD, 64 << 20);
	char *p = malloc(1);
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t hi = (uintptr_t)sbrk(0) & ~(huge - 1);
	if (p && hi > lo) {
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#ifdef MADV_POPULATE_WRITE
		uintptr_t first = (uintptr_t)p & ~(page - 1);
		madvise((void *)first, lo - first, MADV_POPULATE_WRITE); /* likewise */
#endif
	}
	free(p);
	mallopt(M_TOP_PAD, 1 << 20);
}

/*
 * Keep freed memory for the next allocation instead of handing it back to
 * the kernel: analysis builds and drops dense series and FFT buffers of a
 * few MiB, again for each job of a capture, and glibc would unmap each one
 * (mmap threshold) and fault every page in again on the next.  A page
 * fault costs 0.2 us on bare metal but 10 us or more in a VM, where this
 * halved them (real runs back to back: 11700 -> 5900).  Peak RSS is
 * 1-3 MiB higher: what is kept is what the next job reuses.  The
 * program's choice, not the library's: mallopt is process-wide.
 */
static void keep_freed_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 4 << 20); /* larger ones: mremap grows them in place */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	heap_in_huge_pages(); /* then grows the heap 1 MiB at a time (M_TOP_PAD) */
}

int main(int argc, char **argv)
{
	keep_freed_memory();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("dmlscope %s\n", DMLS_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return run_command(&commands[i], argc, argv);
	fprintf(stderr, "dmlscope: '%s' is not a command; see 'dmlscope --help'\n", argv[1]);
	return 2;
}
