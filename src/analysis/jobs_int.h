/* jobs_int.h - between jobs.c (the cut by volume) and jobs_shared.c. */
#ifndef DMLS_ANALYSIS_JOBS_INT_H
#define DMLS_ANALYSIS_JOBS_INT_H

#include "dmlscope/analysis.h"

/* Split each job of jobs[0..*njobs) in which two jobs share a host (their
 * parts keep different steps); the new jobs are appended.  0 or an error. */
int dmls_jobs_split_shared(dmls_job_scope **jobs, size_t *njobs, const dmls_stats *st,
			   dmls_error *err);

/* Split each job of jobs[0..*njobs) whose data pairs keep two clocks on
 * overlapping hosts (two jobs sharing two hosts or more: no cut vertex
 * between them); the new jobs are appended.  0 or an error. */
int dmls_jobs_split_overlap(dmls_job_scope **jobs, size_t *njobs, const dmls_stats *st,
			    dmls_error *err);

/* dmls_job_scope.by_clock of a job split off by its pairs' clocks
 * (jobs_overlap.c, jobs_shared.c's edges): hosts it shares with the other
 * job send for both, so it is not split again at a cut vertex */
#define DMLS_BY_EDGES 3

/* Jobs of one period on shared hosts (jobs_listen.c): each job of
 * before[0..nbefore) (the cut by volume, before the cuts by period) that
 * its rendezvous listeners' clients split, and whose parts in *jobs (the
 * jobs inside it, after the cuts) are not those sets, is made of them
 * instead (by_clock DMLS_BY_LISTENERS).  0 or an error. */
int dmls_jobs_mend_listeners(dmls_job_scope **jobs, size_t *njobs, const dmls_job_scope *before,
			     size_t nbefore, const dmls_stats *st, dmls_error *err);
#define DMLS_BY_LISTENERS 4

/* Two clocks' periods that may be one job's step: equal within
 * DMLS_SHARED_PERIOD, or one twice the other within DMLS_SHARED_HALF (a
 * tree's edge counts the reduce up and the broadcast down; a loose guide,
 * jobs_shared.c). */
#define DMLS_SHARED_PERIOD 0.03
#define DMLS_SHARED_HALF 0.15
static inline int dmls_periods_agree(double a, double b)
{
	double lo = a < b ? a : b, hi = a < b ? b : a, d = 2 * lo - hi;
	return hi - lo <= DMLS_SHARED_PERIOD * lo || (d < 0 ? -d : d) <= DMLS_SHARED_HALF * hi;
}

/* Job j's view of the stats (jobs_overlap.c): where it shares pairs with
 * another job (both ends hosts of both), each such pair told by its
 * connections' clocks carries only what is j's, and the other job's
 * connections on it are hidden (st->flow_hidden).  v->st is the stats to
 * read: &v->view when some pair was told (v->replaced by j's connection,
 * v->dropped as the other job's), else st itself.  0, or -1 when out of
 * memory (v->st is st then too).  dmls_job_view_release frees it. */
typedef struct dmls_job_view {
	const dmls_stats *st;
	dmls_stats view;
	dmls_pair *pairs;
	dmls_host *hosts;  /* a background view's: hosts' totals without the streams */
	unsigned char *hidden;
	dmls_series *own; /* series made for the view (first connections') */
	size_t nown;
	size_t replaced, dropped;
	size_t acks; /* shared pairs without payload (acknowledgements) left out */
	size_t ambiguous; /* a co-located job's shared pairs over two connections
			   * no clock told, left out */
	double period_s; /* j's, from its own pairs' clocks */
} dmls_job_view;
int dmls_job_view_make(dmls_job_view *v, const dmls_stats *st, const dmls_job_scope *jobs,
		  size_t njobs, size_t j);
void dmls_job_view_release(dmls_job_view *v);
/* The capture without the bulk transfers between hosts of jobs (steady
 * connections, jobs_overlap.c): a view where there is one (*nflows of
 * them, *payload_bytes), else v->st is st; -1 when out of memory. */
int dmls_job_view_background(dmls_job_view *v, const dmls_stats *st, size_t *nflows,
			     double *payload_bytes);

#endif
