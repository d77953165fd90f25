/*
 * pattern_tree.c - the root of a tree all-reduce, from timing.
 *
 * The volume graph of a tree all-reduce (reduce to the root, then
 * broadcast down the same tree) gives the tree's edges but not its root:
 * every edge carries S each way, and the node of highest degree need not
 * be the root (a binary tree's root has 2 children, its inner nodes 2
 * children and a parent).  Timing gives it: within an iteration a child
 * sends up (reduce) before its parent sends down (broadcast).  So on each
 * edge, the direction whose bytes come first (byte-weighted mean time in
 * the iteration) points from child to parent, by majority over the
 * iterations; the root is the one node that is nobody's child.  When the
 * votes do not give exactly one such node, the degree-based guess stays.
 */
#include <math.h>
#include <stdlib.h>

#include "dmlscope/analysis.h"

/* byte-weighted mean time (s from st->t0_ns) of a pair's bytes in [a, b),
 * NAN when it sent nothing there */
static double mean_time(const dmls_pair *pr, const dmls_stats *st, double a, double b)
{
	double bin_s = (double)pr->series.bin_ns * 1e-9;
	double off_s = (double)(pr->series.t0_ns - st->t0_ns) * 1e-9;
	int64_t ka = (int64_t)floor((a - off_s) / bin_s);
	int64_t kb = (int64_t)floor((b - off_s) / bin_s);
	double sum = 0, w = dmls_series_range(&pr->series, ka, kb, &sum);
	return w > 0 ? off_s + bin_s * sum / w : NAN;
}

/* The vote over the iterations on edge u-v (pairs a: u->v, b: v->u): +1
 * for each iteration where u's bytes come first (u is the child), -1 where
 * v's do; *m the iterations where both sent. */
static long first_vote(const dmls_stats *st, long a, long b, const double *bounds_s, size_t count,
		       double end_s, size_t *m)
{
	long vote = 0;
	*m = 0;
	for (size_t i = 0; i < count; i++) {
		double t0 = bounds_s[i], t1 = i + 1 < count ? bounds_s[i + 1] : end_s;
		double tu = mean_time(&st->pairs[a], st, t0, t1);
		double tv = mean_time(&st->pairs[b], st, t0, t1);
		if (isfinite(tu) && isfinite(tv)) {
			vote += tu < tv ? 1 : -1;
			(*m)++;
		}
	}
	return vote;
}

/* A parameter server hears from every worker before it answers it (push,
 * then pull), whatever the iterations' bounds cut (pull first: every spoke
 * reversed alike).  A tree's inner node seen with its edges alone (one
 * host's capture of both directions) is a star to the volume graph, but
 * it sends up to its parent before the parent sends down: one spoke the
 * other way round.  Votes count when three quarters of the iterations
 * where both directions moved agree, over 4 iterations at least. */
void dmls_pattern_star_node(dmls_pattern *p, const dmls_stats *st, const double *bounds_s,
			    size_t count, double end_s)
{
	if (p->kind != DMLS_PAT_STAR || p->nhubs != 1 || p->partial || p->hub_exchanges ||
	    p->ranks < 3 || count < 4 || !p->members)
		return;
	size_t hub = p->hubs[0], parent = SIZE_MAX, parents = 0, children = 0;
	for (size_t i = 0; i < p->ranks; i++) {
		size_t u = p->members[i], m;
		if (u == hub)
			continue;
		long a = dmls_stats_find_pair(st, (uint32_t)u, (uint32_t)hub);
		long b = dmls_stats_find_pair(st, (uint32_t)hub, (uint32_t)u);
		if (a < 0 || b < 0)
			return;
		long vote = first_vote(st, a, b, bounds_s, count, end_s, &m);
		if (m < 4 || 4 * labs(vote) < 3 * (long)m)
			return; /* no clear order on this edge */
		if (vote > 0)
			children++;
		else
			parent = u, parents++;
	}
	if (parents != 1 || children < 1)
		return;
	p->kind = DMLS_PAT_TREE;
	p->hubs[0] = parent;
	p->tree_node = 1;
	p->confidence = fmin(p->confidence, 0.7);
}

void dmls_pattern_tree_root(dmls_pattern *p, const dmls_stats *st, const double *bounds_s,
			    size_t count, double end_s)
{
	size_t n = p->ranks;
	if (p->kind != DMLS_PAT_TREE || p->partial || n < 3 || count < 1 || !p->members)
		return;
	long *pk = malloc(n * n * sizeof(long));
	unsigned char *child = calloc(n, 1);
	double maxv = 0;
	if (!pk || !child)
		goto out;
	for (size_t u = 0; u < n; u++)
		for (size_t v = 0; v < n; v++) {
			pk[u * n + v] = u == v ? -1
					       : dmls_stats_find_pair(st, (uint32_t)p->members[u],
								      (uint32_t)p->members[v]);
			if (pk[u * n + v] >= 0) {
				double x = (double)st->pairs[pk[u * n + v]].payload_bytes;
				maxv = x > maxv ? x : maxv;
			}
		}
	for (size_t u = 0; u < n; u++)
		for (size_t v = u + 1; v < n; v++) {
			long a = pk[u * n + v], b = pk[v * n + u];
			if (a < 0 || b < 0 ||
			    (double)st->pairs[a].payload_bytes < DMLS_EDGE_FRACTION * maxv ||
			    (double)st->pairs[b].payload_bytes < DMLS_EDGE_FRACTION * maxv)
				continue; /* a tree edge carries data both ways */
			size_t m;
			long vote = first_vote(st, a, b, bounds_s, count, end_s, &m);
			if (vote > 0) /* u sent first: u is the child */
				child[u] = 1;
			else if (vote < 0)
				child[v] = 1;
		}
	size_t root = n, roots = 0;
	for (size_t u = 0; u < n; u++)
		if (!child[u])
			root = u, roots++;
	if (roots == 1) {
		p->hubs[0] = p->members[root];
		p->nhubs = 1;
	}
out:
	free(pk);
	free(child);
}
