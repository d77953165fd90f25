/*
 * jobs_shared.c - two jobs that share a host, told apart by their clocks.
 *
 * On a multi-tenant cluster one host runs ranks of two jobs.  When both
 * move similar volumes, the cut by volume (jobs.c) sees one component:
 * a ring of 3 and a parameter server of 4 sharing a host look like one
 * "hierarchical" job of 6.  The shared host is a cut vertex of the job's
 * data graph: without it the hosts fall into parts.  A tree's inner node,
 * a star's hub and a hierarchical job's leader are cut vertices too, but
 * there every part keeps the same step: a subtree's reduce feeds its
 * parent's in every iteration.  Two jobs keep two steps.
 *
 * So, for each host h of a job (jobs of DMLS_SHARED_MAX_HOSTS hosts or
 * fewer: the search is quadratic), the parts of the job without h that
 * hold two hosts or more (a lone spoke has no clock of its own: it stays
 * with the first part) each get a clock: the iterations (iterations.c) of
 * their hosts' sending, h left out (h's sending mixes both jobs).  Two
 * parts are one job when their periods agree within DMLS_SHARED_PERIOD and
 * their steps lock (dmls_clock_compare, mode.c: one end of the other part
 * in at least DMLS_SHARED_LOCK of the first part's steps, offsets steady
 * within DMLS_SHARED_PHASE of the period).  Otherwise each part with h is a
 * job of its own; h is in both.  One split per job, and at most
 * DMLS_SHARED_MAX_TRIES cut vertices tried (each costs a clock per part:
 * a search over the capture; a 64-rank tree has 31 inner nodes).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"
#include "dmlscope/analysis.h"

#define DMLS_SHARED_MAX_HOSTS 64
#define DMLS_SHARED_MAX_TRIES 8 /* cut vertices whose parts get clocks, per job */
#define DMLS_SHARED_MIN_STEPS 4
#define DMLS_SHARED_PERIOD 0.03
#define DMLS_SHARED_LOCK 0.9
#define DMLS_SHARED_PHASE 0.10

typedef struct part_clock {
	size_t count;
	double period_s;
	double *ends;
} part_clock;

/* The clock of hosts[0..n): their sending's iterations. */
static int clock_of(part_clock *c, const dmls_stats *st, const size_t *hosts, size_t n,
		    dmls_error *err)
{
	dmls_iterations it;
	memset(c, 0, sizeof(*c));
	c->period_s = NAN;
	int rc = dmls_iterations_find(&it, st, hosts, n, hosts, n, err);
	if (rc)
		return rc;
	c->count = it.count;
	c->period_s = it.period_s;
	c->ends = it.comm_end_s; /* taken over */
	it.comm_end_s = NULL;
	dmls_iterations_release(&it);
	return 0;
}

/* 1 when the two clocks keep one step. */
static int same_step(const part_clock *a, const part_clock *b)
{
	if (a->count < DMLS_SHARED_MIN_STEPS || b->count < DMLS_SHARED_MIN_STEPS ||
	    !isfinite(a->period_s) || !isfinite(b->period_s))
		return 1; /* no evidence to split on */
	double P = fmin(a->period_s, b->period_s);
	if (fabs(a->period_s - b->period_s) > DMLS_SHARED_PERIOD * P)
		return 0;
	double spread, lock;
	dmls_clock_compare(a->ends, a->count, b->ends, b->count, P, &spread, &lock);
	return !(lock < DMLS_SHARED_LOCK || spread > DMLS_SHARED_PHASE);
}

typedef struct graph_ctx {
	const dmls_stats *st;
	const dmls_job_scope *job;
	size_t n;
	unsigned char *adj;   /* n x n undirected data edges */
	size_t *part;         /* per local host: part id, SIZE_MAX for h */
	size_t *stack;
} graph_ctx;

/* Parts of the job without local host h; returns their number. */
static size_t parts_without(graph_ctx *g, size_t h)
{
	size_t np = 0;
	for (size_t i = 0; i < g->n; i++)
		g->part[i] = i == h ? SIZE_MAX - 1 : SIZE_MAX;
	for (size_t s = 0; s < g->n; s++) {
		if (g->part[s] != SIZE_MAX)
			continue;
		size_t top = 0;
		g->stack[top++] = s;
		g->part[s] = np;
		while (top) {
			size_t u = g->stack[--top];
			for (size_t v = 0; v < g->n; v++)
				if (g->adj[u * g->n + v] && g->part[v] == SIZE_MAX) {
					g->part[v] = np;
					g->stack[top++] = v;
				}
		}
		np++;
	}
	return np;
}

/* Try host h of the job: fills hosts of each separate job (local ids into
 * out, offsets into start) and returns how many jobs (1: no split). */
static size_t try_split(graph_ctx *g, size_t h, size_t *out, size_t *start, int *rc,
			size_t *tried, dmls_error *err)
{
	size_t np = parts_without(g, h), nbig = 0;
	if (np < 2)
		return 1;
	size_t *size = calloc(np, sizeof(size_t));
	part_clock *clk = calloc(np, sizeof(part_clock));
	size_t *hosts = malloc(g->n * sizeof(size_t)), njobs = 1;
	if (!size || !clk || !hosts) {
		*rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < g->n; i++)
		if (i != h)
			size[g->part[i]]++;
	for (size_t p = 0; p < np; p++)
		nbig += size[p] >= 2;
	if (nbig < 2)
		goto out;
	(*tried)++;
	for (size_t p = 0; p < np && *rc == 0; p++) {
		if (size[p] < 2)
			continue;
		size_t k = 0;
		for (size_t i = 0; i < g->n; i++)
			if (i != h && g->part[i] == p)
				hosts[k++] = g->job->hosts[i];
		*rc = clock_of(&clk[p], g->st, hosts, k, err);
	}
	if (*rc)
		goto out;
	/* the big parts in groups that keep one step; the first big part's
	 * group takes the lone spokes */
	size_t *group = hosts; /* reused: group per part */
	size_t ng = 0, first = np;
	for (size_t p = 0; p < np; p++) {
		group[p] = SIZE_MAX;
		if (size[p] < 2)
			continue;
		first = first == np ? p : first;
		for (size_t q = 0; q < p && group[p] == SIZE_MAX; q++)
			if (size[q] >= 2 && same_step(&clk[q], &clk[p]))
				group[p] = group[q];
		if (group[p] == SIZE_MAX)
			group[p] = ng++;
	}
	if (ng < 2)
		goto out;
	for (size_t p = 0; p < np; p++)
		if (size[p] < 2)
			group[p] = group[first];
	size_t k = 0;
	for (size_t j = 0; j < ng; j++) {
		start[j] = k;
		out[k++] = h;
		for (size_t i = 0; i < g->n; i++)
			if (i != h && group[g->part[i]] == j)
				out[k++] = i;
	}
	start[ng] = k;
	njobs = ng;
out:
	for (size_t p = 0; clk && p < np; p++)
		free(clk[p].ends);
	free(clk);
	free(size);
	free(hosts);
	return njobs;
}

/* Split job (if two jobs share a host) into *parts jobs written to
 * out[0..*parts); *parts is 1 and out untouched when it stays whole. */
static int split_one(const dmls_stats *st, const dmls_job_scope *job, dmls_job_scope *out,
		     size_t *parts, dmls_error *err)
{
	size_t n = job->n;
	*parts = 1;
	graph_ctx g = {st, job, n, calloc(n * n, 1), malloc(n * sizeof(size_t)),
		       malloc(n * sizeof(size_t))};
	size_t *local = malloc(st->nhosts * sizeof(size_t));
	size_t *ids = malloc(2 * n * sizeof(size_t)), *start = malloc((n + 1) * sizeof(size_t));
	int rc = 0;
	if (!g.adj || !g.part || !g.stack || !local || !ids || !start) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < st->nhosts; i++)
		local[i] = n;
	for (size_t i = 0; i < n; i++)
		local[job->hosts[i]] = i;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		size_t u = local[pr->src], v = local[pr->dst];
		if (u < n && v < n && u != v && (double)pr->payload_bytes >= job->thr)
			g.adj[u * n + v] = g.adj[v * n + u] = 1;
	}
	size_t tried = 0;
	for (size_t h = 0; h < n && rc == 0 && *parts == 1 && tried < DMLS_SHARED_MAX_TRIES; h++) {
		size_t nj = try_split(&g, h, ids, start, &rc, &tried, err);
		if (rc || nj < 2)
			continue;
		for (size_t j = 0; j < nj && rc == 0; j++) {
			size_t m = start[j + 1] - start[j];
			out[j] = (dmls_job_scope){m, malloc(m * sizeof(size_t)), job->thr, 0};
			if (!out[j].hosts) {
				rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
				for (size_t i = 0; i < j; i++)
					free(out[i].hosts);
				break;
			}
			for (size_t i = 0; i < m; i++)
				out[j].hosts[i] = job->hosts[ids[start[j] + i]];
			for (size_t k = 0; k < st->npairs; k++) { /* its data volume */
				const dmls_pair *pr = &st->pairs[k];
				size_t u = local[pr->src], v = local[pr->dst];
				if (u == n || v == n || (double)pr->payload_bytes < job->thr)
					continue;
				int in_u = 0, in_v = 0;
				for (size_t i = 0; i < m; i++) {
					in_u |= ids[start[j] + i] == u;
					in_v |= ids[start[j] + i] == v;
				}
				if (in_u && in_v)
					out[j].payload_bytes += (double)pr->payload_bytes;
			}
		}
		if (rc == 0)
			*parts = nj;
	}
out:
	free(g.adj);
	free(g.part);
	free(g.stack);
	free(local);
	free(ids);
	free(start);
	return rc;
}

int dmls_jobs_split_shared(dmls_job_scope **jobs, size_t *njobs, const dmls_stats *st,
			   dmls_error *err)
{
	size_t n0 = *njobs;
	for (size_t j = 0; j < n0; j++) {
		const dmls_job_scope *job = &(*jobs)[j];
		if (job->n < 4 || job->n > DMLS_SHARED_MAX_HOSTS)
			continue;
		dmls_job_scope *parts = malloc(job->n * sizeof(*parts));
		size_t np = 1;
		if (!parts)
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		int rc = split_one(st, job, parts, &np, err);
		if (rc == 0 && np > 1) {
			dmls_job_scope *grown = realloc(*jobs, (*njobs + np - 1) * sizeof(**jobs));
			if (!grown) {
				for (size_t i = 0; i < np; i++)
					free(parts[i].hosts);
				rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
			} else {
				*jobs = grown;
				free(grown[j].hosts);
				grown[j] = parts[0];
				for (size_t i = 1; i < np; i++)
					grown[(*njobs)++] = parts[i];
			}
		}
		free(parts);
		if (rc)
			return rc;
	}
	return 0;
}
