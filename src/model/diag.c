/*
 * diag.c - residual diagnostics of an OLS fit (ols.c calls them).
 *
 * The footer of statsmodels' OLS summary():
 *   skew and kurtosis: the biased moment estimators (scipy.stats.skew,
 *     kurtosis(fisher=False)), b1 = m3 / m2^1.5, b2 = m4 / m2^2
 *   Jarque-Bera: JB = n/6 (b1^2 + (b2 - 3)^2 / 4), p = Q_chi2(JB; 2)
 *     (Jarque and Bera, 1987)
 *   Omnibus: D'Agostino-Pearson K^2 = Z(b1)^2 + Z(b2)^2, p = Q_chi2(K^2; 2)
 *     with D'Agostino's skewness test (D'Agostino, 1970) and Anscombe and
 *     Glynn's kurtosis test (1983), as in scipy.stats.normaltest; statsmodels
 *     reports nothing below 8 residuals
 *   Durbin-Watson: sum (e_i - e_{i-1})^2 / sum e_i^2
 */
#include "model/internal.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* scipy.stats.skewtest's Z for skewness b1 of n values. */
static double skew_z(double b1, double n)
{
	double y = b1 * sqrt((n + 1) * (n + 3) / (6.0 * (n - 2)));
	double beta2 = 3.0 * (n * n + 27 * n - 70) * (n + 1) * (n + 3) /
		       ((n - 2.0) * (n + 5) * (n + 7) * (n + 9));
	double w2 = -1 + sqrt(2 * (beta2 - 1));
	double delta = 1 / sqrt(0.5 * log(w2));
	double alpha = sqrt(2.0 / (w2 - 1));
	if (y == 0)
		y = 1;
	return delta * log(y / alpha + sqrt((y / alpha) * (y / alpha) + 1));
}

/* scipy.stats.kurtosistest's Z for Pearson kurtosis b2 of n values. */
static double kurt_z(double b2, double n)
{
	double e = 3.0 * (n - 1) / (n + 1);
	double varb2 = 24.0 * n * (n - 2) * (n - 3) / ((n + 1) * (n + 1) * (n + 3) * (n + 5));
	double x = (b2 - e) / sqrt(varb2);
	double sb1 = 6.0 * (n * n - 5 * n + 2) / ((n + 7) * (n + 9)) *
		     sqrt(6.0 * (n + 3) * (n + 5) / (n * (n - 2) * (n - 3)));
	double a = 6.0 + 8.0 / sb1 * (2.0 / sb1 + sqrt(1 + 4.0 / (sb1 * sb1)));
	double term1 = 1 - 2 / (9.0 * a);
	double denom = 1 + x * sqrt(2 / (a - 4.0));
	if (denom == 0)
		return NAN;
	double term2 = (denom > 0 ? 1 : -1) * cbrt((1 - 2.0 / a) / fabs(denom));
	return (term1 - term2) / sqrt(2 / (9.0 * a));
}

void dmls_resid_diagnostics(dmls_fit *fit, const double *e)
{
	double n = (double)fit->n, mean = 0, m2 = 0, m3 = 0, m4 = 0, dw = 0;
	for (size_t i = 0; i < fit->n; i++)
		mean += e[i] / n;
	for (size_t i = 0; i < fit->n; i++) {
		double d = e[i] - mean;
		m2 += d * d / n;
		m3 += d * d * d / n;
		m4 += d * d * d * d / n;
		if (i)
			dw += (e[i] - e[i - 1]) * (e[i] - e[i - 1]);
	}
	fit->skew = m3 / pow(m2, 1.5);
	fit->kurtosis = m4 / (m2 * m2);
	fit->jarque_bera = n / 6 * (fit->skew * fit->skew +
				    (fit->kurtosis - 3) * (fit->kurtosis - 3) / 4);
	fit->jb_p = isfinite(fit->jarque_bera) ? gsl_cdf_chisq_Q(fit->jarque_bera, 2) : NAN;
	fit->durbin_watson = dw / fit->ssr;
	fit->omnibus = fit->omnibus_p = NAN;
	if (fit->n >= 8) {
		double zs = skew_z(fit->skew, n), zk = kurt_z(fit->kurtosis, n);
		fit->omnibus = zs * zs + zk * zk;
		if (isfinite(fit->omnibus))
			fit->omnibus_p = gsl_cdf_chisq_Q(fit->omnibus, 2);
	}
}
