/*
 * watch_out.c - the live screen and the JSON lines of `watch`.
 *
 * Sizes in SI units (1 MB = 10^6 bytes) and rates in bit/s, as the
 * analyze summary (text.c).  The interval object takes analyze's own
 * "pattern", "iterations" (without the per-iteration lists) and "model"
 * sections of the recent window, so a reader of analyze --json reads them
 * the same way; the rest (counters, drops, events) is watch's own.
 */
#include "dmlscope/render_watch.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "dmlscope/render.h"
#include "out/text_int.h"

#define SCREEN_EVENTS 6

/* hh:mm:ss.mmm UTC of a capture time */
static const char *fmt_clock(int64_t ts_ns, char *buf, size_t n)
{
	time_t s = (time_t)(ts_ns / 1000000000LL);
	struct tm tm;
	gmtime_r(&s, &tm);
	snprintf(buf, n, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(ts_ns / 1000000 % 1000));
	return buf;
}

json_t *dmls_render_watch_event(const dmls_watch_event *e, int64_t start_ns)
{
	json_t *o = json_pack("{s:s, s:o, s:o, s:s}", "type", dmls_watch_event_name(e->kind),
			      "time_s", dmls_json_real((double)(e->ts_ns - start_ns) / 1e9),
			      "unix_time_s", dmls_json_real((double)e->ts_ns / 1e9), "text", e->text);
	if (!o)
		return NULL;
	if (e->kind == DMLS_EV_PATTERN) {
		json_object_set_new(o, "pattern", json_string(dmls_pattern_name(e->pattern)));
		json_object_set_new(o, "ranks", json_integer((json_int_t)e->ranks));
	} else if (e->kind == DMLS_EV_PERIOD) {
		json_object_set_new(o, "old_period_s", dmls_json_real(e->old_period_s));
		json_object_set_new(o, "period_s", dmls_json_real(e->period_s));
	} else if (e->kind == DMLS_EV_LOST_RANK) {
		json_object_set_new(o, "host", json_string(e->host));
	}
	return o;
}

static json_t *events_json(const dmls_watch *w, uint64_t from)
{
	json_t *a = json_array();
	if (from + DMLS_WATCH_EVENTS < w->nevents)
		from = w->nevents - DMLS_WATCH_EVENTS;
	for (uint64_t k = from; a && k < w->nevents; k++)
		json_array_append_new(a, dmls_render_watch_event(dmls_watch_get_event(w, k),
								 w->start_ns));
	return a;
}

static json_t *drops_json(const dmls_live_drops *d)
{
	return json_pack("{s:I, s:I, s:I}", "received_packets", (json_int_t)d->received,
			 "dropped_packets", (json_int_t)d->dropped, "interface_dropped_packets",
			 (json_int_t)d->if_dropped);
}

/* analyze's sections of the recent window, without per-iteration lists. */
static void view_sections(json_t *o, const dmls_result *view)
{
	json_t *doc = view ? dmls_render_json(view) : NULL;
	static const char *const keys[] = {"pattern", "iterations", "model"};
	for (size_t i = 0; i < 3; i++) {
		json_t *s = doc ? json_object_get(doc, keys[i]) : NULL;
		json_object_set(o, keys[i], s ? s : json_null());
	}
	json_t *it = doc ? json_object_get(doc, "iterations") : NULL;
	if (json_is_object(it)) {
		json_object_del(it, "starts_s");
		json_object_del(it, "boundaries_s");
		json_object_del(it, "comm_end_s");
		json_object_del(it, "payload_bytes");
	}
	json_decref(doc);
}

static json_t *top_pairs_json(const dmls_result *view)
{
	json_t *a = json_array();
	for (size_t i = 0; view && a && i < view->ntop_pairs; i++) {
		const dmls_stats *st = view->stats;
		const dmls_pair *p = &st->pairs[view->top_pairs[i]];
		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:o}", "src",
						   st->hosts[p->src].name, "dst",
						   st->hosts[p->dst].name, "wire_bytes",
						   (json_int_t)p->wire_bytes, "percent",
						   dmls_json_real(view->top_pair_percent[i])));
	}
	return a;
}

json_t *dmls_render_watch_json(const dmls_watch_frame *f)
{
	const dmls_watch *w = f->w;
	const dmls_stats *st = &w->all;
	double rate = st->packets ? (double)st->retransmissions / (double)st->packets : NAN;
	json_t *o = json_pack(
		"{s:s, s:o, s:o, s:o, s:{s:I, s:I, s:I, s:o}, s:{s:o, s:I, s:I, s:o}, s:{s:I, s:o}}",
		"type", "interval", "time_s", dmls_json_real((double)(w->last_tick_ns - w->start_ns) / 1e9),
		"unix_time_s", dmls_json_real((double)w->last_tick_ns / 1e9), "window_s",
		dmls_json_real(w->view_span_s), "input", "packets", (json_int_t)st->packets,
		"wire_bytes", (json_int_t)st->wire_bytes, "payload_bytes",
		(json_int_t)st->payload_bytes, "duration_s",
		dmls_json_real(dmls_stats_duration_s(st)), "throughput", "interval_s",
		dmls_json_real(w->interval_s), "packets", (json_int_t)w->interval_packets,
		"wire_bytes", (json_int_t)w->interval_wire_bytes, "mean_bps",
		dmls_json_real(w->throughput_bps), "loss", "retransmissions",
		(json_int_t)st->retransmissions, "rate", dmls_json_real(rate));
	if (!o)
		return NULL;
	view_sections(o, f->view);
	json_t *it = json_object_get(o, "iterations");
	if (json_is_object(it))
		json_object_set_new(it, "period_trend", dmls_json_real(w->trend));
	json_object_set_new(o, "top_pairs", top_pairs_json(f->view));
	json_object_set_new(o, "capture", drops_json(f->drops));
	json_object_set_new(o, "events", events_json(w, f->ev_from));
	return o;
}

json_t *dmls_render_watch_live(const dmls_watch *w, const dmls_live_drops *d,
			       const char *const *ifaces, size_t nifaces, int snaplen)
{
	json_t *o = drops_json(d), *names = json_array();
	if (!o || !names) {
		json_decref(o);
		json_decref(names);
		return NULL;
	}
	for (size_t i = 0; i < nifaces; i++)
		json_array_append_new(names, json_string(ifaces[i]));
	json_object_set_new(o, "interfaces", names);
	json_object_set_new(o, "snaplen_bytes", json_integer(snaplen));
	json_object_set_new(o, "events_total", json_integer((json_int_t)w->nevents));
	json_object_set_new(o, "events", events_json(w, 0));
	return o;
}

void dmls_render_watch_drops_text(const dmls_live_drops *d, FILE *fp)
{
	fprintf(fp, "\ncapture: %llu packets received, %llu dropped by the kernel, %llu by the "
		    "interface\n",
		(unsigned long long)d->received, (unsigned long long)d->dropped,
		(unsigned long long)d->if_dropped);
	if (d->dropped || d->if_dropped)
		fprintf(fp, "warning: %llu packets were dropped before dmlscope saw them: the "
			    "numbers above miss them\n",
			(unsigned long long)(d->dropped + d->if_dropped));
}

static void screen_view(const dmls_watch *w, const dmls_result *v, FILE *fp)
{
	char a[32], b[32], c[32];
	if (!v || !v->has_analysis || v->pattern.kind == DMLS_PAT_UNKNOWN) {
		fprintf(fp, "pattern     (not yet: too few iterations in the window)\n");
		return;
	}
	fprintf(fp, "pattern     %s of %lld ranks (confidence %.2f)\n", v->pattern.name,
		(long long)v->pattern.ranks, v->pattern.confidence);
	if (isfinite(v->iter.period_median_s)) {
		fprintf(fp, "period      %.4f s (median of %lld iterations)", v->iter.period_median_s,
			(long long)v->iter.count);
		if (isfinite(w->trend))
			fprintf(fp, ", %+.1f %% from %.4f s", 100 * w->trend, w->base_period_s);
		fputc('\n', fp);
	} else {
		fprintf(fp, "period      (not yet)\n");
	}
	if (isfinite(v->model.observed_iteration_bytes) || isfinite(v->iter.bytes_per_worker))
		fprintf(fp, "per iter    %s all ranks, %s per worker; gradient %s\n",
			isfinite(v->model.observed_iteration_bytes)
				? dmls_fmt_bytes(v->model.observed_iteration_bytes, a, sizeof(a))
				: "n/a",
			isfinite(v->iter.bytes_per_worker)
				? dmls_fmt_bytes(v->iter.bytes_per_worker, b, sizeof(b))
				: "n/a",
			isfinite(v->model.gradient_bytes)
				? dmls_fmt_bytes(v->model.gradient_bytes, c, sizeof(c))
				: "n/a");
}

static void screen_pairs(const dmls_result *v, FILE *fp)
{
	char a[32];
	for (size_t i = 0; v && i < v->ntop_pairs && i < 5; i++) {
		const dmls_stats *st = v->stats;
		const dmls_pair *p = &st->pairs[v->top_pairs[i]];
		char label[100];
		snprintf(label, sizeof(label), "%s -> %s", st->hosts[p->src].name,
			 st->hosts[p->dst].name);
		fprintf(fp, "%-11s %-40s %-10s %5.1f %%\n", i ? "" : "top pairs", label,
			dmls_fmt_bytes((double)p->wire_bytes, a, sizeof(a)), v->top_pair_percent[i]);
	}
}

static void screen_events(const dmls_watch *w, FILE *fp)
{
	uint64_t from = w->nevents > SCREEN_EVENTS ? w->nevents - SCREEN_EVENTS : 0;
	char t[32];
	if (!w->nevents)
		fprintf(fp, "events      none\n");
	for (uint64_t k = from; k < w->nevents; k++) {
		const dmls_watch_event *e = dmls_watch_get_event(w, k);
		fprintf(fp, "%-11s %s  %s\n", k == from ? "events" : "",
			fmt_clock(e->ts_ns, t, sizeof(t)), e->text);
	}
}

void dmls_render_watch_screen(const dmls_watch_frame *f, FILE *fp)
{
	const dmls_watch *w = f->w;
	const dmls_stats *st = &w->all;
	char a[32], b[32], t[32];
	fprintf(fp, "dmlscope watch %s   %s UTC   %.0f s   window %.1f s\n\n", f->ifaces,
		fmt_clock(w->last_tick_ns, t, sizeof(t)),
		(double)(w->last_tick_ns - w->start_ns) / 1e9, w->view_span_s);
	screen_view(w, f->view, fp);
	fprintf(fp, "throughput  %s now (%llu packets in %.1f s); total %s, %llu packets\n",
		dmls_fmt_bps(w->throughput_bps, a, sizeof(a)), (unsigned long long)w->interval_packets,
		w->interval_s, dmls_fmt_bytes((double)st->wire_bytes, b, sizeof(b)),
		(unsigned long long)st->packets);
	screen_pairs(f->view, fp);
	fprintf(fp, "loss        %llu retransmissions (%.2f %% of packets)\n",
		(unsigned long long)st->retransmissions,
		st->packets ? 100.0 * (double)st->retransmissions / (double)st->packets : 0.0);
	const dmls_live_drops *d = f->drops;
	fprintf(fp, "drops       %llu of %llu received (kernel %llu, interface %llu)%s\n",
		(unsigned long long)(d->dropped + d->if_dropped), (unsigned long long)d->received,
		(unsigned long long)d->dropped, (unsigned long long)d->if_dropped,
		d->dropped || d->if_dropped ? "  <- the numbers miss them" : "");
	screen_events(w, fp);
	fprintf(fp, "\nCtrl-C: stop and print the summary\n");
}
