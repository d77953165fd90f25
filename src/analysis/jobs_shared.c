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
 * hold two hosts or more each get a clock: the iterations (iterations.c)
 * of their hosts' sending, h left out (h's sending mixes both jobs).  Two
 * parts are one job when their periods agree within DMLS_SHARED_PERIOD and
 * their steps lock (dmls_clock_compare, mode.c: one end of the other part
 * in at least DMLS_SHARED_LOCK of the first part's steps, or
 * DMLS_SHARED_LOSSY_LOCK where the offsets stay within DMLS_SHARED_PHASE;
 * offsets steady within DMLS_SHARED_PHASE of the period, or within
 * DMLS_SHARED_PHASE_LOADED when they do not wander: dmls_clock_compare's
 * wander at least DMLS_SHARED_WANDER).  On busy hosts one job's parts are 0.12-0.18
 * of a period apart from step to step (the testbed's 8-rank tree and
 * hierarchical runs on 2 cores), as noise about one offset; two jobs'
 * offsets drift or random-walk through each other.  A clock that counts
 * two bursts a step of the other's (a tree's leaf edge: the reduce up,
 * the broadcast down) keeps its step when either half of its ends does.  Otherwise each part
 * with h is a job of its own; h is in both.  The first h that splits so
 * wins.
 *
 * A 2-rank job beside a larger one is one edge, its other rank a lone
 * spoke of h.  When no h splits between big parts, lone spokes get the
 * clock of their edge to h, and one that is steady and apart from every
 * big part (lone_apart) is a job with h; of the hosts where that happens,
 * the cleanest split wins (try_split's score).  Around a hub with nothing
 * but spokes (a server, or one host's own capture), spokes whose steps
 * drift apart (hub_same_job) and that share no data port (join_by_port:
 * a server's listening socket) are jobs of their own (keep_jobs).  A job
 * split off is tried
 * again (a chain of three jobs), DMLS_SHARED_MAX_SPLITS splits in all, and
 * at most DMLS_SHARED_MAX_TRIES cut vertices per job (each costs a clock
 * per part: a search over the capture; a 64-rank tree has 31 inner nodes).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/jobs_int.h"
#include "analysis/period.h"
#include "dmlscope/analysis.h"

#define DMLS_SHARED_MAX_HOSTS 64
#define DMLS_SHARED_MAX_TRIES 8 /* cut vertices whose parts get clocks, per job */
#define DMLS_SHARED_MIN_STEPS 4
#define DMLS_SHARED_LOCK 0.9
#define DMLS_SHARED_PHASE 0.10
#define DMLS_SHARED_PHASE_LOADED 0.30   /* steady offsets this spread: one job, busy hosts */
/* A lock this low with offsets within DMLS_SHARED_PHASE: one job whose
 * retransmission stalls cut some steps in two or run two together (mode.c
 * does the same): a tree of 6 at 1 % loss, its subtrees at one period
 * locked 0.895 with offsets within 0.084, was two jobs. */
#define DMLS_SHARED_LOSSY_LOCK 0.75
#define DMLS_SHARED_WANDER 0.7          /* the offsets' wander from which they are steady */
#define DMLS_SHARED_MAX_SPLITS 16       /* splits over all jobs */
#define DMLS_SHARED_LONE_MAX 8          /* lone spokes given a clock, per cut vertex */
#define DMLS_SHARED_LONE_REGULARITY 0.5 /* a lone spoke's clock that may split */
#define DMLS_SHARED_HUB_CV 0.25         /* the same around a hub of spokes only */
#define DMLS_SHARED_HUB_PHASE 0.15      /* spokes of a hub whose steps drift apart */
#define DMLS_SHARED_LONE_PERIOD 0.01    /* a lone spoke of its big part's very period */
/* Twice a clock's period against another's: a guide only, wider than
 * DMLS_SHARED_PERIOD, which each half's own period must meet.  A tree's leaf
 * edge counts the reduce up and the broadcast down, not half a step apart:
 * 48 ends over 24 steps of 1.132 s gave 2 x 0.601 s, 6.2 % off. */
#define HALF_GUIDE DMLS_SHARED_HALF /* jobs_int.h */

typedef struct part_clock {
	size_t count;
	double period_s;
	double regularity;
	double duration_cv;
	double *ends;
} part_clock;

/* The clock of hosts[0..n): their sending's iterations, or (np > 0) the
 * iterations of the pairs st->pairs[pairs[0..np)] alone. */
static int clock_of(part_clock *c, const dmls_stats *st, const size_t *hosts, size_t n,
		    const size_t *pairs, size_t np, dmls_error *err)
{
	dmls_iterations it;
	memset(c, 0, sizeof(*c));
	c->period_s = c->regularity = c->duration_cv = NAN;
	int rc = dmls_iterations_find_pairs(&it, st, hosts, n, hosts, n, pairs, np, err);
	if (rc)
		return rc;
	c->count = it.count;
	c->period_s = it.period_s;
	c->regularity = it.regularity;
	c->duration_cv = it.duration_cv;
	c->ends = it.comm_end_s; /* taken over */
	it.comm_end_s = NULL;
	dmls_iterations_release(&it);
	return 0;
}

/* dmls_steps_lock; *near (may be NULL) set when the clocks fail only for
 * their offsets' wander: periods agree, ends lock, offsets within
 * DMLS_SHARED_PHASE_LOADED (one job on busy hosts, or two of one period). */
static int steps_lock(const double *e, size_t n, double Pe, const double *f, size_t nf, double Pf,
		      int *near)
{
	double P = fmin(Pe, Pf);
	if (fabs(Pe - Pf) > DMLS_SHARED_PERIOD * P)
		return 0;
	double spread, lock, wander;
	dmls_clock_compare(e, n, f, nf, P, &spread, &lock, &wander);
	if (!(spread <= DMLS_SHARED_PHASE_LOADED) ||
	    !(lock >= DMLS_SHARED_LOCK ||
	      (lock >= DMLS_SHARED_LOSSY_LOCK && spread <= DMLS_SHARED_PHASE)))
		return 0;
	if (spread <= DMLS_SHARED_PHASE || wander >= DMLS_SHARED_WANDER)
		return 1;
	if (near)
		*near = 1;
	return 0;
}

int dmls_steps_lock(const double *e, size_t n, double Pe, const double *f, size_t nf, double Pf)
{
	return steps_lock(e, n, Pe, f, nf, Pf, NULL);
}

/* 1 when the two clocks keep one step: their periods agree and their
 * ends lock (dmls_steps_lock), or one clock counts two bursts a step of the
 * other's and every other one of its ends locks.  A tree's leaf edge
 * carries the reduce up and the broadcast down, two bursts a step: its
 * clock counts 48 for its parent's 24 (the testbed's 8-rank tree), and
 * either phase of its ends, the reduces or the broadcasts, locks to the
 * rest of the tree; two jobs, one with half the other's period, drift. */
static int same_step(const part_clock *a, const part_clock *b, int *near)
{
	if (a->count < DMLS_SHARED_MIN_STEPS || b->count < DMLS_SHARED_MIN_STEPS ||
	    !isfinite(a->period_s) || !isfinite(b->period_s))
		return 1; /* no evidence to split on */
	if (steps_lock(a->ends, a->count, a->period_s, b->ends, b->count, b->period_s, near))
		return 1;
	const part_clock *f = a->period_s < b->period_s ? a : b, *s = f == a ? b : a;
	if (fabs(2 * f->period_s - s->period_s) > HALF_GUIDE * s->period_s ||
	    f->count / 2 < DMLS_SHARED_MIN_STEPS)
		return 0; /* (a loose guide: each phase's own period must agree) */
	double *half = malloc((f->count / 2 + 1) * sizeof(double));
	if (!half)
		return 1; /* no evidence (out of memory) */
	int same = 0;
	for (size_t phase = 0; phase < 2 && !same; phase++) {
		size_t n = 0;
		for (size_t k = phase; k < f->count; k += 2)
			half[n++] = f->ends[k];
		/* its period as a clock's (iterations.period_s): from the second end */
		double p = (half[n - 1] - half[1]) / (double)(n - 2);
		same = fabs(p - s->period_s) <= DMLS_SHARED_PERIOD * s->period_s &&
		       steps_lock(half, n, p, s->ends, s->count, s->period_s, near);
	}
	free(half);
	return same;
}

/* 1 when a lone spoke's clock is steady enough to be a job's step.  Beside
 * big parts: regular (DMLS_SHARED_LONE_REGULARITY).  Around a hub of
 * spokes only (hub): steps of steady length (DMLS_SHARED_HUB_CV); one
 * host's capture of its own sending shows each spoke one way, where the
 * regularity's byte term is not defined. */
static int spoke_steady(const part_clock *spoke, int hub)
{
	if (spoke->count < DMLS_SHARED_MIN_STEPS || !isfinite(spoke->period_s))
		return 0;
	return hub ? spoke->duration_cv <= DMLS_SHARED_HUB_CV
		   : spoke->regularity >= DMLS_SHARED_LONE_REGULARITY;
}

/* Around a hub of spokes only: 1 when two spokes keep one job's steps.
 * Their clocks may not agree (one spoke's bytes can tile its steps in
 * other units: 73 "iterations" on a butterfly rank's heavier edge for 100
 * steps), but their ends keep steady offsets from each other's (robust
 * spread, dmls_clock_compare, at most 0.04 of the period on the testbed's
 * butterflies and trees); two jobs' drift (0.25-0.51 measured, 0.37 for
 * offsets spread evenly).  Offsets spread wider but as noise about one
 * offset (steps_lock: one period, lock 0.9, spread at most 0.30, wander
 * 0.7 or more) are one job too: a clique rank's own capture, one spoke
 * 0.16-0.23 from the others with lock 0.95-1 (its sends to five peers at
 * once, one of them late by a varying amount), had been a job of its own.
 * So is a spoke whose clock counts two bursts a step of the other's with
 * every other end locked (same_step): a rank of Rabenseifner's all-reduce
 * on 4 sends S/2 to one partner first and last in a step, S/4 twice to
 * the other in between, and its file read as two jobs, one of 72 steps for
 * 36.  Without evidence (too few steps): 1. */
static int hub_same_job(const part_clock *a, const part_clock *b)
{
	if (a->count < DMLS_SHARED_MIN_STEPS || b->count < DMLS_SHARED_MIN_STEPS ||
	    !isfinite(a->period_s) || !isfinite(b->period_s))
		return 1;
	double s1, s2, lock;
	dmls_clock_compare(a->ends, a->count, b->ends, b->count, a->period_s, &s1, &lock, NULL);
	dmls_clock_compare(b->ends, b->count, a->ends, a->count, b->period_s, &s2, &lock, NULL);
	return !(fmin(s1, s2) > DMLS_SHARED_HUB_PHASE) || same_step(a, b, NULL);
}

/* 1 when a lone spoke's clock (its edge to the cut vertex) is a job's
 * step of its own beside part b: steady (DMLS_SHARED_LONE_REGULARITY) and
 * either not b's step or b has no step at all (an asynchronous job).  A
 * spoke of b's very period (within DMLS_SHARED_LONE_PERIOD) whose ends
 * lock to b's, offsets within DMLS_SHARED_PHASE_LOADED, keeps b's step
 * however its offsets wander: a 2-rank job beside b would need b's step
 * to 1 %.  The extra rank of a butterfly of 10 or 12 (MPICH's: it hands
 * its vector to a core rank and gets the result back; 10-12 processes on
 * 2 cores) locked 1.0 at 0.2-0.5 % apart, spread 0.13-0.22, wander
 * 0.61-0.67, and was split off as a job of its own.  Lone spokes of two
 * jobs on the testbed's overlapping runs were 4-8 % apart. */
static int lone_apart(const part_clock *spoke, const part_clock *b)
{
	if (!spoke_steady(spoke, 0))
		return 0;
	if (b->count < DMLS_SHARED_MIN_STEPS || !isfinite(b->period_s))
		return 1;
	if (fabs(spoke->period_s - b->period_s) <= DMLS_SHARED_LONE_PERIOD * b->period_s) {
		double spread, lock;
		dmls_clock_compare(spoke->ends, spoke->count, b->ends, b->count, b->period_s, &spread,
				   &lock, NULL);
		if (lock >= DMLS_SHARED_LOCK && spread <= DMLS_SHARED_PHASE_LOADED)
			return 0;
	}
	return !same_step(spoke, b, NULL);
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

/* The two pair indexes between st hosts a and b (-1 where absent) and
 * their payload. */
static double edge(const dmls_stats *st, size_t a, size_t b, size_t *pairs, size_t *np)
{
	long k[2] = {dmls_stats_find_pair(st, (uint32_t)a, (uint32_t)b),
		     dmls_stats_find_pair(st, (uint32_t)b, (uint32_t)a)};
	double bytes = 0;
	*np = 0;
	for (int i = 0; i < 2; i++)
		if (k[i] >= 0) {
			pairs[(*np)++] = (size_t)k[i];
			bytes += (double)st->pairs[k[i]].payload_bytes;
		}
	return bytes;
}

/* The lone spokes (parts of one host) that get a clock: the
 * DMLS_SHARED_LONE_MAX heaviest by their edge to h (vol[p], -1 for the
 * others and for every one when !lone).  Returns how many. */
static size_t pick_lone(const graph_ctx *g, size_t h, int lone, const size_t *size, size_t np,
			double *vol)
{
	size_t pairs[2], npairs, nlone = 0;
	for (size_t i = 0; i < g->n; i++)
		if (i != h && size[g->part[i]] == 1)
			vol[g->part[i]] = edge(g->st, g->job->hosts[i], g->job->hosts[h], pairs, &npairs);
	for (size_t p = 0; p < np; p++) {
		if (size[p] != 1)
			continue;
		size_t heavier = 0;
		for (size_t q = 0; q < np; q++)
			heavier += size[q] == 1 && (vol[q] > vol[p] || (vol[q] == vol[p] && q < p));
		if (lone && heavier < DMLS_SHARED_LONE_MAX)
			nlone++;
		else
			vol[p] = -1; /* no clock */
	}
	return nlone;
}

/* Each big part's clock (its hosts' sending) and each picked lone spoke's
 * (its edge to h); hosts: room for g->n.  0 or an error status. */
static int clock_parts(const graph_ctx *g, size_t h, const size_t *size, const double *vol,
		       size_t np, part_clock *clk, size_t *hosts, dmls_error *err)
{
	int rc = 0;
	for (size_t p = 0; p < np && rc == 0; p++) {
		if (size[p] == 1) {
			if (vol[p] < 0)
				continue;
			size_t i = 0, pairs[2], npairs;
			while (g->part[i] != p || i == h)
				i++;
			edge(g->st, g->job->hosts[i], g->job->hosts[h], pairs, &npairs);
			rc = clock_of(&clk[p], g->st, &g->job->hosts[i], 1, pairs, npairs, err);
			continue;
		}
		size_t k = 0;
		for (size_t i = 0; i < g->n; i++)
			if (i != h && g->part[i] == p)
				hosts[k++] = g->job->hosts[i];
		if (!g->st->flow_hidden) {
			rc = clock_of(&clk[p], g->st, hosts, k, NULL, 0, err);
			continue;
		}
		/* a view (jobs_overlap.c): its hosts' sending mixes another
		 * job's, the pairs between them are the job's own */
		size_t *pp = malloc((g->st->npairs ? g->st->npairs : 1) * sizeof(size_t)), npp = 0;
		if (!pp)
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		for (size_t q = 0; q < g->st->npairs; q++) {
			const dmls_pair *pr = &g->st->pairs[q];
			int a = 0, b = 0;
			for (size_t i = 0; i < k; i++)
				a |= hosts[i] == pr->src, b |= hosts[i] == pr->dst;
			if (a && b && pr->src != pr->dst && pr->payload_bytes > 0)
				pp[npp++] = q;
		}
		rc = npp ? clock_of(&clk[p], g->st, hosts, k, pp, npp, err) : 0;
		free(pp);
	}
	return rc;
}

/* The big parts in groups that keep one step; the first big part's group
 * (*first: that part; np when there is no big part, and then a group of
 * its own) takes the lone spokes, except those apart from every big part,
 * grouped by their own steps.  Returns the number of groups; *unsure is
 * set when a big part set apart locks to one before it but for the
 * wander of their offsets (steps_lock). */
static size_t group_parts(const size_t *size, const double *vol, const part_clock *clk,
			  size_t np, size_t *group, size_t *first, int *unsure)
{
	size_t ng = 0, rest = SIZE_MAX;
	*first = np;
	*unsure = 0;
	for (size_t p = 0; p < np; p++) {
		group[p] = SIZE_MAX;
		if (size[p] < 2)
			continue;
		*first = *first == np ? p : *first;
		int near = 0;
		for (size_t q = 0; q < p && group[p] == SIZE_MAX; q++)
			if (size[q] >= 2 && same_step(&clk[q], &clk[p], &near))
				group[p] = group[q];
		if (group[p] == SIZE_MAX) {
			group[p] = ng++;
			*unsure |= near && ng > 1;
		}
	}
	if (*first < np)
		rest = group[*first];
	for (size_t p = 0; p < np; p++) {
		if (size[p] != 1)
			continue;
		int apart = vol[p] >= 0 && spoke_steady(&clk[p], *first == np);
		for (size_t q = 0; q < np && apart; q++)
			apart = size[q] < 2 || lone_apart(&clk[p], &clk[q]);
		if (!apart) {
			if (rest == SIZE_MAX)
				rest = ng++;
			group[p] = rest;
			continue;
		}
		for (size_t q = 0; q < p && group[p] == SIZE_MAX; q++)
			if (size[q] == 1 && group[q] != rest &&
			    (*first == np ? hub_same_job(&clk[q], &clk[p])
					  : same_step(&clk[q], &clk[p], NULL)))
				group[p] = group[q];
		if (group[p] == SIZE_MAX)
			group[p] = ng++;
	}
	return ng;
}

/* A spoke's data connections to the hub h: the ports of the flows between
 * them holding a tenth of their bytes or more (SPOKE_PORTS at most), h's
 * end (mine) and the spoke's (theirs). */
#define SPOKE_PORTS 8
typedef struct spoke_ports {
	size_t n;
	uint16_t mine[SPOKE_PORTS], theirs[SPOKE_PORTS];
} spoke_ports;

static void ports_of(const dmls_stats *st, size_t h, size_t i, double edge_bytes,
		     spoke_ports *sp)
{
	sp->n = 0;
	for (size_t k = 0; k < st->nflows && sp->n < SPOKE_PORTS; k++) {
		const dmls_flow *f = &st->flows[k];
		if ((double)f->payload_bytes < 0.1 * edge_bytes || !(f->proto == 6 || f->proto == 17) ||
		    dmls_flow_hidden(st, k))
			continue;
		if (f->src == h && f->dst == i)
			sp->mine[sp->n] = f->sport, sp->theirs[sp->n++] = f->dport;
		else if (f->src == i && f->dst == h)
			sp->mine[sp->n] = f->dport, sp->theirs[sp->n++] = f->sport;
	}
}

static int share_port(const spoke_ports *a, const spoke_ports *b)
{
	for (size_t x = 0; x < a->n; x++)
		for (size_t y = 0; y < b->n; y++)
			if (a->mine[x] == b->mine[y] || a->theirs[x] == b->theirs[y])
				return 1;
	return 0;
}

static size_t find_root(const size_t *root, size_t x)
{
	while (root[x] != x)
		x = root[x];
	return x;
}

/* The sets of roots x and y joined: the least is the root of both. */
static void join_roots(size_t *root, size_t x, size_t y)
{
	root[x > y ? x : y] = x < y ? x : y;
}

/* Groups group[0..np) of ng, those of one set (root) renumbered as one, in
 * order (id: room for ng); returns how many. */
static size_t renumber_sets(const size_t *root, size_t ng, size_t *id, size_t *group, size_t np)
{
	size_t n = 0;
	for (size_t j = 0; j < ng; j++) { /* a root is the least of its set */
		size_t r = find_root(root, j);
		id[j] = r == j ? n++ : id[r];
	}
	for (size_t p = 0; p < np; p++)
		if (group[p] != SIZE_MAX)
			group[p] = id[group[p]];
	return n;
}

/* Around a hub with nothing but spokes, groups whose spokes reach the
 * same data port of h are one job: one process behind one socket (an
 * asynchronous server answers every worker on its listening port, each
 * worker at a pace of its own).  So are spokes whose data go to the same
 * port number at the far end: one program's ranks, each listening on it
 * (Open MPI's TCP transport; its recursive halving meets one partner twice
 * a step, another once).  Renumbers the groups; returns how many. */
static size_t join_by_port(const graph_ctx *g, size_t h, const size_t *size, const double *vol,
			   size_t np, size_t *group, size_t ng)
{
	const dmls_stats *st = g->st;
	size_t hh = g->job->hosts[h], *root = malloc(ng * sizeof(size_t));
	size_t *id = malloc(ng * sizeof(size_t));
	spoke_ports *sp = calloc(np, sizeof(spoke_ports));
	size_t n = 1; /* without memory, no split */
	if (!root || !id || !sp)
		goto out;
	for (size_t j = 0; j < ng; j++)
		root[j] = j;
	for (size_t i = 0; i < g->n; i++) {
		size_t p = g->part[i], pairs[2], npairs;
		if (i != h && size[p] == 1 && vol[p] >= 0)
			ports_of(st, hh, g->job->hosts[i], edge(st, g->job->hosts[i], hh, pairs, &npairs),
				 &sp[p]);
	}
	for (size_t p = 0; p < np; p++)
		for (size_t q = 0; q < p; q++)
			if (group[p] != SIZE_MAX && group[q] != SIZE_MAX && share_port(&sp[p], &sp[q]))
				join_roots(root, find_root(root, group[p]), find_root(root, group[q]));
	n = renumber_sets(root, ng, id, group, np);
out:
	free(root);
	free(id);
	free(sp);
	return n;
}


/* 1 when the step ends of the spokes of the jobs kept (keep[group], with
 * steps enough: a control spoke has none) are, merged, one steady clock:
 * a rank that sends each step to one peer of several (gossip, a random
 * peer) splits its own steps among its spokes, where two jobs' steps
 * interleave unevenly.  0 when not, or out of memory. */
static int merged_steady(const size_t *size, const double *vol, const part_clock *clk, size_t np,
			 const size_t *group, const size_t *keep)
{
	size_t n = 0;
#define MERGED(p)                                                                          \
	(size[p] == 1 && vol[p] >= 0 && group[p] != SIZE_MAX && keep[group[p]] != SIZE_MAX && \
	 clk[p].count >= DMLS_SHARED_MIN_STEPS && isfinite(clk[p].period_s))
	for (size_t p = 0; p < np; p++)
		if (MERGED(p))
			n += clk[p].count;
	double *t = malloc((n ? n : 1) * sizeof(double));
	if (!t)
		return 0;
	n = 0;
	for (size_t p = 0; p < np; p++)
		if (MERGED(p))
			for (size_t k = 0; k < clk[p].count; k++)
				t[n++] = clk[p].ends[k];
#undef MERGED
	qsort(t, n, sizeof(double), dmls_cmp_double);
	for (size_t k = 0; k + 1 < n; k++)
		t[k] = t[k + 1] - t[k];
	double cv = n > DMLS_SHARED_MIN_STEPS ? dmls_robust_cv(t, n - 1) : NAN;
	free(t);
	return cv <= DMLS_SHARED_HUB_CV;
}

/* Around a hub with nothing but spokes: the groups holding a steady spoke
 * are jobs.  Another spoke moving less than a tenth of the bytes of the
 * smallest of them is control (a launcher, a store: no job); a larger one
 * joins the steady spoke whose steps it keeps (hub_same_job), or else the
 * group of the others, a job of its own (a gossiping rank's peers).  One
 * without evidence either way (too few steps, or no clock) keeps the hub
 * whole, and so do spokes whose steps, merged, are one steady clock
 * (merged_steady).  Renumbers the groups, SIZE_MAX for no job; returns how
 * many jobs (1: no split). */
static size_t keep_jobs(const size_t *size, const double *vol, const part_clock *clk,
			size_t np, size_t *group, size_t ng)
{
	double *gv = calloc(ng, sizeof(double));
	unsigned char *steady = calloc(ng, 1);
	size_t n = 1, *id = malloc(ng * sizeof(size_t));
	if (!gv || !steady || !id)
		goto out;
	for (size_t p = 0; p < np; p++)
		if (size[p] == 1 && group[p] != SIZE_MAX && vol[p] >= 0 && spoke_steady(&clk[p], 1))
			steady[group[p]] = 1;
	for (size_t p = 0; p < np; p++)
		if (size[p] == 1 && group[p] != SIZE_MAX && steady[group[p]])
			gv[group[p]] += fmax(vol[p], 0);
	double least = INFINITY;
	size_t nsteady = 0;
	for (size_t j = 0; j < ng; j++)
		if (steady[j])
			least = fmin(least, gv[j]), nsteady++;
	if (nsteady == 0)
		goto out;
	for (size_t p = 0; p < np; p++) {
		if (size[p] != 1 || group[p] == SIZE_MAX || steady[group[p]])
			continue;
		if (vol[p] >= 0 && vol[p] < 0.1 * least) {
			group[p] = SIZE_MAX; /* control */
			continue;
		}
		if (vol[p] < 0 || clk[p].count < DMLS_SHARED_MIN_STEPS || !isfinite(clk[p].period_s))
			goto out; /* no evidence */
		for (size_t q = 0; q < np; q++)
			if (size[q] == 1 && group[q] != SIZE_MAX && steady[group[q]] &&
			    spoke_steady(&clk[q], 1) && hub_same_job(&clk[p], &clk[q])) {
				group[p] = group[q];
				break;
			}
	}
	memset(gv, 0, ng * sizeof(double));
	for (size_t p = 0; p < np; p++)
		if (size[p] == 1 && group[p] != SIZE_MAX)
			gv[group[p]] += fmax(vol[p], 0);
	n = 0;
	for (size_t j = 0; j < ng; j++)
		id[j] = steady[j] || gv[j] >= 0.1 * least ? n++ : SIZE_MAX;
	if (n < 2 || merged_steady(size, vol, clk, np, group, id)) {
		n = 1;
		goto out;
	}
	for (size_t p = 0; p < np; p++)
		if (group[p] != SIZE_MAX)
			group[p] = id[group[p]];
out:
	free(gv);
	free(steady);
	free(id);
	return n;
}

/*
 * A part's clock is its hosts' sending, which on a lossy path can lose
 * steps where the cut vertex's own edges keep them: the testbed's tree of 8
 * at 1 % loss, split at its root, had one subtree at 32 steps of 0.127 s
 * (regularity 0.44) beside the other's 40 of 0.103, and read as a tree of
 * 5 and a tree of 4.  Two jobs at a shared host meet it over edges of
 * their own steps; one job's subtrees over edges of one step.  So each big
 * part's heaviest edge to h gets a clock (its pairs' iterations; a lone
 * spoke's clock is its edge's already), and two groups whose parts' edges
 * keep one step (same_step) are one (*ng renumbered).  0, or an error
 * status.
 */
static int same_at_h(const graph_ctx *g, size_t h, const size_t *size, const double *vol,
		     const part_clock *clk, size_t np, size_t *group, size_t *ng, dmls_error *err)
{
	part_clock *ec = calloc(np, sizeof(part_clock));
	size_t *best = malloc(np * sizeof(size_t)), *root = malloc(*ng * sizeof(size_t));
	double *most = malloc(np * sizeof(double));
	int rc = 0;
	if (!ec || !best || !root || !most) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	size_t pairs[2], npairs, hh = g->job->hosts[h];
	for (size_t p = 0; p < np; p++) {
		best[p] = SIZE_MAX;
		most[p] = 0;
	}
	for (size_t i = 0; i < g->n; i++) {
		size_t p = g->part[i];
		if (i == h || size[p] < 2 || !g->adj[h * g->n + i])
			continue;
		double b = edge(g->st, g->job->hosts[i], hh, pairs, &npairs);
		if (b > most[p]) {
			most[p] = b;
			best[p] = i;
		}
	}
	for (size_t p = 0; p < np && rc == 0; p++) {
		if (best[p] == SIZE_MAX)
			continue;
		size_t hosts[2] = {g->job->hosts[best[p]], hh};
		edge(g->st, hosts[0], hh, pairs, &npairs);
		rc = clock_of(&ec[p], g->st, hosts, 2, pairs, npairs, err);
	}
	if (rc)
		goto out;
	/* a lone spoke's clock is its edge's already (clock_parts; borrowed) */
	for (size_t p = 0; p < np; p++)
		if (size[p] == 1 && vol[p] >= 0 && clk[p].count > 0) {
			ec[p] = clk[p];
			best[p] = p;
		}
	for (size_t j = 0; j < *ng; j++)
		root[j] = j;
	for (size_t p = 0; p < np; p++)
		for (size_t q = 0; q < p; q++) {
			if (best[p] == SIZE_MAX || best[q] == SIZE_MAX || group[p] == SIZE_MAX ||
			    group[q] == SIZE_MAX || ec[p].count < DMLS_SHARED_MIN_STEPS ||
			    ec[q].count < DMLS_SHARED_MIN_STEPS)
				continue;
			size_t x = find_root(root, group[p]), y = find_root(root, group[q]);
			if (x != y && same_step(&ec[p], &ec[q], NULL))
				join_roots(root, x, y);
		}
	*ng = renumber_sets(root, *ng, best /* reused: ids */, group, np);
out:
	for (size_t p = 0; ec && p < np; p++)
		if (size[p] >= 2)
			free(ec[p].ends);
	free(ec);
	free(best);
	free(root);
	free(most);
	return rc;
}

/* Try host h of the job: fills hosts of each separate job (local ids into
 * out, offsets into start) and returns how many jobs (1: no split).
 * Parts of two hosts or more get the clock of their sending; with lone,
 * lone spokes (parts of one host) the clock of their edge to h, for the
 * DMLS_SHARED_LONE_MAX heaviest: a 2-rank job sharing a host with a larger
 * job is one edge.  A lone spoke leaves the big parts' job only when its
 * clock is steady and no big part keeps its step (lone_apart); around a
 * hub with nothing but spokes (a parameter server, synchronous or not)
 * nothing is split.  *score: how clean the split is, the least regular
 * clock among the big parts and the spokes set apart (a part that mixes
 * two jobs' sending has none worth the name); *unsure: group_parts'. */
static size_t try_split(graph_ctx *g, size_t h, int lone, size_t *out, size_t *start, int *rc,
			size_t *tried, double *score, int *unsure, dmls_error *err)
{
	size_t np = parts_without(g, h), nbig = 0;
	if (np < 2)
		return 1;
	size_t *size = calloc(np, sizeof(size_t));
	part_clock *clk = calloc(np, sizeof(part_clock));
	size_t *hosts = malloc((g->n > np ? g->n : np) * sizeof(size_t)), njobs = 1;
	double *vol = calloc(np, sizeof(double));
	if (!size || !clk || !hosts || !vol) {
		*rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < g->n; i++)
		if (i != h)
			size[g->part[i]]++;
	for (size_t p = 0; p < np; p++)
		nbig += size[p] >= 2;
	if (nbig == 0 && !lone)
		goto out;
	if (pick_lone(g, h, lone, size, np, vol) == 0 && nbig < 2)
		goto out;
	(*tried)++;
	*rc = clock_parts(g, h, size, vol, np, clk, hosts, err);
	if (*rc)
		goto out;
	size_t *group = hosts, first; /* reused: group per part */
	size_t ng = group_parts(size, vol, clk, np, group, &first, unsure);
	if (nbig >= 1 && ng >= 2 && (*rc = same_at_h(g, h, size, vol, clk, np, group, &ng, err)))
		goto out;
	if (nbig == 0 && ng >= 2)
		ng = join_by_port(g, h, size, vol, np, group, ng);
	if (nbig == 0 && ng >= 2)
		ng = keep_jobs(size, vol, clk, np, group, ng);
	if (ng < 2)
		goto out;
	*score = 1;
	/* the parts and the spokes set apart (around a hub of spokes only:
	 * the steady ones) */
	size_t rest = first < np ? group[first] : SIZE_MAX;
	for (size_t p = 0; p < np; p++) {
		int apart = size[p] == 1 && vol[p] >= 0 && spoke_steady(&clk[p], rest == SIZE_MAX) &&
			    (rest == SIZE_MAX || group[p] != rest);
		if (size[p] >= 2 || apart)
			*score = fmin(*score, isfinite(clk[p].regularity) ? clk[p].regularity : 0);
	}
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
	free(vol);
	return njobs;
}

/*
 * Two jobs that share two hosts or more have no cut vertex between them
 * (two trees of 5 on hosts 1-5 and 4-8), and where their periods are
 * within 10 % the pairs' byte clocks (jobs_overlap.c) do not tell them.
 * Each data edge then gets the clock of its own pairs (their iterations:
 * the testbed's two trees' edges read 0.108 and 0.099 s, their jobs'
 * steps, where the byte clocks of their own pairs read 0.104 and 0.101);
 * edges whose periods agree (dmls_periods_agree) are one job, transitively.  The job splits when the edges fall into
 * groups of two edges or more whose periods agree with no other group's,
 * every group's hosts joined by its own edges, and the edges with a clock
 * hold DMLS_SHARED_EDGE_COVER of the job's data bytes; two jobs of one
 * period are left to the cut vertices.  A host reached only by edges
 * without a clock joins the group its heaviest edge leads to; each group
 * keeps its edges' period (period[j]: dmls_job_view_make tells the pairs
 * between shared hosts by it).  Only for data graphs that can hide two
 * jobs: not a hub (every edge at one host: try_split's spokes), not one
 * whose hosts all have as many edges (a ring, a clique, a hypercube:
 * nothing to pay a clock per edge for, on hours of capture), not a tree
 * (its cut vertices are tried), nor past DMLS_SHARED_MAX_EDGES edges.
 * Fills ids/start as try_split does and returns the number of jobs (1:
 * no split).
 */
#define DMLS_SHARED_MAX_EDGES 48
#define DMLS_SHARED_EDGE_COVER 0.75

/* The job's data edges (u < v, local hosts) with their clocks and groups;
 * in[j * n + i]: host i is in group j. */
typedef struct edge_set {
	size_t ne, n;
	size_t *u, *v, *grp, *root, *gsize, *hg, *best;
	double *bytes, *hbest;
	part_clock *clk;
	unsigned char *in;
} edge_set;

static void edge_set_release(edge_set *es)
{
	for (size_t e = 0; es->clk && e < es->ne; e++)
		free(es->clk[e].ends);
	free(es->clk);
	free(es->u);
	free(es->v);
	free(es->grp);
	free(es->root);
	free(es->gsize);
	free(es->hg);
	free(es->best);
	free(es->bytes);
	free(es->hbest);
	free(es->in);
}

static int clocked_edge(const edge_set *es, size_t e)
{
	return es->clk[e].count >= DMLS_SHARED_MIN_STEPS && isfinite(es->clk[e].period_s);
}

/* Each edge's clock (its pairs' iterations); 0, or an error status.
 * *covered: the edges with a clock hold DMLS_SHARED_EDGE_COVER of the
 * job's data bytes. */
static int clock_edges(const graph_ctx *g, edge_set *es, int *covered, dmls_error *err)
{
	size_t n = g->n, e = 0;
	double total = 0, clocked = 0;
	for (size_t u = 0; u < n; u++)
		for (size_t v = u + 1; v < n; v++) {
			if (!g->adj[u * n + v])
				continue;
			size_t pairs[2], np, hosts[2] = {g->job->hosts[u], g->job->hosts[v]};
			es->u[e] = u;
			es->v[e] = v;
			es->bytes[e] = edge(g->st, hosts[0], hosts[1], pairs, &np);
			int rc = clock_of(&es->clk[e], g->st, hosts, 2, pairs, np, err);
			if (rc)
				return rc;
			total += es->bytes[e];
			clocked += clocked_edge(es, e) ? es->bytes[e] : 0;
			e++;
		}
	*covered = clocked >= DMLS_SHARED_EDGE_COVER * total;
	return 0;
}

/* The edges with a clock in groups, joined while any two periods agree;
 * an edge alone at its period between hosts of other groups is a pair of
 * two jobs' hosts that carries both (its clock a mix): no group's.  The
 * groups of two edges or more, renumbered (es->grp, es->in); how many, 0
 * where an edge alone has a host of no other group (a 2-rank job, or
 * noise: no split). */
static size_t group_edges(edge_set *es)
{
	size_t ne = es->ne, n = es->n, ng = 0, nbig = 0, *root = es->root;
	for (size_t e = 0; e < ne; e++)
		root[e] = e;
	for (size_t e = 0; e < ne; e++)
		for (size_t f = 0; clocked_edge(es, e) && f < e; f++)
			if (clocked_edge(es, f) &&
			    dmls_periods_agree(es->clk[e].period_s, es->clk[f].period_s))
				join_roots(root, find_root(root, e), find_root(root, f));
	for (size_t e = 0; e < ne; e++) {
		es->grp[e] = SIZE_MAX;
		if (!clocked_edge(es, e))
			continue;
		size_t r = find_root(root, e);
		es->grp[e] = r == e ? ng++ : es->grp[r];
		es->gsize[es->grp[e]]++;
	}
	memset(es->in, 0, ne * n);
	for (size_t e = 0; e < ne; e++)
		if (es->grp[e] != SIZE_MAX && es->gsize[es->grp[e]] >= 2)
			es->in[es->grp[e] * n + es->u[e]] = es->in[es->grp[e] * n + es->v[e]] = 1;
	size_t *id = root; /* reused: new group ids */
	for (size_t j = 0; j < ng; j++)
		id[j] = es->gsize[j] >= 2 ? nbig++ : SIZE_MAX;
	for (size_t e = 0; e < ne; e++) {
		if (es->grp[e] == SIZE_MAX || es->gsize[es->grp[e]] >= 2)
			continue;
		int covered[2] = {0, 0};
		for (size_t j = 0; j < ng; j++) {
			covered[0] |= es->in[j * n + es->u[e]];
			covered[1] |= es->in[j * n + es->v[e]];
		}
		if (!covered[0] || !covered[1])
			return 0;
		es->grp[e] = SIZE_MAX;
	}
	memset(es->in, 0, ne * n);
	for (size_t e = 0; e < ne; e++)
		if (es->grp[e] != SIZE_MAX) {
			es->grp[e] = id[es->grp[e]];
			es->in[es->grp[e] * n + es->u[e]] = es->in[es->grp[e] * n + es->v[e]] = 1;
		}
	return nbig;
}

/* A host of no group joins the group of its heaviest edge to one (the
 * edge with it); 1 when every host is then in a group, and every group's
 * hosts are joined by its own edges. */
static int edge_hosts(graph_ctx *g, edge_set *es, size_t ng)
{
	size_t n = es->n, ne = es->ne;
	for (size_t i = 0; i < n; i++) {
		es->hg[i] = SIZE_MAX;
		es->hbest[i] = -1;
		es->best[i] = SIZE_MAX;
		for (size_t j = 0; j < ng; j++)
			if (es->in[j * n + i])
				es->hg[i] = j;
	}
	for (size_t e = 0; e < ne; e++)
		for (int k = 0; k < 2; k++) {
			size_t a = k ? es->v[e] : es->u[e], b = k ? es->u[e] : es->v[e];
			if (es->hg[a] == SIZE_MAX && es->hg[b] != SIZE_MAX && es->bytes[e] > es->hbest[a]) {
				es->hbest[a] = es->bytes[e];
				es->best[a] = e;
			}
		}
	for (size_t i = 0; i < n; i++) {
		size_t e = es->best[i], j = 0;
		if (e == SIZE_MAX)
			continue;
		size_t b = es->u[e] == i ? es->v[e] : es->u[e];
		while (!es->in[j * n + b])
			j++; /* b's first group */
		es->grp[e] = j;
		es->in[j * n + i] = 1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < ng; j++)
			k += es->in[j * n + i];
		if (k == 0)
			return 0; /* a host reached by no group */
	}
	for (size_t j = 0; j < ng; j++) { /* connected by its own edges */
		size_t first = 0, top = 0, seen = 0, m = 0;
		while (!es->in[j * n + first])
			first++;
		for (size_t i = 0; i < n; i++)
			g->part[i] = SIZE_MAX;
		g->part[first] = j;
		g->stack[top++] = first;
		while (top) {
			size_t x = g->stack[--top];
			seen++;
			for (size_t e = 0; e < ne; e++) {
				size_t y = es->u[e] == x ? es->v[e] : es->v[e] == x ? es->u[e] : SIZE_MAX;
				if (es->grp[e] == j && y != SIZE_MAX && g->part[y] == SIZE_MAX) {
					g->part[y] = j;
					g->stack[top++] = y;
				}
			}
		}
		for (size_t i = 0; i < n; i++)
			m += es->in[j * n + i];
		if (seen != m)
			return 0;
	}
	return 1;
}

/* Group j's period: its edges' median, an edge counting two bursts a step
 * (half the longest) doubled. */
static double group_period(const edge_set *es, size_t j)
{
	double most = 0, *p = es->hbest; /* reused */
	size_t m = 0;
	for (size_t e = 0; e < es->ne; e++)
		if (es->grp[e] == j && es->clk[e].count >= DMLS_SHARED_MIN_STEPS)
			most = fmax(most, es->clk[e].period_s);
	for (size_t e = 0; e < es->ne && m < es->n; e++)
		if (es->grp[e] == j && clocked_edge(es, e))
			p[m++] = es->clk[e].period_s < 0.75 * most ? 2 * es->clk[e].period_s
								   : es->clk[e].period_s;
	return m ? dmls_median(p, m) : NAN;
}

static size_t try_edges(graph_ctx *g, size_t *ids, size_t *start, double *period, int *one,
			int *rc, dmls_error *err)
{
	size_t n = g->n, ne = 0, deg0 = 0;
	int regular = 1, hub = 0;
	for (size_t u = 0; u < n; u++) {
		size_t at = 0;
		for (size_t v = 0; v < n; v++)
			at += g->adj[u * n + v];
		deg0 = u ? deg0 : at;
		regular &= at == deg0;
		ne += at;
	}
	ne /= 2;
	for (size_t h = 0; h < n; h++) { /* a hub: every edge at h */
		size_t at = 0;
		for (size_t v = 0; v < n; v++)
			at += g->adj[h * n + v];
		hub |= at == ne;
	}
	/* a part of an edge split is split again only by its edges (a third
	 * job of another period): it holds the other jobs' pairs between
	 * the hosts it shares with them, and their shared hosts' sending
	 * mixes two jobs, where a cut vertex's parts would read two clocks
	 * (*one: no split at cut vertices) */
	*one = g->job->by_clock == DMLS_BY_EDGES;
	if (ne < 4 || ne > DMLS_SHARED_MAX_EDGES || hub || regular || ne + 1 == n)
		return 1; /* (a ring, a clique, a butterfly or a tree: one job or cut vertices) */
	size_t big = ne > n ? ne : n, ng = 0, k = 0;
	edge_set es = {ne, n, malloc(ne * sizeof(size_t)), malloc(ne * sizeof(size_t)),
		       malloc(ne * sizeof(size_t)), malloc(ne * sizeof(size_t)),
		       calloc(big, sizeof(size_t)), malloc(n * sizeof(size_t)),
		       malloc(n * sizeof(size_t)), malloc(ne * sizeof(double)),
		       malloc(n * sizeof(double)), calloc(ne, sizeof(part_clock)), malloc(ne * n)};
	if (!es.u || !es.v || !es.grp || !es.root || !es.gsize || !es.hg || !es.best || !es.bytes ||
	    !es.hbest || !es.clk || !es.in) {
		*rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	int covered = 0;
	if ((*rc = clock_edges(g, &es, &covered, err)) || !covered)
		goto out;
	if ((ng = group_edges(&es)) < 2 || !edge_hosts(g, &es, ng)) {
		ng = 0;
		goto out;
	}
	for (size_t j = 0; j < ng * n; j++)
		k += es.in[j];
	if (ng > n || k > 2 * n) {
		ng = 0; /* (room for ids and start: split_one's) */
		goto out;
	}
	k = 0;
	for (size_t j = 0; j < ng; j++) {
		start[j] = k;
		for (size_t i = 0; i < n; i++)
			if (es.in[j * n + i])
				ids[k++] = i;
		period[j] = group_period(&es, j);
	}
	start[ng] = k;
out:
	edge_set_release(&es);
	return ng >= 2 ? ng : 1;
}

/* out[0..nj): the jobs of the split, local ids ids[start[j]..start[j+1]),
 * each with its data volume (its pairs moving the job's threshold).
 * 0, or an error status with nothing allocated. */
static int make_jobs(const dmls_stats *st, const dmls_job_scope *job, const size_t *local,
		     const size_t *ids, const size_t *start, size_t nj, dmls_job_scope *out,
		     dmls_error *err)
{
	size_t n = job->n;
	for (size_t j = 0; j < nj; j++) {
		size_t m = start[j + 1] - start[j];
		out[j] = (dmls_job_scope){m, malloc(m * sizeof(size_t)), job->thr, 0, 1, 0, 0, 0, 0, 0};
		if (!out[j].hosts) {
			for (size_t i = 0; i < j; i++)
				free(out[i].hosts);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < m; i++)
			out[j].hosts[i] = job->hosts[ids[start[j] + i]];
		for (size_t k = 0; k < st->npairs; k++) {
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
	return 0;
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
	size_t *ids2 = malloc(2 * n * sizeof(size_t)), *start2 = malloc((n + 1) * sizeof(size_t));
	double *period = malloc((n + 1) * sizeof(double));
	int rc = 0;
	if (!g.adj || !g.part || !g.stack || !local || !ids || !start || !ids2 || !start2 ||
	    !period) {
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
	/* the edges' periods first (two jobs sharing two hosts or more); then
	 * cut vertices between parts of two hosts or more (a host that
	 * is a rank of two jobs), the first that splits; only then lone spokes
	 * (a parameter server's workers are lone spokes too, and a job beside
	 * it runs its own step), the cleanest split of all (try_split's score:
	 * with a 2-rank ring between a gossip job's rank and an asynchronous
	 * server's worker, setting the server's other worker apart leaves the
	 * ring mixed with the server's traffic) */
	int one;
	size_t tried = 0, nj = try_edges(&g, ids, start, period, &one, &rc, err);
	double best = -1;
	int unsure = 0, by_edges = nj >= 2;
	if (!by_edges)
		nj = 0;
	for (size_t t = 0; t < 2 * n && rc == 0 && !by_edges && !one && tried < DMLS_SHARED_MAX_TRIES;
	     t++) {
		if (t == n && nj >= 2)
			break; /* split without lone spokes */
		double score = 0;
		int u = 0;
		size_t got = try_split(&g, t % n, t >= n, ids2, start2, &rc, &tried, &score, &u, err);
		if (rc || got < 2 || !(score > best))
			continue;
		best = score, nj = got, unsure = u;
		size_t *swap = ids;
		ids = ids2, ids2 = swap;
		swap = start, start = start2, start2 = swap;
		if (t < n)
			break; /* the first split between big parts */
	}
	if (rc == 0 && nj >= 2 && (rc = make_jobs(st, job, local, ids, start, nj, out, err)) == 0) {
		*parts = nj;
		for (size_t j = 0; j < nj; j++) {
			out[j].by_clock = by_edges ? DMLS_BY_EDGES : unsure ? 2 : 1;
			out[j].edge_period_s = by_edges ? period[j] : 0;
		}
	}
out:
	free(g.adj);
	free(g.part);
	free(g.stack);
	free(local);
	free(ids);
	free(start);
	free(ids2);
	free(start2);
	free(period);
	return rc;
}

int dmls_jobs_split_shared(dmls_job_scope **jobs, size_t *njobs, const dmls_stats *st,
			   dmls_error *err)
{
	/* a job split off may share a host with a third job: each job is
	 * tried again until it stays whole (every split leaves fewer hosts in
	 * each part, so this ends), DMLS_SHARED_MAX_SPLITS at most */
	size_t splits = 0;
	for (size_t j = 0; j < *njobs && splits < DMLS_SHARED_MAX_SPLITS;) {
		const dmls_job_scope *job = &(*jobs)[j];
		if (job->n < 3 || job->n > DMLS_SHARED_MAX_HOSTS) {
			j++;
			continue;
		}
		dmls_job_scope *parts = malloc(job->n * sizeof(*parts));
		size_t np = 1;
		dmls_job_view v; /* pairs it shares with another job: its own */
		if (!parts || dmls_job_view_make(&v, st, *jobs, *njobs, j) < 0) {
			free(parts);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		int rc = split_one(v.st, job, parts, &np, err);
		dmls_job_view_release(&v);
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
				splits++;
			}
		} else {
			j++;
		}
		free(parts);
		if (rc)
			return rc;
	}
	return 0;
}
