/*
 * period.c - the period of a binned byte series from its autocorrelation.
 *
 * The sample autocorrelation r(k) = c(k)/c(0), c(k) = (1/n) sum (x_t - m)
 * (x_{t+k} - m) (the biased estimator, Box & Jenkins, "Time Series
 * Analysis", ch. 2), computed with a zero-padded FFT (Wiener-Khinchin:
 * the inverse transform of |X|^2; padding to >= 2n makes it linear, not
 * circular).  Large transforms are FFTW's real-to-complex and back (Frigo
 * & Johnson, Proc. IEEE 93(2), 2005): on the 2^18-point series of a long
 * capture they take a seventh of the time of GSL's radix-2 routines.  But
 * an FFTW plan costs 6-8 ms to make (the planner's first call, the
 * trigonometric tables), several times the whole packet pass of a short
 * capture, so up to GSL_MAX_M points the transforms are GSL's radix-2
 * (no plan: 0.4 ms at 8192 points, 2.5 ms at 32768).  The two agree to
 * 1e-12 relative.  The biased estimator shrinks r(k) by (n-k)/n, which
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
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>

#include "analysis/period.h"

/*
 * Plans by size, kept for the life of the process: making an FFTW plan
 * computes its trigonometric tables, which costs as much as a transform, and
 * every search of the iterations (one per job, per part) asks for the same
 * few power-of-two sizes.  A plan is made on the first buffers of its size
 * and run on any other (fftw_execute_dft_r2c: the buffers come from
 * fftw_alloc, so their alignment is the plan's).  Sizes above 2^PLAN_KEEP_LOG2
 * are planned and dropped per dmls_fft.  Not thread-safe, like FFTW's
 * planner itself.
 */
#define PLAN_KEEP_LOG2 24
#define GSL_MAX_M ((size_t)1 << 15)
static struct {
	fftw_plan fwd, inv;
} kept[PLAN_KEEP_LOG2 + 1];

static int log2_of(size_t m)
{
	int k = 0;
	while (((size_t)1 << k) < m)
		k++;
	return k;
}

void dmls_fft_release(dmls_fft *f)
{
	if (f->m && log2_of(f->m) > PLAN_KEEP_LOG2) {
		if (f->fwd)
			fftw_destroy_plan(f->fwd);
		if (f->inv)
			fftw_destroy_plan(f->inv);
	}
	fftw_free(f->d);
	fftw_free(f->c);
	*f = (dmls_fft){0};
}

/* |X|^2 of d[0..m) in place, by GSL's radix-2 transforms (m a power of
 * two); the inverse's 1/m does not matter (r = d / d[0]). */
static int power_gsl(double *d, size_t m)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = gsl_fft_real_radix2_transform(d, 1, m);
	if (rc == GSL_SUCCESS) {
		/* half-complex: d[0] and d[m/2] real, d[i] + i d[m-i] below */
		d[0] *= d[0];
		d[m / 2] *= d[m / 2];
		for (size_t i = 1; i < m / 2; i++) {
			d[i] = d[i] * d[i] + d[m - i] * d[m - i];
			d[m - i] = 0;
		}
		rc = gsl_fft_halfcomplex_radix2_inverse(d, 1, m);
	}
	gsl_set_error_handler(old);
	return rc == GSL_SUCCESS ? 0 : -1;
}

/* Plans and buffers for size m (power of two); 0 or -1. */
static int fft_ready(dmls_fft *f, size_t m)
{
	if (f->m == m)
		return 0;
	dmls_fft_release(f);
	if (m > INT32_MAX)
		return -1;
	f->d = fftw_alloc_real(m);
	if (m <= GSL_MAX_M) { /* GSL's transforms: no plan */
		if (!f->d)
			return -1;
		f->m = m;
		return 0;
	}
	f->c = fftw_alloc_complex(m / 2 + 1);
	if (!f->d || !f->c)
		return dmls_fft_release(f), -1;
	int k = log2_of(m);
	if (k <= PLAN_KEEP_LOG2 && kept[k].fwd && kept[k].inv) {
		f->fwd = kept[k].fwd, f->inv = kept[k].inv;
		f->m = m;
		return 0;
	}
	/* FFTW_ESTIMATE plans without touching the arrays */
	fftw_plan fwd = fftw_plan_dft_r2c_1d((int)m, f->d, f->c, FFTW_ESTIMATE);
	fftw_plan inv = fftw_plan_dft_c2r_1d((int)m, f->c, f->d, FFTW_ESTIMATE);
	if (!fwd || !inv) {
		if (fwd)
			fftw_destroy_plan(fwd);
		if (inv)
			fftw_destroy_plan(inv);
		return dmls_fft_release(f), -1;
	}
	f->fwd = fwd, f->inv = inv, f->m = m;
	if (k <= PLAN_KEEP_LOG2)
		kept[k].fwd = f->fwd, kept[k].inv = f->inv;
	return 0;
}

/* r[0..n) from x[0..n); returns 0 or -1 (memory, flat series). */
int dmls_autocorr(dmls_fft *fft, const double *x, size_t n, double *r)
{
	size_t m = 1;
	while (m < 2 * n)
		m <<= 1;
	dmls_fft local = {0}, *f = fft ? fft : &local;
	int rc = -1;
	if (fft_ready(f, m))
		goto out;
	double *d = f->d;
	fftw_complex *c = f->c;
	double mean = 0;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		d[i] = x[i] - mean;
	memset(d + n, 0, (m - n) * sizeof(double));
	if (m <= GSL_MAX_M) {
		if (power_gsl(d, m))
			goto out;
	} else {
		fftw_execute_dft_r2c(f->fwd, d, c);
		for (size_t i = 0; i <= m / 2; i++) {
			c[i][0] = c[i][0] * c[i][0] + c[i][1] * c[i][1];
			c[i][1] = 0;
		}
		fftw_execute_dft_c2r(f->inv, c, d);
	}
	if (d[0] > 0) {
		for (size_t k = 0; k < n; k++)
			r[k] = d[k] / d[0];
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
