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
 * its own.  Unless its pairs bridge jobs (bridge): two jobs, half the
 * hosts of each (and two at least, not one server) with a pair of the
 * round to a host of the other, are one job whose steps move bytes at
 * scales further apart than DMLS_EDGE_FRACTION: a butterfly's recursive
 * halving moves S/2 to the first partner and S/N to the last (32 ranks
 * and more: N/16 jobs of 16 without this; 48: the 16 extra ranks and
 * their partners apart), a pipeline's stages (each a data-parallel group)
 * pass activations.  A host may be in two jobs (a later job's pair to it), which
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
#include "analysis/period.h"
#include "dmlscope/analysis.h"

#define MAX_ROUNDS 64 /* each round takes the largest pair left: ample */
#define BRIDGE_MIN_HOSTS 2 /* a job's hosts with pairs to another job: not one server */

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
	double *pay;           /* per pair: its payload in the analysis' window
				* (of runs back to back, the busiest: stretch.c) */
	unsigned char *used;   /* per pair: in a job */
	size_t *par;           /* union-find per host */
	size_t *in_jobs;       /* per host: jobs it is in */
	size_t *job_of;        /* per host: the (last) job it is in */
	unsigned char *cross;  /* scratch per host: a pair to another job */
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
	c->jobs[c->njobs++] = (dmls_job_scope){n, h, thr, vol, 0, 0, 0, 0, 0, 0};
	return 0;
}

/* A copy of jobs[0..n) (hosts too), or NULL (memory, or n == 0). */
static dmls_job_scope *copy_jobs(const dmls_job_scope *jobs, size_t n)
{
	dmls_job_scope *c = n ? malloc(n * sizeof(*c)) : NULL;
	for (size_t j = 0; c && j < n; j++) {
		c[j] = jobs[j];
		if (!(c[j].hosts = malloc((jobs[j].n ? jobs[j].n : 1) * sizeof(size_t)))) {
			dmls_jobs_free(c, j);
			return NULL;
		}
		memcpy(c[j].hosts, jobs[j].hosts, jobs[j].n * sizeof(size_t));
	}
	return c;
}

/* Is pair k of the round (unused, at least thr) between two jobs? */
static int cross_pair(const split_ctx *c, size_t k, double thr)
{
	const dmls_pair *pr = &c->st->pairs[k];
	return !c->used[k] && pr->src != pr->dst && c->pay[k] >= thr &&
	       c->in_jobs[pr->src] == 1 && c->in_jobs[pr->dst] == 1 &&
	       c->job_of[pr->src] != c->job_of[pr->dst];
}

/* Merge the jobs the round's pairs at cut thr bridge (see the top):
 * each joins the first of its group, the others are left empty (dropped
 * at the end).  0, or -1 (memory). */
static int bridge(split_ctx *c, double thr)
{
	const dmls_stats *st = c->st;
	size_t nj = c->njobs;
	if (nj < 2)
		return 0;
	size_t *jpar = malloc(nj * sizeof(size_t));
	unsigned char *bridged = malloc(nj);
	if (!jpar || !bridged) {
		free(jpar), free(bridged);
		return -1;
	}
	for (size_t i = 0; i < st->nhosts; i++)
		c->cross[i] = 0;
	for (size_t k = 0; k < st->npairs; k++)
		if (cross_pair(c, k, thr))
			c->cross[st->pairs[k].src] = c->cross[st->pairs[k].dst] = 1;
	for (size_t j = 0; j < nj; j++) {
		size_t seen = 0;
		for (size_t i = 0; i < c->jobs[j].n; i++)
			seen += c->cross[c->jobs[j].hosts[i]];
		jpar[j] = j;
		bridged[j] = seen >= BRIDGE_MIN_HOSTS && 2 * seen >= c->jobs[j].n;
	}
	for (size_t k = 0; k < st->npairs; k++) {
		if (!cross_pair(c, k, thr))
			continue;
		size_t a = c->job_of[st->pairs[k].src], b = c->job_of[st->pairs[k].dst];
		if (bridged[a] && bridged[b]) {
			a = uf_find(jpar, a), b = uf_find(jpar, b);
			jpar[a > b ? a : b] = a < b ? a : b; /* the first job of a group is its root */
			c->jobs[a < b ? a : b].payload_bytes += c->pay[k];
		}
	}
	int rc = 0;
	for (size_t j = 0; j < nj && rc == 0; j++) {
		size_t r = uf_find(jpar, j);
		if (r == j)
			continue;
		dmls_job_scope *to = &c->jobs[r], *from = &c->jobs[j];
		size_t *h = realloc(to->hosts, (to->n + from->n) * sizeof(size_t));
		if (!h) {
			rc = -1;
			break;
		}
		to->hosts = h;
		memcpy(to->hosts + to->n, from->hosts, from->n * sizeof(size_t));
		to->n += from->n;
		to->thr = thr < to->thr ? thr : to->thr;
		to->payload_bytes += from->payload_bytes;
		for (size_t i = 0; i < from->n; i++)
			c->job_of[from->hosts[i]] = r;
		free(from->hosts);
		from->hosts = NULL, from->n = 0;
	}
	free(jpar), free(bridged);
	return rc;
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
		if (!c->used[k] && pr->src != pr->dst && c->pay[k] >= thr)
			c->par[uf_find(c->par, pr->src)] = uf_find(c->par, pr->dst);
	}
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (!c->used[k] && pr->src != pr->dst && c->pay[k] >= thr)
			c->vol[uf_find(c->par, pr->src)] += c->pay[k];
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
	if (bridge(c, thr))
		return -1;
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
			c->in_jobs[h[i]]++, c->job_of[h[i]] = c->njobs - 1;
	}
	return took;
}

/* Is m, the largest payload of a pair not in a job yet, data?  Normally
 * when it is DMLS_MIN_DATA_BYTES or more.  A small model on many ranks
 * over few steps moves less on every pair (a clique of 48 with a 200 KB
 * gradient, 20 steps: 166 KB a pair; a butterfly of 48's S/32 edges,
 * 125 kB), and was "only control traffic" (or 32 ranks of 48 a job).
 * Such a job shows as many pairs alike: where DMLS_SMALL_JOB_PAIRS pairs
 * or more not in a job move DMLS_SMALL_JOB_FLOOR and a quarter of m each,
 * over DMLS_SMALL_JOB_PACKETS packets or more (steps of segments, not a
 * few packets that claim 64 kB each: the tcpdump test suite's fuzzed
 * captures), m of DMLS_SMALL_JOB_FLOOR or more is data (the suite's 831
 * captures hold no such set; a job's control plane, a star of small
 * exchanges with its rendezvous, seldom 16 kB on a pair). */
static int is_data(const split_ctx *c, double m)
{
	const dmls_stats *st = c->st;
	if (m >= DMLS_MIN_DATA_BYTES)
		return 1;
	if (m < DMLS_SMALL_JOB_FLOOR)
		return 0;
	size_t alike = 0;
	for (size_t k = 0; k < st->npairs && alike < DMLS_SMALL_JOB_PAIRS; k++)
		alike += !c->used[k] && st->pairs[k].src != st->pairs[k].dst &&
			 c->pay[k] >= DMLS_SMALL_JOB_FLOOR && c->pay[k] >= 0.25 * m &&
			 st->pairs[k].packets >= DMLS_SMALL_JOB_PACKETS;
	return alike >= DMLS_SMALL_JOB_PAIRS;
}

int dmls_jobs_split(dmls_job_scope **out, size_t *nout, const dmls_stats *st, dmls_error *err)
{
	*out = NULL, *nout = 0;
	size_t nh = st->nhosts, np = st->npairs;
	split_ctx c = {.st = st,
		       .used = calloc(np ? np : 1, 1),
		       .par = malloc((nh ? nh : 1) * sizeof(size_t)),
		       .in_jobs = calloc(nh ? nh : 1, sizeof(size_t)),
		       .job_of = malloc((nh ? nh : 1) * sizeof(size_t)),
		       .cross = malloc(nh ? nh : 1),
		       .comp = malloc((2 * nh + 1) * sizeof(size_t)),
		       .vol = malloc((nh ? nh : 1) * sizeof(double)),
		       .pay = malloc((np ? np : 1) * sizeof(double))};
	size_t *mark = malloc((nh + 1) * sizeof(size_t));
	int rc = 0;
	if (!c.used || !c.par || !c.in_jobs || !c.job_of || !c.cross || !c.comp || !c.vol ||
	    !c.pay || !mark) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < np; k++)
		c.pay[k] = dmls_pair_payload_in_run(st, &st->pairs[k]);
	for (int round = 0; round < MAX_ROUNDS; round++) {
		double m = 0;
		for (size_t k = 0; k < np; k++) {
			const dmls_pair *pr = &st->pairs[k];
			if (!c.used[k] && pr->src != pr->dst && c.pay[k] > m)
				m = c.pay[k];
		}
		if (!is_data(&c, m))
			break;
		long took = round_once(&c, DMLS_EDGE_FRACTION * m, mark);
		if (took < 0) {
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
			goto out;
		}
	}
	size_t kept = 0; /* drop the jobs bridge() emptied */
	for (size_t j = 0; j < c.njobs; j++)
		if (c.jobs[j].n)
			c.jobs[kept++] = c.jobs[j];
	c.njobs = kept;
	dmls_job_scope *before = copy_jobs(c.jobs, c.njobs);
	rc = before || c.njobs == 0 ? 0 : dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (rc == 0)
		rc = dmls_jobs_split_overlap(&c.jobs, &c.njobs, st, err);
	if (rc == 0)
		rc = dmls_jobs_split_shared(&c.jobs, &c.njobs, st, err);
	if (rc == 0)
		rc = dmls_jobs_mend_listeners(&c.jobs, &c.njobs, before, kept, st, err);
	dmls_jobs_free(before, before ? kept : 0);
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
	free(c.job_of);
	free(c.cross);
	free(c.pay);
	free(mark);
	return rc;
}
