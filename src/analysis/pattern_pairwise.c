/*
 * pattern_pairwise.c - do the partners change over time?
 *
 * Asynchronous decentralized SGD with pair averaging (Lian et al., "Asynchronous
 * Decentralized Parallel SGD", ICML 2018; KungFu's pair averaging) has each
 * worker exchange its model with one peer chosen per step.  Over a whole run
 * the pairs add up to a clique (or anything), so the static shape lies.
 *
 * Test: cut the job's active span into windows of about one iteration (the
 * detected period, else span/16).  In each window an edge is active when it
 * carries at least PAIRWISE_ACTIVE of the busiest edge's bytes in that
 * window, or of its own busiest window where that is less (a butterfly of
 * 16 sends its nearest partner S/16, under a fifth of the farthest's S/2:
 * read "pairwise" before, fill 0.58 and change 0.25).  Edges are
 * undirected: u->v and v->u are one, so a parameter server's push and
 * pull phases are not partners changing.  Windows whose busiest edge is
 * below 10 % of the busiest window are quiet (stalls, chatter) and
 * skipped.  With A_w the active set:
 *   fill   = mean |A_w| / |E|                    (E = the job's data edges)
 *   change = mean (1 - Jaccard(A_w, A_{w+1}))     over consecutive windows
 * A collective uses all its edges in every iteration (fill near 1, change
 * near 0); pair averaging uses few and others next time.  Pairwise when
 * at least 4 windows, fill <= 0.6 (0.8 with 3 edges, or for a star whose
 * spokes exchange bulk) and change >= 0.25;
 * confidence = min(1, 0.5 + change / 2).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"

#define PAIRWISE_ACTIVE 0.2
#define PAIRWISE_FILL 0.6
#define PAIRWISE_CHANGE 0.25
/* Among 3 ranks each picking a random peer a step, 2.25 of the 3 edges are
 * busy a step: the testbed's gossip of 3 had fill 0.75, change 0.41 (its
 * steady shape a star whose spokes exchange bulk, no star), its pair
 * averaging of 3 0.72 and 0.39 (a clique); its collectives of 3 ranks
 * (rings, trees, a clique, lossy, beside other jobs) 0.94-1 and 0-0.11.
 * With 3 edges, or such a star, pairwise up to this fill. */
#define PAIRWISE_FILL_3 0.8
#define PAIRWISE_MAX_WINDOWS 4096

typedef struct pw_edges {
	size_t n;
	const dmls_pair **e;
} pw_edges;

static int collect_edges(pw_edges *pe, const dmls_pattern *p, const dmls_stats *st)
{
	unsigned char *in = calloc(st->nhosts ? st->nhosts : 1, 1);
	double maxv = 0;
	pe->n = 0;
	pe->e = malloc((st->npairs ? st->npairs : 1) * sizeof(*pe->e));
	if (!in || !pe->e) {
		free(in);
		return -1;
	}
	for (size_t i = 0; i < p->ranks; i++)
		in[p->members[i]] = 1;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (in[pr->src] && in[pr->dst] && (double)pr->payload_bytes > maxv)
			maxv = (double)pr->payload_bytes;
	}
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (in[pr->src] && in[pr->dst] && pr->src != pr->dst &&
		    (double)pr->payload_bytes >= DMLS_EDGE_FRACTION * maxv &&
		    !dmls_series_empty(&pr->series))
			pe->e[pe->n++] = pr;
	}
	free(in);
	return 0;
}

/* fill and change over windows of the dense per-edge table x[e*nw + w] */
static int window_stats(const double *x, size_t ne, size_t nw, double *fill,
			double *change)
{
	double top = 0;
	for (size_t i = 0; i < ne * nw; i++)
		top = x[i] > top ? x[i] : top;
	unsigned char *prev = calloc(ne, 1), *cur = calloc(ne, 1);
	double *own = calloc(ne, sizeof(double));
	size_t valid = 0, pairs = 0;
	double sfill = 0, schange = 0;
	int have_prev = 0;
	for (size_t e = 0; own && e < ne; e++) /* each edge's own busiest window */
		for (size_t w = 0; w < nw; w++)
			own[e] = x[e * nw + w] > own[e] ? x[e * nw + w] : own[e];
	for (size_t w = 0; w < nw && prev && cur && own; w++) {
		double m = 0;
		for (size_t e = 0; e < ne; e++)
			m = x[e * nw + w] > m ? x[e * nw + w] : m;
		if (m <= 0 || m < 0.1 * top)
			continue;
		size_t na = 0, inter = 0, uni = 0;
		for (size_t e = 0; e < ne; e++) {
			cur[e] = x[e * nw + w] >= PAIRWISE_ACTIVE * fmin(m, own[e]);
			na += cur[e];
			inter += cur[e] && prev[e];
			uni += cur[e] || prev[e];
		}
		sfill += (double)na / (double)ne;
		if (have_prev && uni) {
			schange += 1.0 - (double)inter / (double)uni;
			pairs++;
		}
		memcpy(prev, cur, ne);
		have_prev = 1;
		valid++;
	}
	free(prev);
	free(cur);
	free(own);
	if (valid < 4 || !pairs)
		return 0;
	*fill = sfill / (double)valid;
	*change = schange / (double)pairs;
	return 1;
}

/* 1 when two non-hub members of a one-hub star exchanged a data edge's
 * worth over the run (DMLS_EDGE_FRACTION of the largest member pair). */
static int spokes_exchange(const dmls_pattern *p, const dmls_stats *st)
{
	unsigned char *in = calloc(st->nhosts ? st->nhosts : 1, 1);
	if (!in)
		return 0;
	for (size_t i = 0; i < p->ranks; i++)
		in[p->members[i]] = 1;
	double maxv = 0, spoke = 0;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (!in[pr->src] || !in[pr->dst] || pr->src == pr->dst)
			continue;
		maxv = fmax(maxv, (double)pr->payload_bytes);
		if (pr->src != p->hubs[0] && pr->dst != p->hubs[0])
			spoke = fmax(spoke, (double)pr->payload_bytes);
	}
	free(in);
	return maxv > 0 && spoke >= DMLS_EDGE_FRACTION * maxv;
}

void dmls_pattern_check_pairwise(dmls_pattern *p, const dmls_stats *st, double window_s)
{
	pw_edges pe = {0};
	/* every pair touches the hub: a server whose workers come at their
	 * own pace (an asynchronous parameter server), not pair averaging;
	 * unless spokes move bulk to each other over the run (pair averaging
	 * of 3 ranks whose one pair met in fewer than half the steps: its
	 * median per step, which the steady shape takes, is 0) */
	int star = p->kind == DMLS_PAT_STAR && p->nhubs == 1;
	if (star && !spokes_exchange(p, st))
		return;
	if (p->ranks < 3 || collect_edges(&pe, p, st) < 0 || pe.n < 3) {
		free(pe.e);
		return;
	}
	int64_t from = INT64_MAX, to = INT64_MIN;
	for (size_t i = 0; i < pe.n; i++) {
		from = pe.e[i]->series.min_bin < from ? pe.e[i]->series.min_bin : from;
		to = pe.e[i]->series.max_bin > to ? pe.e[i]->series.max_bin : to;
	}
	double bin_s = (double)st->bin_ns * 1e-9;
	double span_s = (double)(to - from + 1) * bin_s;
	if (!(window_s > 0) || !isfinite(window_s))
		window_s = span_s / 16;
	uint64_t factor = (uint64_t)llround(window_s / bin_s);
	factor = factor ? factor : 1;
	uint64_t span = (uint64_t)(to - from + 1);
	while ((span + factor - 1) / factor > PAIRWISE_MAX_WINDOWS)
		factor *= 2;
	size_t nw = (size_t)((span + factor - 1) / factor);
	double *x = calloc(pe.n * nw, sizeof(double)), *tmp = malloc(nw * sizeof(double));
	size_t *ukey = malloc(pe.n * sizeof(size_t)), nu = 0;
	double fill = 1, change = 0;
	if (x && tmp && ukey && factor <= UINT32_MAX) {
		for (size_t i = 0; i < pe.n; i++) { /* undirected: u<->v is one edge */
			size_t key = pe.e[i]->src < pe.e[i]->dst
					     ? (size_t)pe.e[i]->src * st->nhosts + pe.e[i]->dst
					     : (size_t)pe.e[i]->dst * st->nhosts + pe.e[i]->src;
			size_t u = 0;
			while (u < nu && ukey[u] != key)
				u++;
			if (u == nu)
				ukey[nu++] = key;
			dmls_series_dense(&pe.e[i]->series, from, nw, (uint32_t)factor, tmp);
			for (size_t w = 0; w < nw; w++)
				x[u * nw + w] += tmp[w];
		}
		if (nu >= 3 && window_stats(x, nu, nw, &fill, &change) &&
		    (fill <= PAIRWISE_FILL || ((star || nu == 3) && fill <= PAIRWISE_FILL_3)) &&
		    change >= PAIRWISE_CHANGE) {
			p->kind = DMLS_PAT_PAIRWISE;
			p->confidence = fmin(1.0, 0.5 + change / 2);
			p->nhubs = p->norder = p->ngroups = 0;
		}
	}
	free(tmp);
	free(ukey);
	free(x);
	free(pe.e);
}
