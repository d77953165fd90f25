/*
 * period.c - the period of a binned byte series from its autocorrelation.
 *
 * The sample autocorrelation r(k) = c(k)/c(0), c(k) = (1/n) sum (x_t - m)
 * (x_{t+k} - m) (the biased estimator, Box & Jenkins, "Time Series
 * Analysis", ch. 2), computed with a zero-padded FFT (Wiener-Khinchin:
 * the inverse transform of |X|^2; padding to >= 2n makes it linear, not
 * circular).  The biased estimator shrinks r(k) by (n-k)/n, which favours
 * the fundamental over its multiples.
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
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>

#include "analysis/period.h"

/* r[0..n) from x[0..n); returns 0 or -1 (memory, flat series). */
int dmls_autocorr(const double *x, size_t n, double *r)
{
	size_t m = 1;
	while (m < 2 * n)
		m <<= 1;
	double *d = calloc(m, sizeof(double)), mean = 0;
	if (!d)
		return -1;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		d[i] = x[i] - mean;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = gsl_fft_real_radix2_transform(d, 1, m);
	if (rc == 0) {
		d[0] = d[0] * d[0];
		d[m / 2] = d[m / 2] * d[m / 2];
		for (size_t i = 1; i < m / 2; i++) {
			d[i] = d[i] * d[i] + d[m - i] * d[m - i];
			d[m - i] = 0;
		}
		rc = gsl_fft_halfcomplex_radix2_inverse(d, 1, m);
	}
	gsl_set_error_handler(old);
	if (rc != 0 || !(d[0] > 0)) {
		free(d);
		return -1;
	}
	for (size_t k = 0; k < n; k++)
		r[k] = d[k] / d[0];
	free(d);
	return 0;
}

double dmls_period_acf(const double *x, size_t n, double *peak)
{
	*peak = NAN;
	if (n < 8)
		return 0;
	double *r = malloc(n * sizeof(double));
	if (!r || dmls_autocorr(x, n, r) < 0) {
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
