/* analysis_int.h - between analysis.c (the stages) and the files it
 * calls: notes.c (the notes) and clock_view.c (the iterations as the view
 * and the roles allow). */
#ifndef DMLS_ANALYSIS_INT_H
#define DMLS_ANALYSIS_INT_H

#include "dmlscope/analysis.h"

/* work(arg) in this thread and, where the analysis may use two threads
 * (st->analysis_threads) and there are n >= 2 items to share, in a second
 * one at once; returns when both are done.  work takes its items from a
 * counter in arg and puts each result at its item's place, so the result
 * does not depend on which thread made what.  (rank_clocks.c) */
void dmls_work_in_two(const dmls_stats *st, size_t n, void *(*work)(void *), void *arg);

/* Add a note (at most DMLS_MAX_NOTES; the rest are dropped). */
void dmls_note(dmls_analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The note that the detected period is more than 3 % from a's train
 * log's steady mean step (notes.c; a's log, the run folder's or a job's). */
void dmls_note_log_period(dmls_analysis *a);
/* The notes about one job (every job gets them). */
void dmls_notes_job(dmls_analysis *a, const dmls_stats *st);
/* The notes of the top level: the capture's, then its job's. */
void dmls_notes_all(dmls_analysis *a, const dmls_stats *st);

/* The job's iterations as its view and roles allow (clock_view.c); jpairs:
 * the job's own pairs when it shares a host, else NULL. */
int dmls_find_iterations(dmls_analysis *a, dmls_stats *st, const size_t *jpairs, size_t njpairs,
			 dmls_error *err);
/* The same tracked in time with the period guide_s (0: as above). */
int dmls_find_iterations_guided(dmls_analysis *a, dmls_stats *st, const size_t *jpairs,
				size_t njpairs, double guide_s, dmls_error *err);
/* The same with the iterations starting at the bounds at_s[0..nat): rank
 * host's own clock, whose bytes alone then give the bytes per worker when
 * it is a worker. */
int dmls_find_iterations_at(dmls_analysis *a, dmls_stats *st, const size_t *jpairs,
			    size_t njpairs, const double *at_s, size_t nat, size_t host,
			    dmls_error *err);

/* The byte clock of one series (a pair's, or a split pair's connection's)
 * in the analysis' window (st->run_*: the busiest of runs back to back):
 * its step starts t[0..n) (s from the series' origin), their median
 * spacing period_s and its robust CV; n 0 under 8 steps.  0, or -1 when out
 * of memory; c->t is the caller's to free either way.  (connections.c) */
typedef struct dmls_series_clock {
	size_t n;
	double period_s;
	double cv;
	double *t;
} dmls_series_clock;
int dmls_series_clock_of(dmls_series_clock *c, const dmls_series *s, const dmls_stats *st);
/* The clocks of s[0..n) into c[0..n), two at a time where the analysis may
 * use two threads; every c[i] is set.  0, or -1 when out of memory. */
int dmls_series_clocks(const dmls_stats *st, dmls_series_clock *c, const dmls_series *const *s,
		       size_t n);

/* 1 when two connections send at once: together half the shorter one's
 * life or more (two jobs' or parallel sockets, not one job's connections
 * one after another).  (connections.c) */
int dmls_flows_at_once(const dmls_flow *x, const dmls_flow *y);

/* Of the job's data pairs (a->data_pairs), those whose bytes go over two
 * connections or more of at least a fifth of them each (a->split_pairs),
 * and of those, the ones whose two heaviest connections' clocks were
 * compared (a->conn_tested) and kept two steps (a->conn_apart): two jobs
 * on the same hosts, or a transport's parallel connections.  A
 * synchronous job with no pair split and data pairs both ways: its pairs
 * grouped by their own step rates (a->pair_groups).  (connections.c)
 * job NULL: none.  0, or -1 when out of memory. */
int dmls_connections_check(dmls_analysis *a, const dmls_stats *st, const dmls_job_scope *job);

/* Does one sender serve its data edges edge[0..ne) (pair indexes; the
 * first 16) in turn: in the middle steps of bounds_s[0..count), every two
 * in the same order in 90 % of the steps that tell them apart, waiting
 * between one and the next (pattern_view.c)?  1 within a step (the wait
 * short beside the pause between steps), 2 one a step (a wait as long as
 * a step: each step found spans several), 0 not in turn (*share: the
 * least share of steps in order), or -1 when out of memory. */
int dmls_edges_in_turn(const dmls_stats *st, const size_t *edge, size_t ne,
		       const double *bounds_s, size_t count, double *share);

#endif
