/*
 * period.c - the period of a binned byte series from its autocorrelation.
 *
 * The sample autocorrelation r(k) = c(k)/c(0), c(k) = (1/n) sum (x_t - m)
 * (x_{t+k} - m) (the biased estimator, Box & Jenkins, "Time Series
 * Analysis", ch. 2), computed with a zero-padded FFT (Wiener-Khinchin:
 * the inverse transform of |X|^2; padding to >= 2n makes it linear, not
 * circular), by FFTW (Frigo & Johnson, Proc. IEEE 93(2), 2005), see below.
 * The biased estimator shrinks r(k) by (n-k)/n, which
 * favours the fundamental over its multiples.
 *
 * Peak picking: past the main lobe (the first lag where r < 0.5, i.e. a
 * burst's own width), candidate peaks are lags that hold the maximum of r
 * within +-w (w = the main lobe's width, so noise and jitter make no
 * peaks), up to n/2 (two periods at least).  The period is the first
 * candidate reaching 0.8 of the best candidate (sub-periods such as
 * gradient buckets inside one iteration are weaker than the iteration),
 * refined by a parabola through its three lags.  Returns the period in
 * bins (fractional) and r at it corrected to unbiased (r * n / (n - k)),
 * or 0 when nothing periodic stands out (best candidate below 0.1).
 */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <fftw3.h>

#include "analysis/period.h"

/*
 * The transform of m real points is one complex transform of m/2 points
 * (even samples as the real part, odd as the imaginary) and a pass that
 * unpacks it with the twiddles W^k = e^{-2 pi i k / m} (Press et al.,
 * "Numerical Recipes", 3rd ed., 12.3.2); the way back packs the power
 * spectrum the same way.  FFTW plans complex transforms of a new size in
 * 0.1-0.4 ms up to 2^15 points, where a real-to-complex plan costs 3-7 ms
 * (several times the whole packet pass of a short capture), and runs them
 * 3-8x faster than GSL's radix-2 routines.
 *
 * Plans and twiddles are kept by size for the life of the process: every
 * search of the iterations (one per job, per part) asks for the same few
 * power-of-two sizes.  A plan is made on the first buffer of its size and
 * run on any other (fftw_execute_dft: buffers from fftw_alloc share the
 * plan's alignment).  Sizes above 2^KEEP_LOG2 are planned and dropped per
 * dmls_fft.  Not thread-safe, like FFTW's planner itself.
 */
#define KEEP_LOG2 24
static struct {
	fftw_plan fwd, inv;
	double *tw; /* cos, sin pairs of 2 pi k / m, k = 0..m/4 */
} kept[KEEP_LOG2 + 1];

static int log2_of(size_t m)
{
	int k = 0;
	while (((size_t)1 << k) < m)
		k++;
	return k;
}

static void drop_kit(fftw_plan fwd, fftw_plan inv, double *tw)
{
	if (fwd)
		fftw_destroy_plan(fwd);
	if (inv)
		fftw_destroy_plan(inv);
	free(tw);
}

void dmls_fft_release(dmls_fft *f)
{
	if (f->m && log2_of(f->m) > KEEP_LOG2)
		drop_kit(f->fwd, f->inv, f->tw);
	fftw_free(f->d);
	fftw_free(f->c);
	*f = (dmls_fft){0};
}

/* cos and sin of 2 pi k / m for k = 0..q (q = m/4): each the product of
 * an exact value at a multiple of 64 and one below 64 (a few ulp), so
 * that a table of 2^18 entries costs 2^12 calls of sin and cos. */
static double *twiddles(size_t m)
{
	size_t q = m / 4;
	double *tw = malloc(2 * (q + 1) * sizeof(double));
	if (!tw)
		return NULL;
	double step = 2 * M_PI / (double)m, fc[64], fs[64];
	for (size_t b = 0; b < 64; b++)
		fc[b] = cos(step * (double)b), fs[b] = sin(step * (double)b);
	for (size_t a = 0; a <= q; a += 64) {
		double c = cos(step * (double)a), s = sin(step * (double)a);
		for (size_t b = 0; b < 64 && a + b <= q; b++) {
			tw[2 * (a + b)] = c * fc[b] - s * fs[b];
			tw[2 * (a + b) + 1] = s * fc[b] + c * fs[b];
		}
	}
	return tw;
}

/* Plans, twiddles and buffers for m real points (a power of two, >= 4). */
static int fft_ready(dmls_fft *f, size_t m)
{
	if (f->m == m)
		return 0;
	dmls_fft_release(f);
	if (m > INT32_MAX || m < 4)
		return -1;
	size_t h = m / 2;
	f->d = fftw_alloc_real(h + 1);
	f->c = fftw_alloc_complex(h);
	if (!f->d || !f->c)
		return dmls_fft_release(f), -1;
	int k = log2_of(m);
	if (k <= KEEP_LOG2 && kept[k].fwd) {
		f->fwd = kept[k].fwd, f->inv = kept[k].inv, f->tw = kept[k].tw;
		f->m = m;
		return 0;
	}
	/* FFTW_ESTIMATE plans without touching the array */
	fftw_complex *c = f->c;
	fftw_plan fwd = fftw_plan_dft_1d((int)h, c, c, FFTW_FORWARD, FFTW_ESTIMATE);
	fftw_plan inv = fftw_plan_dft_1d((int)h, c, c, FFTW_BACKWARD, FFTW_ESTIMATE);
	double *tw = twiddles(m);
	if (!fwd || !inv || !tw) {
		drop_kit(fwd, inv, tw);
		return dmls_fft_release(f), -1;
	}
	f->fwd = fwd, f->inv = inv, f->tw = tw, f->m = m;
	if (k <= KEEP_LOG2)
		kept[k].fwd = fwd, kept[k].inv = inv, kept[k].tw = tw;
	return 0;
}

/* W^k = e^{-2 pi i k / m} for k = 0..h (h = m/2) from the quarter table
 * tw: (tw[2k], -tw[2k+1]) for 2k <= h, and W^{h-k} = -conj(W^k) above. */
/* P[0..h] = |X|^2 of the real transform X of the m = 2h points packed in
 * c (z_j = x_{2j} + i x_{2j+1}), after c = FFT_h(z). */
static void unpack_power(const fftw_complex *c, const double *tw, size_t h, double *P)
{
	for (size_t k = 0; k <= h / 2; k++) {
		size_t j = k ? h - k : 0;
		double ar = c[k][0], ai = c[k][1], br = c[j][0], bi = -c[j][1];
		double er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);  /* (Z_k + conj Z_{h-k}) / 2 */
		double orr = 0.5 * (ai - bi), oi = -0.5 * (ar - br); /* (Z_k - conj Z_{h-k}) / 2i */
		double wr = tw[2 * k], wi = -tw[2 * k + 1]; /* W^k, 2 k <= h */
		double tr = wr * orr - wi * oi, ti = wr * oi + wi * orr;
		P[k] = (er + tr) * (er + tr) + (ei + ti) * (ei + ti);
		P[h - k] = (er - tr) * (er - tr) + (ei - ti) * (ei - ti);
	}
}

/* c = Ev + i Od, Ev_k = P_k + P_{h-k}, Od_k = (P_k - P_{h-k}) conj(W^k):
 * its inverse FFT_h holds r_{2j} + i r_{2j+1} (Wiener-Khinchin, P even). */
static void pack_power(const double *P, const double *tw, size_t h, fftw_complex *c)
{
	/* W^k below and above h / 2 in loops apart: no branch a point */
	for (size_t k = 0; 2 * k <= h && k < h; k++) {
		double ev = P[k] + P[h - k], od = P[k] - P[h - k];
		double wr = tw[2 * k], wi = -tw[2 * k + 1];
		c[k][0] = ev + od * wi; /* i * od * (wr - i wi) = od wi + i od wr */
		c[k][1] = od * wr;
	}
	for (size_t k = h / 2 + 1; k < h; k++) {
		double ev = P[k] + P[h - k], od = P[k] - P[h - k];
		double wr = -tw[2 * (h - k)], wi = -tw[2 * (h - k) + 1];
		c[k][0] = ev + od * wi;
		c[k][1] = od * wr;
	}
}

/* r[0..n) from x[0..n); returns 0 or -1 (memory, flat series). */
int dmls_autocorr(dmls_fft *fft, const double *x, size_t n, double *r)
{
	size_t m = 4;
	while (m < 2 * n)
		m <<= 1;
	dmls_fft local = {0}, *f = fft ? fft : &local;
	int rc = -1;
	if (n == 0 || fft_ready(f, m))
		goto out;
	size_t h = m / 2;
	fftw_complex *c = f->c;
	double mean = 0;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t j = 0; j < n / 2; j++)
		c[j][0] = x[2 * j] - mean, c[j][1] = x[2 * j + 1] - mean;
	size_t used = n / 2;
	if (n % 2)
		c[used][0] = x[n - 1] - mean, c[used][1] = 0, used++;
	memset(c + used, 0, (h - used) * sizeof(fftw_complex));
	fftw_execute_dft(f->fwd, c, c);
	unpack_power(c, f->tw, h, f->d);
	pack_power(f->d, f->tw, h, c);
	fftw_execute_dft(f->inv, c, c);
	if (c[0][0] > 0) {
		double inv0 = 1.0 / c[0][0];
		for (size_t k = 0; k < n; k++)
			r[k] = c[k / 2][k % 2] * inv0;
		rc = 0;
	}
out:
	if (f == &local)
		dmls_fft_release(&local);
	return rc;
}

double dmls_period_acf(dmls_fft *fft, const double *x, size_t n, double *peak)
{
	*peak = NAN;
	if (n < 8)
		return 0;
	double *r = malloc(n * sizeof(double));
	if (!r || dmls_autocorr(fft, x, n, r) < 0) {
		free(r);
		return 0;
	}
	size_t k0 = 1;
	while (k0 < n / 2 && r[k0] >= 0.5)
		k0++;
	size_t w = k0 > 1 ? k0 : 2, kmax = n / 2, nc = 0;
	size_t *cand = malloc((kmax + 1) * sizeof(size_t));
	double best = 0;
	for (size_t k = k0 + 1; cand && k + 1 <= kmax; k++) {
		if (r[k] <= 0 || r[k] < r[k - 1] || r[k] < r[k + 1])
			continue;
		size_t lo = k > w ? k - w : 0, hi = k + w < n ? k + w : n - 1;
		int is_max = 1;
		for (size_t j = lo; j <= hi && is_max; j++)
			if (r[j] > r[k] || (r[j] == r[k] && j < k))
				is_max = 0;
		if (!is_max)
			continue;
		cand[nc++] = k;
		best = r[k] > best ? r[k] : best;
	}
	double lag = 0;
	if (best >= 0.1) {
		for (size_t i = 0; i < nc; i++) {
			size_t k = cand[i];
			if (r[k] < 0.8 * best)
				continue;
			double a = r[k - 1], b = r[k], c = r[k + 1];
			double den = a - 2 * b + c, off = den < 0 ? 0.5 * (a - c) / den : 0;
			lag = (double)k + (fabs(off) < 1 ? off : 0);
			*peak = fmin(1.0, b * (double)n / (double)(n - k));
			break;
		}
	}
	free(cand);
	free(r);
	return lag;
}
