/*
 * cmd_analyze.c - `dmlscope analyze INPUT... [options]`.
 *
 * Parses options, runs the library's job pipeline, renders the result.
 * Damage in an input still renders what was read before it, then exits 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_mpi.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "dmlscope/compare.h"
#include "dmlscope/job.h"
#include "dmlscope/render.h"
#include "dmlscope/result.h"
#include "dmlscope/units.h"

static const char usage_text[] =
	"usage: dmlscope analyze INPUT... [--json FILE|-] [--csv DIR] [--report FILE.html]\n"
	"                        [--bin SEC] [--filter BPF] [--max-hosts N] [--max-flows N]\n"
	"                        [--threads 1|2] [--tunnels inner|outer] [--quiet]\n"
	"INPUT is a capture (pcap, pcapng), several captures of one job, or a run folder\n";

struct analyze_opts {
	const char *json, *csv, *report, *filter;
	int64_t bin_ns;
	dmls_stats_limits limits;
	int quiet, threads;
	unsigned decode_flags;
};

/* A table cap: a whole number from 16 to 2^28. */
static int parse_cap(const char *name, const char *arg, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || v < 16 || v > (1ull << 28)) {
		fprintf(stderr, "dmlscope analyze: invalid --%s '%s' (a number from 16 to %llu)\n",
			name, arg, 1ull << 28);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct analyze_opts *o)
{
	static const struct option longopts[] = {
		{"json", required_argument, NULL, 'j'},   {"csv", required_argument, NULL, 'c'},
		{"report", required_argument, NULL, 'r'}, {"bin", required_argument, NULL, 'b'},
		{"filter", required_argument, NULL, 'f'}, {"quiet", no_argument, NULL, 'q'},
		{"max-hosts", required_argument, NULL, 'H'},
		{"max-flows", required_argument, NULL, 'F'},
		{"threads", required_argument, NULL, 't'},
		{"tunnels", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = optarg; break;
		case 'c':
			if (cli_csv_dir("analyze", optarg))
				return -1;
			o->csv = optarg;
			break;
		case 'r': o->report = optarg; break;
		case 'f': o->filter = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'b':
			if (dmls_parse_time_ns(optarg, &o->bin_ns)) {
				fprintf(stderr, "dmlscope analyze: invalid --bin '%s' (e.g. 1ms, 0.01)\n",
					optarg);
				return -1;
			}
			break;
		case 'H':
			if (parse_cap("max-hosts", optarg, &o->limits.max_hosts))
				return -1;
			break;
		case 'F':
			if (parse_cap("max-flows", optarg, &o->limits.max_flows))
				return -1;
			break;
		case 't':
			if (strcmp(optarg, "1") && strcmp(optarg, "2")) {
				fprintf(stderr, "dmlscope analyze: invalid --threads '%s' (1 or 2)\n",
					optarg);
				return -1;
			}
			o->threads = atoi(optarg);
			break;
		case 'T':
			if (cli_tunnels("analyze", optarg, &o->decode_flags))
				return -1;
			break;
		case 'h': fputs(usage_text, stdout); exit(0);
		default: return cli_option_error("analyze", c, argv);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "dmlscope analyze: no input given; see 'dmlscope analyze --help'\n");
		return -1;
	}
	return 0;
}

/* The compare report of this one run. */
static int write_report(const dmls_result *res, const char *path)
{
	dmls_compare c;
	dmls_error err;
	dmls_compare_init(&c);
	int rc = dmls_compare_add(&c, res, &err);
	if (!rc)
		rc = dmls_report_html_write(&c, path, &err);
	if (rc)
		fprintf(stderr, "dmlscope analyze: %s\n", err.msg);
	dmls_compare_release(&c);
	return rc;
}

static int write_outputs(const dmls_result *res, const struct analyze_opts *o)
{
	int to_stdout = o->json && !strcmp(o->json, "-");
	if (!o->quiet && !to_stdout)
		dmls_render_text(res, stdout);
	int rc;
	if (o->json && (rc = cli_write_json(dmls_render_json(res), o->json, "analyze", 12)))
		return rc;
	if (o->csv) {
		dmls_error err;
		if (dmls_render_csv(res, o->csv, &err)) {
			fprintf(stderr, "dmlscope analyze: %s\n", err.msg);
			return err.status;
		}
	}
	if (o->report && (rc = write_report(res, o->report)))
		return rc;
	return cli_flush_stdout("analyze");
}

/* Every output asked for, from the job's one result. */
static int render(const dmls_job *job, const struct analyze_opts *o)
{
	dmls_result res;
	int rc = dmls_result_init(&res, job);
	if (rc)
		fprintf(stderr, "dmlscope analyze: out of memory\n");
	else
		rc = write_outputs(&res, o);
	dmls_result_release(&res);
	return rc;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = {0};
	if (parse_args(argc, argv, &o))
		return DMLS_EUSAGE;
	dmls_job job;
	dmls_error err;
	cli_progress prog;
	cli_progress_init(&prog, "dmlscope analyze", o.quiet);
	dmls_job_opts jo = {.bin_ns = o.bin_ns, .filter = o.filter, .limits = o.limits,
			    .progress = cli_progress_cb, .progress_ctx = &prog,
			    .threads = o.threads, .decode_flags = o.decode_flags};
	int rc = cli_mpi_job_analyze(&job, (const char *const *)argv + optind,
				     (size_t)(argc - optind), &jo, &err);
	cli_progress_end(&prog);
	if (!cli_mpi_is_root()) { /* rank 0 reports */
		dmls_job_release(&job);
		return rc;
	}
	if (rc) {
		fprintf(stderr, "dmlscope analyze: %s\n", err.msg);
		dmls_job_release(&job);
		return rc;
	}
	rc = render(&job, &o);
	if (!rc && job.damage.status) {
		fprintf(stderr, "dmlscope analyze: %s\n", job.damage.msg);
		rc = job.damage.status;
	} else if (!rc && job.stats.packets == 0) {
		char why[160];
		fprintf(stderr, "dmlscope analyze: '%s': no IP packets to analyze%s\n", job.run.name,
			dmls_input_why_empty(&job.counts, job.files, job.nfiles, why, sizeof(why)));
		rc = DMLS_EBAD;
	}
	dmls_job_release(&job);
	return rc;
}
