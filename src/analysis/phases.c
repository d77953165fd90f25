/*
 * phases.c - on/off (communication vs compute) phases.
 *
 * The series is re-binned to 1 ms.  A bin is on when it holds at least 2 %
 * of the 99th percentile of non-empty bins (so control chatter in a compute
 * phase stays off).  On bins closer than gap_threshold_s merge into one
 * burst; what separates bursts is a gap.  Duty cycle = time in bursts /
 * (end of the last burst - start of the first).  Bursts separated by a
 * minimum inter-burst gap are the "packet trains" of Jain & Routhier
 * ("Packet trains: measurements and a new model for computer network
 * traffic", IEEE JSAC 4(6), 1986); the on/off source model is that of
 * Willinger et al. (SIGCOMM 1995).
 *
 * Nothing is copied out of the series: the bins, the bursts and the gaps
 * are walked again for each number (their counts, sums and largest, then
 * the percentiles by radix selection, rank_select.c), so the memory stays
 * a few histograms however many bins a long capture's series holds (a
 * copy took 40 bytes a bin: 80 MiB for a full series class).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"
#include "dmlscope/analysis.h"

#define PHASE_BIN_NS 1000000LL
#define ON_FRACTION 0.02

enum { SEQ_BURSTS, SEQ_GAPS };

/* One walk over the series' 1 ms bins.  Without a threshold (isnan(thr))
 * it emits the bins' bytes; with one, the bursts' and gaps' lengths in
 * bins.  Either way it counts what it emits. */
typedef struct phase_walk {
	const dmls_series *s;
	int64_t factor;      /* series bins per phase bin */
	double thr;          /* a bin is on at this many bytes or more */
	int64_t gap_bins;    /* off stretches this long or longer end a burst */
	double bin_s;
	/* the last walk's counts */
	size_t n[2];
	uint64_t max[2];
	double sum_s[2];     /* of lengths x bin_s, added in order */
	double on_bins, span_bins;
	int have;
	int64_t first_on, bstart, last;
} phase_walk;

static void emit_len(phase_walk *w, int seq, int64_t len, dmls_rank_emit emit, void *sel)
{
	w->n[seq]++;
	w->max[seq] = (uint64_t)len > w->max[seq] ? (uint64_t)len : w->max[seq];
	w->sum_s[seq] += (double)len * w->bin_s;
	if (seq == SEQ_BURSTS)
		w->on_bins += (double)len;
	if (emit)
		emit(sel, (unsigned)seq, (uint64_t)len);
}

static void phase_bin(phase_walk *w, int64_t k, uint64_t v, dmls_rank_emit emit, void *sel)
{
	if (isnan(w->thr)) {
		w->n[0]++;
		w->max[0] = v > w->max[0] ? v : w->max[0];
		if (emit)
			emit(sel, 0, v);
		return;
	}
	if (!((double)v >= w->thr && v > 0))
		return;
	if (!w->have) {
		w->bstart = w->first_on = k;
		w->have = 1;
	} else if (k - w->last - 1 >= w->gap_bins) {
		emit_len(w, SEQ_BURSTS, w->last - w->bstart + 1, emit, sel);
		emit_len(w, SEQ_GAPS, k - w->last - 1, emit, sel);
		w->bstart = k;
	}
	w->last = k;
}

static void walk(void *ctx, dmls_rank_emit emit, void *sel)
{
	phase_walk *w = ctx;
	const dmls_series *s = w->s;
	memset(w->n, 0, sizeof(w->n));
	memset(w->max, 0, sizeof(w->max));
	memset(w->sum_s, 0, sizeof(w->sum_s));
	w->on_bins = w->span_bins = 0;
	w->have = 0;
	int64_t k = 0;
	uint64_t v = 0;
	int open = 0;
	for (size_t r = 0; r < s->nruns; r++) {
		dmls_series_run u = dmls_series_run_get(s, r);
		for (size_t j = 0; j < u.len; j++) {
			uint64_t x = dmls_series_val(s, u.off + j);
			if (!x)
				continue;
			int64_t b = u.first + (int64_t)j;
			int64_t kk = b >= 0 ? b / w->factor : -((-b + w->factor - 1) / w->factor);
			if (open && kk == k) {
				v += x;
				continue;
			}
			if (open)
				phase_bin(w, k, v, emit, sel);
			k = kk, v = x, open = 1;
		}
	}
	if (open)
		phase_bin(w, k, v, emit, sel);
	if (w->have) {
		emit_len(w, SEQ_BURSTS, w->last - w->bstart + 1, emit, sel);
		w->span_bins = (double)(w->last - w->first_on + 1);
	}
}

/* The q-quantile of sequence seq (n values, the largest max), linearly
 * interpolated between order statistics as dmls_quantile_select does,
 * each value scaled by unit.  NAN when out of memory. */
static double quantile_of(phase_walk *w, unsigned seq, size_t n, uint64_t max, double q,
			  double unit)
{
	double h = q * (double)(n - 1);
	size_t i = (size_t)floor(h);
	if (i + 1 >= n)
		i = n - 1;
	dmls_rank_ask ask[2] = {{seq, i, max}, {seq, i + 1, max}};
	uint64_t at[2];
	if (dmls_rank_select(walk, w, ask, i + 1 < n ? 2 : 1, at))
		return NAN;
	double lo = (double)at[0] * unit;
	if (i + 1 >= n)
		return lo;
	return lo + (h - (double)i) * ((double)at[1] * unit - lo);
}

static void dist_of(dmls_dist *d, phase_walk *w, unsigned seq)
{
	size_t n = w->n[seq];
	uint64_t max = w->max[seq];
	double sum = w->sum_s[seq];
	d->n = n;
	d->mean_s = d->p50_s = d->p90_s = d->max_s = NAN;
	if (n == 0)
		return;
	d->mean_s = sum / (double)n;
	d->max_s = (double)max * w->bin_s;
	d->p90_s = quantile_of(w, seq, n, max, 0.9, w->bin_s);
	d->p50_s = quantile_of(w, seq, n, max, 0.5, w->bin_s);
}

void dmls_phases_compute(dmls_phases *ph, const dmls_series *s, double gap_threshold_s)
{
	memset(ph, 0, sizeof(*ph));
	ph->bin_s = PHASE_BIN_NS * 1e-9;
	ph->gap_threshold_s = gap_threshold_s;
	ph->duty_cycle = NAN;
	dmls_dist none = {0, NAN, NAN, NAN, NAN};
	ph->bursts = ph->gaps = none;
	if (!s || dmls_series_empty(s) || s->bin_ns <= 0)
		return;
	phase_walk w = {.s = s, .factor = PHASE_BIN_NS / s->bin_ns > 0 ? PHASE_BIN_NS / s->bin_ns : 1,
			.thr = NAN};
	ph->bin_s = w.bin_s = (double)(w.factor * s->bin_ns) * 1e-9;
	walk(&w, NULL, NULL);
	if (w.n[0] == 0)
		return;
	w.thr = ON_FRACTION * quantile_of(&w, 0, w.n[0], w.max[0], 0.99, 1.0);
	if (isnan(w.thr))
		return;
	w.gap_bins = (int64_t)ceil(gap_threshold_s / ph->bin_s);
	walk(&w, NULL, NULL);
	if (w.have)
		ph->duty_cycle = w.on_bins / w.span_bins;
	phase_walk counted = w;
	dist_of(&ph->bursts, &w, SEQ_BURSTS);
	w = counted;
	dist_of(&ph->gaps, &w, SEQ_GAPS);
}
