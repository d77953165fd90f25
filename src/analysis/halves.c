/*
 * halves.c - are the detected iterations really half-iterations?
 *
 * A parameter server's step has two phases of equal bytes: the workers
 * push gradients, the server updates, then sends parameters back.  Totals
 * (in time or in bytes) repeat every half step, so the period found is
 * half the step.  What tells the halves apart is who sends: each
 * iteration's vector of bytes sent per job host alternates between
 * "workers send" and "server sends".
 *
 * Test: with v_i the per-host bytes of iteration i, and cos the cosine
 * similarity, s1 = median cos(v_i, v_{i+1}) and s2 = median cos(v_i,
 * v_{i+2}).  When s1 < 0.8 and s2 > 0.9 the iterations alternate: every
 * other start is kept, on the phase whose starts follow the longer median
 * gap (the compute phase before a push is longer than the server's update
 * before a pull).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"

static double cosine(const double *a, const double *b, size_t n)
{
	double ab = 0, aa = 0, bb = 0;
	for (size_t i = 0; i < n; i++)
		ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
	return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0;
}

static double median_cos(const double *v, size_t ni, size_t nh, size_t lag, double *tmp)
{
	size_t k = 0;
	for (size_t i = 0; i + lag < ni; i++)
		tmp[k++] = cosine(v + i * nh, v + (i + lag) * nh, nh);
	return dmls_median(tmp, k);
}

static double gap_before(dmls_bins x, size_t k, double thr)
{
	size_t g = 0;
	while (k > 0 && !dmls_bin_on(x, k - 1, thr))
		k--, g++;
	return (double)g;
}

size_t dmls_merge_halves(dmls_bins x, size_t n, double thr, const double *hx,
			 size_t nh, size_t *starts, size_t ns)
{
	if (ns < 6 || nh < 2)
		return ns;
	size_t ni = ns - 1; /* full iterations */
	double *v = calloc(ni * nh, sizeof(double)), *tmp = malloc(ns * sizeof(double));
	if (!v || !tmp)
		goto out;
	for (size_t h = 0; h < nh; h++)
		for (size_t i = 0; i < ni; i++)
			for (size_t k = starts[i]; k < starts[i + 1] && k < n; k++)
				v[i * nh + h] += hx[h * n + k];
	double s1 = median_cos(v, ni, nh, 1, tmp), s2 = median_cos(v, ni, nh, 2, tmp);
	if (!(s1 < 0.8 && s2 > 0.9))
		goto out;
	double g[2];
	for (int ph = 0; ph < 2; ph++) {
		size_t k = 0;
		for (size_t i = (size_t)ph; i < ns; i += 2)
			tmp[k++] = gap_before(x, starts[i], thr);
		g[ph] = dmls_median(tmp, k);
	}
	size_t ph = g[1] > g[0] ? 1 : 0, m = 0;
	for (size_t i = ph; i < ns; i += 2)
		starts[m++] = starts[i];
	ns = m;
out:
	free(v);
	free(tmp);
	return ns;
}
