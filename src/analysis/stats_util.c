/*
 * stats_util.c - small robust statistics shared by the analysis files.
 *
 * Quantiles by linear interpolation between order statistics (Hyndman &
 * Fan 1996, definition 7, the default of R and numpy); the robust
 * coefficient of variation uses the median absolute deviation scaled by
 * 1.4826 to estimate a normal standard deviation (Rousseeuw & Croux 1993).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"
#include "dmlscope/stats.h"

int dmls_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double dmls_quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(double), dmls_cmp_double);
	double h = q * (double)(n - 1);
	size_t i = (size_t)floor(h);
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

/* v[k] = the k-th smallest, smaller ones before it, larger after (Hoare's
 * FIND, CACM 4(7), 1961; median-of-three pivot).  O(n) on average. */
static void select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo]) { double t = v[mid]; v[mid] = v[lo]; v[lo] = t; }
		if (v[hi] < v[lo]) { double t = v[hi]; v[hi] = v[lo]; v[lo] = t; }
		if (v[hi] < v[mid]) { double t = v[hi]; v[hi] = v[mid]; v[mid] = t; }
		double pivot = v[mid];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

double dmls_quantile_select(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	double h = q * (double)(n - 1);
	size_t i = (size_t)floor(h);
	if (i + 1 >= n)
		i = n - 1;
	select_kth(v, n, i);
	if (i + 1 >= n)
		return v[i];
	double next = v[i + 1];
	for (size_t j = i + 2; j < n; j++)
		next = v[j] < next ? v[j] : next;
	return v[i] + (h - (double)i) * (next - v[i]);
}

double dmls_median(double *v, size_t n)
{
	return dmls_quantile_select(v, n, 0.5);
}

double dmls_robust_spread(double *v, size_t n, double *median)
{
	double m = dmls_median(v, n);
	if (median)
		*median = m;
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - m);
	return 1.4826 * dmls_median(v, n);
}

double dmls_robust_cv(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	double *t = malloc(n * sizeof(double)), med;
	if (!t)
		return NAN;
	memcpy(t, v, n * sizeof(double));
	double spread = dmls_robust_spread(t, n, &med);
	free(t);
	return med > 0 ? spread / med : NAN;
}

int dmls_hosts_lossy(const dmls_stats *st, const size_t *h, size_t n)
{
	uint64_t sent = 0, again = 0;
	for (size_t i = 0; i < n; i++)
		sent += st->hosts[h[i]].tx_packets, again += st->hosts[h[i]].tx_retransmissions;
	return sent > 0 && (double)again >= DMLS_LOSSY_SHARE * (double)sent;
}
