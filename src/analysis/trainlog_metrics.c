/*
 * trainlog_metrics.c - the traffic beside the framework's own step log.
 *
 * The log is only ever used to check or to scale the traffic, never to find
 * iterations (iterations.c reads the packets alone).
 *
 * mb_per_step is the study's regression response: all workers' bytes
 * resampled at the mean step time, then averaged.  Here: wire bytes (the
 * frame's original length, as the study's tshark frame.len) of the job's
 * packets (analysis.c: between its hosts, or between one of them and a
 * host of no job), bins of mean_step_s from the job's first packet, mean
 * over the bins that cover the job (floor(span / step) + 1 bins, as
 * pandas' resample().sum() makes them), in MB = 1e6 bytes.  Traffic that
 * is not the job's (neighbour discovery before it starts, another job)
 * moves neither the bytes nor the time base.
 *
 * Accuracy vs cumulative data: for each log row with an accuracy (Epoch
 * rows when there are any, else at most MAX_ACC_POINTS Batch rows evenly
 * picked), the wire bytes sent from the first packet up to the row's time:
 * the capture's for the run folder's own log (the study's count: its run
 * is one job), the job's for a job's own log in a run of several (below:
 * its pairs', as job_wire_bytes counts them; none for a job that shares
 * pairs with another, whose bytes on them are not told apart by time).
 * Log and captures share the host's clock (unix time).
 *
 * A run of several jobs (the testbed's job-<k>/train_history.log, one per
 * job): a log goes to the job whose steps its Batch rows keep, that is,
 * rows inside the job's time base (LOG_MIN_INSIDE of them) that fall one
 * in each of its steps (dmls_clock_compare's lock against the ends of its
 * iterations' communication, LOG_MIN_LOCK) at a steady offset from them
 * (LOG_MAX_SPREAD): the rank writes its row right after the step it
 * logs.  Two jobs of one period that started together can both hold one
 * row a step; the log's own job is the one its rows keep a fixed offset
 * from (their spread over the period, less than half the other's), else
 * the log is not used.  Each job takes one log, the best kept first; a
 * log no job keeps is named in a note.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "analysis/period.h"

#define MAX_ACC_POINTS 200
#define LOG_MIN_INSIDE 0.8 /* share of Batch rows inside the job's time base */
#define LOG_MIN_LOCK 0.75  /* share of the job's steps holding one Batch row */
#define LOG_MAX_SPREAD 0.25 /* robust spread of the rows' offsets, over the period
			     * (a log's own job: 0.02-0.16 on the testbed; rows
			     * at random offsets: 0.37) */
#define LOG_LOCK_CLOSE 0.1 /* another job's lock this close: compare spreads */

typedef struct cum {
	size_t n, cap;
	int64_t *bin;
	double *sum; /* cumulative bytes up to and including bin */
	int oom;
} cum;

static void add_cum(int64_t bin, uint64_t bytes, void *ctx)
{
	cum *c = ctx;
	if (c->oom)
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		int64_t *b = realloc(c->bin, cap * sizeof(int64_t));
		if (b)
			c->bin = b;
		double *s = b ? realloc(c->sum, cap * sizeof(double)) : NULL;
		if (!b || !s) {
			c->oom = 1;
			return;
		}
		c->sum = s;
		c->cap = cap;
	}
	c->bin[c->n] = bin;
	c->sum[c->n] = (c->n ? c->sum[c->n - 1] : 0) + (double)bytes;
	c->n++;
}

/* cumulative bytes in bins <= k */
static double cum_at(const cum *c, int64_t k)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c->bin[mid] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? c->sum[lo - 1] : 0;
}

/* The hosts of a capture's jobs (NULL job: the whole capture, one job). */
typedef struct job_hosts {
	const unsigned char *mine; /* the job's */
	const unsigned char *any;  /* any job's */
} job_hosts;

static int job_pair(const job_hosts *jh, const dmls_pair *p)
{
	return (jh->mine[p->src] && (jh->mine[p->dst] || !jh->any[p->dst])) ||
	       (jh->mine[p->dst] && !jh->any[p->src]);
}

/* Cumulative wire bytes by bin into c: the capture's (jh NULL), or the
 * job's pairs' (one series class: one bin width, doubled alike from one
 * origin).  0, or -1 (memory). */
static int cum_of(cum *c, const dmls_stats *st, const job_hosts *jh, double *bin_s)
{
	const dmls_series *s = &st->total_wire;
	dmls_series t;
	if (jh) {
		int64_t bin_ns = st->cls[DMLS_CLASS_PAIR].bin_ns;
		for (size_t k = 0; k < st->npairs; k++) /* the coarsest, were one not the class' */
			if (job_pair(jh, &st->pairs[k]) && st->pairs[k].series.bin_ns > bin_ns)
				bin_ns = st->pairs[k].series.bin_ns;
		dmls_series_init(&t, st->t0_ns, bin_ns, 0);
		for (size_t k = 0; k < st->npairs; k++)
			if (job_pair(jh, &st->pairs[k]) &&
			    dmls_series_merge(&t, &st->pairs[k].series)) {
				dmls_series_release(&t);
				return -1;
			}
		s = &t;
	}
	dmls_series_foreach(s, add_cum, c);
	*bin_s = (double)s->bin_ns * 1e-9;
	if (jh)
		dmls_series_release(&t);
	return c->oom ? -1 : 0;
}

static int accuracy_points(dmls_trainlog_metrics *m, const dmls_stats *st,
			   const dmls_trainlog *log, const job_hosts *jh)
{
	size_t nepoch = 0, nbatch = 0;
	for (size_t i = 0; i < log->nrows; i++) {
		if (!isfinite(log->rows[i].accuracy))
			continue;
		if (log->rows[i].is_epoch)
			nepoch++;
		else
			nbatch++;
	}
	int want_epoch = nepoch > 0;
	size_t avail = want_epoch ? nepoch : nbatch;
	size_t take = avail < MAX_ACC_POINTS ? avail : MAX_ACC_POINTS;
	if (take == 0)
		return 0;
	m->acc = calloc(take, sizeof(*m->acc));
	cum c = {0};
	if (!m->acc)
		return -1;
	double bin_s = 1, t0 = (double)st->t0_ns * 1e-9;
	if (cum_of(&c, st, jh, &bin_s)) {
		free(c.bin);
		free(c.sum);
		return -1;
	}
	size_t seen = 0;
	for (size_t i = 0; i < log->nrows && m->nacc < take && !c.oom; i++) {
		const dmls_log_row *r = &log->rows[i];
		if (!isfinite(r->accuracy) || r->is_epoch != want_epoch)
			continue;
		size_t idx = seen++;
		if (avail > take && idx * take / avail == (idx + 1) * take / avail)
			continue; /* even subsample */
		dmls_acc_point *p = &m->acc[m->nacc++];
		p->id = r->id;
		p->is_epoch = r->is_epoch;
		p->t_s = r->ts_s - t0;
		p->accuracy = r->accuracy;
		p->cum_wire_bytes = cum_at(&c, (int64_t)floor(p->t_s / bin_s));
	}
	int oom = c.oom;
	free(c.bin);
	free(c.sum);
	return oom ? -1 : 0;
}

static int metrics(dmls_trainlog_metrics *m, const dmls_stats *st, const dmls_trainlog *log,
		   double period_s, double job_wire_bytes, double job_span_s, const job_hosts *jh,
		   int points, dmls_error *err)
{
	memset(m, 0, sizeof(*m));
	m->mean_step_s = m->steady_step_s = m->median_step_s = NAN;
	m->mb_per_step = m->period_error = NAN;
	if (!log)
		return 0;
	m->present = 1;
	m->steps = log->steps;
	m->mean_step_s = log->mean_step_s;
	m->steady_step_s = log->steady_step_s;
	m->median_step_s = log->median_step_s;
	m->backwards_line = log->backwards_line;
	double dur = dmls_stats_duration_s(st), bytes = (double)st->wire_bytes;
	if (isfinite(job_span_s) && job_span_s >= 0 && isfinite(job_wire_bytes))
		dur = job_span_s, bytes = job_wire_bytes; /* the job's own time base */
	if (isfinite(m->mean_step_s) && m->mean_step_s > 0 && st->packets > 0) {
		double nbins = floor(dur / m->mean_step_s) + 1;
		m->mb_per_step = bytes / nbins / 1e6;
		if (isfinite(period_s) && isfinite(m->steady_step_s) && m->steady_step_s > 0)
			m->period_error = (period_s - m->steady_step_s) / m->steady_step_s;
	}
	if (points && st->packets > 0 && accuracy_points(m, st, log, jh) < 0)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return 0;
}

int dmls_trainlog_metrics_compute(dmls_trainlog_metrics *m, const dmls_stats *st,
				  const dmls_trainlog *log, double period_s, double job_wire_bytes,
				  double job_span_s, dmls_error *err)
{
	return metrics(m, st, log, period_s, job_wire_bytes, job_span_s, NULL, 1, err);
}

/* How log's Batch rows keep job x's steps (e: room for its rows). */
typedef struct log_fit {
	double lock, spread;
	int ok;
} log_fit;

static log_fit fit_log(const dmls_analysis *x, const dmls_stats *st, const dmls_trainlog *log,
		       double *e)
{
	log_fit f = {NAN, NAN, 0};
	const dmls_iterations *it = &x->iter;
	double P = it->period_s, t0 = (double)st->t0_ns * 1e-9;
	if (x->log.present || it->count < DMLS_STEADY_FROM || !it->comm_end_s || !(P > 0) ||
	    log->steps < DMLS_STEADY_FROM || log->backwards_line || !isfinite(x->job_start_s))
		return f;
	size_t n = 0, inside = 0;
	for (size_t i = 0; i < log->nrows; i++) {
		if (log->rows[i].is_epoch)
			continue;
		double t = log->rows[i].ts_s - t0;
		inside += t >= x->job_start_s - P && t <= x->job_end_s + P;
		e[n++] = t;
	}
	if ((double)inside < LOG_MIN_INSIDE * (double)n)
		return f;
	dmls_clock_compare(it->comm_end_s, it->count, e, n, P, &f.spread, &f.lock, NULL);
	f.ok = isfinite(f.lock) && f.lock >= LOG_MIN_LOCK && isfinite(f.spread) &&
	       f.spread <= LOG_MAX_SPREAD;
	return f;
}

/* Fit a better than b: a steadier lock, then a tighter offset. */
static int better(log_fit a, log_fit b)
{
	return a.lock > b.lock + 1e-9 || (fabs(a.lock - b.lock) <= 1e-9 && a.spread < b.spread);
}

/* The hosts of a's jobs into any. */
static void any_job(const dmls_analysis *a, unsigned char *any, size_t nhosts)
{
	memset(any, 0, nhosts ? nhosts : 1);
	for (size_t j = 0; j < (a->njobs ? a->njobs : 1); j++) {
		const dmls_analysis *x = a->njobs ? a->jobs[j] : a;
		for (size_t k = 0; k < (x->pattern.members ? x->pattern.ranks : 0); k++)
			any[x->pattern.members[k]] = 1;
	}
}

/* Job x's metrics from its own log, its accuracy points from its own pairs
 * when the capture holds several jobs (none where it shares pairs with
 * another: its bytes there are not told apart by time); *points says
 * whether there are any. */
static int job_metrics(const dmls_analysis *a, dmls_analysis *x, const dmls_stats *st,
		       const dmls_trainlog *log, unsigned char *mine, const unsigned char *any,
		       int *points, dmls_error *err)
{
	memset(mine, 0, st->nhosts ? st->nhosts : 1);
	for (size_t i = 0; i < (x->pattern.members ? x->pattern.ranks : 0); i++)
		mine[x->pattern.members[i]] = 1;
	job_hosts jh = {mine, any};
	*points = x->pairs_told == 0 && !isfinite(x->twin_period_s);
	dmls_trainlog_metrics_release(&x->log);
	return metrics(&x->log, st, log, x->iter.period_s, x->job_wire_bytes,
		       x->job_end_s - x->job_start_s, a->jobs_found > 1 ? &jh : NULL, *points, err);
}

/* Job j's log (fit f): its metrics, and a note. */
static int take_log(dmls_analysis *a, size_t j, const dmls_stats *st, const dmls_trainlog *log,
		    const char *name, log_fit f, unsigned char *mine, const unsigned char *any,
		    dmls_error *err)
{
	dmls_analysis *x = a->njobs ? a->jobs[j] : a;
	int points;
	int rc = job_metrics(a, x, st, log, mine, any, &points, err);
	if (rc == 0)
		dmls_note(x, "train log %s: its %zu Batch rows keep this job's steps (%.0f %% of them "
			     "hold one)%s", name, log->steps, 100 * f.lock,
			  points ? "" : "; no accuracy_vs_data (pairs shared with another job)");
	if (rc == 0)
		dmls_note_log_period(x);
	return rc;
}

int dmls_analysis_job_logs(dmls_analysis *a, const dmls_stats *st, const dmls_trainlog *logs,
			   const char *const *names, size_t n, dmls_error *err)
{
	size_t nj = a->njobs ? a->njobs : 1, rows = 1;
	for (size_t i = 0; i < n; i++)
		rows = logs[i].nrows > rows ? logs[i].nrows : rows;
	log_fit *fit = calloc(n * nj + 1, sizeof(*fit));
	double *e = malloc(rows * sizeof(double));
	unsigned char *mine = malloc(st->nhosts ? st->nhosts : 1);
	unsigned char *any = malloc(st->nhosts ? st->nhosts : 1);
	unsigned char *used = calloc(nj + n, 1), *done = used + nj;
	int rc = 0;
	if (!fit || !e || !mine || !any || !used) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	any_job(a, any, st->nhosts);
	for (size_t j = 0; j < nj; j++) {
		const dmls_analysis *x = a->njobs ? a->jobs[j] : a;
		used[j] = x->log.present; /* the run folder's own log */
		for (size_t i = 0; i < n; i++)
			fit[i * nj + j] = fit_log(x, st, &logs[i], e);
	}
	for (;;) { /* the best fit left, while one is clear */
		size_t bi = n, bj = nj;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < nj; j++)
				if (!done[i] && !used[j] && fit[i * nj + j].ok &&
				    (bi == n || better(fit[i * nj + j], fit[bi * nj + bj])))
					bi = i, bj = j;
		if (bi == n)
			break;
		log_fit f = fit[bi * nj + bj];
		int clear = 1; /* no other job of the same lock at as tight an offset */
		for (size_t j = 0; j < nj; j++) {
			log_fit g = fit[bi * nj + j];
			if (j != bj && g.ok && g.lock >= f.lock - LOG_LOCK_CLOSE &&
			    g.spread < 2 * f.spread)
				clear = 0;
		}
		done[bi] = 1;
		if (!clear) {
			dmls_note(a, "train log %s keeps the steps of two jobs alike: not used",
				  names[bi]);
			continue;
		}
		used[bj] = 1;
		if ((rc = take_log(a, bj, st, &logs[bi], names[bi], f, mine, any, err)))
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!done[i])
			dmls_note(a, "train log %s keeps no job's steps (one Batch row in %.0f %% of a "
				     "job's steps or more, inside its time): not used",
				  names[i], 100 * LOG_MIN_LOCK);
out:
	free(fit);
	free(e);
	free(mine);
	free(any);
	free(used);
	return rc;
}

void dmls_trainlog_metrics_release(dmls_trainlog_metrics *m)
{
	free(m->acc);
	m->acc = NULL;
	m->nacc = 0;
}
