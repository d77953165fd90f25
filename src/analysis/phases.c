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
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"
#include "dmlscope/analysis.h"

#define PHASE_BIN_NS 1000000LL
#define ON_FRACTION 0.02

typedef struct coarse {
	int64_t factor;
	size_t n, cap;
	int64_t *bin;
	double *v;
	int oom;
} coarse;

static void add_coarse(int64_t bin, uint64_t bytes, void *ctx)
{
	coarse *c = ctx;
	int64_t k = bin >= 0 ? bin / c->factor : -((-bin + c->factor - 1) / c->factor);
	if (c->oom)
		return;
	if (c->n && c->bin[c->n - 1] == k) {
		c->v[c->n - 1] += (double)bytes;
		return;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		int64_t *b = realloc(c->bin, cap * sizeof(int64_t));
		if (b)
			c->bin = b;
		double *v = b ? realloc(c->v, cap * sizeof(double)) : NULL;
		if (!b || !v) {
			c->oom = 1;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->bin[c->n] = k;
	c->v[c->n++] = (double)bytes;
}

static void dist_of(dmls_dist *d, double *v, size_t n)
{
	d->n = n;
	d->mean_s = d->p50_s = d->p90_s = d->max_s = NAN;
	if (n == 0)
		return;
	double sum = 0, max = v[0];
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		max = v[i] > max ? v[i] : max;
	}
	d->mean_s = sum / (double)n;
	d->p90_s = dmls_quantile_select(v, n, 0.9);
	d->p50_s = dmls_quantile_select(v, n, 0.5);
	d->max_s = max;
}

void dmls_phases_compute(dmls_phases *ph, const dmls_series *s, double gap_threshold_s)
{
	memset(ph, 0, sizeof(*ph));
	ph->bin_s = PHASE_BIN_NS * 1e-9;
	ph->gap_threshold_s = gap_threshold_s;
	ph->duty_cycle = NAN;
	dist_of(&ph->bursts, NULL, 0);
	dist_of(&ph->gaps, NULL, 0);
	if (!s || dmls_series_empty(s) || s->bin_ns <= 0)
		return;
	coarse c = {.factor = PHASE_BIN_NS / s->bin_ns > 0 ? PHASE_BIN_NS / s->bin_ns : 1};
	ph->bin_s = (double)(c.factor * s->bin_ns) * 1e-9;
	dmls_series_foreach(s, add_coarse, &c);
	double *tmp = NULL, *bl = NULL, *gl = NULL;
	if (c.oom || c.n == 0)
		goto out;
	tmp = malloc(c.n * sizeof(double));
	bl = tmp ? malloc(c.n * sizeof(double)) : NULL;
	gl = bl ? malloc(c.n * sizeof(double)) : NULL;
	if (!gl)
		goto out;
	memcpy(tmp, c.v, c.n * sizeof(double));
	double thr = ON_FRACTION * dmls_quantile_select(tmp, c.n, 0.99);
	int64_t gap_bins = (int64_t)ceil(gap_threshold_s / ph->bin_s);
	size_t nb = 0, ng = 0;
	int64_t bstart = 0, last = 0, first_on = 0;
	int have = 0;
	double on = 0;
	for (size_t i = 0; i < c.n; i++) {
		if (!(c.v[i] >= thr && c.v[i] > 0))
			continue;
		int64_t k = c.bin[i];
		if (!have) {
			bstart = first_on = k;
			have = 1;
		} else if (k - last - 1 >= gap_bins) {
			bl[nb++] = (double)(last - bstart + 1) * ph->bin_s;
			gl[ng++] = (double)(k - last - 1) * ph->bin_s;
			on += (double)(last - bstart + 1);
			bstart = k;
		}
		last = k;
	}
	if (have) {
		bl[nb++] = (double)(last - bstart + 1) * ph->bin_s;
		on += (double)(last - bstart + 1);
		ph->duty_cycle = on / (double)(last - first_on + 1);
	}
	dist_of(&ph->bursts, bl, nb);
	dist_of(&ph->gaps, gl, ng);
out:
	free(tmp);
	free(bl);
	free(gl);
	free(c.bin);
	free(c.v);
}
