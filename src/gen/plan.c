/*
 * plan.c - who sends what to whom in one iteration's collective.
 *
 * Each pattern is the textbook algorithm, one step after the other (the
 * transfers of a step run at the same time, a step starts when the one
 * before it is done).  S is the gradient in bytes, N the ranks.
 *
 * ring (Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for
 *   clusters of workstations", JPDC 2009; Thakur, Rabenseifner & Gropp,
 *   "Optimization of collective communication operations in MPICH", IJHPCA
 *   2005): S is cut into N chunks; in reduce-scatter step s (0..N-2) rank r
 *   sends chunk (r - s) mod N to rank r + 1, in all-gather step s chunk
 *   (r + 1 - s) mod N.  Each rank sends and receives 2(N-1)/N S.
 * star (parameter server, Li et al., OSDI 2014): hosts 0..k-1 are the
 *   servers, each holding one shard (S/k) of the parameters; every worker
 *   pushes its shard j to server j (incast), then every server sends its
 *   shard back to every worker.  A worker sends S and receives S; a server
 *   receives and sends W S / k.
 * clique (direct reduce-scatter then all-gather over all pairs, Thakur et
 *   al. 2005 sec. 4.4 without the ring): rank i sends chunk j to each rank
 *   j (reduce-scatter), then its reduced chunk i to every rank (all-gather).
 *   Each rank sends and receives 2(N-1)/N S, over N-1 partners at once.
 * tree (binary tree reduce then broadcast, Thakur et al. 2005 sec. 4.1):
 *   parent of rank i is (i-1)/2; the deepest level sends S to its parents
 *   first, level by level up, then the root sends S down level by level.
 *   S crosses every edge once each way.
 * hierarchical (Horovod's hierarchical all-reduce with group leaders):
 *   contiguous groups of G ranks; a ring all-reduce inside every group at
 *   once, then a ring all-reduce of S across the group leaders (the first
 *   rank of each group), then each leader passes S down its group's chain
 *   (leader -> 2nd -> 3rd ...).
 * butterfly (Rabenseifner's all-reduce: recursive halving reduce-scatter,
 *   then recursive doubling all-gather; Thakur, Rabenseifner & Gropp 2005
 *   sec. 4.4, as MPICH does it): for p = N a power of two, S is cut into
 *   p chunks; in reduce-scatter step s rank r exchanges with r XOR 2^s
 *   the half of its current chunk range it gives away (S/2, S/4 ... S/p),
 *   then the all-gather undoes the steps in reverse order, sending the
 *   range it holds (S/p ... S/2).  log2 p partners, volumes halving; each
 *   rank sends and receives 2(p-1)/p S.  N not a power of two: the r = N - p
 *   extra ranks p..N-1 first send S to core rank (extra - p), the core
 *   ranks do the butterfly, then send S back (MPICH's way, with the extras
 *   last in rank order).
 * pairwise (asynchronous pair averaging, KungFu's PairAveraging, Mai et
 *   al., OSDI 2020): in iteration k each rank exchanges S with one partner
 *   (S each way); partners follow the round-robin ("circle") tournament, so
 *   they change every iteration and repeat after N-1 (N even) or N (N odd,
 *   one rank sits out each round).
 */
#include <stdlib.h>

#include "dmlscope/analysis.h"
#include "gen/gen_int.h"

static int add(gen_plan *p, uint32_t step, uint32_t src, uint32_t dst, uint64_t bytes,
	       int phase)
{
	if (bytes == 0 || src == dst)
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		gen_xfer *x = realloc(p->x, cap * sizeof(*x));
		if (!x)
			return -1;
		p->x = x;
		p->cap = cap;
	}
	p->x[p->n++] = (gen_xfer){step, src, dst, bytes, (uint8_t)phase};
	if (step + 1 > p->nsteps)
		p->nsteps = step + 1;
	return 0;
}

/* Ring all-reduce of S among members m[0..n) from step0; returns the
 * number of steps it takes, or -1 when out of memory. */
static int ring(gen_plan *p, uint32_t step0, const uint32_t *m, uint32_t n, uint64_t S,
		int prs, int pag)
{
	if (n < 2)
		return 0;
	for (uint32_t s = 0; s + 1 < n; s++) {
		for (uint32_t r = 0; r < n; r++) {
			uint32_t c = (r + n - s) % n;
			if (add(p, step0 + s, m[r], m[(r + 1) % n], gen_chunk(S, n, c), prs))
				return -1;
		}
	}
	for (uint32_t s = 0; s + 1 < n; s++) {
		for (uint32_t r = 0; r < n; r++) {
			uint32_t c = (r + 1 + n - s) % n;
			if (add(p, step0 + n - 1 + s, m[r], m[(r + 1) % n], gen_chunk(S, n, c),
				pag))
				return -1;
		}
	}
	return (int)(2 * (n - 1));
}

static int plan_star(gen_plan *p, const dmls_gen_job *job)
{
	uint32_t k = (uint32_t)job->servers, W = (uint32_t)job->workers;
	for (int pull = 0; pull < 2; pull++) {
		for (uint32_t w = k; w < k + W; w++) {
			for (uint32_t j = 0; j < k; j++) {
				uint64_t b = gen_chunk(job->gradient_bytes, k, j);
				if (add(p, (uint32_t)pull, pull ? j : w, pull ? w : j, b,
					pull ? DMLS_GEN_PULL : DMLS_GEN_PUSH))
					return -1;
			}
		}
	}
	return 0;
}

static int plan_clique(gen_plan *p, const dmls_gen_job *job)
{
	uint32_t n = (uint32_t)job->workers;
	uint64_t S = job->gradient_bytes;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			if (add(p, 0, i, j, gen_chunk(S, n, j), DMLS_GEN_REDUCE_SCATTER))
				return -1;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			if (add(p, 1, i, j, gen_chunk(S, n, i), DMLS_GEN_ALL_GATHER))
				return -1;
	return 0;
}

static uint32_t depth_of(uint32_t i)
{
	uint32_t d = 0;
	for (i++; i > 1; i >>= 1)
		d++;
	return d;
}

static int plan_tree(gen_plan *p, const dmls_gen_job *job)
{
	uint32_t n = (uint32_t)job->workers, D = depth_of(n - 1);
	for (uint32_t i = 1; i < n; i++) {
		uint32_t d = depth_of(i), parent = (i - 1) / 2;
		if (add(p, D - d, i, parent, job->gradient_bytes, DMLS_GEN_REDUCE) ||
		    add(p, D + d - 1, parent, i, job->gradient_bytes, DMLS_GEN_BROADCAST))
			return -1;
	}
	return 0;
}

/* Hierarchical: see the top of the file. */
static int plan_hier(gen_plan *p, const dmls_gen_job *job)
{
	uint32_t n = (uint32_t)job->workers, g = (uint32_t)job->group_size;
	uint32_t ngroups = (n + g - 1) / g;
	uint64_t S = job->gradient_bytes;
	uint32_t *m = calloc(n > ngroups ? n : ngroups, sizeof(*m));
	if (!m)
		return -1;
	int rc = 0, steps = 0;
	for (uint32_t gi = 0; gi < ngroups && rc >= 0; gi++) {
		uint32_t first = gi * g, size = n - first < g ? n - first : g;
		for (uint32_t r = 0; r < size; r++)
			m[r] = first + r;
		rc = ring(p, 0, m, size, S, DMLS_GEN_INTRA_REDUCE_SCATTER,
			  DMLS_GEN_INTRA_ALL_GATHER);
		if (rc > steps)
			steps = rc;
	}
	if (rc >= 0) {
		for (uint32_t gi = 0; gi < ngroups; gi++)
			m[gi] = gi * g;
		rc = ring(p, (uint32_t)steps, m, ngroups, S, DMLS_GEN_INTER_REDUCE_SCATTER,
			  DMLS_GEN_INTER_ALL_GATHER);
		steps += rc;
	}
	for (uint32_t gi = 0; gi < ngroups && rc >= 0; gi++)
		for (uint32_t r = gi * g + 1; r < n && r < (gi + 1) * g && rc >= 0; r++)
			rc = add(p, (uint32_t)steps + (r - gi * g - 1), r - 1, r, S,
				 DMLS_GEN_BROADCAST);
	free(m);
	return rc < 0 ? -1 : 0;
}

/* Round-robin tournament (the circle method): round r pairs position 0
 * with M-1 ... ; M = N rounded up to even, position N (if any) is a bye. */
static int plan_pairwise(gen_plan *p, const dmls_gen_job *job, uint32_t k)
{
	uint32_t n = (uint32_t)job->workers, M = n + (n & 1), r = k % (M - 1);
	for (uint32_t i = 0; i < M / 2; i++) {
		uint32_t a = i == 0 ? M - 1 : (r + i) % (M - 1);
		uint32_t b = (r + M - 1 - i) % (M - 1);
		if (a >= n || b >= n)
			continue;
		if (add(p, 0, a, b, job->gradient_bytes, DMLS_GEN_EXCHANGE) ||
		    add(p, 0, b, a, job->gradient_bytes, DMLS_GEN_EXCHANGE))
			return -1;
	}
	return 0;
}

/* Bytes of chunks [lo, hi) of S cut into n. */
static uint64_t chunk_range(uint64_t S, uint64_t n, uint64_t lo, uint64_t hi)
{
	return (uint64_t)(((unsigned __int128)S * hi) / n - ((unsigned __int128)S * lo) / n);
}

/* Butterfly: see the top of the file. */
static int plan_butterfly(gen_plan *p, const dmls_gen_job *job)
{
	uint32_t n = (uint32_t)job->workers, P = 1, L = 0;
	while (P * 2 <= n)
		P *= 2, L++;
	uint64_t S = job->gradient_bytes;
	uint32_t s0 = n > P, last = s0 + 2 * L;
	for (uint32_t x = P; x < n; x++)
		if (add(p, 0, x, x - P, S, DMLS_GEN_REDUCE) ||
		    add(p, last, x - P, x, S, DMLS_GEN_BROADCAST))
			return -1;
	for (uint32_t r = 0; r < P; r++) {
		uint32_t lo = 0, hi = P, los[32], his[32];
		for (uint32_t s = 0; s < L; s++) {
			uint32_t m = 1u << s, half = (hi - lo) / 2;
			los[s] = lo, his[s] = hi;
			int upper = (r & m) != 0; /* keeps the upper half */
			uint64_t b = upper ? chunk_range(S, P, lo, lo + half)
					   : chunk_range(S, P, lo + half, hi);
			if (add(p, s0 + s, r, r ^ m, b, DMLS_GEN_REDUCE_SCATTER))
				return -1;
			if (upper)
				lo += half;
			else
				hi -= half;
		}
		for (uint32_t t = 0; t < L; t++) {
			uint32_t s = L - 1 - t;
			if (add(p, s0 + L + t, r, r ^ (1u << s), chunk_range(S, P, lo, hi),
				DMLS_GEN_ALL_GATHER))
				return -1;
			lo = los[s], hi = his[s];
		}
	}
	return 0;
}

static int by_step(const void *a, const void *b)
{
	const gen_xfer *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

int gen_plan_iteration(gen_plan *p, const dmls_gen_job *job, uint32_t k)
{
	p->n = 0;
	p->nsteps = 0;
	int rc;
	uint32_t *m;
	switch (job->pattern) {
	case DMLS_PAT_RING:
		m = malloc(job->workers * sizeof(*m));
		if (!m)
			return -1;
		for (uint32_t r = 0; r < job->workers; r++)
			m[r] = r;
		rc = ring(p, 0, m, (uint32_t)job->workers, job->gradient_bytes,
			  DMLS_GEN_REDUCE_SCATTER, DMLS_GEN_ALL_GATHER) < 0 ? -1 : 0;
		free(m);
		break;
	case DMLS_PAT_STAR: rc = plan_star(p, job); break;
	case DMLS_PAT_CLIQUE: rc = plan_clique(p, job); break;
	case DMLS_PAT_TREE: rc = plan_tree(p, job); break;
	case DMLS_PAT_HIERARCHICAL: rc = plan_hier(p, job); break;
	case DMLS_PAT_PAIRWISE: rc = plan_pairwise(p, job, k); break;
	case DMLS_PAT_BUTTERFLY: rc = plan_butterfly(p, job); break;
	default: return -1;
	}
	if (rc == 0)
		qsort(p->x, p->n, sizeof(*p->x), by_step);
	return rc;
}
