/*
 * jobs.c - the jobs of a capture: which hosts train together.
 *
 * A shared network carries several jobs at once, and each has its own
 * scale: a small model's ring moves a few MB per pair where a large one
 * moves hundreds.  One cut of the volume matrix at a share of its largest
 * pair (DMLS_EDGE_FRACTION) keeps the large job and drops the small one
 * as "control plane".  So the cut is made in rounds, each at the scale of
 * what is left (in the manner of a hierarchical clustering by weight):
 *
 *   round r: m = the largest pair not yet in a job.  Stop when m is below
 *            DMLS_MIN_DATA_BYTES (what is left is control traffic: DNS,
 *            ssh, a launcher's wire-up).  The pairs of at least
 *            DMLS_EDGE_FRACTION * m join hosts into components; each
 *            component is a job, with that cut as its threshold.  Every
 *            pair between two hosts of the job is then the job's (its
 *            control plane: a rendezvous store, heartbeats) and leaves the
 *            pool.
 *
 * A component of a later round whose hosts are all but one already in
 * jobs is the control traffic of those jobs (an MPI launcher or a
 * rendezvous server talking to ranks), not a job: it needs two hosts of
 * its own.  A host may be in two jobs (a later job's pair to it), which
 * is how a multi-tenant host running ranks of two jobs shows up when the
 * second job is the smaller by a factor DMLS_EDGE_FRACTION or more.  Two
 * jobs of similar volume sharing a host join in one component; then
 * jobs_shared.c tells them apart by their clocks.
 *
 * Jobs are ordered by payload, the largest first: jobs[0] is "the job" of
 * the top level of the output.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/jobs_int.h"
#include "dmlscope/analysis.h"

#define MAX_ROUNDS 64 /* each round takes the largest pair left: ample */

static size_t uf_find(size_t *par, size_t x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

static int cmp_volume(const void *x, const void *y)
{
	const dmls_job_scope *a = x, *b = y;
	return a->payload_bytes < b->payload_bytes ? 1 : a->payload_bytes > b->payload_bytes ? -1 : 0;
}

void dmls_jobs_free(dmls_job_scope *jobs, size_t n)
{
	for (size_t i = 0; jobs && i < n; i++)
		free(jobs[i].hosts);
	free(jobs);
}

typedef struct split_ctx {
	const dmls_stats *st;
	unsigned char *used;   /* per pair: in a job */
	size_t *par;           /* union-find per host */
	size_t *in_jobs;       /* per host: jobs it is in */
	size_t *comp;          /* scratch: 2 nh (hosts by component, roots) */
	double *vol;           /* per root: component payload */
	dmls_job_scope *jobs;
	size_t njobs, cap;
} split_ctx;

/* Add the component of hosts h[0..n) as a job. */
static int add_job(split_ctx *c, const size_t *h0, size_t n, double thr, double vol)
{
	if (c->njobs == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;
		dmls_job_scope *j = realloc(c->jobs, cap * sizeof(*j));
		if (!j)
			return -1;
		c->jobs = j, c->cap = cap;
	}
	size_t *h = malloc(n * sizeof(size_t));
	if (!h)
		return -1;
	memcpy(h, h0, n * sizeof(size_t));
	c->jobs[c->njobs++] = (dmls_job_scope){n, h, thr, vol, 0};
	return 0;
}

/* One round at cut thr: components of the unused pairs >= thr, in one
 * pass over pairs and hosts (a flood may hold thousands).  Returns the
 * number of pairs it took, or -1 (memory). */
static long round_once(split_ctx *c, double thr, size_t *start)
{
	const dmls_stats *st = c->st;
	size_t nh = st->nhosts, *root = c->comp + nh; /* comp holds 2 nh */
	for (size_t i = 0; i < nh; i++)
		c->par[i] = i, c->vol[i] = 0;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (!c->used[k] && pr->src != pr->dst && (double)pr->payload_bytes >= thr)
			c->par[uf_find(c->par, pr->src)] = uf_find(c->par, pr->dst);
	}
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (!c->used[k] && pr->src != pr->dst && (double)pr->payload_bytes >= thr)
			c->vol[uf_find(c->par, pr->src)] += (double)pr->payload_bytes;
	}
	/* hosts grouped by component (counting sort on the root) */
	for (size_t i = 0; i <= nh; i++)
		start[i] = 0;
	for (size_t i = 0; i < nh; i++) {
		root[i] = uf_find(c->par, i);
		if (c->vol[root[i]] > 0)
			start[root[i] + 1]++;
	}
	for (size_t i = 0; i < nh; i++)
		start[i + 1] += start[i];
	for (size_t i = 0; i < nh; i++)
		if (c->vol[root[i]] > 0)
			c->comp[start[root[i]]++] = i; /* start[r] ends at r's end */
	long took = 0;
	/* every pair inside a component leaves the pool, job or not */
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		size_t r = root[pr->src];
		if (!c->used[k] && c->vol[r] > 0 && r == root[pr->dst])
			c->used[k] = 1, took++;
	}
	size_t from = 0;
	for (size_t r = 0; r < nh; r++) {
		if (c->vol[r] <= 0)
			continue;
		size_t *h = c->comp + from, n = start[r] - from, fresh = 0;
		from = start[r];
		for (size_t i = 0; i < n; i++)
			fresh += c->in_jobs[h[i]] == 0;
		if (c->njobs > 0 && fresh < 2)
			continue; /* control traffic of the jobs it touches */
		if (add_job(c, h, n, thr, c->vol[r]) < 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			c->in_jobs[h[i]]++;
	}
	return took;
}

int dmls_jobs_split(dmls_job_scope **out, size_t *nout, const dmls_stats *st, dmls_error *err)
{
	*out = NULL, *nout = 0;
	size_t nh = st->nhosts, np = st->npairs;
	split_ctx c = {st, calloc(np ? np : 1, 1), malloc((nh ? nh : 1) * sizeof(size_t)),
		       calloc(nh ? nh : 1, sizeof(size_t)), malloc((2 * nh + 1) * sizeof(size_t)),
		       malloc((nh ? nh : 1) * sizeof(double)), NULL, 0, 0};
	size_t *mark = malloc((nh + 1) * sizeof(size_t));
	int rc = 0;
	if (!c.used || !c.par || !c.in_jobs || !c.comp || !c.vol || !mark) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	for (int round = 0; round < MAX_ROUNDS; round++) {
		double m = 0;
		for (size_t k = 0; k < np; k++) {
			const dmls_pair *pr = &st->pairs[k];
			if (!c.used[k] && pr->src != pr->dst && (double)pr->payload_bytes > m)
				m = (double)pr->payload_bytes;
		}
		if (m < DMLS_MIN_DATA_BYTES)
			break;
		long took = round_once(&c, DMLS_EDGE_FRACTION * m, mark);
		if (took < 0) {
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
			goto out;
		}
	}
	rc = dmls_jobs_split_shared(&c.jobs, &c.njobs, st, err);
	c.cap = c.njobs;
	if (rc)
		goto out;
	if (c.njobs > 1)
		qsort(c.jobs, c.njobs, sizeof(*c.jobs), cmp_volume);
	*out = c.jobs, *nout = c.njobs;
	c.jobs = NULL, c.njobs = 0;
out:
	dmls_jobs_free(c.jobs, c.njobs);
	free(c.used);
	free(c.par);
	free(c.in_jobs);
	free(c.comp);
	free(c.vol);
	free(mark);
	return rc;
}
