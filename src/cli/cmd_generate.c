/*
 * cmd_generate.c - `dmlscope generate`: synthetic training traffic.
 *
 * Parses the job description (or takes it from a real run with --like),
 * builds the schedule (src/gen) and writes what the output name asks for:
 * OUT.pcap a capture, OUT.csv one row per message, or --format hpcc a
 * flow file for HPCC's ns-3 simulator.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "dmlscope/gen.h"
#include "dmlscope/job.h"
#include "dmlscope/units.h"

static const char usage_text[] =
	"usage: dmlscope generate --pattern ring|tree|star|clique|butterfly|hierarchical|pairwise\n"
	"                         --workers N --gradient-bytes S --iterations K\n"
	"                         [--iteration-time SEC] [--like RUN] [--link-gbps G]\n"
	"                         [--seed N] [--jitter FRAC] [--snaplen BYTES]\n"
	"                         [--group-size G] [--servers M]\n"
	"                         [--format pcap|csv|hpcc|htsim|chakra] [--topology FILE]\n"
	"                         [--nodes N] [--closed-loop] -o OUT.pcap|OUT.csv|OUT\n"
	"star: M servers (198.18.0.1.., default 1) plus N workers; S accepts 25MB;\n"
	"FRAC: coefficient of variation of the compute gap (default 0.05);\n"
	"SEC accepts 300ms; --like takes what is not given from a real run;\n"
	"--format hpcc: HPCC ns-3's flow file; htsim: htsim's connection matrix\n"
	"(--nodes N pads it to a topology's hosts, --closed-loop chains the steps);\n"
	"chakra: Chakra traces OUT.<rank>.et for ASTRA-sim; --topology FILE writes\n"
	"a matching one-switch topology (hpcc, htsim)\n";

struct gen_opts {
	dmls_gen_job job;
	unsigned set;
	const char *like, *out, *format, *topology;
	int snaplen;
	dmls_gen_htsim_opts htsim;
};

static int bad(const char *opt, const char *val)
{
	fprintf(stderr, "dmlscope generate: %s: bad value '%s'; see 'dmlscope generate --help'\n",
		opt, val);
	return DMLS_EUSAGE;
}

/* A whole number in [min, max]. */
static int parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return -1;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno || x < min || x > max)
		return -1;
	*v = x;
	return 0;
}

/* The output's options: --format and the simulators'. */
static int parse_sim(struct gen_opts *o, int c, const char *name, const char *arg)
{
	uint64_t v;
	switch (c) {
	case 'f':
		if (strcmp(arg, "pcap") && strcmp(arg, "csv") && strcmp(arg, "hpcc") &&
		    strcmp(arg, "htsim") && strcmp(arg, "chakra"))
			return bad(name, arg);
		o->format = arg;
		break;
	case 'N':
		if (parse_count(arg, 1, 1u << 20, &v))
			return bad(name, arg);
		o->htsim.nodes = (size_t)v;
		break;
	case 'c': o->htsim.closed_loop = 1; break;
	case 'T': o->topology = arg; break;
	}
	return 0;
}

static int parse_one(struct gen_opts *o, int c, const char *name, const char *arg)
{
	uint64_t v;
	double d;
	switch (c) {
	case 'p':
		if ((o->job.pattern = dmls_gen_pattern_parse(arg)) < 0)
			return bad(name, arg);
		o->set |= DMLS_GEN_SET_PATTERN;
		break;
	case 'w':
		if (parse_count(arg, 1, DMLS_GEN_MAX_HOSTS, &v))
			return bad(name, arg);
		o->job.workers = (size_t)v;
		o->set |= DMLS_GEN_SET_WORKERS;
		break;
	case 's':
		if (dmls_parse_size(arg, &d) || d < 1 || d > 1e15)
			return bad(name, arg);
		o->job.gradient_bytes = (uint64_t)llround(d);
		o->set |= DMLS_GEN_SET_GRADIENT;
		break;
	case 'k':
		if (parse_count(arg, 1, 10000000, &v))
			return bad(name, arg);
		o->job.iterations = (size_t)v;
		o->set |= DMLS_GEN_SET_ITERATIONS;
		break;
	case 't':
		if (dmls_parse_time_ns(arg, &o->job.iteration_ns) || o->job.iteration_ns <= 0)
			return bad(name, arg);
		o->set |= DMLS_GEN_SET_PERIOD;
		break;
	case 'g': {
		char *end;
		o->job.link_gbps = strtod(arg, &end);
		if (*end || !(o->job.link_gbps > 0 && o->job.link_gbps <= 10000))
			return bad(name, arg);
		o->set |= DMLS_GEN_SET_LINK;
		break;
	}
	case 'r':
		if (parse_count(arg, 0, UINT64_MAX, &v))
			return bad(name, arg);
		o->job.seed = v;
		break;
	case 'n':
		if (parse_count(arg, 64, 65535, &v))
			return bad(name, arg);
		o->snaplen = (int)v;
		break;
	case 'G':
		if (parse_count(arg, 2, DMLS_GEN_MAX_HOSTS, &v))
			return bad(name, arg);
		o->job.group_size = (size_t)v;
		break;
	case 'j': {
		char *end;
		o->job.jitter = strtod(arg, &end);
		if (*end || !(o->job.jitter >= 0 && o->job.jitter <= 2))
			return bad(name, arg);
		o->set |= DMLS_GEN_SET_JITTER;
		break;
	}
	case 'S':
		if (parse_count(arg, 1, DMLS_GEN_MAX_HOSTS, &v))
			return bad(name, arg);
		o->job.servers = (size_t)v;
		o->set |= DMLS_GEN_SET_SERVERS;
		break;
	case 'l': o->like = arg; break;
	case 'o': o->out = arg; break;
	default: return parse_sim(o, c, name, arg);
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct gen_opts *o)
{
	static const struct option longopts[] = {
		{"pattern", required_argument, NULL, 'p'},
		{"workers", required_argument, NULL, 'w'},
		{"gradient-bytes", required_argument, NULL, 's'},
		{"iterations", required_argument, NULL, 'k'},
		{"iteration-time", required_argument, NULL, 't'},
		{"link-gbps", required_argument, NULL, 'g'},
		{"seed", required_argument, NULL, 'r'},
		{"snaplen", required_argument, NULL, 'n'},
		{"group-size", required_argument, NULL, 'G'},
		{"jitter", required_argument, NULL, 'j'},
		{"servers", required_argument, NULL, 'S'},
		{"like", required_argument, NULL, 'l'},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"nodes", required_argument, NULL, 'N'},
		{"closed-loop", no_argument, NULL, 'c'},
		{"topology", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, idx = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, &idx)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return -1;
		}
		if (c == '?' || c == ':') {
			cli_option_error("generate", c, argv);
			return DMLS_EUSAGE;
		}
		char name[32];
		snprintf(name, sizeof(name), "%s%s", c == 'o' ? "-" : "--",
			 c == 'o' ? "o" : longopts[idx].name);
		if (parse_one(o, c, name, optarg))
			return DMLS_EUSAGE;
	}
	if (optind < argc)
		return bad("argument", argv[optind]);
	return 0;
}

/* Everything needed is there (after --like)?  Returns 0 or prints why. */
static int check_complete(const struct gen_opts *o)
{
	static const struct {
		unsigned bit;
		const char *opt;
	} need[] = {
		{DMLS_GEN_SET_PATTERN, "--pattern"},
		{DMLS_GEN_SET_WORKERS, "--workers"},
		{DMLS_GEN_SET_GRADIENT, "--gradient-bytes"},
		{DMLS_GEN_SET_ITERATIONS, "--iterations"},
	};
	if (!o->out) {
		fprintf(stderr, "dmlscope generate: no output given (-o OUT.pcap|OUT.csv)\n");
		return DMLS_EUSAGE;
	}
	for (size_t i = 0; !o->like && i < sizeof(need) / sizeof(need[0]); i++) {
		if (!(o->set & need[i].bit)) {
			fprintf(stderr, "dmlscope generate: %s is required (or --like RUN)\n",
				need[i].opt);
			return DMLS_EUSAGE;
		}
	}
	return 0;
}

/* "pcap", "csv" or "hpcc" from --format, else from the output's name;
 * NULL if neither tells. */
static const char *out_format(const struct gen_opts *o)
{
	if (o->format)
		return o->format;
	const char *dot = strrchr(o->out, '.');
	if (dot && (!strcmp(dot, ".pcap") || !strcmp(dot, ".cap")))
		return "pcap";
	if (dot && !strcmp(dot, ".csv"))
		return "csv";
	return NULL;
}

/* Take what is not given from the run --like names; *hint names the options
 * that give it when the run does not tell. */
static int calibrate(struct gen_opts *o, dmls_error *err, const char **hint)
{
	dmls_job run;
	dmls_job_opts jo = {0};
	const char *in[1] = {o->like};
	int rc = dmls_job_analyze(&run, in, 1, &jo, err);
	if (!rc && !run.analysis)
		rc = dmls_fail(err, DMLS_EBAD, "'%s': %s", o->like, run.analysis_error.msg);
	if (!rc && (rc = dmls_gen_calibrate(&o->job, o->set, run.analysis, o->like, err)))
		*hint = " (options --pattern, --workers, --gradient-bytes, --iterations)";
	if (run.damage.status != DMLS_OK) { /* the run was read up to damage */
		if (rc) { /* that is the cause to name */
			rc = dmls_fail(err, run.damage.status, "%s", run.damage.msg);
			*hint = "";
		} else {
			fprintf(stderr, "dmlscope generate: warning: %s; calibrated on what "
					"was read before it\n", run.damage.msg);
		}
	}
	dmls_job_release(&run);
	return rc;
}

typedef int (*text_writer)(const dmls_gen_schedule *s, const struct gen_opts *o, FILE *fp,
			   dmls_error *err);

static int w_csv(const dmls_gen_schedule *s, const struct gen_opts *o, FILE *fp,
		 dmls_error *err)
{
	return dmls_gen_write_csv(s, fp, err);
}

static int w_hpcc(const dmls_gen_schedule *s, const struct gen_opts *o, FILE *fp,
		  dmls_error *err)
{
	return dmls_gen_write_hpcc(s, fp, err);
}

static int w_htsim(const dmls_gen_schedule *s, const struct gen_opts *o, FILE *fp,
		   dmls_error *err)
{
	return dmls_gen_write_htsim(s, &o->htsim, fp, err);
}

static int w_hpcc_topo(const dmls_gen_schedule *s, const struct gen_opts *o, FILE *fp,
		       dmls_error *err)
{
	return dmls_gen_write_hpcc_topology(s, fp, err);
}

static int w_htsim_topo(const dmls_gen_schedule *s, const struct gen_opts *o, FILE *fp,
			dmls_error *err)
{
	return dmls_gen_write_htsim_topology(s, o->htsim.nodes, fp, err);
}

/* path ("-": standard output) written by w; a file the writer refused
 * (usage error, nothing written) is removed again. */
static int write_text(const char *path, text_writer w, const dmls_gen_schedule *s,
		      const struct gen_opts *o, dmls_error *err)
{
	int to_stdout = !strcmp(path, "-");
	FILE *fp = to_stdout ? stdout : fopen(path, "w");
	if (!fp)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot open for writing", path);
	int rc = w(s, o, fp, err);
	if (!to_stdout && fclose(fp) && !rc)
		rc = DMLS_EIO;
	if (rc == DMLS_EIO)
		dmls_fail(err, DMLS_EIO, "'%s': cannot write", path);
	struct stat sb;
	if (rc == DMLS_EUSAGE && !to_stdout && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sb.st_size == 0)
		remove(path);
	return rc;
}

static int write_out(const dmls_gen_schedule *s, const struct gen_opts *o, const char *fmt,
		     uint64_t *packets, dmls_error *err)
{
	if (!strcmp(fmt, "pcap"))
		return strcmp(o->out, "-") ? dmls_gen_write_pcap(s, o->out, o->snaplen, packets, err)
					   : dmls_gen_write_pcap_fp(s, stdout, o->snaplen, packets,
								    err);
	if (!strcmp(fmt, "chakra"))
		return dmls_gen_write_chakra(s, o->out, err);
	int hpcc = !strcmp(fmt, "hpcc");
	int rc = write_text(o->out, !strcmp(fmt, "csv") ? w_csv : hpcc ? w_hpcc : w_htsim, s, o,
			    err);
	if (!rc && o->topology)
		rc = write_text(o->topology, hpcc ? w_hpcc_topo : w_htsim_topo, s, o, err);
	return rc;
}

/* Options that only one format takes; 0 or prints why. */
static int check_format(const struct gen_opts *o, const char *fmt)
{
	const char *opt = NULL, *want = NULL;
	if (o->topology && strcmp(fmt, "hpcc") && strcmp(fmt, "htsim"))
		opt = "--topology", want = "hpcc or htsim";
	else if (o->htsim.nodes && strcmp(fmt, "htsim"))
		opt = "--nodes", want = "htsim";
	else if (o->htsim.closed_loop && strcmp(fmt, "htsim"))
		opt = "--closed-loop", want = "htsim";
	if (!opt && !strcmp(fmt, "chakra") && !strcmp(o->out, "-")) {
		fprintf(stderr, "dmlscope generate: -o: chakra writes one file per rank, "
				"OUT.<rank>.et; give a prefix, not standard output\n");
		return DMLS_EUSAGE;
	}
	if (!opt)
		return 0;
	fprintf(stderr, "dmlscope generate: %s needs --format %s\n", opt, want);
	return DMLS_EUSAGE;
}

/* The one line a person wants at the end: what was written where. */
static void summary(const dmls_gen_schedule *s, const struct gen_opts *o, const char *fmt,
		    uint64_t packets)
{
	uint64_t bytes = 0;
	for (size_t i = 0; i < s->nmsgs; i++)
		bytes += s->msgs[i].bytes;
	struct stat sb;
	char size[48] = "", pk[40] = "";
	if (packets)
		snprintf(pk, sizeof(pk), ", %llu packets", (unsigned long long)packets);
	if (strcmp(o->out, "-") && stat(o->out, &sb) == 0)
		snprintf(size, sizeof(size), ", %.3g MB on disk", (double)sb.st_size / 1e6);
	fprintf(stderr,
		"dmlscope generate: '%s': %s of %s, %zu ranks, %zu iterations over %.3f s, "
		"%zu messages%s, %.4g MB of payload%s\n",
		o->out, fmt, dmls_pattern_name(s->job.pattern), s->job.workers,
		s->job.iterations, (double)s->end_ns / 1e9, s->nmsgs, pk, (double)bytes / 1e6, size);
}

int cmd_generate(int argc, char **argv)
{
	struct gen_opts o = {0};
	o.job.jitter = DMLS_GEN_JITTER;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	if ((rc = check_complete(&o)))
		return rc;
	const char *fmt = out_format(&o);
	if (!fmt) {
		fprintf(stderr, "dmlscope generate: '%s': name ends in .pcap or .csv, or give "
				"--format pcap|csv|hpcc|htsim|chakra\n", o.out);
		return DMLS_EUSAGE;
	}
	if ((rc = check_format(&o, fmt)))
		return rc;
	dmls_error err = {0};
	dmls_gen_schedule s = {0};
	const char *hint = ""; /* the library names values, not options */
	if (o.like)
		rc = calibrate(&o, &err, &hint);
	if (!rc && o.like && o.job.async_periods_s[1] > 0)
		fprintf(stderr, "dmlscope generate: note: '%s' is asynchronous, its ranks keep their "
				"own clocks (periods %.3g to %.3g s); the generated ranks step "
				"together, at their median period\n", o.like, o.job.async_periods_s[0],
			o.job.async_periods_s[1]);
	/* the run's quiet start and end belong to a capture of it (pcap, CSV);
	 * a simulator would only spend simulated time on them */
	if (strcmp(fmt, "pcap") && strcmp(fmt, "csv"))
		o.job.lead_ns = o.job.tail_ns = 0;
	if (!rc && (rc = dmls_gen_schedule_build(&s, &o.job, &err)) == DMLS_EUSAGE)
		hint = "; see 'dmlscope generate --help'";
	if (!rc && !strcmp(fmt, "hpcc") && !dmls_gen_hpcc_rate_known(s.job.link_gbps))
		fprintf(stderr, "dmlscope generate: warning: HPCC's INT header knows only 25, 50, "
				"100, 200 and 400 Gbit/s, not %g (it prints 'IntHeader unknown rate' "
				"and flows slow down); give --link-gbps\n", s.job.link_gbps);
	uint64_t packets = 0;
	if (!rc)
		rc = write_out(&s, &o, fmt, &packets, &err);
	if (!rc)
		summary(&s, &o, fmt, packets);
	dmls_gen_schedule_release(&s);
	if (rc)
		fprintf(stderr, "dmlscope generate: %s%s\n", err.msg, hint);
	return rc;
}
