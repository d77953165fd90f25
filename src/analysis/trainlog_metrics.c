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
 * picked), the wire bytes sent from the first packet up to the row's time.
 * Log and captures share the host's clock (unix time).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"

#define MAX_ACC_POINTS 200

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

static int accuracy_points(dmls_trainlog_metrics *m, const dmls_stats *st,
			   const dmls_trainlog *log)
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
	dmls_series_foreach(&st->total_wire, add_cum, &c);
	double bin_s = (double)st->total_wire.bin_ns * 1e-9, t0 = (double)st->t0_ns * 1e-9;
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

int dmls_trainlog_metrics_compute(dmls_trainlog_metrics *m, const dmls_stats *st,
				  const dmls_trainlog *log, double period_s, double job_wire_bytes,
				  double job_span_s, dmls_error *err)
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
	if (st->packets > 0 && accuracy_points(m, st, log) < 0)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return 0;
}

void dmls_trainlog_metrics_release(dmls_trainlog_metrics *m)
{
	free(m->acc);
	m->acc = NULL;
	m->nacc = 0;
}
