/*
 * watch.h - the job seen while it runs: online pattern, period and events.
 *
 * A dmls_watch is fed the packets of a live capture (live.h) one by one and
 * keeps two things in bounded memory:
 *   - all: the whole capture's dmls_stats, made exactly as analyze makes
 *     it (same options, same sinks), finished only at the end, so the final
 *     summary is analyze's on the same packets (dmls_watch_detach);
 *   - a recent window: a second dmls_stats restarted every 2 x window.
 *     At each interval (dmls_watch_tick) a copy of it (dmls_stats_merge
 *     into an empty state, exact: sink.h) is finished and analyzed by the
 *     same stages as analyze (dmls_analysis_run): the current pattern,
 *     ranks, period and bytes per iteration.  A window younger than
 *     `window` keeps the previous window's view, so the view always rests on
 *     window to 2 x window of traffic (after the first window).
 * Neither grows with time: the stats are bounded (stats.h), the view is
 * replaced at each interval, events are kept in a ring of the last
 * DMLS_WATCH_EVENTS.
 *
 * Events, each with the capture time it happened at:
 *   pattern    the recent view's pattern or rank count is new (the first
 *              one once 3 iterations are seen, then every change)
 *   period     the recent period (median of iteration intervals): the
 *              first one, then each move of more than
 *              DMLS_WATCH_PERIOD_CHANGE from the last reported, once two
 *              views in a row agree on it (within the same fraction)
 *   lost_rank  a rank of the job sent no payload for the silence
 *              threshold while another rank still did (time: its last
 *              packet of the last interval it sent payload in; a dead
 *              rank's host may still acknowledge)
 *   stall      no rank of the job sent payload for the silence threshold
 *              (time: the same; only once a pattern is known: before,
 *              background traffic is no job)
 *   resume     traffic again after a stall (time: the tick that saw it)
 * While the job is stalled, the view makes no pattern or period event.
 * The silence threshold is max(2 intervals, 3 periods, 1 s).
 */
#ifndef DMLSCOPE_WATCH_H
#define DMLSCOPE_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/analysis.h"
#include "dmlscope/error.h"
#include "dmlscope/stats.h"

#define DMLS_WATCH_EVENTS 32
#define DMLS_WATCH_MAX_MEMBERS 64
#define DMLS_WATCH_PERIOD_CHANGE 0.25
#define DMLS_WATCH_MIN_ITERATIONS 3

enum dmls_watch_event_kind {
	DMLS_EV_PATTERN,
	DMLS_EV_PERIOD,
	DMLS_EV_LOST_RANK,
	DMLS_EV_STALL,
	DMLS_EV_RESUME,
};

/* "pattern", "period", "lost_rank", "stall", "resume". */
const char *dmls_watch_event_name(int kind);

typedef struct dmls_watch_event {
	int kind;             /* enum dmls_watch_event_kind */
	int64_t ts_ns;        /* capture time (Unix ns) */
	int pattern;          /* pattern: enum dmls_pattern_kind */
	size_t ranks;         /* pattern: ranks */
	double old_period_s, period_s; /* period (old NAN for the first) */
	char host[48];        /* lost_rank: the rank's address */
	char text[160];       /* one line for people */
} dmls_watch_event;

typedef struct dmls_watch_opts {
	int64_t bin_ns;            /* as analyze --bin (0: 1 ms) */
	dmls_stats_limits limits;  /* as analyze --max-hosts/--max-flows */
	int64_t window_ns;         /* recent window (0: 10 s) */
	int64_t interval_ns;       /* the caller's tick interval (0: 1 s) */
} dmls_watch_opts;

typedef struct dmls_watch_member {
	uint8_t addr[16];
	int lost;
	uint64_t payload;          /* its tx payload bytes at the last tick */
	int64_t last_data_ns;      /* its last packet in an interval it sent payload */
} dmls_watch_member;

typedef struct dmls_watch {
	dmls_watch_opts opts;
	dmls_stats all;            /* the whole capture (analyze's) */
	int detached;
	dmls_stats win;            /* the recent window (mergeable) */
	int64_t win_start_ns;      /* INT64_MIN: not started */
	/* the view: a finished copy of the window and its analysis */
	dmls_stats view;
	int have_view;
	dmls_analysis *view_analysis; /* NULL: not analyzable yet */
	double view_span_s;        /* seconds of traffic it holds */
	/* what the last interval saw */
	int64_t start_ns, last_tick_ns;
	uint64_t tick_packets, tick_wire_bytes;
	double interval_s, throughput_bps; /* of the last interval */
	uint64_t interval_packets, interval_wire_bytes;
	/* event state */
	int known_kind;
	size_t known_ranks;
	double base_period_s;      /* the last reported period, NAN */
	double cand_period_s;      /* a change seen by the last view only, NAN */
	double trend;              /* view period / base - 1, NAN */
	size_t nmembers;
	dmls_watch_member members[DMLS_WATCH_MAX_MEMBERS];
	int stalled;
	dmls_watch_event events[DMLS_WATCH_EVENTS]; /* ring */
	uint64_t nevents;          /* ever: events[(k) % DMLS_WATCH_EVENTS] */
} dmls_watch;

/* opts NULL: defaults.  Returns DMLS_OK. */
int dmls_watch_init(dmls_watch *w, const dmls_watch_opts *opts);
void dmls_watch_release(dmls_watch *w);

/* Count one packet (the hot path: two dmls_stats_add).  0, -1 out of memory. */
int dmls_watch_add(dmls_watch *w, const dmls_pkt *p);

/* One interval ends at now_ns (capture clock, Unix ns): interval counts,
 * the recent view, events.  Events made by this tick are
 * events[k % DMLS_WATCH_EVENTS] for k from the nevents before the call to
 * nevents after it.  DMLS_OK, or DMLS_ENOMEM. */
int dmls_watch_tick(dmls_watch *w, int64_t now_ns, dmls_error *err);

/* Event k (0 <= k < nevents; only the last DMLS_WATCH_EVENTS are kept):
 * NULL when it is no longer kept. */
const dmls_watch_event *dmls_watch_get_event(const dmls_watch *w, uint64_t k);

/* Hand the whole capture's stats (not finished) to the caller, who then
 * owns it (dmls_stats_release); the watch can no longer be fed. */
void dmls_watch_detach(dmls_watch *w, dmls_stats *out);

#endif
