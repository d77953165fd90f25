/*
 * analysis.c - dmls_analysis_run: the stages in order, roles, S, notes.
 *
 * See analysis.h for the pipeline.  Roles: the job's hosts are workers,
 * except a star's hubs, which are servers (a parameter server does not
 * train; a star all-reduce root that also trains cannot be told apart from
 * the traffic and is called a server too).  Hosts outside the job (other
 * jobs, control-plane only peers) are "other".
 *
 * Gradient size S from b = bytes_per_worker (doc/analysis.md, "The volumes a
 * collective moves"):
 *   ring, butterfly  b = 2(N-1)/N S      ->  S = b N / (2(N-1))
 *   star             a worker pushes S    ->  S = b
 *   pairwise         a worker sends its model to one peer per step -> S = b
 *   clique           all-to-all all-reduce: S/N to each of N-1 peers, twice
 *                    (reduce-scatter + all-gather) -> S = b N / (2(N-1))
 *   butterfly of 3 (a path told from a star by timing, pattern_two.c): the
 *                    extra rank hands its whole vector to the hub -> S =
 *                    its payload per iteration
 *   butterfly by recursive doubling (equal volumes at every distance): the
 *                    p core ranks send S to each of log2 p partners, the r
 *                    extras S to their core rank and back -> S = observed
 *                    / (p log2 p + 2r) (every rank's sending)
 *   butterfly, N not a power of two (r = N - p extra ranks hand their
 *                    vector to a core rank and get the result back; the p
 *                    core ranks 2(p-1)/p S each): S = what an extra sends
 *                    its core rank per iteration (pattern.extra_step_bytes;
 *                    it gets S back from MPICH, 1.5 S from Open MPI's
 *                    Rabenseifner, which swaps halves with it first), else
 *                    the job's 2(N-1) S per iteration (MPICH) -> S =
 *                    observed / (2(N-1))
 *   tree             reduce to the root, then broadcast down the same tree:
 *                    S on each of the N-1 edges each way, so a node sends S
 *                    per tree edge it has (b differs per node) and the job
 *                    2(N-1) S per iteration -> S = observed / (2(N-1)), the
 *                    median over iterations of all job hosts' payload
 *                    (these two need every rank's sending: unknown on a
 *                    partial view)
 *   hierarchical, unknown: volumes depend on the groups' algorithms -> unknown
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "analysis/jobs_int.h"
#include "analysis/period.h"

#define PHASE_GAP_S 0.005
#define PHASE_GAP_SHARE 0.05
#define UNSURE_OUTLIERS 0.2 /* iterations whose bytes do not repeat: no period */

/* Roles of the job's hosts (job NULL: of every host); a host of two jobs
 * keeps the role the last job analyzed gave it (the largest). */
static void set_roles(dmls_stats *st, const dmls_pattern *p, const dmls_job_scope *job)
{
	for (size_t i = 0; i < (job ? job->n : st->nhosts); i++)
		st->hosts[job ? job->hosts[i] : i].role = DMLS_ROLE_OTHER;
	for (size_t i = 0; i < p->ranks; i++)
		st->hosts[p->members[i]].role = DMLS_ROLE_WORKER;
	if (p->kind == DMLS_PAT_STAR && !p->hub_exchanges)
		for (size_t i = 0; i < p->nhubs; i++)
			st->hosts[p->hubs[i]].role = DMLS_ROLE_SERVER;
}

static void gradient_size(dmls_analysis *a, const dmls_stats *st)
{
	const dmls_pattern *p = &a->pattern;
	double b = a->iter.bytes_per_worker, n = (double)p->ranks;
	double w = n - (double)p->nhubs;
	a->gradient_bytes = a->expected_iter_bytes = NAN;
	if (a->iter.count >= 1) {
		size_t use = a->iter.count >= 3 ? a->iter.count - 1 : a->iter.count;
		double *v = malloc(use * sizeof(double));
		if (v) {
			memcpy(v, a->iter.bytes, use * sizeof(double));
			a->observed_iter_bytes = dmls_median(v, use);
			free(v);
		}
	}
	if (p->partial && p->kind == DMLS_PAT_STAR && !isfinite(b) && isfinite(a->server_bytes) &&
	    w >= 1 && !a->hub_one_at_a_time)
		b = a->server_bytes / w; /* the hub sends S to each of W workers */
	if (!isfinite(b) || p->ranks < 2)
		return;
	if (p->service_port && p->kind != DMLS_PAT_STAR && p->kind != DMLS_PAT_PAIRWISE &&
	    !p->partners)
		return; /* S needs N, which this view does not give */
	if (p->kind == DMLS_PAT_BUTTERFLY && p->ranks == 3 && p->extra < st->nhosts &&
	    !p->partial && a->iter.count > 0) {
		/* the extra rank hands its whole vector to its core partner, once
		 * per iteration (the core pair's exchange sizes differ between
		 * MPI libraries: MPICH S each way, Open MPI 1.5 S one way) */
		a->gradient_bytes = (double)st->hosts[p->extra].tx_payload_bytes / (double)a->iter.count;
		return;
	}
	if (p->kind == DMLS_PAT_BUTTERFLY && p->doubling) {
		/* p core ranks send S to each of log2(p) partners, r = N - p
		 * extra ranks S to their core rank and back */
		double pc = 1, L = 0;
		while (2 * pc <= n)
			pc *= 2, L++;
		if (!p->partial && isfinite(a->observed_iter_bytes)) {
			a->gradient_bytes = a->observed_iter_bytes / (pc * L + 2 * (n - pc));
			a->expected_iter_bytes = a->observed_iter_bytes;
		} else if (p->partners > 0) { /* one rank alone: S to each partner */
			a->gradient_bytes = b / (double)p->partners;
		}
		return;
	}
	if (p->kind == DMLS_PAT_BUTTERFLY && (p->ranks & (p->ranks - 1))) {
		if (!p->partial && isfinite(p->extra_step_bytes)) { /* an extra's vector */
			a->gradient_bytes = p->extra_step_bytes;
			if (isfinite(a->observed_iter_bytes))
				a->expected_iter_bytes = a->observed_iter_bytes;
		} else if (!p->partial && isfinite(a->observed_iter_bytes)) { /* needs every rank */
			a->gradient_bytes = a->observed_iter_bytes / (2 * (n - 1));
			a->expected_iter_bytes = a->observed_iter_bytes;
		}
		return;
	}
	switch (p->kind) {
	case DMLS_PAT_RING:
	case DMLS_PAT_BUTTERFLY:
	case DMLS_PAT_CLIQUE:
		a->gradient_bytes = b * n / (2 * (n - 1));
		a->expected_iter_bytes = 2 * (n - 1) * a->gradient_bytes;
		break;
	case DMLS_PAT_STAR:
		a->gradient_bytes = b;
		a->expected_iter_bytes = 2 * w * b;
		break;
	case DMLS_PAT_PAIRWISE:
		a->gradient_bytes = b;
		break;
	case DMLS_PAT_TREE:
		if (!p->partial && isfinite(a->observed_iter_bytes)) { /* every rank's bytes */
			a->gradient_bytes = a->observed_iter_bytes / (2 * (n - 1));
			a->expected_iter_bytes = a->observed_iter_bytes;
		}
		break;
	default:
		break;
	}
	if (p->partial)
		a->expected_iter_bytes = NAN; /* the unobserved ranks' share is not seen */
}

/*
 * The stages, in one forward order; each reads what the ones before it
 * left in the analysis (and, for roles, in st->hosts[].role):
 *   shape        the static pattern of the volume graph and the view
 *   clock        iterations of the job's workers as that shape names them
 *   shape_final  the pattern refined with the iterations (per-iteration
 *                pair volumes, changing partners, two ranks, the tree's
 *                root), and the final roles
 *   clock_final  the iterations again only if the final roles changed the
 *                workers (a star found or lost): a parameter server's
 *                iterations are counted on its workers
 *   volume       S from bytes per worker and the final pattern
 *   phases, burst, train_log
 */
typedef struct stage_ctx {
	dmls_analysis *a;
	dmls_stats *st;
	const dmls_trainlog *log;
	int was_star;     /* the kind the clock stage counted with */
	const dmls_job_scope *job; /* NULL: no job in the capture */
	size_t njobs;
	const size_t *in_split; /* per host, the jobs split by their clocks it is
				 * in (NULL: no job) */
	const size_t *jpairs;  /* a job sharing a host with another: the pairs
				* between its hosts (its clocks count these),
				* else NULL (its hosts' sending) */
	size_t njpairs;
} stage_ctx;

static int stage_shape(stage_ctx *c, dmls_error *err)
{
	int rc = c->job ? dmls_pattern_find_job(&c->a->pattern, c->st, c->job, c->njobs, err)
			: dmls_pattern_find(&c->a->pattern, c->st, err);
	if (rc)
		return rc;
	if (dmls_pattern_view(&c->a->pattern, c->st, c->in_split) < 0)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	set_roles(c->st, &c->a->pattern, c->job);
	return 0;
}

/*
 * The job's byte clock can tile its step into smaller units that repeat:
 * a tree all-reduce on busy hosts moves S over one edge after another,
 * and the job's bytes come in units of S (the testbed's 8-rank tree: 242
 * "iterations" of 0.076 s for 24 steps of 0.74 s).  Each worker's bytes
 * per such unit then do not repeat (bytes_outliers), while each rank's
 * own sending keeps the step.  So when the job's iterations are unsure
 * that way and more than half of its ranks' clocks agree (within
 * RECLOCK_AGREE of their median) on a period RECLOCK_LONGER times the
 * job's or more, the job is clocked again in time with that period as the
 * guide; the new clock stands when its bytes repeat, else the old one
 * (and stage_mode withholds its period).
 *
 * When the job's bytes gave no clock at all (the time autocorrelation set
 * it) and more than half of its ranks' clocks agree on a period
 * RECLOCK_TIME times the job's mean or more, stalls split the job's steps
 * in time (timeouts on a lossy path) while each rank's bytes keep them:
 * the testbed's RPC star of 4 over a 1 % lossy path gave 2297 steps of
 * 0.068 s for 2000 of 0.078 s, each worker's byte clock 2000.  Tracking
 * in time with the ranks' period does no better there (1523), so the job
 * takes the step bounds of the agreeing rank of the median count, under
 * the same test of its bytes.
 *
 * The job's byte clock can also take two steps or more for one, each
 * iteration's bytes repeating (so nothing looks unsure): on a path losing
 * 2-3 %, stalls shuffle the order in which ranks send from step to step,
 * the job's gaps no longer recur at one place in its bytes, and the
 * histogram's autocorrelation peaks at a multiple of the step (an RPC
 * star of 6 at 2 % loss: 21 iterations of 0.228 s for 40 of 0.117 s, S
 * doubled; a DDP ring of 6: 20 of 0.322 s for 0.156 s; an RPC star of 5
 * at 3 %: 3 of 2.4 s).  Each rank's own sending keeps the step.  So a
 * short capture's byte clock (fewer than RECLOCK_MULT_STEPS iterations:
 * the ranks' clocks cost a search each, a quarter of a short capture's
 * analysis) on a lossy path (the job's hosts sent DMLS_LOSSY_SHARE of
 * their packets again or more: 1.9-2.9 % on those runs, 0.3 % on the
 * bundled DDP sample, whose clock is right) is checked against the clocks
 * of its first RECLOCK_MULT_RANKS ranks: where more than half agree on a
 * period whose multiple (2 or more, within RECLOCK_MULT_TOL) is the
 * job's mean period (its median moves with the steps each iteration
 * holds), and their median count is that multiple of the job's (within
 * the same), the job takes the step bounds of the agreeing rank of
 * the median count, under the same test of its bytes.
 *
 * Where that byte clock stands and the ranks' clocks (RANKS_APART_MIN of
 * them at least) keep no step with it (more than half do not agree on a
 * period, or agree on one more than RECLOCK_AGREE off the job's of which
 * the job's is no multiple), nothing tells which to believe: count,
 * period and S are withheld (a->ranks_apart, stage_mode).  Without their
 * train logs (which caught the first two by log_multiple) a clique of 5
 * at 2 % loss gave 19 of 0.376 s for 40 of 0.165 s, its ranks' clocks
 * 0.13-0.74 s; a DDP ring of 4, 9 of 0.571 s for 40 of 0.121 s (its
 * ranks' 0.12, 0.24, 0.57 and 0.57 s); a DDP ring of 6 at 2 % loss
 * captured from 40 % into its run, 14 of 0.366 s for 29 of 0.168 s (its
 * ranks' 0.18-1.1 s): every one with S doubled or more.  Where more than
 * half agree on a finer clock of which the job's is a multiple and their
 * bounds failed the bytes test, the job's clock stands: its bytes repeat
 * and theirs do not (test_analysis_lossy's ring, whose ranks count its
 * buckets; a DDP ring of 6 at 2 % whose ranks' 0.146 s count neither its
 * 0.212 s steps nor the job's 0.827 s stays a multiple).
 */
#define RECLOCK_AGREE 0.1
#define RECLOCK_LONGER 1.5
#define RECLOCK_TIME 1.1
#define RECLOCK_MULT_STEPS 256
#define RECLOCK_MULT_RANKS 8
#define RECLOCK_MULT_TOL 0.15
#define RANKS_APART_MIN 3

/* k >= 2 when x is about k times y (within RECLOCK_MULT_TOL), else 0. */
static long multiple_of(double x, double y)
{
	if (!(x > 0) || !(y > 0))
		return 0;
	long k = lround(x / y);
	return k >= 2 && fabs(x / y - (double)k) <= RECLOCK_MULT_TOL * (double)k ? k : 0;
}

/* Whether a rank's clock has 4 steps or more. */
static int clocked(const dmls_iterations *ri)
{
	return ri->count >= 4 && isfinite(ri->period_s) && ri->period_s > 0;
}

/* The clock of rank h, when it has 4 steps or more: 1, else 0, or -1.
 * On its pairs among the np of pairs where it sends one (a stream beside
 * the job), else on its sending. */
static int rank_clock(dmls_iterations *ri, const dmls_stats *st, size_t h, const size_t *pairs,
		      size_t np, dmls_error *err)
{
	if (dmls_iterations_find_clocks(ri, st, &h, 1, pairs, np, err))
		return -1;
	if (clocked(ri))
		return 1;
	dmls_iterations_release(ri);
	return 0;
}

/* The job clocked again, in time with the period P as the guide, or at
 * the bounds at_s[0..nat) (rank host's clock's, or SIZE_MAX: the job's own
 * regrouped; with ends, the job's ends then those); the new clock stands
 * when its bytes repeat: 1, else 0 (the old one stands), or -1. */
static int reclock(stage_ctx *c, double P, const double *at_s, size_t nat, const double *ends,
		   size_t host, dmls_error *err)
{
	dmls_analysis *a = c->a;
	dmls_iterations old = a->iter;
	memset(&a->iter, 0, sizeof(a->iter));
	int rc = at_s ? dmls_find_iterations_at(a, c->st, c->jpairs, c->njpairs, at_s, nat, host,
						err)
		      : dmls_find_iterations_guided(a, c->st, c->jpairs, c->njpairs, P, err);
	if (rc == 0 && a->iter.count >= 4 && isfinite(a->iter.bytes_outliers) &&
	    a->iter.bytes_outliers <= UNSURE_OUTLIERS) {
		if (ends && a->iter.count == nat) {
			memcpy(a->iter.comm_end_s, ends, nat * sizeof(double));
			dmls_iterations_period(&a->iter);
		}
		dmls_iterations_release(&old);
		return 1;
	}
	dmls_iterations_release(&a->iter);
	a->iter = old;
	return rc ? -1 : 0;
}

/* Of the np pairs, those whose sender sends a stream left out of the view
 * (flow_hidden 1) into a new *out (*nout of them).  0, or -1 when out of
 * memory. */
static int streamers_pairs(const dmls_stats *st, const size_t *pairs, size_t np, size_t **out,
			   size_t *nout)
{
	unsigned char *sends = calloc(st->nhosts ? st->nhosts : 1, 1);
	*out = malloc((np ? np : 1) * sizeof(size_t));
	*nout = 0;
	if (!sends || !*out) {
		free(sends);
		free(*out);
		*out = NULL;
		return -1;
	}
	for (size_t f = 0; f < st->nflows; f++)
		if (st->flow_hidden[f] == 1)
			sends[st->flows[f].src] = 1;
	for (size_t k = 0; k < np; k++)
		if (sends[st->pairs[pairs[k]].src])
			(*out)[(*nout)++] = pairs[k];
	free(sends);
	return 0;
}

static int reclock_by_ranks(stage_ctx *c, dmls_error *err)
{
	dmls_analysis *a = c->a;
	const dmls_pattern *p = &a->pattern;
	const dmls_iterations *it = &a->iter;
	const size_t *r = p->partial ? p->observed : p->members;
	size_t n = p->partial ? p->nobserved : p->ranks, nper = 0, agree = 0;
	int unsure = it->bytes_outliers > UNSURE_OUTLIERS;
	int by_time = it->method && !strcmp(it->method, "time-acf");
	int by_bytes = !unsure && it->method && !strcmp(it->method, "byte-clock") &&
		       it->count < RECLOCK_MULT_STEPS && n >= 2 && dmls_hosts_lossy(c->st, r, n);
	a->ranks_apart = 0;
	if (it->count < (by_bytes ? 2u : 4u) || !(unsure || by_time || by_bytes) ||
	    !(it->period_median_s > 0) || n < 2 || a->hub_one_at_a_time)
		return 0;
	if (by_bytes && n > RECLOCK_MULT_RANKS)
		n = RECLOCK_MULT_RANKS;
	double *per = malloc(3 * n * sizeof(double)), *cnt = per + n, *tmp = per + 2 * n;
	size_t *who = malloc(n * sizeof(size_t));
	if (!per || !who) {
		free(per);
		free(who);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	/* a rank that sends a stream beside the job (background_of): its
	 * clock on its pairs of the job, not on its whole sending */
	size_t *sp = NULL, nsp = 0;
	if (a->background_flows && c->jpairs && c->st->flow_hidden &&
	    streamers_pairs(c->st, c->jpairs, c->njpairs, &sp, &nsp)) {
		free(per);
		free(who);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	dmls_iterations *its = malloc(n * sizeof(*its));
	int rc = its ? dmls_iterations_find_clocks(its, c->st, r, n, nsp ? sp : NULL, nsp, err)
		     : dmls_fail(err, DMLS_ENOMEM, "out of memory");
	rc = rc ? -1 : 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (clocked(&its[i])) {
			who[nper] = r[i];
			cnt[nper] = (double)its[i].count;
			per[nper++] = its[i].period_s;
		}
		dmls_iterations_release(&its[i]);
	}
	free(its);
	memcpy(tmp, per, nper * sizeof(double));
	double P = rc == 0 && nper ? dmls_median(tmp, nper) : NAN;
	size_t nc = 0;
	for (size_t i = 0; i < nper; i++)
		if (fabs(per[i] - P) <= RECLOCK_AGREE * P) {
			agree++;
			tmp[nc] = cnt[nc] = cnt[i], who[nc++] = who[i];
		}
	int agreed = rc == 0 && 2 * agree > n;
	if (agreed && unsure && P >= RECLOCK_LONGER * it->period_median_s)
		rc = reclock(c, P, NULL, 0, NULL, SIZE_MAX, err);
	double C = agreed && nc ? dmls_median(tmp, nc) : NAN;
	long k = by_bytes && agreed ? multiple_of(it->period_s, P) : 0;
	int multiple = k >= 2 && fabs(C / (double)it->count - (double)k) <=
					 RECLOCK_MULT_TOL * (double)k;
	if (rc == 0 && agreed && ((by_time && P >= RECLOCK_TIME * it->period_s) || multiple)) {
		size_t best = 0; /* the agreeing rank of the count nearest their median */
		for (size_t i = 1; i < nc; i++)
			if (fabs(cnt[i] - C) < fabs(cnt[best] - C))
				best = i;
		dmls_iterations ri;
		rc = rank_clock(&ri, c->st, who[best], sp, nsp, err);
		if (rc > 0) {
			rc = reclock(c, P, ri.bounds_s, ri.count, ri.comm_end_s, who[best], err);
			dmls_iterations_release(&ri);
		}
	}
	/* the byte clock stands where the ranks' clocks keep no step with it */
	if (rc == 0 && by_bytes && nper >= RANKS_APART_MIN &&
	    !(agreed && (multiple || fabs(a->iter.period_s - P) <= RECLOCK_AGREE * P)))
		a->ranks_apart = nper;
	rc = rc < 0 ? -1 : 0;
	free(sp);
	free(per);
	free(who);
	return rc;
}

/*
 * On a lossy path a retransmission timeout can stall a step in the middle
 * of its communication: the job's clock then cuts the step in two, and
 * each part moves a share of the step's bytes (the testbed's DDP ring of 6
 * at 2 % loss: 61 iterations for 40, 26 of them a whole step's 5.5 MB
 * within 10 %, the others pairs such as 0.63 and 0.47 of it, or slivers
 * of 0.01-0.2; its iterations did not repeat in bytes and its period was
 * withheld).  Every step moves the same bytes, so where the iterations are
 * unsure that way and a third of them or more move one amount within
 * FRAG_NEAR (the reference, R: of the amounts so shared by the most
 * iterations, the largest), the iterations are regrouped: one moving
 * FRAG_WHOLE of R or more is a step, and a run of lesser ones between
 * such steps holds round(its bytes / R) steps, each starting at the part
 * whose bytes before it in the run are nearest a multiple of R (none: its
 * parts join the step before; before the first step, under FRAG_WHOLE of
 * R, the step after, as a capture's first iteration holds what came before
 * it: DDP's initial broadcast of the parameters).  The job is
 * clocked again at those bounds, and the new clock stands when its bytes
 * repeat (reclock).  Not where iterations of FRAG_SEVERAL R or more hide
 * FRAG_HIDDEN steps or more (round(bytes / R) - 1 each): no regrouping
 * puts a bound inside one, and the count would come out short (a ring of
 * 3 rank's own file at 3 % loss: one iteration of 3.7 R, 38 for 40,
 * period +5.6 %, where it was withheld).
 */
#define FRAG_MIN 8      /* iterations regrouped: 8 or more */
#define FRAG_NEAR 0.15  /* iterations this near in bytes move one amount */
#define FRAG_SHARE 3    /* a third of them at least */
#define FRAG_WHOLE 0.75 /* a step's bytes at least */
#define FRAG_SEVERAL 1.5 /* an iteration of this many R holds round(bytes / R) steps */
#define FRAG_HIDDEN 2   /* steps so hidden that no regrouping can count */

static int regroup_fragments(stage_ctx *c, dmls_error *err)
{
	dmls_analysis *a = c->a;
	const dmls_iterations *it = &a->iter;
	size_t n = it->count;
	if (n < FRAG_MIN || !it->bytes || !it->bounds_s || !(it->bytes_outliers > UNSURE_OUTLIERS) ||
	    a->hub_one_at_a_time)
		return 0;
	double R = 0;
	size_t most = 0;
	for (size_t i = 0; i < n; i++) {
		size_t near = 0;
		for (size_t j = 0; j < n; j++)
			near += fabs(it->bytes[j] - it->bytes[i]) <= FRAG_NEAR * it->bytes[i];
		if (near > most || (near == most && it->bytes[i] > R)) {
			most = near;
			R = it->bytes[i];
		}
	}
	if (!(R > 0) || FRAG_SHARE * most < n)
		return 0;
	long hidden = 0; /* steps inside iterations of several, no bound between */
	for (size_t i = 0; i < n; i++)
		if (it->bytes[i] >= FRAG_SEVERAL * R)
			hidden += lround(it->bytes[i] / R) - 1;
	if (hidden >= FRAG_HIDDEN)
		return 0;
	double *at = malloc(n * sizeof(double));
	if (!at)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	size_t m = 0;
	int join = 0; /* the parts before the first step join it */
	for (size_t i = 0; i < n;) {
		if (it->bytes[i] >= FRAG_WHOLE * R) {
			if (!join)
				at[m++] = it->bounds_s[i];
			join = 0;
			i++;
			continue;
		}
		size_t j = i;
		double sum = 0;
		while (j < n && it->bytes[j] < FRAG_WHOLE * R)
			sum += it->bytes[j++];
		long steps = lround(sum / R);
		if (m == 0 && sum < FRAG_WHOLE * R) {
			at[m++] = it->bounds_s[i];
			join = 1;
			i = j;
			continue;
		}
		double before = 0;
		for (size_t k = i, next = 0; k < j && next < (size_t)(steps > 0 ? steps : 0); k++) {
			/* the part whose bytes before it are nearest next * R */
			double here = fabs(before - (double)next * R);
			double later = k + 1 < j ? fabs(before + it->bytes[k] - (double)next * R) : INFINITY;
			if (here <= later) {
				at[m++] = it->bounds_s[k];
				next++;
			}
			before += it->bytes[k];
		}
		i = j;
	}
	int rc = m >= 4 && m < n ? reclock(c, NAN, at, m, NULL, SIZE_MAX, err) : 0;
	free(at);
	return rc < 0 ? -1 : 0;
}

static int stage_clock(stage_ctx *c, dmls_error *err)
{
	c->was_star = c->a->pattern.kind == DMLS_PAT_STAR;
	int rc = dmls_find_iterations(c->a, c->st, c->jpairs, c->njpairs, err);
	if (rc == 0)
		rc = reclock_by_ranks(c, err);
	return rc ? rc : regroup_fragments(c, err);
}

static int stage_shape_final(stage_ctx *c, dmls_error *err)
{
	dmls_pattern *p = &c->a->pattern;
	const dmls_iterations *it = &c->a->iter;
	dmls_pattern_refine(p, c->st, it->bounds_s, it->count);
	double win = isfinite(it->period_median_s) ? it->period_median_s : it->acf_period_s;
	if (!p->partial) { /* both need every rank's sending */
		dmls_pattern_check_pairwise(p, c->st, win);
		dmls_pattern_check_two(p, c->st);
		dmls_pattern_check_hub(p, c->st);
		dmls_pattern_star_node(p, c->st, it->bounds_s, it->count, it->end_s);
	}
	dmls_pattern_tree_root(p, c->st, it->bounds_s, it->count, it->end_s);
	if (!c->a->hub_one_at_a_time &&
	    (dmls_pattern_clique_rank(p, c->st, it->bounds_s, it->count) < 0 ||
	     dmls_pattern_doubling_rank(p, c->st, it->bounds_s, it->count) < 0))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (c->a->hub_one_at_a_time) { /* an asynchronous server or a gossiping rank */
		p->kind = DMLS_PAT_UNKNOWN;
		p->nhubs = 0;
		p->confidence = 0;
	}
	set_roles(c->st, p, c->job);
	return 0;
}

static int stage_clock_final(stage_ctx *c, dmls_error *err)
{
	if (c->was_star == (c->a->pattern.kind == DMLS_PAT_STAR) || c->a->hub_one_at_a_time)
		return 0; /* the same workers, or no step to find: the clock stands */
	return dmls_find_iterations(c->a, c->st, c->jpairs, c->njpairs, err);
}

/* Synchronous or not; an asynchronous job has no common step: its period
 * is each rank's (mode.ranks), its gradient size the bytes a worker sends
 * per exchange where the pattern says one exchange moves S (a parameter
 * server's push, a pair average). */
/*
 * Stalls that outlast the steps: on a path losing 2 %, an Open MPI ring of
 * 4 spent 85 % of its time in retransmission timeouts, inside steps as
 * much as between them; each rank's clock counted the chunks of the
 * ring's sub-steps (977 to 1170 "iterations" for 200 steps, the period
 * -80 %) and the ranks' clocks disagreed (the folder: "asynchronous").
 * When intervals of over 3 median periods hold STALLED_TIME of the job's
 * time and are STALLED_SHARE of its intervals or more (many stalls, not
 * one pause), the iterations are withheld and the mode unknown.  The
 * testbed's runs that are right, lossy ones included, hold at most 62 %
 * of their time in such intervals; a pause of an hour in one place is
 * one interval.
 */
#define STALLED_TIME 0.8
#define STALLED_SHARE 0.1
#define STALLED_MIN_STEPS 10

/*
 * Iterations of two kinds: a clock that counted steps and parts of steps
 * alike (a butterfly rank's own capture at 2 % loss: 52 "iterations" of
 * 0.217 s for 40 of 0.275 s) has its mean period far from its median and
 * durations with no one length.  When the mean is TWO_KINDS_RATIO times
 * the median or more and the durations' robust CV is TWO_KINDS_CV or more
 * (over TWO_KINDS_MIN_STEPS), the iterations are withheld.  On the
 * testbed's right runs and files (lossy ones included) the CV is 0.9 at
 * most and, where the mean is 1.45x the median (an RPC star at 1 % loss,
 * its stalls between steps), 0.36 at most.
 */
#define TWO_KINDS_RATIO 1.5
#define TWO_KINDS_CV 1.0
#define TWO_KINDS_MIN_STEPS 10

static double two_kinds(const dmls_iterations *it)
{
	if (it->count < TWO_KINDS_MIN_STEPS || !(it->period_median_s > 0) ||
	    !isfinite(it->period_s) || !(it->duration_cv >= TWO_KINDS_CV))
		return 0;
	double r = it->period_s / it->period_median_s;
	return r >= TWO_KINDS_RATIO ? r : 0;
}

static double stalled_share(const dmls_iterations *it)
{
	if (it->count < STALLED_MIN_STEPS || !(it->period_median_s > 0))
		return 0;
	double total = 0, in = 0;
	size_t n = 0;
	for (size_t i = 0; i + 1 < it->count; i++) {
		double d = it->comm_end_s[i + 1] - it->comm_end_s[i];
		total += d;
		if (d > 3 * it->period_median_s)
			in += d, n++;
	}
	return total > 0 && (double)n >= STALLED_SHARE * (double)(it->count - 1) &&
			       in >= STALLED_TIME * total
		       ? in / total
		       : 0;
}

/*
 * Synchronous pair averaging of an odd number of ranks (a round-robin
 * tournament): each step one rank has a bye, so a rank sends in N-1 of N
 * steps, its own clock breaks on the gaps and the ranks' clocks disagree;
 * the job's clock has a rank's bytes off its median in 1/N of the steps.
 * The testbed's pair averaging of 3, 5 and 7 ranks was "asynchronous",
 * with no period.  So, for a pairwise job seen whole: per rank and
 * iteration of the job's clock (the middle BYE_STEPS), its payload; a bye
 * is a step under BYE_SHARE of the rank's median.  Synchronous when every
 * rank's other steps move the same bytes (robust CV at most BYE_STEADY;
 * the testbed's: 0.0003 at most), its byes are at most BYE_MOST of the
 * steps and come in turn (at least BYE_TURN of them at one step number
 * modulo N: 77-100 %), and some rank has one.  Asynchronous pair
 * averaging's ranks answer requests at any time: the job's steps move
 * unlike bytes per rank (robust CV 0.74 on the testbed's of 3).
 */
#define BYE_SHARE 0.1
#define BYE_STEADY 0.1
#define BYE_MOST 0.4
#define BYE_TURN 0.5
#define BYE_STEPS 256

static int pairwise_byes(const dmls_analysis *a, const dmls_stats *st, const size_t *r, size_t n)
{
	const dmls_iterations *it = &a->iter;
	const dmls_pattern *p = &a->pattern;
	if (p->kind != DMLS_PAT_PAIRWISE || p->partial || n < 3 || n > 64 || it->count < 8)
		return 0;
	size_t from = it->count > BYE_STEPS + 2 ? (it->count - BYE_STEPS) / 2 : 1;
	size_t to = from + BYE_STEPS < it->count - 1 ? from + BYE_STEPS : it->count - 1;
	size_t steps = to - from, byes_seen = 0;
	double *v = malloc(steps * sizeof(double)), *on = malloc(steps * sizeof(double));
	int sync = v && on;
	for (size_t w = 0; sync && w < n; w++) {
		const dmls_series *s = &st->hosts[r[w]].tx_payload;
		double bin_s = (double)s->bin_ns * 1e-9;
		double off_s = (double)(s->t0_ns - st->t0_ns) * 1e-9;
		for (size_t k = from; k < to; k++)
			v[k - from] = dmls_series_range(
				s, (int64_t)floor((it->bounds_s[k] - off_s) / bin_s),
				(int64_t)floor((it->bounds_s[k + 1] - off_s) / bin_s), NULL);
		memcpy(on, v, steps * sizeof(double));
		double med = dmls_median(on, steps);
		size_t non = 0, byes = 0, at[64] = {0}, most = 0;
		for (size_t k = 0; k < steps; k++) {
			if (v[k] < BYE_SHARE * med)
				byes++, at[k % n]++;
			else
				on[non++] = v[k];
		}
		for (size_t j = 0; j < n; j++)
			most = at[j] > most ? at[j] : most;
		byes_seen += byes;
		sync = med > 0 && (double)byes <= BYE_MOST * (double)steps && non >= 2 &&
		       dmls_robust_cv(on, non) <= BYE_STEADY &&
		       (double)most >= BYE_TURN * (double)byes;
	}
	free(v);
	free(on);
	return sync && byes_seen > 0;
}

/*
 * The job's own train log keeps its steps: a traffic clock whose period
 * is k >= 2 times the log's steady step (within LOG_MULTIPLE_TOL of it)
 * counted k steps as one, every iteration's bytes alike.  On a path
 * losing 2 %, stalls shuffle the ranks' order from step to step and the
 * byte clock can take two steps for one where the ranks' own clocks do
 * not agree on anything better (a DDP ring of MobileNetV2: 10 of 0.99 s
 * for 20 of 0.476 s; a clique of 5: 19 of 0.376 s for 40 of 0.165 s, S
 * doubled in both): count, period and S are withheld with a note.  k, or
 * 0 (no log, or a period not a multiple of its step).
 */
#define LOG_MULTIPLE_TOL 0.15
/* Batch rows the log needs: its steady step from the second row on spans
 * 2 steps or more (a log cut to 2 rows gave its first step, warm-up and
 * all, and withheld a job for 4 of them) */
#define LOG_MULTIPLE_STEPS 4
static double log_multiple(const dmls_trainlog *log, const dmls_iterations *it)
{
	if (!log || log->steps < LOG_MULTIPLE_STEPS || !(log->steady_step_s > 0) ||
	    !(it->period_s > 0) || it->count < 2)
		return 0;
	double r = it->period_s / log->steady_step_s, k = round(r);
	return k >= 2 && fabs(r - k) <= LOG_MULTIPLE_TOL * k ? k : 0;
}

/*
 * A worker's bytes per iteration can vary where the job's do not: on a
 * lossy path a butterfly's ranks send late by varying amounts, and a
 * rank's last sends of a step fall on either side of the job's boundary
 * (the testbed's butterfly of 8 at 1 % loss: 21 % of the (worker,
 * iteration) cells 25 % off the worker's median, while the job's 40
 * iterations moved their median within 7 % each, 40 of its 40 steps, its
 * period within 0.1 %).  The job's own bytes then tell that the count is
 * right: 1 when at least REPEAT_SHARE of its iterations (8 or more) move
 * their median within REPEAT_NEAR and the workers' outliers stay under
 * REPEAT_OUTLIERS.
 */
#define REPEAT_MIN 8
#define REPEAT_NEAR 0.1
#define REPEAT_SHARE 0.9
#define REPEAT_OUTLIERS 0.35

static int job_bytes_repeat(const dmls_iterations *it)
{
	if (it->count < REPEAT_MIN || !it->bytes || !(it->bytes_outliers <= REPEAT_OUTLIERS))
		return 0;
	double *v = malloc(it->count * sizeof(double));
	if (!v)
		return 0;
	memcpy(v, it->bytes, it->count * sizeof(double));
	double m = dmls_median(v, it->count);
	free(v);
	size_t near = 0;
	for (size_t i = 0; i < it->count; i++)
		near += fabs(it->bytes[i] - m) <= REPEAT_NEAR * m;
	return m > 0 && (double)near >= REPEAT_SHARE * (double)it->count;
}

/*
 * A synchronous collective's clocks out of step: a ring, a tree, a
 * butterfly, a clique or a hierarchical all-reduce holds every rank to the
 * step (each waits for its peers' data), so its ranks cannot keep paces of
 * their own.  When their clocks read asynchronous anyway, the clocks are
 * what went wrong: Open MPI's ring of 12 ranks on 2 cores cut each rank's
 * step at its 22 sub-steps' waits, as long as the compute phase, and the
 * ranks counted 54-67 "exchanges" of S for 36 steps, locked in 74 % of
 * them: "asynchronous", where truth is one step of 0.36 s.  Then the mode
 * is unknown and count, period and S are withheld.  An asynchronous job
 * keeps the kinds whose ranks need not wait (star, pairwise) or none.
 */
static const char *sync_collective(const dmls_pattern *p)
{
	int sync = p->kind == DMLS_PAT_RING || p->kind == DMLS_PAT_TREE ||
		   p->kind == DMLS_PAT_BUTTERFLY || p->kind == DMLS_PAT_CLIQUE ||
		   p->kind == DMLS_PAT_HIERARCHICAL;
	return sync ? dmls_pattern_name(p->kind) : NULL;
}

/*
 * One host's capture around which the data make an asynchronous star: a
 * server's (answering each worker at its pace), or a rank's of gossip or
 * pair averaging (pushing its vector to a random peer after each step and
 * answering or taking the others').  A server answers a worker's push at
 * once and the worker pushes again after its compute; such a rank sends
 * after its own steps, and its peers after theirs.  So the hub's answer
 * delay over its spokes' (dmls_hub_answers, pattern_two.c): the testbed's
 * asynchronous server (-i any, 5 ranks) 0.13, its gossiping (4, 5 ranks)
 * and pair-averaging (5) ranks 0.67-1.46.  From HUB_ANSWERS up the hub is
 * no server, and the kind is unknown: the others' exchanges among
 * themselves are not in the capture (each rank's file had read "star").
 * Returns the ratio, or 0.
 */
#define HUB_ANSWERS 0.3
static double hub_answers(const dmls_pattern *p, const dmls_stats *st)
{
	if (p->kind != DMLS_PAT_STAR || p->nhubs != 1 || p->partial || p->ranks < 3 ||
	    dmls_view_center(st) != p->hubs[0])
		return 0;
	double r = dmls_hub_answers(st, p->hubs[0], p->members, p->ranks);
	return r >= HUB_ANSWERS ? r : 0;
}

static int stage_mode(stage_ctx *c, dmls_error *err)
{
	dmls_analysis *a = c->a;
	const dmls_pattern *p = &a->pattern;
	const size_t *r = p->partial ? p->observed : p->members;
	size_t n = p->partial ? p->nobserved : p->ranks;
	a->stalled_share = a->hub_one_at_a_time ? 0 : stalled_share(&a->iter);
	if (a->stalled_share > 0) {
		memset(&a->mode, 0, sizeof(a->mode));
		a->mode.period_spread = a->mode.phase_spread = a->mode.step_lock = NAN;
		a->mode.why = "stalls outlast the steps: their clocks cannot be compared";
		a->iter_found = a->iter.count;
		a->iter_unsure = 1;
		a->iter.period_s = a->iter.period_median_s = NAN;
		a->iter.bytes_per_worker = NAN;
		return 0;
	}
	if (a->hub_one_at_a_time) { /* its sending mixes paces: no clock of its own */
		memset(&a->mode, 0, sizeof(a->mode));
		a->mode.period_spread = a->mode.phase_spread = a->mode.step_lock = NAN;
		a->mode.why = "one sender to many, each at a clock of its own: its own steps are not "
			      "seen apart";
		a->iter_found = a->iter.count;
		return 0;
	}
	/* a star's hubs keep no step of their own (an asynchronous server's
	 * sending follows whichever worker pushed): its workers' clocks */
	size_t *workers = NULL;
	if (p->kind == DMLS_PAT_STAR && !p->partial && p->nhubs > 0 && n >= p->nhubs + 2 &&
	    (workers = malloc(n * sizeof(size_t)))) {
		size_t nw = 0;
		for (size_t i = 0; i < n; i++) {
			int hub = 0;
			for (size_t k = 0; k < p->nhubs; k++)
				hub |= p->hubs[k] == r[i];
			if (!hub)
				workers[nw++] = r[i];
		}
		r = workers, n = nw;
	}
	if (pairwise_byes(a, c->st, r, n)) {
		free(workers);
		memset(&a->mode, 0, sizeof(a->mode));
		a->mode.period_spread = a->mode.phase_spread = a->mode.step_lock = NAN;
		a->mode.mode = DMLS_MODE_SYNC;
		a->mode.why = "pair averaging in lockstep: the job's steps are steady, each rank "
			      "sends in every step but its byes";
		a->iter_found = a->iter.count;
		return 0;
	}
	dmls_exchanges ex = {0};
	int have_ex = p->kind == DMLS_PAT_PAIRWISE && !p->partial && n <= DMLS_MODE_MAX_RANKS &&
		      dmls_exchanges_find(&ex, c->st, r, n) == 0;
	/* a partial view counts a rank's whole sending, unless its host is in
	 * two jobs (then the job's pairs: its ranks are the job's hosts) or
	 * sends a stream beside the job (background_of) */
	int whole = p->partial && p->center_jobs < 2 && !a->background_flows;
	/* a clock taken from one rank's bounds (reclock_by_ranks) says nothing
	 * of the others: their own clocks decide */
	int one_rank = a->iter.method && !strcmp(a->iter.method, "rank-clock");
	int rc = dmls_mode_find(&a->mode, c->st, r, n, whole ? NULL : c->jpairs,
				whole ? 0 : c->njpairs, have_ex ? &ex : NULL,
				one_rank ? NULL : &a->iter, err);
	if (have_ex)
		dmls_exchanges_release(&ex);
	free(workers);
	a->iter_found = a->iter.count;
	if (rc == 0 && a->mode.mode == DMLS_MODE_ASYNC && (a->sync_kind = sync_collective(p))) {
		/* its algorithm holds every rank to the step: the clocks drifted */
		a->mode.mode = DMLS_MODE_UNKNOWN;
		a->mode.why = "a synchronous collective whose ranks' own clocks disagree: "
			      "not compared";
		a->iter_unsure = 1;
		a->iter.period_s = a->iter.period_median_s = NAN;
		a->iter.bytes_per_worker = NAN;
		return 0;
	}
	if (rc == 0 && a->mode.mode == DMLS_MODE_ASYNC && (a->hub_answers = hub_answers(p, c->st)) > 0) {
		a->pattern.kind = DMLS_PAT_UNKNOWN; /* no server: who else exchanges is unseen */
		a->pattern.nhubs = 0;
		a->pattern.confidence = 0;
		set_roles(c->st, p, c->job);
	}
	const dmls_iterations *it = &a->iter;
	/* no unit tiles the bytes (parts of steps, or several, counted), or
	 * steps and parts of steps counted alike (two_kinds), or each
	 * iteration is k steps of the train log's (log_multiple) */
	if (rc == 0 && a->mode.mode != DMLS_MODE_ASYNC &&
	    ((it->count >= 4 && isfinite(it->bytes_outliers) &&
	      it->bytes_outliers > UNSURE_OUTLIERS && !job_bytes_repeat(it)) ||
	     (a->two_kinds = two_kinds(it)) > 0 ||
	     (a->log_multiple = log_multiple(c->log, it)) > 0 || a->ranks_apart > 0)) {
		a->iter_unsure = 1;
		a->iter.period_s = a->iter.period_median_s = NAN;
		a->iter.bytes_per_worker = NAN;
		return 0;
	}
	if (rc || a->mode.mode != DMLS_MODE_ASYNC)
		return rc;
	a->iter.period_s = a->iter.period_median_s = NAN;
	a->iter.regularity = a->iter.duration_cv = NAN;
	if (p->kind != DMLS_PAT_STAR && p->kind != DMLS_PAT_PAIRWISE)
		a->iter.bytes_per_worker = NAN; /* per exchange is not per step */
	else {
		double *v = malloc((a->mode.nranks ? a->mode.nranks : 1) * sizeof(double));
		size_t nv = 0;
		for (size_t i = 0; v && i < a->mode.nranks; i++) {
			const dmls_rank_clock *k = &a->mode.ranks[i];
			if (c->st->hosts[k->host].role == DMLS_ROLE_WORKER && isfinite(k->bytes_per_exchange))
				v[nv++] = k->bytes_per_exchange;
		}
		a->iter.bytes_per_worker = nv ? dmls_median(v, nv) : NAN;
		free(v);
	}
	return 0;
}

/* Two jobs on the same hosts (connections.c): a job whose split data
 * pairs mostly keep two clocks on their connections (synchronous: two
 * pairs tested at least; of unknown mode: steady clocks) mixes two jobs'
 * steps and bytes; its count, period and S are withheld.  Two such jobs
 * can leave each rank's clock a blend of both, out of lockstep with the
 * others' (a TinyCNN and a MobileNetV2 ring of 4: "asynchronous"): an
 * asynchronous job is two when two pairs or more were tested and every
 * one keeps two steady clocks (connections.c, CONN_STEADY_CV) at the same
 * two periods (CONN_AGREE).  TensorPipe's pair averaging keeps neither:
 * each connection carries the requests of whichever peer picked it, at
 * random, so its clock's steps vary (robust CV 0.41-1.1), and where the
 * ranks keep one pace its pairs' two clocks can agree by chance (7 ranks
 * without a pace: 0.113 and 0.437 s on one pair, 0.115 and 0.407 s on
 * another, read as two jobs with count, period and S withheld). */
static int stage_connections(stage_ctx *c, dmls_error *err)
{
	dmls_analysis *a = c->a;
	if (dmls_connections_check(a, c->st, c->job))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	int sync = a->mode.mode == DMLS_MODE_SYNC, async = a->mode.mode == DMLS_MODE_ASYNC;
	size_t apart = sync ? a->conn_apart : a->conn_apart_steady;
	if (async ? a->conn_tested < 2 || a->conn_apart_agree < a->conn_tested ||
			    a->conn_apart_steady < a->conn_tested
		  : (a->conn_tested < (sync ? 2u : 1u) || 2 * apart <= a->conn_tested) &&
			    !(sync && a->pair_groups >= 2))
		return 0;
	a->two_jobs = 1;
	a->two_jobs_sync = sync;
	a->mode.mode = DMLS_MODE_UNKNOWN; /* each rank's clock (mode.ranks) stays */
	a->mode.why = a->pair_groups >= 2
			      ? "two jobs on the same hosts: their data pairs keep steps of their own"
			      : "two jobs on the same hosts: their connections keep steps of their own";
	a->iter_found = a->iter.count;
	a->iter_unsure = 1;
	a->iter.period_s = a->iter.period_median_s = NAN;
	a->iter.bytes_per_worker = NAN;
	return 0;
}

static int stage_volume(stage_ctx *c, dmls_error *err)
{
	(void)err;
	gradient_size(c->a, c->st);
	return 0;
}

static int stage_phases(stage_ctx *c, dmls_error *err)
{
	(void)err;
	double pm = c->a->iter.period_median_s; /* a compute phase: a gap of 5 % of a step */
	dmls_phases_compute(&c->a->phases, &c->st->total_payload,
			    isfinite(pm) ? fmax(PHASE_GAP_S, PHASE_GAP_SHARE * pm) : PHASE_GAP_S);
	return 0;
}

static int cmp_sent(const void *x, const void *y, void *ctx)
{
	const dmls_stats *st = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	uint64_t u = st->hosts[a].tx_payload_bytes, v = st->hosts[b].tx_payload_bytes;
	return u != v ? (u < v ? 1 : -1) : (a > b) - (a < b);
}

static int cmp_idx(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return (a > b) - (a < b);
}

/* Per-host burstiness: every host up to DMLS_BURST_MAX_HOSTS, else the
 * ones that sent the most payload (a scan's thousands of one-packet hosts
 * have no burstiness worth a line each), in table order.  From the host's
 * online stream where it has one (stats.h), else from its series, whose bins
 * may have grown on a long capture (time scales below a bin are then null). */
static int stage_burst(stage_ctx *c, dmls_error *err)
{
	dmls_analysis *a = c->a;
	const dmls_stats *st = c->st;
	double dur = dmls_stats_duration_s(st);
	a->burst_total = st->burst_total; /* the burst sink's, 100 us bins */
	size_t n = st->nhosts < DMLS_BURST_MAX_HOSTS ? st->nhosts : DMLS_BURST_MAX_HOSTS;
	a->burst_host = calloc(n ? n : 1, sizeof(dmls_burst));
	a->burst_host_idx = malloc((st->nhosts ? st->nhosts : 1) * sizeof(size_t));
	if (!a->burst_host || !a->burst_host_idx)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t i = 0; i < st->nhosts; i++)
		a->burst_host_idx[i] = i;
	if (st->nhosts > n) {
		qsort_r(a->burst_host_idx, st->nhosts, sizeof(size_t), cmp_sent, (void *)st);
		qsort(a->burst_host_idx, n, sizeof(size_t), cmp_idx);
	}
	a->nhosts = n;
	for (size_t i = 0; i < n; i++) {
		const dmls_host *h = &st->hosts[a->burst_host_idx[i]];
		if (h->tx_burst && !h->tx_burst->s.oom && !DMLS_STATS_DISORDERED(st))
			/* online, 1 ms: exact however long (in time order) */
			dmls_burst_stream_result(&h->tx_burst->s, dur, &a->burst_host[i]);
		else
			dmls_burst_compute(&a->burst_host[i], &h->tx_payload, dur);
	}
	if (st->packets >= 2 && st->first_ns == st->last_ns) /* one instant: no rates */
		for (size_t i = 0; i <= n; i++) {
			dmls_burst *b = i < n ? &a->burst_host[i] : &a->burst_total;
			b->mean_bps = NAN;
			for (size_t t = 0; t < DMLS_NTAU; t++)
				b->peak_to_mean[t] = NAN;
		}
	return 0;
}

static int stage_train_log(stage_ctx *c, dmls_error *err)
{
	const dmls_analysis *a = c->a;
	return dmls_trainlog_metrics_compute(&c->a->log, c->st, c->log, a->iter.period_s,
					     a->job_wire_bytes, a->job_end_s - a->job_start_s, err);
}

static int (*const stages[])(stage_ctx *, dmls_error *) = {
	stage_shape, stage_clock, stage_shape_final, stage_clock_final, stage_mode,
	stage_connections, stage_volume, stage_phases, stage_burst, stage_train_log,
};
#define SUB_STAGES 7 /* shape .. volume: what another job than the top gets */

/* The analysis' window on st (stats.h): the busiest of the runs back to
 * back of job's hosts (NULL: every host's), or the whole capture; a (may
 * be NULL) lists the runs. */
static int set_runs(dmls_stats *st, const dmls_job_scope *job, dmls_analysis *a, dmls_error *err)
{
	size_t nh = job ? job->n : st->nhosts, *all = NULL;
	if (!job && !(all = malloc((nh ? nh : 1) * sizeof(size_t))))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t i = 0; !job && i < nh; i++)
		all[i] = i;
	int rc = dmls_job_runs(st, job ? job->hosts : all, nh, &st->run_from_ns, &st->run_to_ns,
			       &st->runs, a ? a->run_list : NULL, DMLS_RUNS_LISTED,
			       a ? &a->nrun_list : NULL);
	free(all);
	return rc ? dmls_fail(err, DMLS_ENOMEM, "out of memory") : 0;
}

static int run_stages(dmls_analysis *a, dmls_stats *st, const dmls_trainlog *log,
		      const dmls_job_scope *job, size_t njobs, const size_t *in_split,
		      const size_t *jpairs, size_t njpairs, dmls_error *err)
{
	stage_ctx c = {a, st, log, 0, job, njobs, in_split, jpairs, njpairs};
	size_t nstages = sizeof(stages) / sizeof(stages[0]);
	if (a->job_id > 0)
		nstages = SUB_STAGES; /* the rest are the capture's */
	/* the job's runs back to back: its clocks read the busiest (stretch.c) */
	int rc = set_runs(st, job, a, err);
	for (size_t i = 0; i < nstages && rc == 0; i++)
		rc = stages[i](&c, err);
	st->run_from_ns = INT64_MIN, st->run_to_ns = INT64_MAX, st->runs = 1;
	return rc;
}

/* The job's own time base: its packets are those between two of its hosts,
 * or between one of them and a host of no job (its control plane: a
 * launcher, a store); in_any counts the jobs each host is in.  One of two
 * jobs on the very same hosts has its data pairs' alone (the view's: its
 * own connections; the control plane of the two is not told apart). */
static void job_time_base(dmls_analysis *a, const dmls_stats *st, const dmls_job_scope *job,
			  const size_t *in_any, unsigned char *mine)
{
	memset(mine, 0, st->nhosts);
	for (size_t i = 0; i < job->n; i++)
		mine[job->hosts[i]] = 1;
	int64_t first = INT64_MAX, last = INT64_MIN;
	double wire = 0;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		int in = (mine[pr->src] && (mine[pr->dst] || !in_any[pr->dst])) ||
			 (mine[pr->dst] && !in_any[pr->src]);
		if (!in || pr->packets == 0 ||
		    (job->conn_period_s > 0 && (double)pr->payload_bytes < job->thr))
			continue;
		wire += (double)pr->wire_bytes;
		first = pr->first_ns < first ? pr->first_ns : first;
		last = pr->last_ns > last ? pr->last_ns : last;
	}
	if (first > last)
		return;
	a->job_start_s = (double)(first - st->t0_ns) * 1e-9;
	a->job_end_s = (double)(last - st->t0_ns) * 1e-9;
	a->job_wire_bytes = wire;
}

/* A job with a host in another job too: the pairs between its hosts (mine,
 * set by job_time_base) into jp; 0 when no host is shared. */
static size_t shared_pairs(const dmls_stats *st, const dmls_job_scope *job, const size_t *in_any,
			   const unsigned char *mine, size_t *jp)
{
	int shared = 0;
	for (size_t i = 0; i < job->n; i++)
		shared |= in_any[job->hosts[i]] > 1;
	if (!shared)
		return 0;
	size_t n = 0;
	for (size_t k = 0; k < st->npairs; k++)
		if (mine[st->pairs[k].src] && mine[st->pairs[k].dst] &&
		    st->pairs[k].src != st->pairs[k].dst)
			jp[n++] = k;
	return n;
}

/* One of two jobs on the very same hosts (split_colocated): its data
 * pairs' threshold as jobs.c cuts, at the scale of its view's own pairs
 * (mine: its hosts). */
static double twin_thr(const dmls_stats *view, const dmls_job_scope *job,
		       const unsigned char *mine)
{
	double m = 0;
	for (size_t k = 0; k < view->npairs; k++) {
		const dmls_pair *pr = &view->pairs[k];
		double w = dmls_pair_payload_in_run(view, pr);
		if (mine[pr->src] && mine[pr->dst] && pr->src != pr->dst && w > m)
			m = w;
	}
	return m > 0 ? fmin(job->thr, DMLS_EDGE_FRACTION * m) : job->thr;
}

/* One of two jobs on the very same hosts whose view leaves some of them
 * without data (a hierarchical job on hosts 0-3 beside a ring on 0-4: its
 * view of host 4 holds none) keeps those with data alone, two or more:
 * job's hosts into own (job->n of them), job then pointing there. */
static void twin_hosts(const dmls_stats *view, dmls_job_scope *job, const unsigned char *mine,
		       size_t *own)
{
	size_t m = 0;
	for (size_t i = 0; i < job->n; i++) {
		size_t h = job->hosts[i];
		int data = 0;
		for (size_t k = 0; k < view->npairs && !data; k++) {
			const dmls_pair *pr = &view->pairs[k];
			double w = dmls_pair_payload_in_run(view, pr);
			data = (pr->src == h || pr->dst == h) && pr->src != pr->dst && mine[pr->src] &&
			       mine[pr->dst] && w >= job->thr && w > 0;
		}
		if (data)
			own[m++] = h;
	}
	if (m >= 2 && m < job->n)
		job->hosts = own, job->n = m;
}

static dmls_analysis *analysis_new(size_t job_id)
{
	dmls_analysis *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->gradient_bytes = a->expected_iter_bytes = a->observed_iter_bytes = NAN;
	a->server_bytes = a->job_start_s = a->job_end_s = a->job_wire_bytes = NAN;
	a->capture_start_s = a->capture_end_s = NAN;
	a->twin_period_s = a->twin_other_s = NAN;
	a->job_id = job_id;
	return a;
}

/* The bulk transfers from or to the job's hosts left out of the capture's
 * view (dmls_job_view_background: flow_hidden 1, or 2 where its pair is
 * counted whole; 3 are their acknowledgements). */
static void background_of(dmls_analysis *x, const dmls_stats *st, const dmls_job_scope *job)
{
	if (!st->flow_hidden)
		return;
	for (size_t k = 0; k < st->nflows; k++) {
		const dmls_flow *fl = &st->flows[k];
		size_t ends = 0;
		/* 3: its acknowledgements; 4: those of a stream the capture does
		 * not hold (a rank's own capture of one into it) */
		int stream = st->flow_hidden[k] == 1 || st->flow_hidden[k] == 2 ||
			     st->flow_hidden[k] == 4;
		for (size_t i = 0; stream && i < job->n; i++)
			ends += (job->hosts[i] == fl->src) + (job->hosts[i] == fl->dst);
		if (ends == 0)
			continue;
		x->background_flows++;
		x->background_payload_bytes += (double)fl->payload_bytes;
		x->background_unsplit += st->flow_hidden[k] == 2;
	}
}

/* Every job's analysis, the smaller ones first (a host of two jobs keeps
 * its role in the larger), the largest into a itself. */
static int run_jobs(dmls_analysis *a, dmls_stats *st, const dmls_trainlog *log,
		    const dmls_job_scope *jobs, size_t njobs, dmls_error *err)
{
	size_t n = njobs < DMLS_MAX_JOBS ? njobs : DMLS_MAX_JOBS;
	size_t *in_any = calloc(st->nhosts ? st->nhosts : 1, sizeof(size_t));
	size_t *in_split = calloc(st->nhosts ? st->nhosts : 1, sizeof(size_t));
	unsigned char *mine = malloc(st->nhosts ? st->nhosts : 1);
	size_t *jp = malloc((st->npairs ? st->npairs : 1) * sizeof(size_t));
	a->jobs = calloc(n ? n : 1, sizeof(*a->jobs));
	if (!in_any || !in_split || !mine || !jp || !a->jobs) {
		free(in_any);
		free(in_split);
		free(mine);
		free(jp);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	for (size_t j = 0; j < njobs; j++)
		for (size_t i = 0; i < jobs[j].n; i++) {
			in_any[jobs[j].hosts[i]]++;
			in_split[jobs[j].hosts[i]] += jobs[j].by_clock != 0;
		}
	for (size_t j = 0; j < njobs; j++)
		a->jobs_unsure |= jobs[j].by_clock == 2;
	a->jobs_found = njobs;
	a->njobs = n;
	int rc = 0;
	for (size_t j = n; j-- > 0 && rc == 0;) {
		dmls_analysis *x = j ? analysis_new(j) : a;
		if (!x) {
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
			break;
		}
		a->jobs[j] = x;
		x->jobs_found = njobs;
		job_time_base(x, st, &jobs[j], in_any, mine);
		size_t np = shared_pairs(st, &jobs[j], in_any, mine, jp);
		int viewed = np != 0;
		/* pairs shared with another job: what is this job's (jobs_overlap.c) */
		dmls_job_view v;
		if (np && dmls_job_view_make(&v, st, jobs, njobs, j) < 0) {
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
			break;
		}
		x->pairs_told = np ? v.replaced + v.dropped : 0;
		background_of(x, st, &jobs[j]);
		dmls_job_scope job = jobs[j];
		size_t *own = NULL;
		if (x->pairs_told && job.conn_period_s > 0) {
			job.thr = twin_thr(&v.view, &job, mine);
			x->twin_period_s = job.conn_period_s;
			x->twin_other_s = job.conn_other_s;
			if (!(own = malloc(job.n * sizeof(size_t)))) {
				dmls_job_view_release(&v);
				rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
				break;
			}
			twin_hosts(&v.view, &job, mine, own);
		}
		if (x->pairs_told)
			job_time_base(x, &v.view, &job, in_any, mine);
		if (own) /* the pairs between the hosts it kept */
			np = shared_pairs(st, &job, in_any, mine, jp);
		if (x->background_flows && !np) /* its clock on its pairs: its hosts'
						 * sending holds the streams */
			for (size_t k = 0; k < st->npairs; k++)
				if (mine[st->pairs[k].src] && mine[st->pairs[k].dst] &&
				    st->pairs[k].src != st->pairs[k].dst && st->pairs[k].packets)
					jp[np++] = k;
		rc = run_stages(x, x->pairs_told ? &v.view : st, j ? NULL : log, &job, njobs,
				in_split, np ? jp : NULL, np, err);
		if (viewed)
			dmls_job_view_release(&v);
		free(own);
		if (jobs[j].by_clock == 2) /* an unsure split (jobs_shared.c): maybe part of a job */
			x->pattern.confidence *= 0.5;
		if (rc == 0 && j)
			dmls_notes_job(x, st);
	}
	free(in_any);
	free(in_split);
	free(mine);
	free(jp);
	return rc;
}

/*
 * The volume matrix's components are jobs by their bytes alone; one that
 * moves data without steps (one iteration, no pattern, not asynchronous:
 * a bulk transfer, a backup or an iperf sharing the network) is other
 * traffic.  When some other component has steps, the components without
 * are analyzed after those (the largest with steps is the top level, even
 * where a bulk transfer moves more), then left out of the jobs; their
 * hosts keep the role other, and a note counts them.
 */
static int stepless(const dmls_analysis *x)
{
	return x->iter.count == 1 && x->pattern.kind == DMLS_PAT_UNKNOWN &&
	       x->mode.mode != DMLS_MODE_ASYNC && !x->hub_one_at_a_time;
}

static dmls_analysis *top_new(const dmls_stats *st)
{
	dmls_analysis *a = analysis_new(0);
	if (a && st->packets) {
		a->capture_start_s = (double)(st->first_ns - st->t0_ns) * 1e-9;
		a->capture_end_s = (double)(st->last_ns - st->t0_ns) * 1e-9;
	}
	return a;
}

/* The components without steps out of a's jobs (see above); *a may be
 * made again, with jobs[0..n) reordered. */
static int leave_stepless(dmls_analysis **ap, dmls_stats *st, const dmls_trainlog *log,
			  dmls_job_scope *jobs, size_t njobs, dmls_error *err)
{
	dmls_analysis *a = *ap;
	size_t n = a->njobs, none = 0;
	for (size_t j = 0; j < n; j++)
		none += stepless(a->jobs[j]);
	if (none == 0 || none == n)
		return 0;
	if (stepless(a)) { /* the largest has no steps: the others first */
		unsigned char *flag = malloc(n);
		dmls_job_scope *order = malloc(n * sizeof(*order));
		if (!flag || !order) {
			free(flag);
			free(order);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		size_t k = 0;
		for (size_t j = 0; j < n; j++)
			flag[j] = (unsigned char)stepless(a->jobs[j]);
		for (int pass = 0; pass < 2; pass++)
			for (size_t j = 0; j < n; j++)
				if (flag[j] == pass)
					order[k++] = jobs[j];
		memcpy(jobs, order, n * sizeof(*order));
		free(flag);
		free(order);
		dmls_analysis_free(a);
		*ap = a = top_new(st);
		if (!a)
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		for (size_t i = 0; i < st->nhosts; i++)
			st->hosts[i].role = DMLS_ROLE_OTHER;
		int rc = run_jobs(a, st, log, jobs, njobs, err);
		if (rc)
			return rc;
		if (stepless(a))
			return 0; /* the reordering changed what the top job shares: as found */
	}
	unsigned char *drop = calloc(a->njobs, 1);
	if (!drop)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t j = 1; j < a->njobs; j++)
		drop[j] = (unsigned char)stepless(a->jobs[j]);
	for (size_t j = 1; j < a->njobs; j++) {
		if (!drop[j])
			continue;
		a->stepless++;
		a->stepless_hosts += jobs[j].n;
		a->stepless_payload_bytes += jobs[j].payload_bytes;
		for (size_t i = 0; i < jobs[j].n; i++) { /* other, unless in a job kept */
			size_t h = jobs[j].hosts[i];
			int kept = 0;
			for (size_t q = 0; q < a->njobs && !kept; q++)
				for (size_t m = 0; !drop[q] && m < jobs[q].n && !kept; m++)
					kept = jobs[q].hosts[m] == h;
			if (!kept)
				st->hosts[h].role = DMLS_ROLE_OTHER;
		}
	}
	size_t k = 0;
	for (size_t j = 0; j < a->njobs; j++) {
		if (drop[j]) {
			dmls_analysis_free(a->jobs[j]);
			continue;
		}
		a->jobs[k] = a->jobs[j];
		a->jobs[k]->job_id = k;
		k++;
	}
	free(drop);
	a->njobs = k;
	for (size_t j = 0; j < k; j++)
		a->jobs[j]->jobs_found -= a->stepless;
	return 0;
}

/*
 * One job read twice.  From one rank's capture (a partial view) the
 * rounds of jobs.c can make two jobs of one: the rank's ring edge is the
 * first round's, its one-off sends to the job's other ranks (DDP's
 * initial broadcast of the parameters, a sixth of the edge's bytes) a
 * later round's component with that rank in it.  Each is then read on
 * the observed rank's data edges to all its contacts (pattern_view.c), so
 * both read the very same ranks on the very same pairs: one job, told
 * twice (74 of 1258 per-rank captures of the testbed's runs, the bundled
 * ring's worker-0 among them).  A later job whose partial reading has the
 * members of an earlier one and data pairs all the earlier's (or the other
 * way round) is left out, and the jobs are read again: the earlier reads
 * those sends as its control plane, as it did (its members hold their
 * hosts).  Readings that differ in a rank or a pair stay apart.
 */
static int has_all(const size_t *x, size_t nx, const size_t *y, size_t ny)
{
	for (size_t i = 0; i < nx; i++) {
		size_t k = 0;
		while (k < ny && y[k] != x[i])
			k++;
		if (k == ny)
			return 0;
	}
	return 1;
}

static int read_alike(const dmls_pattern *x, const dmls_pattern *y)
{
	if (!x->partial || !y->partial || !x->npairs || !y->npairs || x->ranks != y->ranks ||
	    !has_all(x->members, x->ranks, y->members, y->ranks))
		return 0;
	return x->npairs <= y->npairs ? has_all(x->pairs, x->npairs, y->pairs, y->npairs)
				      : has_all(y->pairs, y->npairs, x->pairs, x->npairs);
}

static int leave_read_twice(dmls_analysis **ap, dmls_stats *st, const dmls_trainlog *log,
			   dmls_job_scope *jobs, size_t *njobs, dmls_error *err)
{
	dmls_analysis *a = *ap;
	size_t n = a->njobs, twice = 0;
	unsigned char *gone = calloc(n ? n : 1, 1);
	if (!gone)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t j = 1; j < n; j++)
		for (size_t i = 0; i < j && !gone[j]; i++)
			if (!gone[i] && read_alike(&a->jobs[i]->pattern, &a->jobs[j]->pattern))
				gone[j] = 1, twice++;
	size_t k = 0;
	for (size_t j = 0; twice && j < *njobs; j++) {
		if (j < n && gone[j]) {
			free(jobs[j].hosts);
			continue;
		}
		jobs[k++] = jobs[j];
	}
	free(gone);
	if (!twice)
		return 0;
	*njobs = k;
	dmls_analysis_free(a);
	*ap = a = top_new(st);
	if (!a)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t i = 0; i < st->nhosts; i++)
		st->hosts[i].role = DMLS_ROLE_OTHER;
	return run_jobs(a, st, log, jobs, *njobs, err);
}

/*
 * Two jobs on the very same hosts (stage_connections: their split data
 * pairs' connections keep two steady clocks apart) are two jobs of those
 * hosts, each with its connections' period (dmls_job_scope.conn_period_s)
 * and its connection on the first split pair (conn_ref), the one of the
 * heavier connection first.  Each reads its view of the pairs
 * (dmls_job_view_make: on each pair, the connection whose clock keeps its
 * period, or where the periods are within COLO_APART whose steps lock to
 * its conn_ref, is its own, the other job's hidden), as two jobs on
 * overlapping hosts read the pairs they share, on the hosts its view has
 * data on (twin_hosts).  Kept only when each of the two reads a view with
 * every split pair told; else the job stays one, withheld, as found.  The
 * analysis is then made again.
 */
#define COLO_APART 0.1 /* the two periods apart by more than this */

static int colocated(const dmls_analysis *x, const dmls_job_scope *job)
{
	const double *p = x->conn_period_s;
	int sure = x->conn_apart_steady > 0 ||
		   (x->conn_tested >= 2 && x->conn_apart_agree == x->conn_tested);
	if (!x->two_jobs || x->pair_groups >= 2 || job->conn_period_s != 0 || !isfinite(p[0]) ||
	    !isfinite(p[1]) || p[0] <= 0 || x->conn_flow[0] == SIZE_MAX)
		return 0;
	if (p[1] > (1 + COLO_APART) * p[0])
		return sure;
	/* closer: told by their steps (the views' lock to each job's
	 * connection), where the job's ranks kept one step */
	return x->two_jobs_sync && x->conn_apart_steady > 0;
}

static int split_colocated(dmls_analysis **ap, dmls_stats *st, const dmls_trainlog *log,
			   dmls_job_scope **jobsp, size_t *njobsp, dmls_error *err)
{
	dmls_analysis *a = *ap;
	dmls_job_scope *jobs = *jobsp;
	size_t njobs = *njobsp, more = 0;
	for (size_t j = 0; j < a->njobs; j++)
		more += (size_t)colocated(a->jobs[j], &jobs[j]);
	if (!more)
		return 0;
	dmls_job_scope *nj = calloc(njobs + more, sizeof(*nj));
	size_t *from = calloc(njobs + more, sizeof(size_t)), k = 0;
	int rc = 0;
	for (size_t j = 0; nj && from && j < njobs && rc == 0; j++) {
		int two = j < a->njobs && colocated(a->jobs[j], &jobs[j]);
		for (int t = 0; t <= two && rc == 0; t++) {
			nj[k] = jobs[j];
			nj[k].hosts = malloc(jobs[j].n * sizeof(size_t));
			if (!nj[k].hosts) {
				rc = -1;
				break;
			}
			memcpy(nj[k].hosts, jobs[j].hosts, jobs[j].n * sizeof(size_t));
			if (two) {
				int h = a->jobs[j]->conn_heavy;
				nj[k].conn_period_s = a->jobs[j]->conn_period_s[t ? !h : h];
				nj[k].conn_other_s = a->jobs[j]->conn_period_s[t ? h : !h];
				nj[k].conn_ref = a->jobs[j]->conn_flow[t ? !h : h] + 1;
				nj[k].conn_other_ref = a->jobs[j]->conn_flow[t ? h : !h] + 1;
				nj[k].payload_bytes = jobs[j].payload_bytes / 2;
			}
			from[k++] = j;
		}
	}
	if (!nj || !from || rc) {
		dmls_jobs_free(nj, k);
		free(from);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	dmls_analysis *b = top_new(st);
	int *role = malloc((st->nhosts ? st->nhosts : 1) * sizeof(int));
	if (!b || !role) {
		dmls_analysis_free(b);
		free(role);
		dmls_jobs_free(nj, k);
		free(from);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < st->nhosts; i++) {
		role[i] = st->hosts[i].role;
		st->hosts[i].role = DMLS_ROLE_OTHER;
	}
	rc = run_jobs(b, st, log, nj, k, err);
	int told = rc == 0;
	for (size_t i = 0; told && i < k && i < b->njobs; i++)
		if (nj[i].conn_period_s > 0)
			told = b->jobs[i]->pairs_told >= a->jobs[from[i]]->split_pairs &&
			       b->jobs[i]->pairs_told > 0;
	free(from);
	if (!told) { /* as found: a and the roles it gave */
		for (size_t i = 0; i < st->nhosts; i++)
			st->hosts[i].role = role[i];
		free(role);
		dmls_analysis_free(b);
		dmls_jobs_free(nj, k);
		return rc;
	}
	free(role);
	/* the top level is the job moving the most bytes: a job on other
	 * hosts may move more than either of the two that were one */
	size_t top = 0;
	for (size_t i = 1; i < k && i < b->njobs; i++)
		if (b->jobs[i]->job_wire_bytes > b->jobs[top]->job_wire_bytes)
			top = i;
	if (top && nj[0].conn_period_s > 0) {
		dmls_job_scope t = nj[top];
		memmove(&nj[1], &nj[0], top * sizeof(*nj));
		nj[0] = t;
		dmls_analysis_free(b);
		for (size_t i = 0; i < st->nhosts; i++)
			st->hosts[i].role = DMLS_ROLE_OTHER;
		b = top_new(st);
		rc = b ? run_jobs(b, st, log, nj, k, err) : dmls_fail(err, DMLS_ENOMEM, "out of memory");
		if (rc) {
			dmls_analysis_free(b);
			dmls_jobs_free(nj, k);
			return rc;
		}
	}
	dmls_analysis_free(a);
	*ap = b;
	dmls_jobs_free(jobs, njobs);
	*jobsp = nj, *njobsp = k;
	return 0;
}

/*
 * Two jobs found apart that keep one step: the same period (within
 * PARTS_PERIOD), one end of each in every step of the other
 * (dmls_clock_compare's lock, PARTS_LOCK) at a fixed offset (its spread
 * over the period, PARTS_SPREAD) that only jitters about one value (its
 * wander, PARTS_WANDER: two jobs' offsets drift or random-walk, two parts
 * of one job are tied again at every step), on hosts that touch (a host
 * of both, or a pair between them moving data).  A job split at a host it
 * shares with another (a tree's inner node on a ring's hosts: the tree
 * read as a star of 3 and a pair) gives such parts, each with a confident
 * pattern of its own; two jobs seldom do.  Each is noted and its pattern's
 * confidence halved; nothing is merged.
 */
#define PARTS_PERIOD 0.03
#define PARTS_LOCK 0.9
#define PARTS_SPREAD 0.25
#define PARTS_WANDER 1.0

static int touching(const dmls_stats *st, const dmls_analysis *x, const dmls_analysis *y,
		    unsigned char *in)
{
	memset(in, 0, st->nhosts ? st->nhosts : 1);
	for (size_t i = 0; i < x->pattern.ranks; i++)
		in[x->pattern.members[i]] |= 1;
	for (size_t i = 0; i < y->pattern.ranks; i++)
		if ((in[y->pattern.members[i]] |= 2) == 3)
			return 1;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *p = &st->pairs[k];
		if ((in[p->src] | in[p->dst]) == 3 && in[p->src] != in[p->dst] &&
		    (double)p->payload_bytes >= DMLS_MIN_DATA_BYTES)
			return 1;
	}
	return 0;
}

static int flag_locked_parts(dmls_analysis *a, const dmls_stats *st)
{
	if (a->njobs < 2)
		return 0;
	unsigned char *in = malloc(st->nhosts ? st->nhosts : 1);
	size_t *with = malloc(a->njobs * sizeof(size_t)); /* a job it keeps step with */
	if (!in || !with) {
		free(in);
		free(with);
		return -1;
	}
	for (size_t i = 0; i < a->njobs; i++)
		with[i] = SIZE_MAX;
	for (size_t i = 0; i < a->njobs; i++)
		for (size_t j = i + 1; j < a->njobs; j++) {
			const dmls_analysis *x = a->jobs[i], *y = a->jobs[j];
			double P = x->iter.period_s, Q = y->iter.period_s;
			if (x->iter.count < 8 || y->iter.count < 8 || !(P > 0) || !(Q > 0) ||
			    !x->pattern.members || !y->pattern.members ||
			    fabs(P - Q) > PARTS_PERIOD * fmin(P, Q) || !touching(st, x, y, in))
				continue;
			double spread, lock, wander;
			dmls_clock_compare(x->iter.comm_end_s, x->iter.count, y->iter.comm_end_s,
					   y->iter.count, P, &spread, &lock, &wander);
			if (lock >= PARTS_LOCK && spread <= PARTS_SPREAD && wander >= PARTS_WANDER) {
				with[i] = with[i] == SIZE_MAX ? j : with[i];
				with[j] = with[j] == SIZE_MAX ? i : with[j];
			}
		}
	for (size_t i = 0; i < a->njobs; i++)
		if (with[i] != SIZE_MAX) {
			a->jobs[i]->pattern.confidence *= 0.5;
			dmls_note(a->jobs[i], "in lockstep with job %zu, whose hosts touch its own (one "
					      "period, steps at a fixed offset): maybe both are parts of one "
					      "job, split at a shared host", a->jobs[with[i]]->job_id);
		}
	free(in);
	free(with);
	return 0;
}

int dmls_analysis_run(dmls_analysis **out, dmls_stats *st, const dmls_trainlog *log,
		      dmls_error *err)
{
	*out = NULL;
	if (dmls_stats_finish(st))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	dmls_job_scope *jobs = NULL;
	size_t njobs = 0;
	dmls_analysis *a = top_new(st);
	if (!a)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	/* a bulk transfer between hosts of jobs: out of the view every stage
	 * reads, the split into jobs too (jobs_overlap.c) */
	dmls_job_view bg;
	size_t nbg;
	double bg_bytes;
	if (dmls_job_view_background(&bg, st, &nbg, &bg_bytes) < 0) {
		dmls_analysis_free(a);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	dmls_stats *whole = st;
	st = nbg ? &bg.view : st;
	/* runs back to back of the whole capture (every pair silent, then
	 * connections opened anew): the jobs are the busiest run's; each
	 * job's own runs are then found for its stages (run_stages) */
	int rc = set_runs(st, NULL, NULL, err);
	if (rc == 0)
		rc = dmls_jobs_split(&jobs, &njobs, st, err);
	st->run_from_ns = INT64_MIN, st->run_to_ns = INT64_MAX, st->runs = 1;
	for (size_t i = 0; i < st->nhosts; i++)
		st->hosts[i].role = DMLS_ROLE_OTHER;
	if (rc == 0)
		rc = njobs ? run_jobs(a, st, log, jobs, njobs, err)
			   : run_stages(a, st, log, NULL, 0, NULL, NULL, 0, err);
	if (rc == 0 && njobs > 1)
		rc = leave_read_twice(&a, st, log, jobs, &njobs, err);
	if (rc == 0 && njobs)
		rc = split_colocated(&a, st, log, &jobs, &njobs, err);
	if (rc == 0 && njobs > 1)
		rc = leave_stepless(&a, st, log, jobs, njobs, err);
	if (rc == 0 && flag_locked_parts(a, st))
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
	dmls_jobs_free(jobs, njobs);
	if (rc == 0)
		dmls_notes_all(a, st);
	if (nbg) {
		for (size_t i = 0; i < whole->nhosts; i++) /* the roles, on the hosts' */
			whole->hosts[i].role = st->hosts[i].role;
		dmls_job_view_release(&bg);
		whole->run_from_ns = INT64_MIN, whole->run_to_ns = INT64_MAX, whole->runs = 1;
	}
	if (rc) {
		dmls_analysis_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void dmls_analysis_free(dmls_analysis *a)
{
	if (!a)
		return;
	dmls_pattern_release(&a->pattern);
	dmls_iterations_release(&a->iter);
	dmls_mode_release(&a->mode);
	dmls_trainlog_metrics_release(&a->log);
	for (size_t j = 1; a->jobs && j < a->njobs; j++)
		dmls_analysis_free(a->jobs[j]);
	free(a->jobs);
	free(a->burst_host);
	free(a->burst_host_idx);
	free(a);
}
