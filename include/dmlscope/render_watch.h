/*
 * render_watch.h - what `watch` shows: the live screen, one JSON object per
 * interval, the capture's counters beside the final summary (src/out/watch_out.c).
 *
 * Like every renderer it computes nothing: it reads the watch (watch.h),
 * the recent window's dmls_result and the capture's drops.  JSON keys are
 * analyze --json's where the number is the same kind (pattern, iterations,
 * model sections are analyze's own, of the recent window); doc/contract.md
 * lists them.
 */
#ifndef DMLSCOPE_RENDER_WATCH_H
#define DMLSCOPE_RENDER_WATCH_H

#include <jansson.h>
#include <stdio.h>

#include "dmlscope/live.h"
#include "dmlscope/result.h"
#include "dmlscope/watch.h"

typedef struct dmls_watch_frame {
	const dmls_watch *w;
	const dmls_result *view;      /* the recent window's result, or NULL */
	const dmls_live_drops *drops;
	const char *ifaces;           /* the interfaces, as one string */
	uint64_t ev_from;             /* events from this index on are new */
} dmls_watch_frame;

/* One interval as a JSON object ({"type": "interval", ...}; new reference,
 * NULL when out of memory). */
json_t *dmls_render_watch_json(const dmls_watch_frame *f);

/* The live screen (plain lines; the caller clears the terminal). */
void dmls_render_watch_screen(const dmls_watch_frame *f, FILE *fp);

/* One event as JSON: type, time_s (from start_ns), unix_time_s, text, and
 * its own fields. */
json_t *dmls_render_watch_event(const dmls_watch_event *e, int64_t start_ns);

/* The "live" object of the final JSON: interfaces, snaplen_bytes, the
 * drops, the kept events (new reference, NULL when out of memory). */
json_t *dmls_render_watch_live(const dmls_watch *w, const dmls_live_drops *d,
			       const char *const *ifaces, size_t nifaces, int snaplen);

/* The drops line under the final text summary. */
void dmls_render_watch_drops_text(const dmls_live_drops *d, FILE *fp);

#endif
