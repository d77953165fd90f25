/*
 * main.c - dmlscope's entry point: one table maps each subcommand to its
 * handler (as git.c does); everything else lives in the library.
 */
#include <stdio.h>
#include <string.h>

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

int main(int argc, char **argv)
{
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
