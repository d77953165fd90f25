/*
 * cmd_watch.c - `dmlscope watch -i IFACE [...]`: a training job as it runs.
 *
 * The library captures (live.h), counts and analyzes (watch.h, job.h); this
 * file parses options, keeps the clock (an interval tick, --duration,
 * SIGINT/SIGTERM), and renders: the live screen on a terminal, otherwise
 * (or with --json-lines) one JSON object per interval, and at the end
 * analyze's summary of the same packets.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "dmlscope/job.h"
#include "dmlscope/live.h"
#include "dmlscope/render.h"
#include "dmlscope/render_watch.h"
#include "dmlscope/result.h"
#include "dmlscope/units.h"
#include "dmlscope/watch.h"

static const char usage_text[] =
	"usage: dmlscope watch -i IFACE [-i IFACE ...] [--filter BPF] [--interval SEC]\n"
	"                      [--window SEC] [--duration SEC] [-w FILE.pcap] [--snaplen N]\n"
	"                      [--buffer SIZE] [--json-lines FILE|-] [--json FILE|-]\n"
	"                      [--tunnels inner|outer]\n"
	"Captures on the interfaces (root or CAP_NET_RAW), shows the job every interval\n"
	"and, on Ctrl-C, SIGTERM or --duration, analyze's summary of what it captured\n";

struct watch_opts {
	const char *ifaces[DMLS_LIVE_MAX_IFACES];
	size_t nifaces;
	const char *filter, *write, *json, *json_lines;
	int64_t interval_ns, window_ns, duration_ns;
	int snaplen;
	unsigned buffer_bytes, decode_flags;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int parse_time(const char *name, const char *arg, int64_t *ns)
{
	if (dmls_parse_time_ns(arg, ns)) {
		fprintf(stderr, "dmlscope watch: invalid --%s '%s' (e.g. 1s, 500ms, 2.5)\n", name,
			arg);
		return -1;
	}
	return 0;
}

static int parse_snaplen(const char *arg, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || v < 64 || v > DMLS_LIVE_DEFAULT_SNAPLEN) {
		fprintf(stderr, "dmlscope watch: invalid --snaplen '%s' (64 to %d bytes)\n", arg,
			DMLS_LIVE_DEFAULT_SNAPLEN);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* --buffer: the kernel ring per interface, 1 MB to 2 GB (1MB, 256MB, 1e8). */
static int parse_buffer(const char *arg, unsigned *out)
{
	double v;
	if (dmls_parse_size(arg, &v) || v < 1e6 || v > 2e9) {
		fprintf(stderr, "dmlscope watch: invalid --buffer '%s' (1MB to 2GB)\n", arg);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_opt(int c, struct watch_opts *o, char **argv)
{
	switch (c) {
	case 'i':
		if (o->nifaces == DMLS_LIVE_MAX_IFACES) {
			fprintf(stderr, "dmlscope watch: more than %d interfaces\n",
				DMLS_LIVE_MAX_IFACES);
			return -1;
		}
		o->ifaces[o->nifaces++] = optarg;
		return 0;
	case 'f': o->filter = optarg; return 0;
	case 'w': o->write = optarg; return 0;
	case 'j': o->json = optarg; return 0;
	case 'l': o->json_lines = optarg; return 0;
	case 'I': return parse_time("interval", optarg, &o->interval_ns);
	case 'W': return parse_time("window", optarg, &o->window_ns);
	case 'd': return parse_time("duration", optarg, &o->duration_ns);
	case 's': return parse_snaplen(optarg, &o->snaplen);
	case 'B': return parse_buffer(optarg, &o->buffer_bytes);
	case 'T': return cli_tunnels("watch", optarg, &o->decode_flags);
	case 'h': fputs(usage_text, stdout); exit(0);
	default: return cli_option_error("watch", c, argv);
	}
}

static int parse_args(int argc, char **argv, struct watch_opts *o)
{
	static const struct option longopts[] = {
		{"interface", required_argument, NULL, 'i'},
		{"filter", required_argument, NULL, 'f'},
		{"interval", required_argument, NULL, 'I'},
		{"window", required_argument, NULL, 'W'},
		{"duration", required_argument, NULL, 'd'},
		{"write", required_argument, NULL, 'w'},
		{"snaplen", required_argument, NULL, 's'},
		{"buffer", required_argument, NULL, 'B'},
		{"json", required_argument, NULL, 'j'},
		{"json-lines", required_argument, NULL, 'l'},
		{"tunnels", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:w:h", longopts, NULL)) != -1)
		if (parse_opt(c, o, argv))
			return -1;
	if (optind < argc) {
		fprintf(stderr, "dmlscope watch: unexpected argument '%s' (interfaces go after -i)\n",
			argv[optind]);
		return -1;
	}
	if (!o->nifaces) {
		fprintf(stderr, "dmlscope watch: no interface given (-i IFACE); see 'dmlscope watch "
				"--help'\n");
		return -1;
	}
	if (o->write && !strcmp(o->write, "-")) {
		fprintf(stderr, "dmlscope watch: -w takes a file, not '-'\n");
		return -1;
	}
	if (!o->interval_ns)
		o->interval_ns = 1000000000LL;
	return 0;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Where the interval objects go: NULL (the screen), stdout or a file. */
struct sink_out {
	FILE *lines;
	int screen;
	uint64_t ev_from;
};

static int feed(void *ctx, const dmls_pkt *p)
{
	return dmls_watch_add(ctx, p) ? DMLS_ENOMEM : 0;
}

static int write_line(FILE *fp, json_t *o)
{
	if (!o)
		return DMLS_ENOMEM;
	int rc = json_dumpf(o, fp, JSON_COMPACT | JSON_REAL_PRECISION(12) | JSON_ENSURE_ASCII);
	json_decref(o);
	if (rc || fputc('\n', fp) == EOF || fflush(fp))
		return DMLS_EIO;
	return 0;
}

/* One interval: tick the watch, render the screen or a JSON line. */
static int interval(dmls_watch *w, dmls_live *lv, struct sink_out *out, const char *ifaces)
{
	dmls_error err;
	dmls_live_drops d;
	int rc = dmls_watch_tick(w, clock_ns(CLOCK_REALTIME), &err);
	if (!rc)
		rc = dmls_live_get_drops(lv, &d, &err);
	if (rc) {
		fprintf(stderr, "dmlscope watch: %s\n", err.msg);
		return rc;
	}
	dmls_result res;
	int have = w->have_view && w->view.packets &&
		   dmls_result_init_stats(&res, &w->view, w->view_analysis) == DMLS_OK;
	dmls_watch_frame f = {w, have ? &res : NULL, &d, ifaces, out->ev_from};
	if (out->screen) {
		fputs("\033[H\033[2J", stdout);
		dmls_render_watch_screen(&f, stdout);
		fflush(stdout);
	}
	if (out->lines && (rc = write_line(out->lines, dmls_render_watch_json(&f))))
		fprintf(stderr, "dmlscope watch: cannot write the JSON lines\n");
	if (have)
		dmls_result_release(&res);
	out->ev_from = w->nevents;
	return rc;
}

/* Capture until a signal or the duration; an interval at every tick. */
static int capture(dmls_watch *w, dmls_live *lv, const struct watch_opts *o,
		   struct sink_out *out, const char *ifaces)
{
	int64_t t0 = clock_ns(CLOCK_MONOTONIC), next = t0 + o->interval_ns;
	int64_t end = o->duration_ns ? t0 + o->duration_ns : INT64_MAX;
	dmls_error err;
	while (!stop_signal) {
		int64_t now = clock_ns(CLOCK_MONOTONIC), until = next < end ? next : end;
		int wait_ms = until > now ? (int)((until - now + 999999) / 1000000) : 0;
		int rc = dmls_live_poll(lv, wait_ms > 200 ? 200 : wait_ms, feed, w, &err);
		if (rc) {
			fprintf(stderr, "dmlscope watch: %s\n", err.msg);
			return rc;
		}
		now = clock_ns(CLOCK_MONOTONIC);
		if (now >= next) {
			if ((rc = interval(w, lv, out, ifaces)))
				return rc;
			next += o->interval_ns;
			if (next <= now)
				next = now + o->interval_ns;
		}
		if (now >= end)
			break;
	}
	if (dmls_live_drain(lv, feed, w, &err)) {
		fprintf(stderr, "dmlscope watch: %s\n", err.msg);
		return err.status;
	}
	return 0;
}

/* The final outputs of the analyzed job: analyze's text and JSON, with
 * the capture's counters ("live") beside them. */
static int final_outputs(const dmls_job *job, json_t *live, const struct watch_opts *o,
			 const struct sink_out *out, const dmls_live_drops *d)
{
	dmls_result res;
	if (dmls_result_init(&res, job)) {
		dmls_result_release(&res);
		json_decref(live);
		fprintf(stderr, "dmlscope watch: out of memory\n");
		return DMLS_ENOMEM;
	}
	int text = out->lines != stdout && !(o->json && !strcmp(o->json, "-"));
	if (text) {
		dmls_render_text(&res, stdout);
		dmls_render_watch_drops_text(d, stdout);
	}
	json_t *doc = dmls_render_json(&res);
	dmls_result_release(&res);
	int rc = 0;
	if (doc && live)
		json_object_set(doc, "live", live);
	json_decref(live);
	if (doc && out->lines) {
		json_t *line = json_pack("{s:s}", "type", "summary");
		if (line)
			json_object_update(line, doc);
		if ((rc = write_line(out->lines, line)))
			fprintf(stderr, "dmlscope watch: cannot write the JSON lines\n");
	}
	if (!rc && o->json)
		rc = cli_write_json(json_incref(doc), o->json, "watch", 12);
	json_decref(doc);
	return rc ? rc : cli_flush_stdout("watch");
}

/* Stop: the drops, the written file, then the whole capture analyzed as
 * analyze would analyze the written file. */
static int summary(dmls_watch *w, dmls_live *lv, const struct watch_opts *o,
		   const struct sink_out *out, const char *ifaces)
{
	dmls_error err;
	dmls_live_drops d;
	int rc = dmls_live_get_drops(lv, &d, &err);
	if (!rc)
		rc = dmls_live_close_writer(lv, &err);
	if (rc) {
		fprintf(stderr, "dmlscope watch: %s\n", err.msg);
		return rc;
	}
	const dmls_input_counts *c = dmls_live_get_counts(lv);
	dmls_input_file file = {0};
	file.path = (char *)(o->write ? o->write : ifaces);
	file.format = o->write ? "pcap" : "live";
	file.linktype = dmls_live_linktype(lv);
	file.records = c->records;
	file.packets = c->packets;
	json_t *live = dmls_render_watch_live(w, &d, o->ifaces, o->nifaces, dmls_live_snaplen(lv));
	dmls_stats st;
	dmls_watch_detach(w, &st);
	dmls_job job;
	rc = dmls_job_analyze_stats(&job, &st, c, &file, o->write, ifaces, &err);
	if (rc) {
		fprintf(stderr, "dmlscope watch: %s\n", err.msg);
		json_decref(live);
	} else {
		rc = final_outputs(&job, live, o, out, &d);
	}
	if (!rc && job.stats.packets == 0) /* a quiet interface is no error */
		fprintf(stderr, "dmlscope watch: no IP packets captured on '%s'\n", ifaces);
	dmls_job_release(&job);
	return rc;
}

static void join_ifaces(const struct watch_opts *o, char *buf, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; i < o->nifaces; i++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? "," : "", o->ifaces[i]);
}

static int open_lines(const struct watch_opts *o, struct sink_out *out)
{
	int tty = isatty(STDOUT_FILENO);
	out->screen = tty && !(o->json_lines && !strcmp(o->json_lines, "-"));
	if (!o->json_lines) {
		out->lines = tty ? NULL : stdout;
		return 0;
	}
	out->lines = strcmp(o->json_lines, "-") ? fopen(o->json_lines, "w") : stdout;
	if (!out->lines) {
		fprintf(stderr, "dmlscope watch: '%s': cannot write\n", o->json_lines);
		return DMLS_EIO;
	}
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_opts o = {0};
	if (parse_args(argc, argv, &o))
		return DMLS_EUSAGE;
	struct sink_out out = {0};
	int rc = open_lines(&o, &out);
	if (rc)
		return rc;
	dmls_live_opts lo = {.ifaces = o.ifaces, .nifaces = o.nifaces, .filter = o.filter,
			     .snaplen = o.snaplen, .buffer_bytes = o.buffer_bytes,
			     .write_path = o.write, .decode_flags = o.decode_flags};
	dmls_live *lv;
	dmls_error err;
	if ((rc = dmls_live_open(&lv, &lo, &err))) {
		fprintf(stderr, "dmlscope watch: %s\n", err.msg);
		if (out.lines && out.lines != stdout)
			fclose(out.lines);
		return rc;
	}
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	char ifaces[256];
	join_ifaces(&o, ifaces, sizeof(ifaces));
	dmls_watch w;
	dmls_watch_opts wo = {0, {0, 0, 0, 0}, o.window_ns, o.interval_ns};
	dmls_watch_init(&w, &wo);
	rc = capture(&w, lv, &o, &out, ifaces);
	if (!rc)
		rc = summary(&w, lv, &o, &out, ifaces);
	dmls_watch_release(&w);
	dmls_live_free(lv);
	if (out.lines && out.lines != stdout && fclose(out.lines) && !rc) {
		fprintf(stderr, "dmlscope watch: '%s': cannot write\n", o.json_lines);
		rc = DMLS_EIO;
	}
	return rc;
}
