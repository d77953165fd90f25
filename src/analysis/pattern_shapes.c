/*
 * pattern_shapes.c - does the job's data graph have this shape?
 *
 * Each test looks only at the directed data edges (pairs carrying at least
 * DMLS_EDGE_FRACTION of the largest pair's payload) and their volumes, with
 * nodes in address order, which is rank order on every testbed we know
 * (ranks get consecutive addresses).  The shapes follow the collectives
 * they come from:
 *   ring       ring all-reduce (Patarasuk & Yuan 2009): every rank sends the
 *              bulk to exactly one neighbour and the edges form one cycle;
 *              a bidirectional ring (both neighbours) is accepted too
 *   butterfly  recursive halving/doubling (Thakur, Rabenseifner & Gropp
 *              2005): log2(N) partners at XOR distance 1, 2, 4, ... with
 *              volumes halving from one partner to the next (Rabenseifner),
 *              or equal (recursive doubling, `doubling`); N not a power
 *              of two (their sec. 4, MPICH): r = N - p extra ranks (p the
 *              largest power of two <= N), each tied to one core rank only
 *              (it hands its vector over and gets the result back), the p
 *              core ranks, in address order, a butterfly
 *   star       parameter server (Li et al., OSDI 2014) or a star all-reduce:
 *              k hubs talk to every spoke, spokes never to each other
 *   clique     all-to-all: every ordered pair carries data
 *   tree       N-1 undirected edges (reduce up, broadcast down)
 *   hierarchical  contiguous groups, each a ring or a tree inside, joined
 *              by a few leaders (Horovod hierarchical all-reduce)
 * A confidence in (0,1] grows with how balanced the volumes are, the way
 * the formulas of doc/analysis.md ("The volumes a collective moves") make
 * them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/graph.h"

#define HIER_MAX_RANKS 1024 /* hierarchical: n^2 per group size that divides n */

static size_t udegree(const dmls_graph *g, size_t u)
{
	size_t d = 0;
	for (size_t v = 0; v < g->n; v++)
		if (v != u && g_uedge(g, u, v))
			d++;
	return d;
}

static size_t outdegree(const dmls_graph *g, size_t u)
{
	size_t d = 0;
	for (size_t v = 0; v < g->n; v++)
		if (v != u && g_edge(g, u, v))
			d++;
	return d;
}

static size_t indegree(const dmls_graph *g, size_t v)
{
	size_t d = 0;
	for (size_t u = 0; u < g->n; u++)
		if (u != v && g_edge(g, u, v))
			d++;
	return d;
}

/*
 * A clique all-reduce sends 2S/N on every edge, a bidirectional ring S/N
 * each way: their lightest data edge is within SPREAD_BALANCE of the
 * heaviest.  Open MPI's reduce-scatter then all-gather of 3 ranks (a
 * reduce down a chain, a scatter, an all-gather) uses every pair too, at
 * 1/4 of its heaviest edge: read as a clique it gave S 1.25 times the
 * gradient.  A directed ring is not held to it: two jobs' rings that
 * share a host pair put both jobs' bytes on that edge (1/2).
 */
#define SPREAD_BALANCE 0.4

/* min/max of the volumes of the directed edges, 0 when none */
static double edge_balance(const dmls_graph *g)
{
	double lo = INFINITY, hi = 0;
	for (size_t u = 0; u < g->n; u++)
		for (size_t v = 0; v < g->n; v++)
			if (u != v && g_edge(g, u, v)) {
				double x = g_w(g, u, v);
				lo = x < lo ? x : lo;
				hi = x > hi ? x : hi;
			}
	return hi > 0 ? lo / hi : 0;
}

static double ring_directed(const dmls_graph *g, size_t *order)
{
	size_t n = g->n;
	for (size_t u = 0; u < n; u++)
		if (outdegree(g, u) != 1 || indegree(g, u) != 1)
			return 0;
	size_t u = 0, k = 0;
	do {
		order[k++] = u;
		size_t next = n;
		for (size_t v = 0; v < n; v++)
			if (v != u && g_edge(g, u, v))
				next = v;
		u = next;
	} while (u != 0 && k < n);
	if (u != 0 || k != n)
		return 0; /* several cycles */
	return 0.6 + 0.4 * edge_balance(g);
}

static double ring_bidirectional(const dmls_graph *g, size_t *order)
{
	size_t n = g->n;
	if (n < 3)
		return 0;
	for (size_t u = 0; u < n; u++) {
		if (udegree(g, u) != 2)
			return 0;
		for (size_t v = 0; v < n; v++)
			if (v != u && g_edge(g, u, v) != g_edge(g, v, u))
				return 0;
	}
	/* walk the cycle from 0 towards its heavier neighbour */
	size_t prev = n, u = 0, k = 0;
	do {
		order[k++] = u;
		size_t a = n, b = n;
		for (size_t v = 0; v < n; v++)
			if (v != u && g_uedge(g, u, v)) {
				if (a == n)
					a = v;
				else
					b = v;
			}
		size_t next = a;
		if (a == prev)
			next = b;
		else if (b != prev && prev == n && g_w(g, u, b) > g_w(g, u, a))
			next = b;
		prev = u;
		u = next;
	} while (u != 0 && k < n);
	if (u != 0 || k != n)
		return 0;
	if (edge_balance(g) < SPREAD_BALANCE)
		return 0;
	return 0.8 * (0.6 + 0.4 * edge_balance(g));
}

double dmls_shape_ring(const dmls_graph *g, size_t *order)
{
	double c = ring_directed(g, order);
	return c > 0 ? c : ring_bidirectional(g, order);
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/* The n = 2^L nodes idx[0..n) (address order): every one has L partners
 * among them, symmetric, with volumes halving; or, at XOR distances 1, 2,
 * 4, ... (ranks in address order), with volumes equal: recursive doubling
 * (Open MPI's for small vectors), the whole vector to each partner in turn
 * (*doubling = 1).  Of 4 such nodes the edges are a 4-cycle, which a ring
 * in rank order is not: its edge from the last rank to the first is at
 * distance 3. */
static double butterfly_core(const dmls_graph *g, const size_t *idx, size_t n, int *doubling)
{
	size_t L = 0;
	if (n < 4 || (n & (n - 1)) != 0)
		return 0;
	while (((size_t)1 << L) < n)
		L++;
	double score = 0, vol[64];
	size_t nratio = 0;
	int xor_order = 1;
	for (size_t u = 0; u < n; u++) {
		size_t k = 0;
		for (size_t v = 0; v < n; v++) {
			size_t a = idx[u], b = idx[v];
			if (v == u || !g_uedge(g, a, b))
				continue;
			if (g_edge(g, a, b) != g_edge(g, b, a) || k == L)
				return 0;
			size_t x = u ^ v;
			if (x & (x - 1))
				xor_order = 0;
			vol[k++] = g_w(g, a, b);
		}
		if (k != L)
			return 0;
		qsort(vol, k, sizeof(double), cmp_desc);
		for (size_t i = 0; i + 1 < k; i++) {
			double r = vol[i + 1] > 0 ? log2(vol[i] / vol[i + 1]) : 10;
			double s = 1 - fabs(r - 1);
			score += s > 0 ? s : 0;
			nratio++;
		}
	}
	score = nratio ? score / (double)nratio : 0;
	if (score < 0.5 && xor_order) { /* equal partners at XOR distances */
		*doubling = 1;
		return 0.6 + 0.4 * (1 - score);
	}
	if (score < 0.5)
		return 0; /* equal partners: a ring (N=4) or a torus, not halving */
	return (xor_order ? 0.6 : 0.4) + 0.4 * score;
}

double dmls_shape_butterfly(const dmls_graph *g, int *doubling)
{
	*doubling = 0;
	size_t n = g->n, p = 1, r, k = 0;
	while (p * 2 <= n)
		p *= 2;
	r = n - p;
	if (p < 4)
		return 0;
	size_t *core = malloc(n * sizeof(*core));
	unsigned char *host = calloc(n, 1); /* core node already has an extra */
	double c = 0;
	if (!core || !host)
		goto out;
	for (size_t u = 0; u < n; u++) {
		size_t m = n;
		if (r == 0 || udegree(g, u) != 1) {
			core[k++] = u;
			continue;
		}
		for (size_t v = 0; v < n; v++)
			if (v != u && g_uedge(g, u, v))
				m = v;
		/* an extra: one partner, both ways, which has other partners */
		if (!g_edge(g, u, m) || !g_edge(g, m, u) || udegree(g, m) < 2 || host[m])
			goto out;
		host[m] = 1;
	}
	if (k == p)
		c = butterfly_core(g, core, p, doubling) * (r ? 0.9 : 1.0);
out:
	free(core);
	free(host);
	return c;
}

/* k hubs (k <= N/2) adjacent to every spoke; spokes only talk to hubs;
 * hubs not to each other: a parameter server's shards each serve the
 * workers.  Hubs that move data between them are a collective's inner
 * ranks (Open MPI's reduce to rank 0 and broadcast down a chain: the root
 * and the chain's second rank meet every other rank), which no server's
 * S = a worker's push describes. */
double dmls_shape_star(const dmls_graph *g, size_t *hubs, size_t *nhubs)
{
	size_t n = g->n;
	if (n < 3)
		return 0;
	size_t *byd = malloc(n * sizeof(*byd));
	size_t *deg = malloc(n * sizeof(*deg));
	unsigned char *is_hub = calloc(n, 1);
	double conf = 0;
	if (!byd || !deg || !is_hub)
		goto out;
	for (size_t u = 0; u < n; u++) {
		byd[u] = u;
		deg[u] = udegree(g, u);
	}
	for (size_t i = 1; i < n; i++) /* insertion sort by degree, stable */
		for (size_t j = i; j > 0 && deg[byd[j]] > deg[byd[j - 1]]; j--) {
			size_t t = byd[j];
			byd[j] = byd[j - 1];
			byd[j - 1] = t;
		}
	for (size_t k = 1; k <= n / 2 && conf == 0; k++) {
		memset(is_hub, 0, n);
		for (size_t i = 0; i < k; i++)
			is_hub[byd[i]] = 1;
		int ok = 1, both = 1;
		double lo = INFINITY, hi = 0;
		for (size_t s = 0; s < n && ok; s++) {
			if (is_hub[s])
				continue;
			for (size_t v = 0; v < n && ok; v++) {
				if (v == s)
					continue;
				if (is_hub[v] && !g_uedge(g, s, v))
					ok = 0;
				if (!is_hub[v] && g_uedge(g, s, v))
					ok = 0;
				if (is_hub[v] && !(g_edge(g, s, v) && g_edge(g, v, s)))
					both = 0;
				if (is_hub[v]) {
					double x = g_w(g, s, v) + g_w(g, v, s);
					lo = x < lo ? x : lo;
					hi = x > hi ? x : hi;
				}
			}
		}
		for (size_t h = 0; h < n && ok && k > 1; h++)
			for (size_t v = 0; v < n && ok; v++)
				if (v != h && is_hub[h] && is_hub[v] && g_edge(g, h, v))
					ok = 0;
		if (!ok)
			continue;
		*nhubs = 0;
		for (size_t u = 0; u < n; u++)
			if (is_hub[u])
				hubs[(*nhubs)++] = u;
		conf = (both ? 1.0 : 0.8) * (0.6 + 0.4 * (hi > 0 ? lo / hi : 0));
	}
out:
	free(byd);
	free(deg);
	free(is_hub);
	return conf;
}

double dmls_shape_clique(const dmls_graph *g)
{
	size_t n = g->n;
	if (n < 3)
		return 0;
	for (size_t u = 0; u < n; u++)
		for (size_t v = 0; v < n; v++)
			if (u != v && !g_edge(g, u, v))
				return 0;
	double bal = edge_balance(g);
	if (bal < SPREAD_BALANCE)
		return 0;
	return 0.5 + 0.5 * bal;
}

double dmls_shape_tree(const dmls_graph *g, size_t *root)
{
	size_t n = g->n, m = 0, sym = 1, best = 0;
	if (n < 3)
		return 0;
	for (size_t u = 0; u < n; u++) {
		for (size_t v = u + 1; v < n; v++)
			if (g_uedge(g, u, v)) {
				m++;
				if (!(g_edge(g, u, v) && g_edge(g, v, u)))
					sym = 0;
			}
		if (udegree(g, u) > udegree(g, best))
			best = u;
	}
	if (m != n - 1)
		return 0; /* the job graph is connected, so n-1 edges = a tree */
	*root = best;
	return sym ? 0.8 : 0.6;
}

/*
 * Two spanning trees: a reduce to the root along one, a broadcast from it
 * along another (Open MPI's reduce then broadcast: binomial up and linear
 * down at 8 ranks, linear up and a chain down at 6, a chain up and linear
 * down at 3).  Each non-root rank sends S to its reduce parent and
 * receives S from its broadcast parent: 2(N-1) directed edges of S each,
 * the same volume on every one (within TWO_TREES_BALANCE), and every rank
 * reaches every other (the root through the broadcast, back through the
 * reduce).  No other shape of the list has them all: a star's W workers
 * and a tree's N-1 edges both ways are 2(N-1) edges too, but are matched
 * before.  Confidence 0.5: the two trees are not told apart, only counted.
 */
#define TWO_TREES_BALANCE 0.8

static int reaches_all(const dmls_graph *g, int forward, unsigned char *seen, size_t *stack)
{
	size_t n = g->n, top = 0, count = 1;
	memset(seen, 0, n);
	seen[0] = 1;
	stack[top++] = 0;
	while (top > 0) {
		size_t u = stack[--top];
		for (size_t v = 0; v < n; v++)
			if (!seen[v] && (forward ? g_edge(g, u, v) : g_edge(g, v, u))) {
				seen[v] = 1;
				stack[top++] = v;
				count++;
			}
	}
	return count == n;
}

double dmls_shape_two_trees(const dmls_graph *g, size_t *root)
{
	size_t n = g->n, m = 0, best = 0, best_deg = 0;
	if (n < 3)
		return 0;
	for (size_t u = 0; u < n; u++) {
		size_t out = outdegree(g, u), deg = out + indegree(g, u);
		m += out;
		if (deg > best_deg)
			best = u, best_deg = deg;
	}
	if (m != 2 * (n - 1) || edge_balance(g) < TWO_TREES_BALANCE)
		return 0;
	unsigned char *seen = malloc(n);
	size_t *stack = malloc(n * sizeof(*stack));
	int ok = seen && stack && reaches_all(g, 1, seen, stack) && reaches_all(g, 0, seen, stack);
	free(seen);
	free(stack);
	if (!ok)
		return 0;
	*root = best;
	return 0.5;
}

static size_t uf_root(size_t *par, size_t x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

/* Is group [a, a+m) connected inside and a ring or a tree?  -1 when out
 * of memory. */
static int group_ok(const dmls_graph *g, size_t a, size_t m)
{
	size_t edges = 0, deg2 = 1, parts = m;
	size_t *par = malloc(m * sizeof(size_t));
	if (!par)
		return -1;
	for (size_t i = 0; i < m; i++)
		par[i] = i;
	for (size_t u = a; u < a + m; u++) {
		size_t d = 0;
		for (size_t v = a; v < a + m; v++) {
			if (v == u || !g_uedge(g, u, v))
				continue;
			d++;
			if (v > u) {
				edges++;
				size_t x = uf_root(par, u - a), y = uf_root(par, v - a);
				if (x != y)
					par[x] = y, parts--;
			}
		}
		if (d != 2)
			deg2 = 0;
	}
	free(par);
	if (parts != 1)
		return 0;
	return edges == m - 1 || (deg2 && edges == m);
}

/* Of the group sizes that fit, the one with the fewest leaders per group
 * (one leader each is the classic hierarchical all-reduce: 4 pairs whose
 * leaders form a ring are also 2 groups of 4 with 2 leaders each), then the
 * most bytes inside the groups. */
double dmls_shape_hierarchical(const dmls_graph *g, size_t *ngroups)
{
	size_t n = g->n, best_lead = n;
	double best = 0;
	if (n < 4 || n > HIER_MAX_RANKS)
		return 0;
	for (size_t m = 2; m <= n / 2; m++) {
		if (n % m)
			continue;
		int ok = 1;
		size_t maxlead = 0;
		double intra = 0, inter = 0;
		for (size_t a = 0; a < n && ok; a += m) {
			ok = group_ok(g, a, m) > 0;
			size_t leaders = 0;
			for (size_t u = a; u < a + m; u++) {
				int lead = 0;
				for (size_t v = 0; v < n; v++) {
					if (v == u || !g_uedge(g, u, v))
						continue;
					double x = g_w(g, u, v);
					if (v >= a && v < a + m)
						intra += x;
					else
						inter += x, lead = 1;
				}
				leaders += lead;
			}
			if (leaders == 0 || leaders > (m + 1) / 2)
				ok = 0;
			maxlead = leaders > maxlead ? leaders : maxlead;
		}
		double frac = intra / (intra + inter);
		if (ok && frac > 0 && (maxlead < best_lead || (maxlead == best_lead && frac > best))) {
			best = frac;
			best_lead = maxlead;
			*ngroups = n / m;
		}
	}
	return best > 0 ? 0.5 + 0.3 * best : 0;
}
