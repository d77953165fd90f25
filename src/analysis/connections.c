/*
 * connections.c - two jobs on the same hosts, told by their connections.
 *
 * A job is found by its hosts (jobs.c), so two jobs whose ranks run on the
 * same hosts (two 4-GPU jobs on the same two 8-GPU nodes, two testbed DDP
 * rings on hosts 0-3) are one component with no cut vertex: their steps
 * add up to one clock and their bytes to one S (the testbed's pair of
 * 4-rank rings: ring/4, 298 iterations for 300 each, S twice a job's).
 * What shows it is the connections: each job's ranks open their own, so
 * every data pair carries its bytes over two connections, each with a
 * share of them that follows its job's model (a small model's ring beside
 * a large one's: 5-17 % of the testbed's pairs).
 * One job's ranks do that too when their transport opens parallel
 * connections (NCCL's sockets per peer), and those move parts of the same
 * step.  So:
 *   1. per data pair of the job, its connections with at least CONN_SHARE
 *      of the pair's payload are counted; a pair with two or more, the two
 *      heaviest carrying data at once (at_once: not a restarted job's
 *      connections one after another), is split (a->data_pairs,
 *      a->split_pairs);
 *   2. a split pair's connections kept their payload at 1 ms from when the
 *      pair had two data connections (stats.h, DMLS_CONN_MIN_BYTES); the
 *      two heaviest get a clock each (the byte clock of their series,
 *      byteclock.c) and are compared as jobs_shared.c compares two parts
 *      of a job (dmls_clock_compare: periods within 3 %, one end of the
 *      other in 90 % of the steps, offsets steady);
 *   3. when most pairs so tested keep two clocks apart, the job is two jobs
 *      on the same hosts: its count, period and S, which mix both, are
 *      withheld with a note that gives both periods.  A synchronous job
 *      needs two pairs tested, an asynchronous one (two jobs' steps mixed
 *      in each rank's clock) two or more all keeping the same two periods
 *      (a->conn_apart_agree) on steady clocks; one of unknown mode (a
 *      rank's own file sees one or two of its pairs) needs both clocks of
 *      its pairs apart to be steady: TensorPipe's pair averaging splits
 *      its pairs over two connections too, each talking to whichever peer
 *      was picked, whose clocks keep no steady step.  When they keep one
 *      step, the connections are one job's: nothing is said.  Untested (a
 *      mergeable state keeps no connection series, or too few steps), a
 *      synchronous job with half its pairs split or more gets a note that
 *      names both readings;
 *   4. two jobs whose ranks send in opposite directions share no pair, so
 *      no pair splits: a synchronous job with data pairs both ways and no
 *      split pair gives its heaviest pairs a clock each (pair_groups), and
 *      two groups of pairs at step rates apart are two jobs, withheld the
 *      same way.
 * On the testbed, every data pair of DDP, RPC, MPI and the manual
 * collectives holds one connection, those of TensorPipe's pair averaging
 * two or more (asynchronous, or of unknown mode seen from one rank).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "analysis/period.h"

/* A connection with this share of its pair's bytes: at 20 %, a TinyCNN
 * ring beside a MobileNetV2 ring on the same 3 hosts (17 % and 5 % of
 * their pairs) was one job of 64 steps for 60 and 200; at 5 %, a TinyCNN
 * clique beside a ResNet-18 ring on the same 4 hosts (4.8 % of the ring's
 * pairs) made the ring "asynchronous", its ranks' clocks blending both,
 * and the clique was lost.  Below it, a job that small adds as little to
 * S; the clock test keeps parallel sockets (equal shares, one step) one
 * job's. */
#define CONN_SHARE 0.02
#define CONN_AT_ONCE 0.5          /* two connections overlapping this much in time */
#define CONN_MAX_RANKS 256        /* a pair matrix of at most this many ranks */
#define CONN_MAX_TESTS 4          /* split pairs whose connections get clocks */
#define CONN_MAX_BINS (1u << 18)  /* a connection's series, densified */
#define CONN_ON 0.02              /* on bins: 2 % of the 99th percentile (iterations.c) */
#define CONN_MIN_STEPS 8
/* A clock whose step lengths keep a robust CV this low is steady: the
 * testbed's co-located DDP rings 0.15-0.21 on 2 busy cores, the
 * connections of TensorPipe's pair averaging (random partners) 0.41-1.1. */
#define CONN_STEADY_CV 0.3
#define CONN_AGREE 0.1 /* two pairs' periods within 10 %: the same two jobs' */
#define PAIR_MAX_CLOCKS 12 /* data pairs given a clock of their own */
#define PAIR_MIN_GROUP 2   /* pairs keeping one step: a job's */
#define PAIR_RATE 0.1      /* step rates within this (x k) agree */
#define PAIR_MAX_MULTIPLE 4

typedef dmls_series_clock conn_clock;


int dmls_series_clock_of(conn_clock *c, const dmls_series *s, const dmls_stats *st)
{
	memset(c, 0, sizeof(*c));
	c->period_s = NAN;
	if (dmls_series_empty(s) || s->bin_ns <= 0)
		return 0;
	int64_t lo = s->min_bin, hi = s->max_bin;
	if (!dmls_run_bins(st, s, &lo, &hi))
		return 0;
	uint64_t span = (uint64_t)(hi - lo) + 1;
	uint32_t factor = 1;
	while (span > (uint64_t)factor * CONN_MAX_BINS)
		factor *= 2;
	size_t n = (size_t)((span + factor - 1) / factor), runs = 0, nz = 0, ns = 0;
	double *x = malloc(n * sizeof(double)), *v = malloc(n * sizeof(double));
	size_t *starts = NULL;
	int rc = -1;
	if (!x || !v)
		goto out;
	dmls_series_dense(s, lo, n, factor, x);
	for (size_t k = 0; k < n; k++)
		if (x[k] > 0)
			v[nz++] = x[k];
	double thr = CONN_ON * dmls_quantile_select(v, nz, 0.99);
	for (size_t k = 0, prev = n; k < n; k++)
		if (x[k] >= thr && x[k] > 0) {
			runs += prev == n || k > prev + 1;
			prev = k;
		}
	starts = malloc(DMLS_BYTECLOCK_ROOM(runs) * sizeof(size_t));
	if (!starts)
		goto out;
	dmls_fft fft = {0};
	double B, peak;
	ns = dmls_byteclock_starts(&fft, (dmls_bins){NULL, x}, n, thr, starts, &B, &peak);
	dmls_fft_release(&fft);
	rc = 0;
	if (ns < CONN_MIN_STEPS)
		goto out;
	c->t = malloc(ns * sizeof(double));
	if (!c->t) {
		rc = -1;
		goto out;
	}
	double bin_s = (double)s->bin_ns * factor * 1e-9;
	for (size_t i = 0; i < ns; i++)
		c->t[i] = (double)lo * (double)s->bin_ns * 1e-9 + (double)starts[i] * bin_s;
	for (size_t i = 0; i + 1 < ns; i++)
		v[i] = c->t[i + 1] - c->t[i];
	c->cv = dmls_robust_cv(v, ns - 1);
	qsort(v, ns - 1, sizeof(double), dmls_cmp_double);
	c->period_s = v[(ns - 1) / 2];
	c->n = ns;
out:
	free(x);
	free(v);
	free(starts);
	return rc;
}

/* Two at a time where the analysis may use two threads (dmls_work_in_two,
 * as the ranks' clocks): each reads the stats and makes its own series and
 * transforms, and lands at its own place, so the result does not depend on
 * who made it; on real runs back to back the connections' clocks were 9 %
 * of an analyze. */
typedef struct clocks_work {
	const dmls_stats *st;
	conn_clock *c;
	const dmls_series *const *s;
	size_t n, next; /* next: the next series to take (atomic) */
	int failed;
} clocks_work;

static void *clocks_worker(void *arg)
{
	clocks_work *w = arg;
	for (size_t i; (i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n;)
		if (dmls_series_clock_of(&w->c[i], w->s[i], w->st))
			__atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
	return NULL;
}

int dmls_series_clocks(const dmls_stats *st, conn_clock *c, const dmls_series *const *s, size_t n)
{
	clocks_work w = {st, c, s, n, 0, 0};
	dmls_work_in_two(st, n, clocks_worker, &w);
	return w.failed ? -1 : 0;
}

/* Two periods within CONN_AGREE of each other. */
static int agree(double x, double y)
{
	return fabs(x - y) <= CONN_AGREE * fmax(x, y);
}

/* 1 when the two connections keep one step (dmls_steps_lock). */
static int one_step(const conn_clock *a, const conn_clock *b)
{
	return dmls_steps_lock(b->t, b->n, b->period_s, a->t, a->n, a->period_s);
}

/* The two heaviest connections of pair i (top[2 i], top[2 i + 1]) tested:
 * 1 apart, 0 one step, -1 no evidence, -2 out of memory; *steady: both
 * clocks steady (CONN_STEADY_CV); *pa <= *pb their periods, *heavy which
 * of the two is the heavier connection's. */
static int pair_apart(const dmls_stats *st, const size_t *top, size_t i, double *pa, double *pb,
		      int *steady, int *heavy)
{
	conn_clock c[2];
	const dmls_series *s[2] = {&st->flows[top[2 * i]].conn, &st->flows[top[2 * i + 1]].conn};
	int rc = -1;
	if (dmls_series_clocks(st, c, s, 2)) {
		rc = -2;
	} else if (c[0].n && c[1].n) {
		rc = !one_step(&c[0], &c[1]);
		*steady = c[0].cv <= CONN_STEADY_CV && c[1].cv <= CONN_STEADY_CV;
		*pa = fmin(c[0].period_s, c[1].period_s);
		*pb = fmax(c[0].period_s, c[1].period_s);
		*heavy = c[0].period_s > c[1].period_s;
	}
	free(c[0].t);
	free(c[1].t);
	return rc;
}

/* Of runs back to back, a connection of the busiest: half its life or more
 * in it (a 5-tuple that every run reuses lives through all of them, and its
 * bytes are not the run's). */
static int in_run(const dmls_stats *st, const dmls_flow *fl)
{
	if (st->runs <= 1)
		return 1;
	int64_t lo = fl->first_ns > st->run_from_ns ? fl->first_ns : st->run_from_ns;
	int64_t hi = fl->last_ns < st->run_to_ns ? fl->last_ns : st->run_to_ns;
	return hi > lo && (double)(hi - lo) >= 0.5 * (double)(fl->last_ns - fl->first_ns);
}

/* The job's data pairs (payload at or over job->thr) as a matrix of its
 * n hosts: payload[s n + d], pidx[] their st->pairs index, conns[] their
 * connections with CONN_SHARE of the pair's payload, and top[2 (s n + d)
 * + 0/1] the two heaviest of those (SIZE_MAX: none). */
static void pair_matrix(const dmls_stats *st, const dmls_job_scope *job, const size_t *at,
			double *payload, size_t *pidx, unsigned *conns, size_t *top)
{
	size_t n = job->n;
	/* of runs back to back, the busiest's pairs and connections */
	double thr = dmls_run_edge_cut(st, at, n, job->thr);
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		size_t s = at[pr->src], d = at[pr->dst];
		double w = s < n && d < n ? dmls_pair_payload_in_run(st, pr) : 0;
		if (w >= thr && w > 0) {
			payload[s * n + d] = w;
			pidx[s * n + d] = k;
		}
	}
	for (size_t i = 0; i < 2 * n * n; i++)
		top[i] = SIZE_MAX;
	for (size_t f = 0; f < st->nflows; f++) {
		const dmls_flow *fl = &st->flows[f];
		size_t s = at[fl->src], d = at[fl->dst], i = s * n + d;
		if (s >= n || d >= n || payload[i] <= 0 || dmls_flow_hidden(st, f) ||
		    (double)fl->payload_bytes < CONN_SHARE * payload[i] || !in_run(st, fl))
			continue;
		conns[i]++;
		size_t *t = &top[2 * i];
		if (t[0] == SIZE_MAX || fl->payload_bytes > st->flows[t[0]].payload_bytes)
			t[1] = t[0], t[0] = f;
		else if (t[1] == SIZE_MAX || fl->payload_bytes > st->flows[t[1]].payload_bytes)
			t[1] = f;
	}
}

/* Steps a second over the clock's span. */
static double rate_of(const conn_clock *c)
{
	double span = c->t[c->n - 1] - c->t[0];
	return span > 0 ? (double)(c->n - 1) / span : NAN;
}

/* Two pairs' clocks of one job: their step rates agree, or one counts k
 * bursts a step of the other's (k up to 4: a tree's edge carries the
 * reduce up and the broadcast down; a Rabenseifner rank's nearest partner
 * is sent to first and last), within PAIR_RATE of k.  Rates, not median
 * periods: a step's two bursts are unevenly spaced (a lossy butterfly's
 * edge counting 400 for 200 steps has a median period 0.64 of the
 * others').  Nor their lock: pairs of one job end their steps at offsets
 * that wander more than two parts of a job do (an RPC star's pairs, 500
 * steps each, failed jobs_shared's lock test). */
static int same_job(const conn_clock *a, const conn_clock *b)
{
	double ra = rate_of(a), rb = rate_of(b);
	double r = fmax(ra, rb) / fmin(ra, rb), k = round(r);
	return !(r > 0) || (k <= PAIR_MAX_MULTIPLE && fabs(r - k) <= PAIR_RATE * k);
}

static int cmp_payload_desc(const void *x, const void *y, void *ctx)
{
	const double *p = ctx;
	double a = p[*(const size_t *)x], b = p[*(const size_t *)y];
	return (a < b) - (a > b);
}

/*
 * The job's data pairs grouped by their own clocks (the byte clock of each
 * pair's series, its PAIR_MAX_CLOCKS heaviest, steady ones only).  Two jobs
 * on the same hosts whose ranks send in opposite directions (PyTorch's
 * Gloo ring runs 1 <- 2 <- 3 <- 4, Open MPI's 1 -> 2 -> 3 -> 4) share no
 * pair, so their connections never split one; their pairs keep two steps
 * instead (the testbed's DDP and MPI rings of 4 on hosts 0-3: 0.107 and
 * 0.157 s; one job of "butterfly" kind and S three times a job's before).
 * Only where some data pairs run both ways: a one-way ring or pipeline is
 * one job's.  Sets a->pair_groups (groups of PAIR_MIN_GROUP pairs or
 * more), a->pair_group_n[] and a->pair_group_s[] (the two largest).
 */
static int pair_groups(dmls_analysis *a, const dmls_stats *st, size_t n, const double *payload,
		       const size_t *pidx)
{
	size_t cells[PAIR_MAX_CLOCKS], nd = 0, both = 0;
	size_t *all = malloc(n * n * sizeof(size_t));
	if (!all)
		return -1;
	for (size_t s = 0; s < n; s++)
		for (size_t d = 0; d < n; d++)
			if (payload[s * n + d] > 0) {
				all[nd++] = s * n + d;
				both += payload[d * n + s] > 0;
			}
	if (nd < 2 * PAIR_MIN_GROUP || both < 2) {
		free(all);
		return 0;
	}
	qsort_r(all, nd, sizeof(size_t), cmp_payload_desc, (void *)payload);
	size_t m = nd < PAIR_MAX_CLOCKS ? nd : PAIR_MAX_CLOCKS;
	memcpy(cells, all, m * sizeof(size_t));
	free(all);
	conn_clock c[PAIR_MAX_CLOCKS];
	const dmls_series *s[PAIR_MAX_CLOCKS];
	size_t rep[PAIR_MAX_CLOCKS], size[PAIR_MAX_CLOCKS], ng = 0;
	for (size_t i = 0; i < m; i++)
		s[i] = &st->pairs[pidx[cells[i]]].series;
	int rc = dmls_series_clocks(st, c, s, m);
	size_t most = 0;
	for (size_t i = 0; i < m; i++)
		most = c[i].n > most ? c[i].n : most;
	for (size_t i = 0; i < m && rc == 0; i++) {
		if (!c[i].n || 2 * c[i].n < most) /* no clock, or idle in most steps */
			continue;
		size_t g = 0;
		while (g < ng && !same_job(&c[i], &c[rep[g]]))
			g++;
		if (g == ng)
			rep[ng] = i, size[ng++] = 0;
		size[g]++;
	}
	size_t big[2] = {SIZE_MAX, SIZE_MAX};
	for (size_t g = 0; g < ng; g++) {
		if (size[g] < PAIR_MIN_GROUP)
			continue;
		a->pair_groups++;
		if (big[0] == SIZE_MAX || size[g] > size[big[0]])
			big[1] = big[0], big[0] = g;
		else if (big[1] == SIZE_MAX || size[g] > size[big[1]])
			big[1] = g;
	}
	for (int k = 0; k < 2 && a->pair_groups >= 2; k++) {
		a->pair_group_n[k] = size[big[k]];
		a->pair_group_s[k] = c[rep[big[k]]].period_s;
	}
	for (size_t i = 0; i < m; i++)
		free(c[i].t);
	return rc;
}

/* Two connections that carry data at once, over at least CONN_AT_ONCE of
 * the shorter one's span: two jobs' or parallel sockets, not one job's
 * connections one after another (a job restarted, runs back to back on
 * the same hosts), which keep one step each in turn. */
int dmls_flows_at_once(const dmls_flow *x, const dmls_flow *y)
{
	int64_t lo = x->first_ns > y->first_ns ? x->first_ns : y->first_ns;
	int64_t hi = x->last_ns < y->last_ns ? x->last_ns : y->last_ns;
	int64_t shorter = x->last_ns - x->first_ns < y->last_ns - y->first_ns ? x->last_ns - x->first_ns
									   : y->last_ns - y->first_ns;
	return hi > lo && (double)(hi - lo) >= CONN_AT_ONCE * (double)shorter;
}

int dmls_connections_check(dmls_analysis *a, const dmls_stats *st, const dmls_job_scope *job)
{
	a->data_pairs = a->split_pairs = a->conn_tested = a->conn_apart = a->conn_apart_steady = 0;
	a->split_three = 0;
	a->conn_apart_agree = 0;
	a->conn_period_s[0] = a->conn_period_s[1] = NAN;
	a->conn_heavy = 0;
	a->conn_flow[0] = a->conn_flow[1] = SIZE_MAX;
	a->pair_groups = a->pair_group_n[0] = a->pair_group_n[1] = 0;
	a->pair_group_s[0] = a->pair_group_s[1] = NAN;
	if (!job || job->n < 2 || job->n > CONN_MAX_RANKS)
		return 0;
	size_t n = job->n;
	size_t *at = malloc((st->nhosts ? st->nhosts : 1) * sizeof(size_t));
	double *payload = calloc(n * n, sizeof(double));
	size_t *pidx = malloc(n * n * sizeof(size_t));
	unsigned *conns = calloc(n * n, sizeof(unsigned));
	size_t *top = malloc(2 * n * n * sizeof(size_t));
	int rc = 0;
	if (!at || !payload || !pidx || !conns || !top) {
		rc = -1;
		goto out;
	}
	for (size_t h = 0; h < st->nhosts; h++)
		at[h] = n;
	for (size_t i = 0; i < n; i++)
		at[job->hosts[i]] = i;
	pair_matrix(st, job, at, payload, pidx, conns, top);
	for (size_t i = 0; i < n * n && rc == 0; i++) {
		if (payload[i] <= 0)
			continue;
		a->data_pairs++;
		if (conns[i] < 2 ||
		    !dmls_flows_at_once(&st->flows[top[2 * i]], &st->flows[top[2 * i + 1]]))
			continue;
		a->split_pairs++;
		a->split_three += conns[i] >= 3;
		if (a->conn_tested >= CONN_MAX_TESTS ||
		    dmls_series_empty(&st->flows[top[2 * i]].conn) ||
		    dmls_series_empty(&st->flows[top[2 * i + 1]].conn))
			continue;
		double pa = NAN, pb = NAN;
		int steady = 0, heavy = 0, apart = pair_apart(st, top, i, &pa, &pb, &steady, &heavy);
		if (apart == -2)
			rc = -1;
		if (apart < 0)
			continue;
		a->conn_tested++;
		a->conn_apart += (size_t)apart;
		a->conn_apart_steady += (size_t)(apart && steady);
		if (apart && !isfinite(a->conn_period_s[0])) {
			a->conn_period_s[0] = pa, a->conn_period_s[1] = pb, a->conn_heavy = heavy;
			a->conn_flow[heavy] = top[2 * i], a->conn_flow[!heavy] = top[2 * i + 1];
		}
		a->conn_apart_agree += (size_t)(apart && agree(pa, a->conn_period_s[0]) &&
						agree(pb, a->conn_period_s[1]));
	}
	if (rc == 0 && a->split_pairs == 0 && a->mode.mode == DMLS_MODE_SYNC &&
	    a->pattern.kind != DMLS_PAT_PAIRWISE) /* its pairs meet at random: no step each */
		rc = pair_groups(a, st, n, payload, pidx);
out:
	free(at);
	free(payload);
	free(pidx);
	free(conns);
	free(top);
	return rc;
}
