/* period.h - autocorrelation period estimate (internal to src/analysis). */
#ifndef DMLS_ANALYSIS_PERIOD_H
#define DMLS_ANALYSIS_PERIOD_H

#include <stddef.h>
#include <stdint.h>

/* The transforms' buffers, kept from one autocorrelation to the next of
 * the same size, one per search of the iterations, and its plans (kept by
 * size for the whole process: an FFTW plan computes its trigonometric
 * tables when made, which cost as much as the transform).
 * Zero-initialize; dmls_fft_release frees the buffers. */
typedef struct dmls_fft {
	size_t m;           /* transform size of the plans, 0 when none */
	void *fwd;          /* fftw_plan: forward, complex, m / 2 points, or
			     * when split, m / 2^(split + 1) (period.c) */
	unsigned split;     /* radix-2 stages run before (after) the plan */
	double *tw;         /* twiddles of size m (period.c) */
	void *c;            /* fftw_complex[m / 2] */
} dmls_fft;
void dmls_fft_release(dmls_fft *f);

/* Period of x[0..n) in bins (fractional), 0 if none; *peak = r at it.
 * fft may be NULL (plans made and dropped for this call). */
double dmls_period_acf(dmls_fft *fft, const double *x, size_t n, double *peak);
/* The same, a lag counting only when its double holds a peak too (at least
 * a quarter as high, within 2 %; or the double is past the lags read): a period
 * repeats, a spacing that recurs inside each period does not. */
double dmls_period_acf_lattice(dmls_fft *fft, const double *x, size_t n, double *peak);

/* Room for the n points of an autocorrelation in fft's own buffer, NULL
 * when out of memory: filled and given to dmls_period_acf*, dmls_autocorr
 * (with the same fft), they are transformed in place, without a copy (a
 * long capture's 2^17 points: 1 MiB), and overwritten. */
double *dmls_fft_points(dmls_fft *fft, size_t n);
/* fft's buffer as n doubles of scratch when it holds them already (NULL
 * otherwise: nothing is allocated); the next transform overwrites them. */
double *dmls_fft_scratch(dmls_fft *fft, size_t n);

/* The full autocorrelation r[0..n) of x (biased); 0 or -1. */
int dmls_autocorr(dmls_fft *fft, const double *x, size_t n, double *r);

/* The bins of a job series (iterations.c): byte counts, in 32 bits where
 * every bin fits (half the memory of doubles: 1 MiB of a long capture's
 * 2^18 bins, 4 MiB of 2^20), else in doubles; the same values either way. */
typedef struct dmls_bins {
	const uint32_t *u; /* NULL: d */
	const double *d;
} dmls_bins;
static inline double dmls_bin(dmls_bins x, size_t k)
{
	return x.u ? (double)x.u[k] : x.d[k];
}
/* Whether bin k is on: it holds thr bytes or more, and some. */
static inline int dmls_bin_on(dmls_bins x, size_t k, double thr)
{
	double v = dmls_bin(x, k);
	return v >= thr && v > 0;
}

/* Room the byte clock's starts need for ngaps gaps between runs of on bins
 * (x >= thr): a start per gap, up to a quarter more where steps ran back
 * to back (split_merged), and 4 more. */
#define DMLS_BYTECLOCK_ROOM(ngaps) ((ngaps) + (ngaps) / 4 + 4)
/* Iteration starts (bins) by the byte clock (byteclock.c); starts holds
 * DMLS_BYTECLOCK_ROOM of x's gaps.
 * Returns the count, 0 when the bytes show no period; *B = bytes per
 * iteration, *peak = autocorrelation in the byte domain.  fft: not NULL
 * (its buffer holds the histogram transformed). */
size_t dmls_byteclock_starts(dmls_fft *fft, dmls_bins x, size_t n, double thr,
			     size_t *starts, double *B, double *peak);

/* Keep every other start when iterations alternate in who sends (halves.c).
 * hx holds nh host series of n bins each (hx[h*n + k]).  Returns the new count. */
size_t dmls_merge_halves(dmls_bins x, size_t n, double thr, const double *hx,
			 size_t nh, size_t *starts, size_t ns);

/* Clock e[0..n) against ref[0..nr) (iteration ends, ascending, seconds),
 * P the period (mode.c): *spread = robust spread of e's offsets from the
 * nearest reference end over P, *lock = share of the reference's steps
 * holding exactly one end of e (1: lockstep).  wander (NULL: not asked):
 * how the offsets (wrapped about their median) move from one end to the
 * next, the robust spread of their changes over theirs.  About 1.4
 * (sqrt 2) when they are noise about one value (two parts of one job: each
 * step ties them again), well under 1 when they wander (two jobs: their
 * clocks drift or random-walk through each other); NAN under 3 ends.
 * NAN when not defined. */
void dmls_clock_compare(const double *ref, size_t nr, const double *e, size_t n, double P,
			double *spread, double *lock, double *wander);

/* 1 when the steps ending at e[0..n) (period Pe) and at f[0..nf) (Pf)
 * are one job's: periods within 3 %, one end of f in 90 % of e's steps,
 * offsets steady within 10 % of the period, or within 30 % when they do
 * not wander (jobs_shared.c, where the thresholds are argued). */
int dmls_steps_lock(const double *e, size_t n, double Pe, const double *f, size_t nf, double Pf);

/* The busiest stretch [*from, *to] of the series ser[0..n) (one bin grid):
 * cut at idle gaps (stretch.c).  Returns the share of the bytes kept (1 when
 * nothing was cut, NAN when out of memory) and the longest gap
 * cut in bins (*gap_cut, 0 when none). */
struct dmls_series;
double dmls_busiest_stretch(const struct dmls_series *const *ser, size_t n, int64_t *from,
			    int64_t *to, int64_t *gap_cut);

/* The busiest run of the job on hosts[0..nh), [*from_ns, *to_ns): runs end
 * where its pairs' traffic stops for half a second or more while its hosts
 * open connections anew (stretch.c).  With one run, *runs = 1 and the
 * whole time line (INT64_MIN, INT64_MAX).  With list (may be NULL), the
 * first cap runs into it (*nlist; none with one run).  0, or -1 when out of
 * memory. */
struct dmls_stats;
struct dmls_run_span;
int dmls_job_runs(const struct dmls_stats *st, const size_t *hosts, size_t nh, int64_t *from_ns,
		  int64_t *to_ns, size_t *runs, struct dmls_run_span *list, size_t cap, size_t *nlist);

/* A pair's payload in the analysis' window (st->run_*: the busiest of
 * runs back to back): its wire bytes there times its payload share; all of
 * it without a window (stretch.c). */
struct dmls_pair;
double dmls_pair_payload_in_run(const struct dmls_stats *st, const struct dmls_pair *pr);

/* [*lo, *hi] (bins of s) narrowed to the analysis' window (st->run_*);
 * 0 when nothing of it is left (stretch.c). */
int dmls_run_bins(const struct dmls_stats *st, const struct dmls_series *s, int64_t *lo,
		  int64_t *hi);
/* The edge cut of a job (hosts h with at[h] < n) whose cut is thr: in the
 * analysis' window, DMLS_EDGE_FRACTION of its largest pair there. */
double dmls_run_edge_cut(const struct dmls_stats *st, const size_t *at, size_t n, double thr);

/* The period of requests at t[0..k) (ascending) when kc > k were sent:
 * the span over the number of steps whose period the intervals fit best
 * as whole multiples, where they fit well; else the span over kc - 1
 * steps (mode.c); NAN for an empty span. */
double dmls_period_of_missed(const double *t, size_t k, size_t kc);

/* The period of requests among bursts at t[0..k) that hold kc < k
 * requests (answers taken for requests; mode.c): span_period, the span
 * over the requests, unless the answers lie outside the requests' span (a
 * rank answering others after its own last step) and stretch it.  An
 * answer inside the span often sits right by a request (an interval under
 * a quarter of the median): when the extra bursts are few (a quarter of
 * the requests or fewer), half of them or more show so and the span is at
 * most 25 % over the median, the answers are inside and the span is the
 * requests' (the median is not the mean there: a rank whose steps shorten
 * as the job goes, 0.24 s to 0.09 s on the testbed, has a median 12-18 %
 * under it).  Else bursts beyond an end (k - kc at most) are answers:
 * after the last step, those after a gap of over three medians; before
 * the first, each over three medians from the next (after the last step
 * they stretched a span by 58 % in test_analysis): the span without them; none,
 * the span again (3 answers of a 4-rank pair averaging rank, none by a
 * request: the median was 12 % short; a rank at 2 % loss answered 28
 * times 0.02 s apart inside its span: the median was 68 % short). */
double dmls_period_of_extra(const double *t, size_t k, size_t kc, double span_period);

/* The period of requests among k bursts at t[0..k) that count as many as
 * the connections' requests: span_period (the span over k - 1 steps),
 * unless the burst at one end lies over six medians from the next.  That
 * burst is then an answer (the fastest rank of a 7-rank pair averaging
 * answered a slower one 0.88 s, 17 medians, after its own last step),
 * and the count came out even because two requests inside the span ran
 * together: the period of the k - 1 others with k sent
 * (dmls_period_of_missed).  A rank's own step after a stall (a TCP
 * retransmission timeout, 0.2 s and more) lies 3-5 medians from the
 * previous one at the testbed's 0.05 s steps. */
double dmls_period_of_even(const double *t, size_t k, double span_period);

/* The period of a rank's requests from its k bursts at t[0..k) when its
 * connections carried kc requests (mode.c event_clocks): the span over
 * the steps in it, by dmls_period_of_missed (kc > k: requests missed; a
 * lone burst at an end, over six medians from the next, is an answer and
 * left out first: a 5-rank pair averaging rank at 2 % loss answered 1.8 s
 * after its last step and read +126 %), dmls_period_of_extra (kc < k) or
 * dmls_period_of_even (kc == k). */
double dmls_period_of_requests(const double *t, size_t k, size_t kc);

/* A lossy path: the hosts h[0..n) sent DMLS_LOSSY_SHARE of their packets
 * again or more (stats_util.c).  Retransmission stalls then break the
 * ranks' byte clocks (mode.c) and can make a job's clock count k steps as
 * one (analysis.c reclock_by_ranks). */
#define DMLS_LOSSY_SHARE 0.01
int dmls_hosts_lossy(const struct dmls_stats *st, const size_t *h, size_t n);

/* Helpers shared by the analysis files (stats_util.c). */
int dmls_cmp_double(const void *a, const void *b); /* qsort, ascending */
double dmls_quantile(double *v, size_t n, double q); /* sorts v; NAN if n == 0 */
/* The same value in O(n), v reordered but not sorted. */
double dmls_quantile_select(double *v, size_t n, double q);
double dmls_median(double *v, size_t n); /* by selection: v reordered; NAN if n == 0 */
double dmls_robust_cv(const double *v, size_t n);    /* 1.4826 MAD / median */
/* 1.4826 MAD of v[0..n) (reordered), *median its median when not NULL. */
double dmls_robust_spread(double *v, size_t n, double *median);

/* Exact order statistics of integer sequences walked again for each pass
 * rather than held (rank_select.c).  walk(ctx, emit, sel) calls
 * emit(sel, seq, v) for every value v of every sequence seq, in any order,
 * the same values at each call.  ask[i]: the sequence, the rank wanted
 * (0: the smallest; below that sequence's count) and a bound on its values
 * (>= the largest).  out[i] gets the value of that rank.  Returns 0, or -1
 * when out of memory. */
typedef void (*dmls_rank_emit)(void *sel, unsigned seq, uint64_t v);
typedef void (*dmls_rank_walk)(void *ctx, dmls_rank_emit emit, void *sel);
typedef struct dmls_rank_ask {
	unsigned seq;
	uint64_t rank, max;
} dmls_rank_ask;
int dmls_rank_select(dmls_rank_walk walk, void *ctx, const dmls_rank_ask *ask, size_t n,
		     uint64_t *out);

#endif
