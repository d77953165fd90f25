/*
 * main.c - dmlscope's entry point: one table maps each subcommand to its
 * handler (as git.c does); everything else lives in the library.
 */
#include <stdio.h>
#include <string.h>

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
			return dmls_exit_code(commands[i].run(argc - 1, argv + 1));
	fprintf(stderr, "dmlscope: '%s' is not a command; see 'dmlscope --help'\n", argv[1]);
	return 2;
}
