/*
 * pattern_two.c - two ranks: a ring all-reduce or a parameter server?
 *
 * With two hosts every shape has one edge each way, so the volume matrix
 * cannot tell a 2-rank ring all-reduce from a server with one worker.
 * Timing can: in a ring all-reduce both ranks send at the same time
 * (reduce-scatter and all-gather exchange chunks in both directions at
 * once); a worker pushes, then the server answers.  With a and b the two
 * hosts' sent payload in 1 ms bins:
 *   overlap = sum_k min(a_k, b_k) / min(sum a, sum b)
 * Below 0.2 the two take turns: a star.  The server is the host that
 * answers: the byte-weighted mean delay from the other's last sending bin
 * to its own is shorter (the server's update is quicker than the worker's
 * forward and backward pass).
 */
#include <math.h>
#include <stdlib.h>

#include "dmlscope/analysis.h"

#define TWO_MAX_BINS (1u << 23)
#define TWO_OVERLAP 0.2

/* byte-weighted mean delay (bins) from x's last non-empty bin to each of y's */
static double answer_delay(const double *x, const double *y, size_t n)
{
	double sum = 0, w = 0;
	long last = -1;
	for (size_t k = 0; k < n; k++) {
		if (y[k] > 0 && last >= 0) {
			sum += y[k] * (double)((long)k - last);
			w += y[k];
		}
		if (x[k] > 0)
			last = (long)k;
	}
	return w > 0 ? sum / w : INFINITY;
}

void dmls_pattern_check_two(dmls_pattern *p, const dmls_stats *st)
{
	if (p->ranks != 2 || p->kind != DMLS_PAT_RING)
		return;
	const dmls_series *sa = &st->hosts[p->members[0]].tx_payload;
	const dmls_series *sb = &st->hosts[p->members[1]].tx_payload;
	if (dmls_series_empty(sa) || dmls_series_empty(sb))
		return;
	int64_t from = sa->min_bin < sb->min_bin ? sa->min_bin : sb->min_bin;
	int64_t to = sa->max_bin > sb->max_bin ? sa->max_bin : sb->max_bin;
	if (to - from + 1 > (int64_t)TWO_MAX_BINS)
		return;
	size_t n = (size_t)(to - from + 1);
	double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
	if (a && b) {
		dmls_series_dense(sa, from, n, 1, a);
		dmls_series_dense(sb, from, n, 1, b);
		double both = 0, ta = 0, tb = 0;
		for (size_t k = 0; k < n; k++) {
			both += a[k] < b[k] ? a[k] : b[k];
			ta += a[k];
			tb += b[k];
		}
		double overlap = both / (ta < tb ? ta : tb);
		if (overlap < TWO_OVERLAP) {
			int b_answers = answer_delay(a, b, n) < answer_delay(b, a, n);
			p->kind = DMLS_PAT_STAR;
			p->hubs[0] = p->members[b_answers ? 1 : 0];
			p->nhubs = 1;
			p->norder = 0;
			p->confidence = 0.6 + 0.4 * (1 - overlap / TWO_OVERLAP);
		}
	}
	free(a);
	free(b);
}
