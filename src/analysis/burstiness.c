/*
 * burstiness.c - how bursty a byte series is, in network calculus terms.
 *
 * For the cumulative arrival function A(t) (bytes up to t):
 *   E(tau)   = sup_t A(t + tau) - A(t), the most bytes in any window of
 *              length tau: the tightest arrival curve at tau (Cruz, "A
 *              calculus for network delay, part I", IEEE Trans. Inf.
 *              Theory 37(1), 1991; Le Boudec & Thiran, "Network Calculus",
 *              Springer LNCS 2050, 2001, sec. 1.2 and 1.4.1, the minimum
 *              arrival curve).  Computed by a sliding window of
 *              round(tau / bin) bins over the non-empty bins (two pointers);
 *              the bin grid makes it exact up to one bin's bytes.
 *   PtM(tau) = E(tau) / (mean rate * tau), peak-to-mean at time scale tau
 *              (NAN when tau exceeds the span or is shorter than a bin).
 *   B_max(r) = sup_t sup_{s<=t} A(t) - A(s) - r (t - s), the largest backlog
 *              of a queue served at constant rate r (Le Boudec & Thiran,
 *              Thm. 1.4.1, vertical deviation to the rate-latency curve
 *              with latency 0), by the Lindley recursion q_k = max(0,
 *              q_{k-1} + a_k - r * bin) over bins (Lindley 1952).
 * Time scales: 100 us, 1 ms, 5 ms, 10 ms, 100 ms, 1 s; drain rates 1, 10,
 * 40 and 100 Gbit/s.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"

const double dmls_burst_tau_s[DMLS_NTAU] = {100e-6, 1e-3, 5e-3, 10e-3, 100e-3, 1.0};
const double dmls_burst_rate_bps[DMLS_NRATE] = {1e9, 10e9, 40e9, 100e9};

typedef struct nz_bins {
	size_t n, cap;
	int64_t *bin;
	double *v;
	int oom;
} nz_bins;

static void collect(int64_t bin, uint64_t bytes, void *ctx)
{
	nz_bins *z = ctx;
	if (z->oom)
		return;
	if (z->n == z->cap) {
		size_t cap = z->cap ? 2 * z->cap : 1024;
		int64_t *b = realloc(z->bin, cap * sizeof(int64_t));
		if (b)
			z->bin = b;
		double *v = b ? realloc(z->v, cap * sizeof(double)) : NULL;
		if (!b || !v) {
			z->oom = 1;
			return;
		}
		z->v = v;
		z->cap = cap;
	}
	z->bin[z->n] = bin;
	z->v[z->n++] = (double)bytes;
}

static double max_window(const nz_bins *z, int64_t w)
{
	double best = 0, sum = 0;
	size_t i = 0;
	for (size_t j = 0; j < z->n; j++) {
		sum += z->v[j];
		while (z->bin[i] <= z->bin[j] - w)
			sum -= z->v[i++];
		best = sum > best ? sum : best;
	}
	return best;
}

static double max_backlog(const nz_bins *z, double per_bin)
{
	double q = 0, best = 0;
	for (size_t j = 0; j < z->n; j++) {
		if (j > 0) {
			double idle = (double)(z->bin[j] - z->bin[j - 1] - 1) * per_bin;
			q = q > idle ? q - idle : 0;
		}
		q += z->v[j] - per_bin;
		q = q > 0 ? q : 0;
		best = q > best ? q : best;
	}
	return best;
}

void dmls_burst_compute(dmls_burst *b, const dmls_series *s, double span_s)
{
	nz_bins z = {0};
	for (int i = 0; i < DMLS_NTAU; i++)
		b->max_window_bytes[i] = b->peak_to_mean[i] = NAN;
	for (int i = 0; i < DMLS_NRATE; i++)
		b->max_backlog_bytes[i] = NAN;
	b->mean_bps = NAN;
	if (!s || dmls_series_empty(s) || s->bin_ns <= 0)
		return;
	dmls_series_foreach(s, collect, &z);
	double bin_s = (double)s->bin_ns * 1e-9;
	if (!(span_s >= bin_s))
		span_s = (double)dmls_series_span_bins(s) * bin_s;
	double total = (double)s->total, rate = total / span_s; /* bytes/s */
	b->mean_bps = 8 * rate;
	if (z.oom || z.n == 0)
		goto out;
	for (int i = 0; i < DMLS_NTAU; i++) {
		double tau = dmls_burst_tau_s[i];
		int64_t w = llround(tau / bin_s);
		if (w < 1 || tau < bin_s * 0.999)
			continue;
		b->max_window_bytes[i] = max_window(&z, w);
		if (tau <= span_s && rate > 0)
			b->peak_to_mean[i] = b->max_window_bytes[i] / (rate * tau);
	}
	for (int i = 0; i < DMLS_NRATE; i++)
		b->max_backlog_bytes[i] = max_backlog(&z, dmls_burst_rate_bps[i] / 8 * bin_s);
out:
	free(z.bin);
	free(z.v);
}
