/*
 * watch.c - online pattern, period and events of a live capture (watch.h).
 *
 * The online view re-runs the offline stages on a recent window instead of
 * inventing online estimators: the window is a dmls_stats restarted every
 * 2 x window, copied at each interval by an exact merge into an empty
 * state (sink.h), finished and analyzed (analysis.c).  The copy costs one
 * pass over the window's tables and series, whose size the stats' caps and
 * series budgets bound, so an interval's work does not grow with the
 * watch's age, and neither does memory: one window, one copy, one
 * analysis, a ring of events.
 *
 * Change detection compares the view with what was last reported (a
 * pattern or rank count that differs; a period that moved more than
 * DMLS_WATCH_PERIOD_CHANGE, a threshold and no statistical test: the
 * window's median period of a healthy job moves a few percent) and ranks'
 * last sent packets with the capture clock (silence, stall).
 */
#include "dmlscope/watch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_WINDOW_NS 10000000000LL
#define DEFAULT_INTERVAL_NS 1000000000LL
#define MIN_SILENCE_NS 1000000000LL

const char *dmls_watch_event_name(int kind)
{
	static const char *const names[] = {"pattern", "period", "lost_rank", "stall", "resume"};
	return kind >= 0 && kind <= DMLS_EV_RESUME ? names[kind] : "unknown";
}

static void win_init(dmls_watch *w)
{
	dmls_stats_limits lim = w->opts.limits;
	lim.mergeable = 1;
	dmls_stats_init_limits(&w->win, w->opts.bin_ns, &lim);
}

int dmls_watch_init(dmls_watch *w, const dmls_watch_opts *opts)
{
	memset(w, 0, sizeof(*w));
	if (opts)
		w->opts = *opts;
	if (w->opts.window_ns <= 0)
		w->opts.window_ns = DEFAULT_WINDOW_NS;
	if (w->opts.interval_ns <= 0)
		w->opts.interval_ns = DEFAULT_INTERVAL_NS;
	dmls_stats_init_limits(&w->all, w->opts.bin_ns, &w->opts.limits);
	win_init(w);
	w->win_start_ns = INT64_MIN;
	w->start_ns = w->last_tick_ns = INT64_MIN;
	w->base_period_s = w->cand_period_s = w->trend = NAN;
	w->interval_s = w->throughput_bps = NAN;
	return DMLS_OK;
}

static void drop_view(dmls_watch *w)
{
	if (w->view_analysis)
		dmls_analysis_free(w->view_analysis);
	w->view_analysis = NULL;
	if (w->have_view)
		dmls_stats_release(&w->view);
	w->have_view = 0;
}

void dmls_watch_release(dmls_watch *w)
{
	drop_view(w);
	dmls_stats_release(&w->win);
	if (!w->detached)
		dmls_stats_release(&w->all);
	memset(w, 0, sizeof(*w));
}

int dmls_watch_add(dmls_watch *w, const dmls_pkt *p)
{
	if (w->detached)
		return -1;
	return dmls_stats_add(&w->all, p) || dmls_stats_add(&w->win, p) ? -1 : 0;
}

const dmls_watch_event *dmls_watch_get_event(const dmls_watch *w, uint64_t k)
{
	if (k >= w->nevents || w->nevents - k > DMLS_WATCH_EVENTS)
		return NULL;
	return &w->events[k % DMLS_WATCH_EVENTS];
}

static dmls_watch_event *new_event(dmls_watch *w, int kind, int64_t ts_ns)
{
	dmls_watch_event *e = &w->events[w->nevents++ % DMLS_WATCH_EVENTS];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->ts_ns = ts_ns;
	e->old_period_s = e->period_s = NAN;
	return e;
}

/* Copy the window, finish and analyze the copy: the new view. */
static int make_view(dmls_watch *w, int64_t now_ns, dmls_error *err)
{
	drop_view(w);
	dmls_stats_limits lim = w->opts.limits;
	lim.mergeable = 1;
	dmls_stats_init_limits(&w->view, w->opts.bin_ns, &lim);
	w->have_view = 1;
	if (dmls_stats_merge(&w->view, &w->win) || dmls_stats_finish(&w->view))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	w->view_span_s = (double)(now_ns - w->win_start_ns) / 1e9;
	if (w->view.packets == 0)
		return DMLS_OK;
	dmls_error aerr;
	int rc = dmls_analysis_run(&w->view_analysis, &w->view, NULL, &aerr);
	if (rc != DMLS_OK)
		w->view_analysis = NULL;
	if (rc == DMLS_ENOMEM)
		return dmls_fail(err, rc, "%s", aerr.msg);
	return DMLS_OK;
}

/* Start, restart or copy the recent window. */
static int update_window(dmls_watch *w, int64_t now_ns, dmls_error *err)
{
	int64_t W = w->opts.window_ns;
	if (w->win_start_ns == INT64_MIN)
		w->win_start_ns = now_ns - w->opts.interval_ns; /* the first interval's packets */
	if (now_ns - w->win_start_ns >= 2 * W) {
		dmls_stats_release(&w->win);
		win_init(w);
		w->win_start_ns = now_ns;
		return DMLS_OK; /* the view of the old window stays */
	}
	/* a young window replaces the view only when that view found no job */
	int no_job = !w->view_analysis || w->view_analysis->pattern.kind == DMLS_PAT_UNKNOWN;
	if (now_ns - w->win_start_ns >= W || no_job || w->start_ns + 2 * W > now_ns)
		return make_view(w, now_ns, err);
	return DMLS_OK;
}

static void remember_members(dmls_watch *w, const dmls_pattern *pat)
{
	w->nmembers = 0;
	for (size_t i = 0; i < pat->ranks && w->nmembers < DMLS_WATCH_MAX_MEMBERS; i++) {
		dmls_watch_member *m = &w->members[w->nmembers++];
		memcpy(m->addr, w->view.hosts[pat->members[i]].addr, 16);
		m->lost = 0;
		m->payload = 0;
		m->last_data_ns = INT64_MIN;
	}
}

/* Pattern and period events from the view. */
static void view_events(dmls_watch *w, int64_t now_ns)
{
	const dmls_analysis *a = w->view_analysis;
	w->trend = NAN;
	if (w->stalled) /* a window around the stop has no period to report */
		return;
	if (!a || a->iter.count < DMLS_WATCH_MIN_ITERATIONS || !isfinite(a->iter.period_median_s) ||
	    a->pattern.kind == DMLS_PAT_UNKNOWN)
		return;
	const dmls_pattern *pat = &a->pattern;
	if (pat->kind != w->known_kind || pat->ranks != w->known_ranks) {
		dmls_watch_event *e = new_event(w, DMLS_EV_PATTERN, now_ns);
		e->pattern = pat->kind;
		e->ranks = pat->ranks;
		snprintf(e->text, sizeof(e->text), "pattern %s of %zu ranks%s",
			 dmls_pattern_name(pat->kind), pat->ranks,
			 w->known_ranks && pat->ranks < w->known_ranks ? " (a rank left)" : "");
		w->known_kind = pat->kind;
		w->known_ranks = pat->ranks;
		remember_members(w, pat);
	}
	double p = a->iter.period_median_s, b = w->base_period_s, c = w->cand_period_s;
	int moved = !isfinite(b) || fabs(p / b - 1) > DMLS_WATCH_PERIOD_CHANGE;
	/* the first period and a change count when two views in a row agree
	 * on them (a first view of 3 iterations, one window's edge, a rank
	 * dying mid-iteration must not make an event) */
	w->cand_period_s = moved ? p : NAN;
	if (moved && isfinite(c) && fabs(p / c - 1) <= DMLS_WATCH_PERIOD_CHANGE) {
		dmls_watch_event *e = new_event(w, DMLS_EV_PERIOD, now_ns);
		e->old_period_s = b;
		e->period_s = p;
		if (isfinite(b))
			snprintf(e->text, sizeof(e->text), "iteration period %.4f s -> %.4f s", b, p);
		else
			snprintf(e->text, sizeof(e->text), "iteration period %.4f s", p);
		w->base_period_s = b = p;
		w->cand_period_s = NAN;
	}
	w->trend = isfinite(b) ? p / b - 1 : NAN;
}

/* When member m last sent payload (pure ACKs of a rank that stopped do not
 * count): the time of its last packet in an interval its payload grew. */
static int64_t last_data(const dmls_watch *w, dmls_watch_member *m)
{
	long h = dmls_stats_find_host(&w->all, m->addr);
	if (h >= 0 && w->all.hosts[h].tx_payload_bytes > m->payload) {
		m->payload = w->all.hosts[h].tx_payload_bytes;
		m->last_data_ns = w->all.hosts[h].last_ns;
	}
	return m->last_data_ns;
}

/* Silent ranks (lost_rank), a silent job (stall) and its end (resume):
 * silence is no payload sent. */
static void silence_events(dmls_watch *w, int64_t now_ns)
{
	int64_t thr = 2 * w->opts.interval_ns;
	if (isfinite(w->base_period_s) && 3e9 * w->base_period_s > (double)thr)
		thr = (int64_t)(3e9 * w->base_period_s);
	if (thr < MIN_SILENCE_NS)
		thr = MIN_SILENCE_NS;
	int64_t job_last = INT64_MIN; /* no job known yet: background traffic is no job */
	size_t active = 0;
	for (size_t i = 0; i < w->nmembers; i++) {
		int64_t t = last_data(w, &w->members[i]);
		if (t > job_last)
			job_last = t;
		active += t != INT64_MIN && now_ns - t <= thr;
	}
	for (size_t i = 0; i < w->nmembers; i++) {
		dmls_watch_member *m = &w->members[i];
		int64_t t = m->last_data_ns;
		int silent = t == INT64_MIN || now_ns - t > thr;
		if (silent && !m->lost && active > 0) {
			dmls_watch_event *e = new_event(w, DMLS_EV_LOST_RANK, t == INT64_MIN ? now_ns : t);
			char name[48];
			dmls_addr_format(m->addr, name, sizeof(name));
			memcpy(e->host, name, sizeof(e->host));
			snprintf(e->text, sizeof(e->text), "rank %s stopped sending", name);
		}
		m->lost = silent;
	}
	if (job_last == INT64_MIN)
		return;
	if (!w->stalled && now_ns - job_last > thr) {
		dmls_watch_event *e = new_event(w, DMLS_EV_STALL, job_last);
		snprintf(e->text, sizeof(e->text), "stall: no rank sent for %.1f s",
			 (double)(now_ns - job_last) / 1e9);
		w->stalled = 1;
	} else if (w->stalled && now_ns - job_last <= thr) {
		dmls_watch_event *e = new_event(w, DMLS_EV_RESUME, now_ns);
		snprintf(e->text, sizeof(e->text), "traffic again after a stall");
		w->stalled = 0;
	}
}

int dmls_watch_tick(dmls_watch *w, int64_t now_ns, dmls_error *err)
{
	if (w->start_ns == INT64_MIN)
		w->start_ns = w->last_tick_ns = now_ns - w->opts.interval_ns;
	w->interval_s = (double)(now_ns - w->last_tick_ns) / 1e9;
	w->interval_packets = w->all.packets - w->tick_packets;
	w->interval_wire_bytes = w->all.wire_bytes - w->tick_wire_bytes;
	w->throughput_bps =
		w->interval_s > 0 ? 8.0 * (double)w->interval_wire_bytes / w->interval_s : NAN;
	w->tick_packets = w->all.packets;
	w->tick_wire_bytes = w->all.wire_bytes;
	w->last_tick_ns = now_ns;
	int rc = update_window(w, now_ns, err);
	if (rc)
		return rc;
	view_events(w, now_ns);
	silence_events(w, now_ns);
	return DMLS_OK;
}

void dmls_watch_detach(dmls_watch *w, dmls_stats *out)
{
	*out = w->all;
	w->detached = 1;
	memset(&w->all, 0, sizeof(w->all));
}
