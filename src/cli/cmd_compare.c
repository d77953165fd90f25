/*
 * cmd_compare.c - `dmlscope compare RUN_OR_DATASET... [options]`.
 *
 * Analyzes every run (the library's dmls_compare_runs), prints the table,
 * writes what the options ask.  A run that fails gets one line on stderr,
 * named, and the others are still reported; the exit code is then 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli_mpi.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "dmlscope/compare.h"
#include "dmlscope/render.h"

static const char usage_text[] =
	"usage: dmlscope compare RUN_OR_DATASET... [--json FILE|-] [--csv DIR]\n"
	"                        [--report FILE.html] [--quiet]\n"
	"RUN_OR_DATASET is a run folder, a capture, or a dataset folder (its run\n"
	"folders, up to 3 levels below it)\n";

struct compare_opts {
	const char *json, *csv, *report;
	int quiet;
};

static int parse_args(int argc, char **argv, struct compare_opts *o)
{
	static const struct option longopts[] = {
		{"json", required_argument, NULL, 'j'},   {"csv", required_argument, NULL, 'c'},
		{"report", required_argument, NULL, 'r'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = optarg; break;
		case 'c':
			if (cli_csv_dir("compare", optarg))
				return -1;
			o->csv = optarg;
			break;
		case 'r': o->report = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		default: return cli_option_error("compare", c, argv);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "dmlscope compare: no run given; see 'dmlscope compare --help'\n");
		return -1;
	}
	return 0;
}

/* The terminal's width, $COLUMNS when set; 0 (every column) in a pipe. */
static size_t terminal_width(void)
{
	const char *env = getenv("COLUMNS");
	long v = env ? strtol(env, NULL, 10) : 0;
	if (v > 0)
		return (size_t)v;
	struct winsize ws;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	return 0;
}

static int render(const dmls_compare *c, const struct compare_opts *o)
{
	dmls_error err;
	if (!o->quiet && !(o->json && !strcmp(o->json, "-")))
		dmls_compare_text(c, stdout, terminal_width());
	int rc;
	if (o->json && (rc = cli_write_json(dmls_compare_json(c), o->json, "compare", 12)))
		return rc;
	if (o->csv && dmls_compare_csv(c, o->csv, &err)) {
		fprintf(stderr, "dmlscope compare: %s\n", err.msg);
		return err.status;
	}
	if (o->report && dmls_report_html_write(c, o->report, &err)) {
		fprintf(stderr, "dmlscope compare: %s\n", err.msg);
		return err.status;
	}
	return cli_flush_stdout("compare");
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = {0};
	if (parse_args(argc, argv, &o))
		return DMLS_EUSAGE;
	dmls_compare c;
	dmls_error err;
	dmls_compare_init(&c);
	int rc = cli_mpi_compare_runs(&c, (const char *const *)argv + optind,
				      (size_t)(argc - optind), NULL, &err);
	if (!cli_mpi_is_root()) { /* rank 0 reports */
		dmls_compare_release(&c);
		return rc;
	}
	if (rc) {
		fprintf(stderr, "dmlscope compare: %s\n", err.msg);
		dmls_compare_release(&c);
		return rc;
	}
	for (size_t i = 0; i < c.n; i++)
		if (c.runs[i].error.status && strstr(c.runs[i].error.msg, c.runs[i].name))
			fprintf(stderr, "dmlscope compare: %s\n", c.runs[i].error.msg);
		else if (c.runs[i].error.status)
			fprintf(stderr, "dmlscope compare: '%s': %s\n", c.runs[i].name,
				c.runs[i].error.msg);
	rc = render(&c, &o);
	if (!rc && c.nfailed)
		rc = DMLS_EBAD;
	dmls_compare_release(&c);
	return rc;
}
