/*
 * jobs_listen.c - jobs on shared hosts told apart by their rendezvous.
 *
 * Two jobs of one period on overlapping hosts (one model launched twice,
 * its ranks placed on hosts the other uses too) keep one clock: the cuts
 * of jobs_overlap.c and jobs_shared.c, which tell jobs by their periods,
 * read them as one job or as fragments.  The testbed's DDP rings of 4 on
 * hosts 1-4 and 3-6, 0.40 s a step each, read as one hierarchical job of
 * 6; rings of 6 on hosts 1-6 and 4-9 as a ring of 6, a tree of 5 and a
 * butterfly of 3; rings of 4 on hosts 1-4 and 2-5 as a ring and a
 * "butterfly of 3" whose S was 5.9 times the truth.
 *
 * Their control plane tells them apart.  Every rank of a job keeps a
 * connection to its job's rendezvous: torch.distributed's TCPStore at
 * MASTER_ADDR:MASTER_PORT, a launcher's daemons, a per-process listener
 * that every peer connects to.  Such a listening endpoint (host, port),
 * connected to from several hosts over connections that carry control
 * traffic only, names hosts of one job: itself and its clients.
 * Listeners that carry data (MPI's and NCCL's per-rank listeners, which a
 * rank's neighbours connect to as they need them) name a neighbourhood of
 * the collective's graph, not a job: they are not used.
 *
 * A job of the volume cut (jobs.c) is split into the listeners' sets
 * when all of these hold:
 *   - no set holds every host of the job (one job's own rendezvous would);
 *   - two sets or more, of LISTEN_MIN_HOSTS hosts each and none inside
 *     another, hold every host of the job between them;
 *   - every data pair of the job lies within a set, and each set's data
 *     pairs join all its hosts (one collective's graph each).
 * Background services that several hosts use (a file server, a metrics
 * collector) name sets too, but seldom ones that cover the job's data
 * pairs without one of them holding the job; and a job's own rendezvous,
 * when seen, holds it all and keeps it whole.
 *
 * Each set is then a job (DMLS_BY_LISTENERS) that shares hosts with
 * another; the pairs between shared hosts are told each way by their
 * connections' steps (jobs_overlap.c, dmls_job_view_make).
 *
 * The other way round, one listener whose clients are all the job's other
 * hosts, and no other listener's set (a second job inside its hosts would
 * have one), is one job's rendezvous: where the cuts by period split such a
 * job (one group's clock drifting from the other's on a lossy path: a
 * hierarchical job of 8 at 1 % loss read as a "pairwise" job of 5 and a
 * ring of 4 with S 67 % high; an asynchronous gossip rank's own file as
 * two jobs), it is made whole again.
 *
 * The listeners are read after the cuts by period, and their parts stand
 * where they are the listeners' sets already (with what the cuts told of
 * them: their edges' periods, say).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/endpoints.h"
#include "analysis/jobs_int.h"

#define LISTEN_MIN_HOSTS 3   /* a listener and two clients: two ranks are a pair */
#define LISTEN_MAX_SETS 16   /* listeners' sets compared per job */
#define LISTEN_MAX_HOSTS 1024 /* jobs larger are left as they are */

typedef struct listen_ctx {
	const dmls_stats *st;
	const dmls_job_scope *job;
	size_t n;
	size_t *local;          /* per st host: its index in the job, or n */
	unsigned char *sets;    /* nsets x n membership (room for LISTEN_MAX_SETS + 1) */
	size_t nsets;
} listen_ctx;

/* Is set a inside set b (every host of a in b)? */
static int inside(const listen_ctx *c, const unsigned char *a, const unsigned char *b)
{
	for (size_t i = 0; i < c->n; i++)
		if (a[i] && !b[i])
			return 0;
	return 1;
}

/* Add the set of e[0..m) (one listening endpoint's flows) unless it moves
 * data, has too few hosts, or lies inside a set already listed; sets
 * inside it leave the list.  Returns 1 when the set holds the whole job. */
static int add_set(listen_ctx *c, const dmls_endpoint *e, size_t m)
{
	unsigned char *s = c->sets + c->nsets * c->n;
	size_t hosts = 1;
	memset(s, 0, c->n);
	s[c->local[e[0].host]] = 1;
	for (size_t i = 0; i < m; i++) {
		size_t peer = c->local[e[i].rhost];
		if ((double)c->st->flows[e[i].flow].payload_bytes >= c->job->thr)
			return 0; /* a data listener: a neighbourhood */
		hosts += !s[peer];
		s[peer] = 1;
	}
	if (hosts < LISTEN_MIN_HOSTS)
		return 0;
	if (hosts == c->n)
		return 1;
	for (size_t k = 0; k < c->nsets; k++)
		if (inside(c, s, c->sets + k * c->n))
			return 0;
	size_t kept = 0;
	for (size_t k = 0; k < c->nsets; k++) {
		unsigned char *o = c->sets + k * c->n;
		if (inside(c, o, s))
			continue;
		if (kept != k)
			memcpy(c->sets + kept * c->n, o, c->n);
		kept++;
	}
	if (kept == LISTEN_MAX_SETS)
		return 0; /* no room: the sets then seldom cover the job */
	if (kept != c->nsets)
		memmove(c->sets + kept * c->n, s, c->n);
	c->nsets = kept + 1;
	return 0;
}

/* The listeners' sets of the job into c->sets, but for sets of all its
 * hosts: 1 when there is one, 0, or -1 when out of memory. */
static int listener_sets(listen_ctx *c)
{
	dmls_endpoint *e;
	size_t ne;
	if (dmls_endpoints_list(c->st, c->local, c->n, &e, &ne))
		return -1;
	int whole = 0;
	for (size_t i = 0; i < ne;) {
		size_t j = i + 1;
		while (j < ne && e[j].host == e[i].host && e[j].port == e[i].port)
			j++;
		if (e[j - 1].rhost != e[i].rhost) /* two peer hosts at least: a listener */
			whole |= add_set(c, e + i, j - i);
		i = j;
	}
	free(e);
	return whole;
}

static size_t uf_root(size_t *par, size_t x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

/* Is every host of the job in a set, and every data pair within one? */
static int sets_cover(const listen_ctx *c)
{
	const dmls_stats *st = c->st;
	for (size_t i = 0; i < c->n; i++) {
		int in = 0;
		for (size_t k = 0; k < c->nsets && !in; k++)
			in = c->sets[k * c->n + i];
		if (!in)
			return 0;
	}
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		size_t u = c->local[pr->src], v = c->local[pr->dst];
		if (u >= c->n || v >= c->n || u == v || (double)pr->payload_bytes < c->job->thr)
			continue;
		int within = 0;
		for (size_t k = 0; k < c->nsets && !within; k++)
			within = c->sets[k * c->n + u] && c->sets[k * c->n + v];
		if (!within)
			return 0;
	}
	return 1;
}

/* Do set k's data pairs join all its hosts?  par: n scratch. */
static int set_joined(const listen_ctx *c, size_t k, size_t *par)
{
	const dmls_stats *st = c->st;
	const unsigned char *s = c->sets + k * c->n;
	for (size_t i = 0; i < c->n; i++)
		par[i] = i;
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		size_t u = c->local[pr->src], v = c->local[pr->dst];
		if (u < c->n && v < c->n && u != v && s[u] && s[v] &&
		    (double)pr->payload_bytes >= c->job->thr)
			par[uf_root(par, u)] = uf_root(par, v);
	}
	size_t root = c->n;
	for (size_t i = 0; i < c->n; i++) {
		if (!s[i])
			continue;
		if (root == c->n)
			root = uf_root(par, i);
		if (uf_root(par, i) != root)
			return 0;
	}
	return 1;
}

/* The sets as jobs, out[0..nsets): 0, or -1 when out of memory. */
static int make_jobs(const listen_ctx *c, dmls_job_scope *out)
{
	const dmls_stats *st = c->st;
	for (size_t k = 0; k < c->nsets; k++) {
		const unsigned char *s = c->sets + k * c->n;
		size_t m = 0;
		for (size_t i = 0; i < c->n; i++)
			m += s[i];
		out[k] = (dmls_job_scope){.n = m, .thr = c->job->thr, .by_clock = DMLS_BY_LISTENERS};
		if (!(out[k].hosts = malloc(m * sizeof(size_t)))) {
			for (size_t i = 0; i < k; i++)
				free(out[i].hosts);
			return -1;
		}
		m = 0;
		for (size_t i = 0; i < c->n; i++)
			if (s[i])
				out[k].hosts[m++] = c->job->hosts[i];
		for (size_t p = 0; p < st->npairs; p++) { /* a shared pair's bytes split evenly */
			const dmls_pair *pr = &st->pairs[p];
			size_t u = c->local[pr->src], v = c->local[pr->dst], sets = 0;
			if (u >= c->n || v >= c->n || u == v || !s[u] || !s[v] ||
			    (double)pr->payload_bytes < c->job->thr)
				continue;
			for (size_t q = 0; q < c->nsets; q++)
				sets += c->sets[q * c->n + u] && c->sets[q * c->n + v];
			out[k].payload_bytes += (double)pr->payload_bytes / (double)sets;
		}
	}
	return 0;
}

/* job itself as its one part (*parts, *np 1): 0, or -1 out of memory. */
static int whole_job(const dmls_job_scope *job, dmls_job_scope **parts, size_t *np)
{
	*parts = malloc(sizeof(**parts));
	size_t *h = malloc((job->n ? job->n : 1) * sizeof(size_t));
	if (!*parts || !h) {
		free(*parts);
		free(h);
		*parts = NULL;
		return -1;
	}
	memcpy(h, job->hosts, job->n * sizeof(size_t));
	**parts = *job;
	(*parts)->hosts = h;
	*np = 1;
	return 0;
}

/* The jobs job is made of by its listeners: *np of them in *parts (0:
 * nothing said; 1: one rendezvous holds all its hosts, the job itself).
 * 0, or -1 when out of memory. */
static int split_one(const dmls_stats *st, const dmls_job_scope *job, size_t *local,
		     dmls_job_scope **parts, size_t *np)
{
	/* one set more: the one add_set reads in */
	listen_ctx c = {st, job, job->n, local, malloc((LISTEN_MAX_SETS + 1) * job->n), 0};
	size_t *par = malloc(job->n * sizeof(size_t));
	*parts = NULL;
	*np = 0;
	int rc = -1;
	if (!c.sets || !par)
		goto out;
	for (size_t i = 0; i < job->n; i++)
		local[job->hosts[i]] = i;
	rc = listener_sets(&c);
	if (rc == 1) { /* one job's rendezvous; with another's inside it, unsure */
		rc = c.nsets == 0 ? whole_job(job, parts, np) : 0;
		goto out;
	}
	int split = rc == 0 && c.nsets >= 2 && sets_cover(&c);
	for (size_t k = 0; split && k < c.nsets; k++)
		split = set_joined(&c, k, par);
	if (split) {
		*parts = malloc(c.nsets * sizeof(**parts));
		rc = *parts && make_jobs(&c, *parts) == 0 ? 0 : -1;
		*np = rc == 0 ? c.nsets : 0;
	}
out:
	for (size_t i = 0; i < job->n; i++)
		local[job->hosts[i]] = st->nhosts;
	free(c.sets);
	free(par);
	return rc < 0 ? -1 : 0;
}

static void free_parts(dmls_job_scope *parts, size_t np)
{
	for (size_t i = 0; i < np; i++)
		free(parts[i].hosts);
	free(parts);
}

/* Are all hosts of a in b?  mark: nh zeros, left so. */
static int job_inside(const dmls_job_scope *a, const dmls_job_scope *b, unsigned char *mark,
		      size_t nh)
{
	int in = 1;
	for (size_t i = 0; i < b->n; i++)
		mark[b->hosts[i] < nh ? b->hosts[i] : 0] = 1;
	for (size_t i = 0; i < a->n && in; i++)
		in = mark[a->hosts[i] < nh ? a->hosts[i] : 0];
	for (size_t i = 0; i < b->n; i++)
		mark[b->hosts[i] < nh ? b->hosts[i] : 0] = 0;
	return in;
}

static int same_hosts(const dmls_job_scope *a, const dmls_job_scope *b, unsigned char *mark,
		      size_t nh)
{
	return a->n == b->n && job_inside(a, b, mark, nh);
}

/* The jobs inside whole out of *jobs, the parts in (owned by *jobs then).
 * 0, or -1 when out of memory (the parts freed). */
static int replace_parts(dmls_job_scope **jobs, size_t *njobs, const dmls_job_scope *whole,
			 dmls_job_scope *parts, size_t np, unsigned char *mark, size_t nh)
{
	size_t kept = 0;
	for (size_t j = 0; j < *njobs; j++) {
		if (job_inside(&(*jobs)[j], whole, mark, nh)) {
			free((*jobs)[j].hosts);
			continue;
		}
		(*jobs)[kept++] = (*jobs)[j];
	}
	*njobs = kept;
	dmls_job_scope *grown = realloc(*jobs, (kept + np) * sizeof(**jobs));
	if (!grown) {
		free_parts(parts, np);
		return -1;
	}
	*jobs = grown;
	memcpy(grown + kept, parts, np * sizeof(*parts));
	*njobs = kept + np;
	free(parts);
	return 0;
}

/* Are the jobs of jobs[0..n) inside whole (hosts all its) exactly the
 * parts, host for host? */
static int same_parts(const dmls_job_scope *jobs, size_t n, const dmls_job_scope *whole,
		      const dmls_job_scope *parts, size_t np, unsigned char *mark, size_t nh)
{
	size_t found = 0;
	for (size_t j = 0; j < n; j++) {
		if (!job_inside(&jobs[j], whole, mark, nh))
			continue;
		int same = 0;
		for (size_t k = 0; k < np && !same; k++)
			same = same_hosts(&jobs[j], &parts[k], mark, nh);
		if (!same)
			return 0;
		found++;
	}
	return found == np;
}

int dmls_jobs_mend_listeners(dmls_job_scope **jobs, size_t *njobs, const dmls_job_scope *before,
			     size_t nbefore, const dmls_stats *st, dmls_error *err)
{
	size_t nh = st->nhosts ? st->nhosts : 1;
	size_t *local = malloc(nh * sizeof(size_t));
	unsigned char *mark = calloc(nh, 1);
	int rc = local && mark ? 0 : -1;
	for (size_t i = 0; i < st->nhosts && rc == 0; i++)
		local[i] = st->nhosts;
	for (size_t b = 0; b < nbefore && rc == 0; b++) {
		const dmls_job_scope *whole = &before[b];
		dmls_job_scope *parts = NULL;
		size_t np = 0;
		if (whole->n < LISTEN_MIN_HOSTS + 1 || whole->n > LISTEN_MAX_HOSTS)
			continue;
		rc = split_one(st, whole, local, &parts, &np);
		if (rc == 0 && np && !same_parts(*jobs, *njobs, whole, parts, np, mark, nh))
			rc = replace_parts(jobs, njobs, whole, parts, np, mark, nh);
		else
			free_parts(parts, np);
	}
	free(local);
	free(mark);
	return rc ? dmls_fail(err, DMLS_ENOMEM, "out of memory") : 0;
}
