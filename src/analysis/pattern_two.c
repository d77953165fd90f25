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
 *
 * A hub (dmls_pattern_check_hub) is a parameter server only when its
 * spokes take turns with it the same way: a spoke pushes, the hub
 * answers.  The same overlap per spoke, on the pair series of hub -> spoke
 * and spoke -> hub (wire bytes: the acknowledgements of a push weigh a few
 * per cent, far below TWO_OVERLAP), tells a spoke that exchanges with the
 * hub at once, as collectives do.  Three ranks where a spoke exchanges
 * are MPICH's all-reduce for N = 3 (Thakur, Rabenseifner & Gropp 2005,
 * sec. 4: the extra rank hands its vector to a core rank and gets the
 * result back, the two core ranks run the butterfly): a butterfly.  The
 * other spoke takes turns in MPICH's; in Open MPI's its hand-over and the
 * butterfly overlap in time, and both spokes can pass TWO_OVERLAP (0.33
 * and 0.47 in one run of the testbed, under 0.2 and over it in another).
 * More spokes exchanging: a hub-shaped collective, no server
 * (p->hub_exchanges, noted).
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

/* sa and sb dense over the bins either holds (*a, *b of *n bins, the
 * caller frees); -1 when either is empty, they are on other grids, or the
 * span passes TWO_MAX_BINS. */
static int dense_both(const dmls_series *sa, const dmls_series *sb, double **a, double **b,
		      size_t *n)
{
	*a = *b = NULL;
	if (dmls_series_empty(sa) || dmls_series_empty(sb) || sa->bin_ns != sb->bin_ns ||
	    sa->t0_ns != sb->t0_ns)
		return -1;
	int64_t from = sa->min_bin < sb->min_bin ? sa->min_bin : sb->min_bin;
	int64_t to = sa->max_bin > sb->max_bin ? sa->max_bin : sb->max_bin;
	if (to - from + 1 > (int64_t)TWO_MAX_BINS)
		return -1;
	*n = (size_t)(to - from + 1);
	*a = malloc(*n * sizeof(double));
	*b = malloc(*n * sizeof(double));
	if (!*a || !*b)
		return -1;
	dmls_series_dense(sa, from, *n, 1, *a);
	dmls_series_dense(sb, from, *n, 1, *b);
	return 0;
}

/* sum_k min(a_k, b_k) / min(sum a, sum b) */
static double overlap(const double *a, const double *b, size_t n)
{
	double both = 0, ta = 0, tb = 0;
	for (size_t k = 0; k < n; k++) {
		both += a[k] < b[k] ? a[k] : b[k];
		ta += a[k];
		tb += b[k];
	}
	return both / (ta < tb ? ta : tb);
}

void dmls_pattern_check_two(dmls_pattern *p, const dmls_stats *st)
{
	if (p->ranks != 2 || p->kind != DMLS_PAT_RING)
		return;
	double *a, *b;
	size_t n;
	if (dense_both(&st->hosts[p->members[0]].tx_payload, &st->hosts[p->members[1]].tx_payload,
		       &a, &b, &n) == 0) {
		double o = overlap(a, b, n);
		if (o < TWO_OVERLAP) {
			int b_answers = answer_delay(a, b, n) < answer_delay(b, a, n);
			p->kind = DMLS_PAT_STAR;
			p->hubs[0] = p->members[b_answers ? 1 : 0];
			p->nhubs = 1;
			p->norder = 0;
			p->confidence = 0.6 + 0.4 * (1 - o / TWO_OVERLAP);
		}
	}
	free(a);
	free(b);
}

/* Overlap of the pair series a->b and b->a (0 when either is missing). */
static double pair_overlap(const dmls_stats *st, size_t a, size_t b)
{
	long k1 = dmls_stats_find_pair(st, (uint32_t)a, (uint32_t)b);
	long k2 = dmls_stats_find_pair(st, (uint32_t)b, (uint32_t)a);
	double *x = NULL, *y = NULL, o = 0;
	size_t n;
	if (k1 >= 0 && k2 >= 0 &&
	    dense_both(&st->pairs[k1].series, &st->pairs[k2].series, &x, &y, &n) == 0)
		o = overlap(x, y, n);
	free(x);
	free(y);
	return o;
}

void dmls_pattern_check_hub(dmls_pattern *p, const dmls_stats *st)
{
	if (p->kind != DMLS_PAT_STAR || p->nhubs != 1 || p->partial || p->ranks < 3)
		return;
	size_t hub = p->hubs[0], spokes = 0, exchanging = 0, turns = SIZE_MAX;
	double least = INFINITY;
	for (size_t i = 0; i < p->ranks; i++) {
		if (p->members[i] == hub)
			continue;
		spokes++;
		double o = pair_overlap(st, hub, p->members[i]);
		exchanging += o >= TWO_OVERLAP;
		if (o < least) /* the spoke that takes turns the most: the extra rank */
			least = o, turns = p->members[i];
	}
	if (exchanging == 0)
		return;
	if (p->ranks == 3) { /* one spoke exchanging, or both (Open MPI's overlap more) */
		p->kind = DMLS_PAT_BUTTERFLY;
		p->nhubs = 0;
		p->extra = turns;
		p->confidence = 0.7;
	} else if (2 * exchanging >= spokes) {
		p->hub_exchanges = 1;
	}
}
