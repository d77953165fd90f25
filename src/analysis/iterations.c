/*
 * iterations.c - the training loop's iterations, from the traffic alone.
 *
 * Series: the payload the job's hosts send, summed, in 1 ms bins (their
 * tx_payload series; other hosts and other jobs are left out), coarsened
 * when the capture is long so that at most 2^18 bins are held (4.4
 * minutes at 1 ms; an hour at 14 ms, still 71 bins to a 1 s step): a bin
 * is the fewest host bins that fit, so a long capture's series takes the
 * same memory whatever its length, 1 MiB of byte counts in 32 bits (in
 * doubles, 2 MiB, where a bin passes 4 GiB: dmls_bins, period.h).
 *
 * Period guide T: the autocorrelation (period.c) of that series, itself
 * coarsened to at most 2^17 bins.
 *
 * Boundaries: a bin is "on" when it holds at least 2 % of the 99th
 * percentile of non-empty bins (control chatter stays "off").  Every run
 * of on bins starts after a gap: a candidate start.  First choice: the
 * byte clock (byteclock.c), which places iterations by the bytes sent, not
 * by time, and is immune to step-time jitter.  When the bytes show no
 * period (asynchronous jobs, fewer than 3 iterations), the time domain:
 * the first candidate
 * starts the first iteration; from each start s the next is the candidate
 * with the longest gap before it within [s + 0.7 T, s + 1.3 T] (an
 * iteration's collectives, e.g. DDP's gradient buckets, are separated by
 * shorter gaps than the compute phase between iterations), or, when that
 * window holds none (a stall), the first candidate after it.  This follows
 * each iteration's own start, so jitter does not accumulate the way folding
 * at a fixed period would, and a start that fell inside an iteration is
 * corrected at the next step.  Without a T (fewer than ~3 iterations) the
 * starts are the ends of gaps at least 30 % of the longest gap.  With a T
 * given (dmls_iterations_find_guided: the ranks' own period, analysis.c,
 * where the byte clock tiled a job's steps into smaller units), the time
 * domain tracks with it and the byte clock is not asked.  With bounds
 * given (dmls_iterations_find_at: a rank's own clock, analysis.c, where
 * stalls split a job's steps in time), the starts are theirs.
 *
 * Then halves.c checks that the iterations are not half-iterations (a
 * parameter server's push and pull phases move the same bytes); only when
 * the job has a host that is not a worker (a server): in a ring or any
 * other job of workers only, every iteration is whole.
 *
 * An iteration's start (starts_s) is the time its communication has moved
 * 10 % of its bytes: robust to a slow trickle before the bulk (DDP's first
 * iteration overlaps backward with buckets not yet rebuilt, and starts
 * its all-reduce early); its boundary (bounds_s, where its bytes are
 * counted from) is the end of the gap before it; its end (comm_end_s) is
 * the time it has moved 99 % of its bytes: the end of its communication
 * burst, robust to a small message trailing in the gap (DDP's broadcast of
 * BatchNorm buffers at the next forward pass).
 *
 * period_s: the mean end-to-end interval, from the second end on when
 * there are DMLS_STEADY_FROM iterations or more (the first interval holds
 * the job's one-off start-up: the first optimizer step allocating its
 * state, a parameter server's first pull); period_median_s and
 * duration_cv over the same intervals.  The end, not the start: in
 * synchronous data-parallel training the end of an iteration's
 * communication is tied to the optimizer step and so to the step the
 * framework logs (a log row is written right after it, e.g. PyTorch's
 * train_history.log), while the start moves with the forward and backward
 * compute before it (+-40 % on a loaded host) and, in DDP, with the bucket
 * order, which changes after the first step.  With every step detected
 * (the first after the warm-up and the last one) it is comparable to the
 * log's steady step (dmls_trainlog.steady_step_s).  When the interval
 * after that second end is under half the median (LATE_ANCHOR), the
 * start-up placed the end late (a rank's capture of a loaded 8-rank tree:
 * 0.22 s then steps of 1.1 s) and the period runs from the third end.
 *
 * Bytes per worker: for each worker, the payload it sends between one
 * start and the next (the last iteration runs to the last on bin and is
 * left out as partial when there are 3 or more); the median over
 * iterations, then the median over workers.
 *
 * Regularity in [0,1] = mean of three scores:
 *   max(0, r(T))              time autocorrelation at the median period
 *                             (unbiased estimator)
 *   max(0, 1 - cv_duration)   robust CV of end-to-end intervals
 *   max(0, 1 - cv_bytes)      robust CV of per-worker per-iteration bytes
 * (robust CV = 1.4826 MAD / median).  Synchronous all-reduce scores near
 * 1; traffic without a period scores 0 on the first and is NAN (unknown)
 * when fewer than 3 iterations are found.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"
#include "dmlscope/analysis.h"

#define MAX_BINS (1u << 18)
#define MAX_TOTAL_BINS (1u << 20) /* from the total series (build_series) */
#define PAUSE_BINS 16 /* bins between the hosts' pauses, as far as MAX_TOTAL_BINS allows */
#define MAX_ACF_BINS (1u << 17)
#define ACF_MIN_BINS 2 /* a period under two autocorrelation bins is a beat of the bins */
#define ON_FRACTION 0.02
#define MAX_NONZERO (1u << 18) /* bins the on threshold's quantile reads */
#define TRACK_LO 0.7
#define START_QUANTILE 0.1
#define TRACK_HI 1.3
#define END_QUANTILE 0.99
#define MAX_CELLS (1u << 20) /* worker x iteration cells for the spread */
#define OUTLIER_SHARE 0.25 /* a worker's iteration this far off its median bytes */
#define LATE_ANCHOR 0.5 /* the period's first end is late when the next follows this soon */

typedef struct job_series {
	int64_t from;    /* first bin (of the series' grid) */
	uint32_t factor; /* series bins per bin */
	double shares;   /* > 0: the series is the capture's total, finer than the
			  * hosts' (build_series), and a worker's bytes in an
			  * iteration are its share, tx_payload_bytes / shares, of
			  * the job's (worker_sent) */
	double bin_s;    /* bin width */
	double off_s;    /* time of bin 0 from st->t0_ns */
	size_t n;
	dmls_bins x;         /* n bins (own: u32 or d) */
	uint32_t *u32;       /* the bins in 32 bits, or NULL */
	double *d;           /* in doubles, where a bin passed UINT32_MAX */
	const size_t *pairs; /* the series is these pairs' (a partial view), or NULL */
	size_t npairs;
	dmls_fft fft;        /* the transforms' buffers, one set per search (plans: period.c) */
	double stretch_share; /* of the bytes, in [from, from + n * factor) (stretch.c) */
	double idle_gap_s;    /* the longest idle gap left out, 0 when none */
	size_t runs;          /* the job's runs, the busiest searched (stretch.c) */
} job_series;

/* The job series: the sum of ser[0..n) (all on one bin grid) over the
 * job's busiest run (st->run_*) and its busiest stretch. */
static int job_series_build(job_series *js, const dmls_stats *st, const dmls_series *const *ser,
			    size_t n, uint64_t max_bins)
{
	int64_t from = INT64_MAX, to = INT64_MIN;
	memset(js, 0, sizeof(*js));
	js->stretch_share = 1;
	js->runs = 1;
	for (size_t i = 0; i < n; i++) {
		const dmls_series *s = ser[i];
		if (dmls_series_empty(s))
			continue;
		from = s->min_bin < from ? s->min_bin : from;
		to = s->max_bin > to ? s->max_bin : to;
	}
	if (from > to)
		return 0;
	js->runs = st->runs; /* the busiest of runs back to back (analysis.c) */
	if (!dmls_run_bins(st, ser[0], &from, &to))
		return 0;
	int64_t gap = 0;
	double share = dmls_busiest_stretch(ser, n, &from, &to, &gap);
	if (isnan(share))
		return -1;
	if (gap > 0) {
		js->stretch_share = share;
		js->idle_gap_s = (double)gap * (double)ser[0]->bin_ns * 1e-9;
	}
	/* the fewest series bins a bin that fit max_bins: a long capture's job
	 * series holds nearly max_bins bins, whatever its length */
	uint64_t span = (uint64_t)(to - from + 1), f = (span + max_bins - 1) / max_bins;
	js->from = from;
	js->factor = (uint32_t)f;
	js->n = (size_t)((span + f - 1) / f);
	const dmls_series *s0 = ser[0];
	js->bin_s = (double)s0->bin_ns * (double)f * 1e-9;
	js->off_s = ((double)(s0->t0_ns - st->t0_ns) + (double)from * (double)s0->bin_ns) * 1e-9;
	/* byte counts: 32 bits hold them but where a bin passes 4 GiB */
	int over = !(js->u32 = calloc(js->n, sizeof(uint32_t)));
	for (size_t i = 0; i < n && !over; i++)
		over = dmls_series_dense_add_u32(ser[i], from, js->n, js->factor, js->u32) != 0;
	if (!over) {
		js->x.u = js->u32;
		return 0;
	}
	free(js->u32);
	js->u32 = NULL;
	if (!(js->d = calloc(js->n, sizeof(double))))
		return -1;
	for (size_t i = 0; i < n; i++)
		dmls_series_dense_add(ser[i], from, js->n, js->factor, 1.0, js->d);
	js->x.d = js->d;
	return 0;
}

static void job_series_release(job_series *js)
{
	free(js->u32);
	free(js->d);
	js->u32 = NULL;
	js->d = NULL;
	js->x = (dmls_bins){NULL, NULL};
	dmls_fft_release(&js->fft);
}

static double jx(const job_series *js, size_t k)
{
	return dmls_bin(js->x, k);
}

/* v * 1 / 9, v * 2 / 9 and v * 3 / 9: a bin's terms in its neighbours'
 * triangle sums (decimated), each worked out once, not five times (the
 * divisions were the loop's time: 0.43 -> 0.24 ms for 75 k bins, the
 * same bits; skipping zeros mispredicts on sparse series). */
static inline void ninths(double v, double p[3])
{
	p[0] = v * 1 / 9;
	p[1] = v * 2 / 9;
	p[2] = v * 3 / 9;
}

/*
 * js decimated by f into y[0..m), zeroed first (y NULL: a calloc'd array,
 * NULL when out of memory).  A burst shorter than a bin falls in one bin or
 * the next as the period's
 * phase drifts over the bins: a step of 31.25 bins puts bursts 31, 31, 31
 * and 32 bins apart, and the autocorrelation then peaks higher at 4 steps
 * (exactly 125 bins) than at one.  So when f > 1 each bin is spread by a
 * triangle over +-2 bins (1 2 3 2 1): a burst a bin off still overlaps.
 */
static double *decimated(const job_series *js, size_t f, size_t m, double *y)
{
	if (y)
		memset(y, 0, m * sizeof(double));
	else if (!(y = calloc(m, sizeof(double))))
		return NULL;
	unsigned sh = 0; /* f is a power of two: a shift, not a division a bin */
	while (((size_t)1 << sh) < f)
		sh++;
	for (size_t k = 0; k < js->n; k++)
		y[k >> sh] += jx(js, k);
	if (f == 1)
		return y;
	/* in place: bin i takes y[i-2..i+2], their ninths kept from before
	 * they were overwritten (the terms summed in the same order as a
	 * scatter into a second array would, without its memory; a bin past
	 * either end, or of no bytes, adds +0, which changes no sum of byte
	 * counts) */
	double part[5][3] = {{0}}; /* y[i-2..i+2] as they were: slot (i + j) % 5 */
	for (size_t j = 0; j < 2; j++)
		ninths(j < m ? y[j] : 0, part[j]);
	for (size_t i = 0; i < m; i++) {
		ninths(i + 2 < m ? y[i + 2] : 0, part[(i + 2) % 5]);
		double z = part[(i + 3) % 5][0]; /* y[i-2] * 1 / 9 */
		z += part[(i + 4) % 5][1];        /* y[i-1] * 2 / 9 */
		z += part[i % 5][2];
		z += part[(i + 1) % 5][1];
		z += part[(i + 2) % 5][0];
		y[i] = z;
	}
	return y;
}

/* The decimation of js for the autocorrelation: the fewest bins of js a
 * bin that fit MAX_ACF_BINS. */
static size_t acf_factor(const job_series *js)
{
	size_t f = 1;
	while ((js->n + f - 1) / f > MAX_ACF_BINS)
		f *= 2;
	return f;
}

/* ACF period in bins of js (0 if none). */
static double acf_period(job_series *js, double *peak)
{
	size_t f = acf_factor(js);
	size_t m = (js->n + f - 1) / f;
	/* in the transform's buffer: the autocorrelation runs in place */
	double *y = dmls_fft_points(&js->fft, m);
	if (!y)
		return 0;
	double lag = dmls_period_acf(&js->fft, decimated(js, f, m, y), m, peak);
	return lag * (double)f;
}

/* Per-host series of the job, then dmls_merge_halves. */
static int merge_halves(const job_series *js, const dmls_stats *st, const size_t *hosts,
			size_t nh, double thr, size_t *starts, size_t *ns)
{
	if (nh > 64 || js->n > (1u << 22) / nh || js->shares > 0)
		return 0; /* too big to hold, or not the hosts' grid: keep the starts */
	double *hx = malloc(nh * js->n * sizeof(double));
	if (!hx)
		return -1;
	for (size_t h = 0; h < nh; h++)
		dmls_series_dense(&st->hosts[hosts[h]].tx_payload, js->from, js->n, js->factor,
				  hx + h * js->n);
	*ns = dmls_merge_halves(js->x, js->n, thr, hx, nh, starts, *ns);
	free(hx);
	return 0;
}

/* Time autocorrelation (unbiased) of the job series at lag period_s: the
 * biased estimator r(k) = c(k) / c(0) of period.c at the one lag, summed
 * directly (O(n), no transform), times n / (n - k). */
static double acf_at(job_series *js, double period_s)
{
	size_t f = acf_factor(js);
	while (f > 1 && period_s < ACF_MIN_BINS * js->bin_s * (double)f)
		f /= 2; /* one lag needs no transform: bins fine enough for the period */
	size_t m = (js->n + f - 1) / f;
	double lag = period_s / (js->bin_s * (double)f), v = NAN;
	size_t k = isfinite(lag) && lag > 0 ? (size_t)llround(lag) : 0;
	double *y = NULL, *own = NULL; /* in the transforms' buffer where it fits */
	if (k > 0 && k < m && !(y = dmls_fft_scratch(&js->fft, m)))
		y = own = malloc(m * sizeof(double));
	if (y && decimated(js, f, m, y)) {
		double mean = 0, c0 = 0, ck = 0;
		for (size_t i = 0; i < m; i++)
			mean += y[i];
		mean /= (double)m;
		for (size_t i = 0; i < m; i++) {
			double d = y[i] - mean;
			c0 += d * d;
			if (i + k < m)
				ck += d * (y[i + k] - mean);
		}
		if (c0 > 0)
			v = fmin(1.0, ck / c0 * (double)m / (double)(m - k));
	}
	free(own);
	return v;
}

typedef struct cand {
	size_t bin;
	double gap; /* bins of quiet before it */
} cand;

/* With a period T (bins): follow the iterations one by one.  From a start
 * s, the next start is the candidate with the longest gap before it in
 * [s + 0.7 T, s + 1.3 T]; when that window is empty (a stall, a straggler)
 * it is the first candidate after it.  c is in time order. */
static size_t track_starts(const cand *c, size_t nc, double T, size_t *starts)
{
	size_t ns = 0, i = 0;
	starts[ns++] = c[0].bin;
	while (i < nc) {
		double s = (double)starts[ns - 1], lo = s + TRACK_LO * T, hi = s + TRACK_HI * T;
		while (i < nc && (double)c[i].bin < lo)
			i++;
		if (i == nc)
			break;
		size_t best = i;
		for (size_t j = i; j < nc && (double)c[j].bin <= hi; j++)
			if (c[j].gap > c[best].gap)
				best = j;
		starts[ns++] = c[best].bin;
		i = best + 1;
	}
	return ns;
}

/* Without a period: every end of a gap at least 30 % of the longest. */
static size_t gap_starts(cand *c, size_t nc, size_t *starts)
{
	double maxgap = 0;
	size_t ns = 0;
	for (size_t i = 1; i < nc; i++)
		maxgap = c[i].gap > maxgap ? c[i].gap : maxgap;
	for (size_t i = 0; i < nc; i++)
		if (i == 0 || c[i].gap >= 0.3 * maxgap)
			starts[ns++] = c[i].bin;
	return ns;
}

/* The on-threshold of js: ON_FRACTION of the 99th percentile of its
 * non-zero bins; -1 when out of memory. */
static double on_threshold(const job_series *js)
{
	size_t nnz = 0;
	for (size_t k = 0; k < js->n; k++)
		nnz += jx(js, k) > 0;
	/* past MAX_NONZERO non-empty bins, every stride-th of them */
	size_t stride = nnz > MAX_NONZERO ? (nnz + MAX_NONZERO - 1) / MAX_NONZERO : 1, seen = 0;
	double *nz = malloc((nnz / stride + 1) * sizeof(double));
	if (!nz)
		return -1;
	nnz = 0;
	for (size_t k = 0; k < js->n; k++)
		if (jx(js, k) > 0 && seen++ % stride == 0)
			nz[nnz++] = jx(js, k);
	double thr = ON_FRACTION * dmls_quantile_select(nz, nnz, 0.99);
	free(nz);
	return thr;
}

/*
 * Bins too coarse to hold the iterations: on a long capture the series
 * coarsen to fit their memory budgets (classes.c) and the job series to
 * MAX_BINS, and once a bin is longer than the gap between two iterations
 * every bin holds traffic.  The autocorrelation then finds beats between
 * the period and the bin (a 1 s step in 2.048 s bins peaks at 42.7 s) and
 * the gaps one endless burst, so no number would be right: when the bins
 * are coarser than the hosts' own (1 ms) and all but UNRESOLVED_OFF of the
 * job's span is on, there are no iterations to report, and the note says
 * why.  A busy job with short gaps at fine bins (a 50 ms pause a second
 * is 5 % off) keeps its iterations.
 */
#define UNRESOLVED_OFF 0.02
#define UNRESOLVED_MIN_BINS 16
#define HIDDEN_SPACING_BINS 4
#define HIDDEN_AGREE 0.25
#define HIDDEN_MEAN 0.05

/* The job series' bins are coarser than the hosts' own (1 ms). */
static int coarse(const job_series *js)
{
	return js->bin_s > 1.5 * (double)DMLS_HOST_BIN_NS * 1e-9;
}

static int unresolved(dmls_iterations *it, const job_series *js, size_t on, size_t first_on,
		      size_t last_on)
{
	if (on == 0 || !coarse(js))
		return 0;
	size_t span = last_on - first_on + 1;
	if (span < UNRESOLVED_MIN_BINS || (double)on < (1 - UNRESOLVED_OFF) * (double)span)
		return 0;
	it->unresolved_bin_s = js->bin_s;
	it->on_share = (double)on / (double)span;
	return 1;
}

/* The median over the job's hosts (those that kept an online stream, at
 * least half of its senders) of the time between their pauses of min_ns
 * or longer; NAN when unknown, DBL_MAX for hosts that never pause. */
static double pause_spacing(const dmls_stats *st, const size_t *hosts, size_t nh, int64_t min_ns)
{
	double *every = malloc((nh + 1) * sizeof(double)), med = NAN;
	size_t n = 0, senders = 0;
	if (!every)
		return NAN;
	for (size_t i = 0; i < nh; i++) {
		const dmls_host *h = &st->hosts[hosts[i]];
		uint64_t p;
		if (h->tx_payload_bytes == 0)
			continue;
		senders++;
		if (dmls_host_pauses(h, min_ns, &p) == 0)
			every[n++] = p ? (double)(h->last_ns - h->first_ns) * 1e-9 / (double)p
				       : DBL_MAX; /* never: finite, so the median's interpolation holds */
	}
	if (n > 0 && 2 * n >= senders)
		med = dmls_median(every, n);
	free(every);
	return med;
}

/*
 * The other way bins hide the iterations: the bins still show gaps, but
 * the ranks pause more often than the bins can follow, and what the search
 * finds is a beat (a step every 0.1 s over 6 hours in 64 ms bins: 4500
 * "iterations" of 4.8 s).  Each host's online stream counted its pauses at
 * 1 ms (dmls_host_pauses): when the job's hosts (the median of those that
 * kept a stream, at least half of its senders) pause for a bin or longer
 * every HIDDEN_SPACING_BINS bins or more often over their span, the series
 * cannot hold their step, unless the iterations found keep that very
 * rhythm (median period within HIDDEN_AGREE of the pauses' spacing: a
 * step of 2.5 bins found right) and tile the span at it (mean period
 * within HIDDEN_MEAN of the pauses' spacing: a step of 1.95 bins lands in
 * the bin next to the last one every twentieth step, and the two read as
 * one: two hours of a 1 s step in the 512 ms bins of its pairs, a stream
 * beside it, counted 6606 of 7200, a median of 1.02 s and a mean of 1.09).
 * Other hosts' traffic does not count; a host's own other traffic only
 * fills its pauses in, so this errs towards keeping the iterations.
 */
static int hidden(dmls_iterations *it, const dmls_stats *st, const job_series *js,
		  const size_t *hosts, size_t nh)
{
	if (!coarse(js) || nh == 0)
		return 0;
	double med = pause_spacing(st, hosts, nh, (int64_t)(js->bin_s * 1e9)), P = it->period_median_s;
	int keeps = isfinite(P) && fabs(P / med - 1) <= HIDDEN_AGREE && isfinite(it->period_s) &&
		    fabs(it->period_s / med - 1) <= HIDDEN_MEAN;
	if (isfinite(med) && med < HIDDEN_SPACING_BINS * js->bin_s && !keeps) {
		it->unresolved_bin_s = js->bin_s;
		it->pause_every_s = med;
		return 1;
	}
	return 0;
}

/* Bins of the bounds at_s[0..nat) (s from st->t0_ns, another clock's),
 * increasing, up to the last on bin. */
static size_t starts_at(const job_series *js, const double *at_s, size_t nat, size_t last_on,
			size_t *starts)
{
	size_t ns = 0;
	for (size_t i = 0; i < nat; i++) {
		double k = floor((at_s[i] - js->off_s) / js->bin_s + 0.5);
		if (!(k >= 0) || k > (double)last_on)
			continue;
		if (ns == 0 || (size_t)k > starts[ns - 1])
			starts[ns++] = (size_t)k;
	}
	return ns;
}

/* Iteration starts (bins, ascending) into *starts (malloc'd), their count
 * into *ns; *last_on = the last on bin.  Memory follows the on runs, not
 * the bins: a long capture's series has hundreds of thousands of bins and
 * a few thousand runs.  0, or -1 when out of memory. */
static int find_starts(dmls_iterations *it, job_series *js, double *T, int by_time,
		       const double *at_s, size_t nat, size_t **starts, size_t *ns_out,
		       size_t *last_on, double *thr_out)
{
	size_t n = js->n, nc = 0, ns = 0;
	cand *c = NULL;
	*starts = NULL;
	*ns_out = 0;
	double thr = on_threshold(js);
	if (thr < 0)
		return -1;
	*thr_out = thr;
	size_t prev_on = n, first_on = n, on = 0;
	for (size_t k = 0; k < n; k++) /* count the runs first */
		if (dmls_bin_on(js->x, k, thr)) {
			nc += prev_on == n || k > prev_on + 1;
			first_on = prev_on == n ? k : first_on;
			prev_on = k;
			on++;
		}
	if (unresolved(it, js, on, first_on, prev_on))
		return 0;
	/* every start is a run's (track_starts, gap_starts), a gap's and a
	 * few more (byteclock, period.h), or a rank's (at_s) */
	c = malloc((nc + 1) * sizeof(cand));
	size_t room = DMLS_BYTECLOCK_ROOM(nc);
	*starts = malloc(((room > nat ? room : nat) + 3) * sizeof(size_t));
	if (!c || !*starts) {
		free(c);
		return -1;
	}
	nc = 0, prev_on = n;
	for (size_t k = 0; k < n; k++) {
		if (!dmls_bin_on(js->x, k, thr))
			continue;
		if (prev_on == n)
			c[nc++] = (cand){k, INFINITY};
		else if (k > prev_on + 1)
			c[nc++] = (cand){k, (double)(k - prev_on - 1)};
		prev_on = k;
	}
	*last_on = prev_on;
	if (nc == 0)
		goto out;
	if (at_s) {
		ns = starts_at(js, at_s, nat, prev_on, *starts);
		it->method = "rank-clock";
		goto out;
	}
	if (!by_time) /* else the guide T given stands (dmls_iterations_find_guided) */
		ns = dmls_byteclock_starts(&js->fft, js->x, n, thr, *starts, &it->iter_bytes,
					   &it->byte_peak);
	if (ns < 3 && *T < 0) { /* the time autocorrelation, when not made yet */
		double peak;
		*T = acf_period(js, &peak);
	}
	if (ns >= 3) {
		it->method = "byte-clock";
	} else if (*T > 0) {
		ns = track_starts(c, nc, *T, *starts);
		it->method = by_time ? "time-ranks" : "time-acf";
	} else {
		ns = gap_starts(c, nc, *starts);
		it->method = "gaps";
	}
out:
	free(c);
	*ns_out = ns;
	return 0;
}

/* The payload host h sends in js's bins [a, b): its tx_payload series, or
 * on a partial view the series of its data edges (wire bytes, scaled by
 * each pair's payload / wire: a one-off or per-step message to a rank it
 * does not exchange gradients with, DDP's buffer broadcast from rank 0, is
 * not gradient traffic; with all workers seen the median over them drops
 * it).  Sums the series' runs in the range, no dense copy. */
static double worker_sent(const dmls_stats *st, const job_series *js, size_t h, size_t a,
			  size_t b)
{
	int64_t lo = js->from + (int64_t)a * js->factor, hi = js->from + (int64_t)b * js->factor;
	if (!js->pairs)
		return dmls_series_range(&st->hosts[h].tx_payload, lo, hi, NULL);
	double sum = 0;
	for (size_t i = 0; i < js->npairs; i++) {
		const dmls_pair *pr = &st->pairs[js->pairs[i]];
		if (pr->src != h || pr->wire_bytes == 0)
			continue;
		sum += dmls_pair_series_payload(pr) * dmls_series_range(&pr->series, lo, hi, NULL);
	}
	return sum;
}

/* Per-worker per-iteration bytes; fills it->bytes_per_worker, bytes_spread. */
static int worker_bytes(dmls_iterations *it, const dmls_stats *st, const job_series *js,
			const size_t *starts, size_t ns, size_t last_on,
			const size_t *workers, size_t nw)
{
	size_t use = ns >= 3 ? ns - 1 : ns; /* drop the partial last one */
	/* the spread and outliers over every stride-th iteration: cells
	 * bounded whatever the capture's length */
	size_t stride = nw * use > MAX_CELLS ? (nw * use + MAX_CELLS - 1) / MAX_CELLS : 1;
	double *all = malloc((nw * ((use + stride - 1) / stride) + 1) * sizeof(double));
	double *med = malloc((nw + 1) * sizeof(double));
	double *v = malloc((use + 1) * sizeof(double));
	/* the series is the capture's total (js->shares): the job's bytes of
	 * each iteration, once for all workers, each its share of them */
	double *job = js->shares > 0 ? malloc((use + 1) * sizeof(double)) : NULL;
	size_t nall = 0, nmed = 0, outliers = 0;
	if (!all || !med || !v || (js->shares > 0 && !job)) {
		free(all), free(med), free(v), free(job);
		return -1;
	}
	for (size_t i = 0; job && i < use; i++) {
		size_t a = starts[i], b = i + 1 < ns ? starts[i + 1] : last_on + 1;
		job[i] = 0;
		for (size_t k = a; k < b && k < js->n; k++)
			job[i] += jx(js, k);
	}
	for (size_t w = 0; w < nw; w++) {
		size_t first = nall;
		for (size_t i = 0; i < use; i++) {
			size_t a = starts[i], b = i + 1 < ns ? starts[i + 1] : last_on + 1;
			b = b < js->n ? b : js->n;
			double tx = (double)st->hosts[workers[w]].tx_payload_bytes, sum = 0;
			if (a < b)
				sum = job ? job[i] * tx / js->shares : worker_sent(st, js, workers[w], a, b);
			v[i] = sum;
			if (i % stride == 0)
				all[nall++] = sum;
		}
		double m = dmls_median(v, use);
		if (m > 0)
			med[nmed++] = m;
		for (size_t i = first; i < nall; i++) /* cells off the worker's median */
			outliers += fabs(all[i] - m) > OUTLIER_SHARE * m;
	}
	it->bytes_per_worker = nmed ? dmls_median(med, nmed) : NAN;
	it->bytes_outliers = nall ? (double)outliers / (double)nall : NAN;
	/* in place (all is read no more): up to MAX_CELLS cells, 8 MiB */
	double mid = NAN, spread = use >= 2 && nall ? dmls_robust_spread(all, nall, &mid) : NAN;
	it->bytes_spread = mid > 0 ? spread / mid : NAN;
	free(all), free(med), free(v), free(job);
	return 0;
}

/* Time (seconds from st->t0_ns) at which bins [a, b) of x have moved the
 * share q of want_total bytes, interpolated inside the bin. */
static double time_at_share(const job_series *js, size_t a, size_t b, double total, double q)
{
	double cum = 0, want = q * total;
	for (size_t k = a; k < b && k < js->n; k++) {
		if (jx(js, k) > 0 && cum + jx(js, k) >= want) {
			double frac = (want - cum) / jx(js, k);
			return js->off_s + ((double)k + frac) * js->bin_s;
		}
		cum += jx(js, k);
	}
	return js->off_s + (double)a * js->bin_s;
}

static void fill_times(dmls_iterations *it, const job_series *js, const size_t *starts,
		       size_t ns, size_t last_on)
{
	it->count = ns;
	for (size_t i = 0; i < ns; i++) {
		it->bounds_s[i] = js->off_s + (double)starts[i] * js->bin_s;
		size_t b = i + 1 < ns ? starts[i + 1] : last_on + 1;
		it->bytes[i] = 0;
		for (size_t k = starts[i]; k < b && k < js->n; k++)
			it->bytes[i] += jx(js, k);
		it->starts_s[i] = time_at_share(js, starts[i], b, it->bytes[i], START_QUANTILE);
		it->comm_end_s[i] = time_at_share(js, starts[i], b, it->bytes[i], END_QUANTILE);
	}
	it->end_s = js->off_s + (double)(last_on + 1) * js->bin_s;
	dmls_iterations_period(it);
}

void dmls_iterations_period(dmls_iterations *it)
{
	size_t n = it->count;
	if (n < 2)
		return;
	/* the first interval holds the job's start-up: see the file's header */
	size_t k0 = n >= DMLS_STEADY_FROM ? 1 : 0, nd = n - 1 - k0;
	double *d = calloc(nd, sizeof(double));
	if (!d)
		return;
	for (size_t i = 0; i < nd; i++)
		d[i] = it->comm_end_s[k0 + i + 1] - it->comm_end_s[k0 + i];
	it->duration_cv = dmls_robust_cv(d, nd);
	it->period_median_s = dmls_median(d, nd);
	/* an anchor end placed late by the start-up leaves the interval after
	 * it a fraction of a step: anchor on the next end */
	size_t a = k0;
	if (k0 && nd > DMLS_STEADY_FROM &&
	    it->comm_end_s[k0 + 1] - it->comm_end_s[k0] < LATE_ANCHOR * it->period_median_s)
		a = k0 + 1;
	it->period_s = (it->comm_end_s[n - 1] - it->comm_end_s[a]) / (double)(n - 1 - a);
	free(d);
}

void dmls_iterations_drop_first(dmls_iterations *it)
{
	if (it->count < 3)
		return;
	size_t n = --it->count;
	memmove(it->starts_s, it->starts_s + 1, n * sizeof(double));
	memmove(it->bounds_s, it->bounds_s + 1, n * sizeof(double));
	memmove(it->comm_end_s, it->comm_end_s + 1, n * sizeof(double));
	memmove(it->bytes, it->bytes + 1, n * sizeof(double));
	dmls_iterations_period(it);
}

void dmls_iterations_release(dmls_iterations *it)
{
	free(it->starts_s);
	free(it->bounds_s);
	free(it->comm_end_s);
	free(it->bytes);
	it->starts_s = it->bounds_s = it->comm_end_s = it->bytes = NULL;
	it->count = 0;
}

static void iterations_clear(dmls_iterations *it)
{
	memset(it, 0, sizeof(*it));
	it->period_s = it->period_median_s = it->acf_period_s = it->acf_peak = NAN;
	it->end_s = it->bytes_per_worker = it->bytes_spread = NAN;
	it->iter_bytes = it->byte_peak = it->acf_at_period = NAN;
	it->duration_cv = it->regularity = it->bytes_outliers = NAN;
	it->stretch_share = 1;
	it->runs = 1;
	it->run_start_s = it->run_end_s = NAN;
	it->unresolved_bin_s = 0;
	it->on_share = it->pause_every_s = NAN;
}

int dmls_iterations_find(dmls_iterations *it, const dmls_stats *st, const size_t *hosts,
			 size_t nh, const size_t *workers, size_t nw, dmls_error *err)
{
	return dmls_iterations_find_pairs(it, st, hosts, nh, workers, nw, NULL, 0, err);
}

/*
 * The series of the pairs when they share the hosts' bin grid (a partial
 * view's data edges), else of the hosts.  On a long capture these coarsen
 * first, each class's budget shared by every host or pair, while the
 * capture's total payload has its budget alone: a ring of 8 stepping every
 * 50 ms for an hour leaves the hosts 32 ms bins, too coarse for the steps,
 * and the total 2 ms.  When the job's hosts send all but TOTAL_OTHER of
 * the capture's payload, and their pauses (counted at 1 ms online) come
 * more often than every HIDDEN_SPACING_BINS of the bins the job series
 * would have (hidden: the steps would be lost), the total stands for the
 * job's series at its finer bins, PAUSE_BINS bins between pauses as far
 * as MAX_TOTAL_BINS allows, and each worker's bytes in an iteration are
 * its share of the job's (worker_sent).
 */
#define TOTAL_OTHER 0.01

static int build_series(job_series *js, const dmls_stats *st, const size_t *hosts, size_t nh,
			const size_t *pairs, size_t np)
{
	const dmls_series **ser = malloc((nh + np + 1) * sizeof(*ser));
	size_t n = 0;
	if (!ser)
		return -1;
	const dmls_series *h0 = &st->hosts[hosts[0]].tx_payload;
	for (size_t i = 0; i < np; i++) {
		/* the pairs on one grid, no coarser than the hosts' (a long
		 * capture's hosts' series coarsen by its span, the pairs' by
		 * their budget: 16 and 1 ms over an hour of two rings on
		 * overlapping hosts, whose shared hosts' sending mixes both),
		 * in a view of jobs sharing pairs (jobs_overlap.c); else on the
		 * hosts' grid, or (--bin, or a view's connection beside coarser
		 * pairs) the hosts' series */
		const dmls_series *s = &st->pairs[pairs[i]].series;
		const dmls_series *g = n ? ser[0] : h0;
		int finer = st->flow_hidden && s->bin_ns < h0->bin_ns;
		/* hosts whose sending holds a stream: the pairs at their bins,
		 * coarser than the hosts' too (a long capture's) */
		int other = st->hosts_mixed && s->bin_ns != h0->bin_ns;
		if ((s->bin_ns > h0->bin_ns && !st->hosts_mixed) || s->t0_ns != g->t0_ns ||
		    (n ? s->bin_ns != g->bin_ns : s->bin_ns != h0->bin_ns && !finer && !other)) {
			n = 0;
			break;
		}
		ser[n++] = s;
	}
	if (n == 0)
		for (size_t i = 0; i < nh; i++)
			ser[n++] = &st->hosts[hosts[i]].tx_payload;
	int from_pairs = n > 0 && np > 0 && ser[0] == &st->pairs[pairs[0]].series;
	double sent = 0;
	for (size_t i = 0; i < nh; i++)
		sent += (double)st->hosts[hosts[i]].tx_payload_bytes;
	const dmls_series *tot = &st->total_payload;
	uint64_t max_bins = MAX_BINS;
	if (tot->bin_ns < ser[0]->bin_ns && tot->t0_ns == ser[0]->t0_ns && sent > 0 &&
	    sent >= (1 - TOTAL_OTHER) * (double)st->payload_bytes) {
		/* the hosts' pauses (1 ms streams) against the bins the job
		 * series would have: the total only where those hide the steps */
		double every = pause_spacing(st, hosts, nh, DMLS_HOST_BIN_NS);
		double span_s = (double)dmls_series_span_bins(tot) * (double)tot->bin_ns * 1e-9;
		double bin_s = fmax((double)ser[0]->bin_ns * 1e-9, span_s / MAX_BINS);
		if (every > 0 && every < HIDDEN_SPACING_BINS * bin_s) {
			double want = span_s * PAUSE_BINS / every;
			if (want > (double)MAX_BINS)
				max_bins = want < (double)MAX_TOTAL_BINS ? (uint64_t)want : MAX_TOTAL_BINS;
			ser[0] = tot;
			n = 1;
			from_pairs = 0;
			js->shares = sent;
		}
	}
	double shares = js->shares;
	int rc = job_series_build(js, st, ser, n, max_bins); /* clears js */
	js->shares = shares;
	if (from_pairs)
		js->pairs = pairs, js->npairs = np;
	free(ser);
	return rc;
}

/* The runs back to back the job series was cut to, and the busiest's time
 * (analysis.c, stretch.c). */
static void run_window(dmls_iterations *it, const dmls_stats *st, const job_series *js)
{
	it->runs = js->runs;
	if (js->runs > 1) {
		it->run_start_s = (double)(st->run_from_ns - st->t0_ns) * 1e-9;
		it->run_end_s = (double)(st->run_to_ns - st->t0_ns) * 1e-9;
	}
}

/* The iterations; clock_only: a rank's clock (count, periods, ends, bytes),
 * without what only a job's output holds (the time autocorrelation unless
 * the byte clock finds no steps, the regularity). */
static int find_core(dmls_iterations *it, const dmls_stats *st, const size_t *hosts, size_t nh,
		     const size_t *workers, size_t nw, const size_t *pairs, size_t np,
		     int clock_only, double guide_s, const double *at_s, size_t nat,
		     dmls_error *err)
{
	iterations_clear(it);
	job_series js = {0};
	if (nh == 0)
		return 0;
	if (build_series(&js, st, hosts, nh, pairs, np) < 0) {
		job_series_release(&js);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	if (js.n == 0)
		return 0;
	it->stretch_share = js.stretch_share;
	it->idle_gap_s = js.idle_gap_s;
	run_window(it, st, &js);
	double peak = NAN, T = clock_only ? -1 : acf_period(&js, &peak);
	if (T > 0) {
		it->acf_period_s = T * js.bin_s;
		it->acf_peak = peak;
	}
	int by_time = guide_s > 0 && js.bin_s > 0;
	if (by_time)
		T = guide_s / js.bin_s;
	size_t *starts = NULL, last_on = 0, ns = 0;
	double thr = 0;
	int rc = 0;
	if (find_starts(it, &js, &T, by_time, at_s, nat, &starts, &ns, &last_on, &thr) < 0)
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
	/* Halves only exist where some host is not a worker (a parameter
	 * server): a ring, every rank a worker, is never merged; a rank's
	 * clock (at_s) counted its own steps. */
	if (ns >= 6 && nw < nh && !at_s && merge_halves(&js, st, hosts, nh, thr, starts, &ns) < 0)
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (rc == 0 && ns > 0) {
		it->starts_s = malloc(ns * sizeof(double));
		it->bytes = malloc(ns * sizeof(double));
		it->comm_end_s = malloc(ns * sizeof(double));
		it->bounds_s = malloc(ns * sizeof(double));
		if (!it->starts_s || !it->bytes || !it->comm_end_s || !it->bounds_s ||
		    worker_bytes(it, st, &js, starts, ns, last_on, workers, nw) < 0) {
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		} else {
			fill_times(it, &js, starts, ns, last_on);
		}
	}
	if (rc == 0 && ns > 0 && it->unresolved_bin_s == 0 && hidden(it, st, &js, hosts, nh)) {
		double bin = it->unresolved_bin_s, every = it->pause_every_s;
		dmls_iterations_release(it);
		iterations_clear(it);
		it->stretch_share = js.stretch_share;
		it->idle_gap_s = js.idle_gap_s;
		run_window(it, st, &js);
		it->unresolved_bin_s = bin;
		it->pause_every_s = every;
		ns = 0;
	}
	if (it->unresolved_bin_s > 0 || /* the autocorrelation's peak is a beat */
	    (ns >= 3 && it->period_median_s < ACF_MIN_BINS * js.bin_s * (double)acf_factor(&js)))
		it->acf_period_s = it->acf_peak = NAN;
	if (rc == 0 && ns >= 3 && !clock_only) {
		it->acf_at_period = acf_at(&js, it->period_median_s);
		double a = isfinite(it->acf_at_period) ? fmax(0, it->acf_at_period) : 0;
		double b = isfinite(it->duration_cv) ? fmax(0, 1 - it->duration_cv) : 0;
		double c = isfinite(it->bytes_spread) ? fmax(0, 1 - it->bytes_spread) : 0;
		it->regularity = (a + b + c) / 3;
	}
	free(starts);
	job_series_release(&js);
	return rc;
}

int dmls_iterations_find_pairs(dmls_iterations *it, const dmls_stats *st, const size_t *hosts,
			       size_t nh, const size_t *workers, size_t nw, const size_t *pairs,
			       size_t np, dmls_error *err)
{
	return find_core(it, st, hosts, nh, workers, nw, pairs, np, 0, 0, NULL, 0, err);
}

int dmls_iterations_find_guided(dmls_iterations *it, const dmls_stats *st, const size_t *hosts,
				size_t nh, const size_t *workers, size_t nw, const size_t *pairs,
				size_t np, double guide_s, dmls_error *err)
{
	return find_core(it, st, hosts, nh, workers, nw, pairs, np, 0, guide_s, NULL, 0, err);
}

int dmls_iterations_find_clock(dmls_iterations *it, const dmls_stats *st, size_t h,
			       const size_t *pairs, size_t np, dmls_error *err)
{
	return find_core(it, st, &h, 1, &h, 1, pairs, np, 1, 0, NULL, 0, err);
}

int dmls_iterations_find_at(dmls_iterations *it, const dmls_stats *st, const size_t *hosts,
			    size_t nh, const size_t *workers, size_t nw, const size_t *pairs,
			    size_t np, const double *at_s, size_t nat, dmls_error *err)
{
	return find_core(it, st, hosts, nh, workers, nw, pairs, np, 0, 0, at_s, nat, err);
}
