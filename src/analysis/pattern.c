/*
 * pattern.c - which collective the job runs, from the volume matrix.
 *
 * 1. The payload volume matrix (st->pairs, application bytes: TCP ACKs and
 *    handshakes weigh nothing) is cut at DMLS_EDGE_FRACTION of its largest
 *    pair.  Pairs below carry the control plane: rendezvous stores
 *    (torch.distributed's TCPStore), heartbeats, RPC bookkeeping, a
 *    one-off parameter broadcast.  Their payload is reported, not used.
 * 2. The jobs (jobs.c: components, cut in rounds at each job's own
 *    scale) are classified one by one; the one moving the most bytes is
 *    "the job" of the top level (two jobs in one capture are not mixed:
 *    iterations and burstiness of a job use only its hosts' series).
 * 3. The job graph is matched against the shapes of pattern_shapes.c in a
 *    fixed order: ring (N=2 is a ring by volume: a 2-rank ring all-reduce
 *    is also a clique and a star, ring is the honest name for 2(N-1)/N*S
 *    each way; pattern_two.c then tells a server and one worker taking
 *    turns by timing), butterfly, star, clique, tree, hierarchical; the first match
 *    wins.
 * 4. With the iterations known, dmls_pattern_refine weighs each pair by
 *    its median bytes per iteration instead of its total and classifies
 *    again: one-off transfers (DDP's initial parameter broadcast along a
 *    tree, a checkpoint) weigh nothing in the steady state, however short
 *    the run.  A recognized steady-state shape replaces the first one.
 * 5. Then dmls_pattern_check_pairwise
 *    looks at how the set of active pairs changes from one period-long
 *    window to the next: asynchronous pair averaging (KungFu's AD-PSGD)
 *    adds up to a clique over the run but uses one partner per window.
 *
 * A capture whose largest pair carries less than DMLS_MIN_DATA_BYTES of
 * payload has only control traffic: the kind stays unknown.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/graph.h"
#include "analysis/period.h"
#include "dmlscope/analysis.h"


const char *dmls_pattern_name(int kind)
{
	static const char *const names[] = {"unknown", "ring", "tree", "star", "clique",
					    "butterfly", "hierarchical", "pairwise"};
	if (kind < 0 || kind > DMLS_PAT_PAIRWISE)
		return "unknown";
	return names[kind];
}

void dmls_pattern_release(dmls_pattern *p)
{
	free(p->members);
	free(p->hubs);
	free(p->order);
	free(p->observed);
	free(p->pairs);
	memset(p, 0, sizeof(*p));
}

typedef struct addr_key {
	uint8_t addr[16];
	size_t host;
} addr_key;

static int cmp_addr(const void *a, const void *b)
{
	const addr_key *x = a, *y = b;
	return memcmp(x->addr, y->addr, 16);
}

/* Sort host indexes by address (address order = rank order on testbeds). */
static int sort_by_addr(const dmls_stats *st, size_t *idx, size_t n)
{
	addr_key *k = malloc((n ? n : 1) * sizeof(*k));
	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++) {
		memcpy(k[i].addr, st->hosts[idx[i]].addr, 16);
		k[i].host = idx[i];
	}
	qsort(k, n, sizeof(*k), cmp_addr);
	for (size_t i = 0; i < n; i++)
		idx[i] = k[i].host;
	free(k);
	return 0;
}

/* The job's graph: its hosts in address order, pairs between them (in the
 * busiest run of runs back to back, whose largest pair then sets the
 * edges' cut as the job's did). */
static int build_graph(dmls_graph *g, const dmls_stats *st, const dmls_job_scope *job,
		       double *ctrl)
{
	size_t n = job->n;
	g->n = n;
	g->node = malloc(n * sizeof(size_t));
	g->w = calloc(n * n, sizeof(double));
	g->e = calloc(n * n, 1);
	size_t *local = malloc(st->nhosts * sizeof(size_t));
	if (!g->node || !g->w || !g->e || !local) {
		free(local);
		return -1;
	}
	memcpy(g->node, job->hosts, n * sizeof(size_t));
	if (sort_by_addr(st, g->node, n) < 0) {
		free(local);
		return -1;
	}
	for (size_t i = 0; i < st->nhosts; i++)
		local[i] = n;
	for (size_t u = 0; u < n; u++)
		local[g->node[u]] = u;
	double thr = dmls_run_edge_cut(st, local, n, job->thr);
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		size_t u = local[pr->src], v = local[pr->dst];
		double w = dmls_pair_payload_in_run(st, pr);
		if ((u < n || v < n) && w < thr)
			*ctrl += w; /* the job's control plane */
		if (u == n || v == n || u == v)
			continue;
		g->w[u * n + v] += w;
		g->e[u * n + v] = w >= thr && w > 0;
	}
	free(local);
	return 0;
}

static void classify(dmls_pattern *p, const dmls_graph *g, size_t *tmp)
{
	size_t n = g->n, nh = 0, root = 0;
	double c;
	if (n == 2) {
		p->kind = DMLS_PAT_RING;
		p->confidence = g_edge(g, 0, 1) && g_edge(g, 1, 0) ? 1.0 : 0.5;
		p->order[0] = g->node[0], p->order[1] = g->node[1];
		p->norder = 2;
		return;
	}
	int doubling = 0;
	p->doubling = 0;
	p->partners = 0;
	p->hub_or_clique = 0;
	if ((c = dmls_shape_butterfly(g, &doubling)) > 0) {
		p->kind = DMLS_PAT_BUTTERFLY;
		p->doubling = doubling;
	} else if (n == 3 && (c = dmls_shape_clique(g)) > 0) {
		p->kind = DMLS_PAT_CLIQUE; /* every pair both ways: no ring's shape */
	} else if ((c = dmls_shape_ring(g, tmp)) > 0) {
		p->kind = DMLS_PAT_RING;
		for (size_t i = 0; i < n; i++)
			p->order[i] = g->node[tmp[i]];
		p->norder = n;
	} else if ((c = dmls_shape_star(g, tmp, &nh)) > 0) {
		p->kind = DMLS_PAT_STAR;
		for (size_t i = 0; i < nh; i++)
			p->hubs[i] = g->node[tmp[i]];
		p->nhubs = nh;
	} else if ((c = dmls_shape_clique(g)) > 0) {
		p->kind = DMLS_PAT_CLIQUE;
	} else if ((c = dmls_shape_tree(g, &root)) > 0) {
		p->kind = DMLS_PAT_TREE;
		p->hubs[0] = g->node[root];
		p->nhubs = 1;
	} else if ((c = dmls_shape_hierarchical(g, &p->ngroups)) > 0) {
		p->kind = DMLS_PAT_HIERARCHICAL;
	} else if ((c = dmls_shape_two_trees(g, &root)) > 0) {
		p->kind = DMLS_PAT_TREE;
		p->hubs[0] = g->node[root];
		p->nhubs = 1;
	} else {
		p->kind = DMLS_PAT_UNKNOWN;
		c = 0;
	}
	p->confidence = c;
}

int dmls_pattern_find(dmls_pattern *p, const dmls_stats *st, dmls_error *err)
{
	dmls_job_scope *jobs;
	size_t njobs;
	memset(p, 0, sizeof(*p));
	p->extra = SIZE_MAX;
	p->extra_step_bytes = NAN;
	int rc = dmls_jobs_split(&jobs, &njobs, st, err);
	if (rc == 0 && njobs == 0)
		for (size_t k = 0; k < st->npairs; k++)
			p->ctrl_payload_bytes += (double)st->pairs[k].payload_bytes;
	if (rc == 0 && njobs > 0)
		rc = dmls_pattern_find_job(p, st, &jobs[0], njobs, err);
	dmls_jobs_free(jobs, njobs);
	return rc;
}

int dmls_pattern_find_job(dmls_pattern *p, const dmls_stats *st, const dmls_job_scope *job,
			  size_t njobs, dmls_error *err)
{
	memset(p, 0, sizeof(*p));
	p->extra = SIZE_MAX;
	p->extra_step_bytes = NAN;
	p->components = njobs;
	dmls_graph g = {0};
	size_t n = job->n, *tmp = NULL;
	int rc = 0;
	if (build_graph(&g, st, job, &p->ctrl_payload_bytes) < 0)
		goto oom;
	p->members = malloc(n * sizeof(size_t));
	p->hubs = malloc(n * sizeof(size_t));
	p->order = malloc(n * sizeof(size_t));
	tmp = malloc(n * sizeof(size_t));
	if (!p->members || !p->hubs || !p->order || !tmp)
		goto oom;
	memcpy(p->members, g.node, n * sizeof(size_t));
	p->ranks = n;
	for (size_t u = 0; u < n * n; u++)
		p->edges += g.e[u];
	classify(p, &g, tmp);
	goto out;
oom:
	rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
out:
	free(tmp);
	free(g.node);
	free(g.w);
	free(g.e);
	return rc;
}

/* Median over the iterations [starts[i], starts[i+1]) of a pair's bytes. */
static double pair_median(const dmls_pair *pr, const dmls_stats *st, const double *starts_s,
			  size_t count, double *v)
{
	double bin_s = (double)pr->series.bin_ns * 1e-9;
	double off_s = (double)(pr->series.t0_ns - st->t0_ns) * 1e-9;
	for (size_t i = 0; i + 1 < count; i++) {
		int64_t a = (int64_t)floor((starts_s[i] - off_s) / bin_s);
		int64_t b = (int64_t)floor((starts_s[i + 1] - off_s) / bin_s);
		v[i] = dmls_series_range(&pr->series, a, b, NULL);
	}
	return dmls_median(v, count - 1);
}

/* A butterfly of N not a power of two, on g of wire bytes per iteration:
 * the mean of what each extra rank (one data peer, both ways) sends its
 * core rank, its whole vector, S, whatever it gets back (Open MPI's
 * Rabenseifner sends it S/2 and then the result, 1.5 S; MPICH S), as
 * payload (the pair's payload share of its wire bytes).  NAN otherwise. */
static double extra_step_bytes(const dmls_pattern *p, const dmls_graph *g, const dmls_stats *st)
{
	size_t n = g->n, k = 0;
	double sum = 0;
	if (p->kind != DMLS_PAT_BUTTERFLY || p->doubling || !(n & (n - 1)))
		return NAN;
	for (size_t u = 0; u < n; u++) {
		size_t deg = 0, m = n;
		for (size_t v = 0; v < n; v++)
			if (v != u && g_uedge(g, u, v))
				deg++, m = v;
		long pr = deg == 1 && g_edge(g, u, m)
				  ? dmls_stats_find_pair(st, (uint32_t)g->node[u], (uint32_t)g->node[m])
				  : -1;
		if (pr >= 0 && st->pairs[pr].wire_bytes > 0)
			sum += g_w(g, u, m) * (double)st->pairs[pr].payload_bytes /
			       (double)st->pairs[pr].wire_bytes,
				k++;
	}
	return k ? sum / (double)k : NAN;
}

int dmls_pattern_refine(dmls_pattern *p, const dmls_stats *st, const double *starts_s,
			size_t count)
{
	size_t n = p->ranks;
	if (n < 3 || count < 4 || !p->members || p->partial)
		return 0;
	dmls_graph g = {n, p->members, calloc(n * n, sizeof(double)), calloc(n * n, 1)};
	double *v = malloc(count * sizeof(double)), maxv = 0;
	size_t *tmp = malloc(n * sizeof(size_t));
	if (!g.w || !g.e || !v || !tmp)
		goto out;
	for (size_t u = 0; u < n; u++)
		for (size_t w = 0; w < n; w++) {
			long k = u == w ? -1 : dmls_stats_find_pair(st, (uint32_t)p->members[u],
								    (uint32_t)p->members[w]);
			if (k < 0)
				continue;
			double m = pair_median(&st->pairs[k], st, starts_s, count, v);
			g.w[u * n + w] = m;
			maxv = m > maxv ? m : maxv;
		}
	for (size_t i = 0; i < n * n && maxv > 0; i++)
		g.e[i] = g.w[i] >= DMLS_EDGE_FRACTION * maxv;
	if (maxv > 0) {
		dmls_pattern q = *p;
		q.hubs = malloc(n * sizeof(size_t));
		q.order = malloc(n * sizeof(size_t));
		q.nhubs = q.norder = q.ngroups = q.edges = 0;
		if (q.hubs && q.order) {
			for (size_t i = 0; i < n * n; i++)
				q.edges += g.e[i];
			classify(&q, &g, tmp);
			q.extra_step_bytes = extra_step_bytes(&q, &g, st);
		}
		if (q.hubs && q.order && q.kind != DMLS_PAT_UNKNOWN) {
			free(p->hubs);
			free(p->order);
			*p = q; /* the steady state decides */
		} else {
			free(q.hubs);
			free(q.order);
		}
	}
out:
	free(g.w);
	free(g.e);
	free(v);
	free(tmp);
	return 0;
}
