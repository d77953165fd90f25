/*
 * mode.c - synchronous or asynchronous: does the job keep one step?
 *
 * In synchronous data-parallel training (all-reduce, a synchronous
 * parameter server, synchronous pair averaging) no rank starts step k+1
 * before every rank it depends on has finished step k: all ranks keep the
 * same period and their communication ends keep a fixed offset from one
 * another (phase locking).  In asynchronous training (AD-PSGD's random
 * pair averaging, gossip, an asynchronous parameter server: Lian et al.,
 * ICML 2018; Recht et al., "Hogwild!", NIPS 2011) each rank runs at its own
 * pace: periods differ with the ranks' speed, and where they happen to be
 * equal, the offsets drift.
 *
 * So each rank gets a clock of its own: the iterations (iterations.c) of
 * its sending alone (its tx payload series), its period the mean over its
 * own span.  With the clocks of two ranks or more that each counted
 * DMLS_MODE_MIN_STEPS iterations (P = the median of their periods):
 *   period spread  the share of ranks whose period is more than 10 % off
 *                  P (one rank's clock can lock onto a step's inner
 *                  bursts; a job of ranks at different speeds has many);
 *   step lock      against the reference (the rank whose period is
 *                  nearest P), for each rank not off P: windows around each reference end,
 *                  shifted by the rank's median offset and cut at the
 *                  midpoints, hold exactly one end of the rank in a
 *                  synchronous job (one exchange per step, however the
 *                  step jitters); the share of such windows, the median
 *                  over ranks;
 *   phase spread   the robust spread (1.4826 MAD) of each end's offset
 *                  from the reference's nearest end, over P, the median
 *                  over ranks: near 0 for all-reduce, larger for a
 *                  parameter server's workers, whose pushes move with
 *                  their compute; decided on only with a low lock.
 * synchronous    the job's own clock (all ranks together, iterations.c)
 *                is steady: 4 or more iterations, each worker's bytes per
 *                iteration within 10 % (robust CV) and no more than 5 % of
 *                (worker, iteration) cells 25 % off the worker's median (an
 *                asynchronous server's slower worker skips a step now and
 *                then, which the robust CV does not see).  Every rank then sends
 *                its share in every step; this outweighs the ranks' own
 *                clocks, which break on retransmission stalls or lock onto
 *                a step's inner bursts where the sum of all ranks does not,
 *                so they are not computed (a clock costs a search over the
 *                capture: on an hour at 1 ms, as much as the job's);
 * unknown        half the ranks (two or more) off P on a lossy path
 *                (DMLS_LOSSY_SHARE of their packets sent again) where the
 *                clocks are the ranks' byte clocks: stalls break them (a
 *                DDP ring of 4 at 2 % loss: 0.12-0.57 s for steps of 0.12
 *                s; of 8: 0.13-1.9 s), where requests' clocks (pair
 *                averaging at 2 % loss) keep theirs;
 * asynchronous   otherwise, half the ranks (two or more) off P, or step
 *                lock < 0.75 unless the phase spread is 0.15 or less: the
 *                ends that pair up keep one offset step after step, and
 *                the windows missed hold a rank's exchange cut in two or
 *                two run together (retransmission stalls: an 8-rank
 *                butterfly at 2 % loss, lock 0.74 and spread 0.06; free
 *                ranks' offsets drift, spread 0.36-1.0 on the testbed);
 *                or step lock < 0.9 with a phase spread of 0.30 or more:
 *                offsets spread evenly over the period give 0.37 (1.4826
 *                times a quarter period), ranks of one speed that run
 *                freely (gossip of 6 and 10 ranks without a pace: lock
 *                0.75-0.79, spread 0.35-0.37), where synchronous jobs
 *                under 0.9 keep 0.18 at most (a parameter server's
 *                workers, whose pushes move with their compute; 0.24 at
 *                lock 0.91 at 1 % loss);
 * synchronous    otherwise;
 * unknown        fewer than two ranks with a clock (one worker's capture,
 *                ranks whose sending shows no period), with the reason.
 * Ranks of equal speed that run freely keep one exchange per window for
 * long stretches; only their offsets (the phase spread) tell them apart,
 * and short captures of such jobs, whose offsets have not spread yet, may
 * be called synchronous.
 *
 * At most DMLS_MODE_MAX_RANKS ranks (the first in address order) get a
 * clock: the decision needs a few, and each costs an iteration search.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"
#include "dmlscope/analysis.h"

#define DMLS_MODE_MIN_STEPS 4
#define DMLS_MODE_PERIOD_OFF 0.10  /* a rank's period this far off the median */
#define DMLS_MODE_MIN_LOCK 0.75    /* share of steps with one end of each rank */
#define DMLS_MODE_TIGHT_PHASE 0.15 /* phase spread of ends aligned step by step */
#define DMLS_MODE_FREE_PHASE 0.30  /* phase spread of offsets near even over a period */
#define DMLS_MODE_FULL_LOCK 0.90   /* step lock of ranks that keep one step */
#define DMLS_MODE_PAIR_STEPS 12    /* steps of each of two clocks compared directly */
#define DMLS_MODE_STEADY_BYTES 0.10 /* the job clock's bytes per worker spread */
#define DMLS_MODE_OUTLIERS 0.05 /* and its share of cells off a worker's median */

const char *dmls_mode_name(int mode)
{
	return mode == DMLS_MODE_SYNC ? "synchronous" : mode == DMLS_MODE_ASYNC ? "asynchronous"
										: "unknown";
}

void dmls_mode_release(dmls_mode *m)
{
	free(m->ranks);
	free(m->ends);
	memset(m, 0, sizeof(*m));
}

/* The end in e[0..n) (ascending) nearest to t. */
static double nearest(const double *e, size_t n, double t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (e[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return e[0];
	if (lo == n)
		return e[n - 1];
	return t - e[lo - 1] < e[lo] - t ? e[lo - 1] : e[lo];
}

/* x wrapped into [-0.5, 0.5). */
static double wrap_half(double x)
{
	return x - floor(x + 0.5);
}

/* Clock e[0..n) against the reference clock ref[0..nr) (ends, ascending):
 * the robust spread (1.4826 MAD) of its ends' offsets from the nearest
 * reference end, over P, and the share of the reference's steps (windows
 * around each reference end shifted by the median offset, from midpoint to
 * midpoint, the first and last left out) that hold exactly one end; the
 * wander of the offsets (period.h). */
void dmls_clock_compare(const double *ref, size_t nr, const double *e, size_t n, double P,
			double *spread, double *lock, double *wander)
{
	double *o = malloc((n ? n : 1) * sizeof(double)), *dev = malloc((n ? n : 1) * sizeof(double));
	*spread = *lock = NAN;
	if (wander)
		*wander = NAN;
	if (o && dev && n > 0 && nr > 0) {
		for (size_t k = 0; k < n; k++)
			o[k] = e[k] - nearest(ref, nr, e[k]);
		memcpy(dev, o, n * sizeof(double));
		double med;
		*spread = dmls_robust_spread(dev, n, &med) / P;
		size_t one = 0, windows = 0, at = 0;
		for (size_t k = 1; k + 1 < nr; k++) {
			double lo = med + (ref[k - 1] + ref[k]) / 2;
			double hi = med + (ref[k] + ref[k + 1]) / 2;
			while (at < n && e[at] < lo)
				at++;
			size_t c = 0;
			while (at + c < n && e[at + c] < hi)
				c++;
			one += c == 1;
			windows++;
		}
		*lock = windows ? (double)one / (double)windows : NAN;
		if (wander && n >= 3 && P > 0) {
			/* offsets wrapped about their median (in the bulk when they
			 * are steady, the case this tells from wandering) */
			for (size_t k = 0; k < n; k++)
				dev[k] = wrap_half((o[k] - med) / P);
			double s = dmls_robust_spread(dev, n, NULL);
			for (size_t k = 0; k + 1 < n; k++)
				dev[k] = wrap_half((o[k + 1] - o[k]) / P);
			double step = dmls_robust_spread(dev, n - 1, NULL);
			*wander = s > 0 ? step / s : NAN;
		}
	}
	free(o);
	free(dev);
}

/* Rank h's clock it (dmls_iterations_find_clocks: its sending alone) into
 * m->ranks, its ends into m->ends; it is released.  0, or -1 (memory). */
static int rank_clock(dmls_mode *m, size_t h, dmls_iterations *it, dmls_error *err)
{
	dmls_rank_clock *c = &m->ranks[m->nranks];
	memset(c, 0, sizeof(*c));
	c->host = h;
	c->count = c->nends = it->count;
	c->period_s = it->period_s; /* the mean: over a span, sync ranks agree */
	c->bytes_per_exchange = it->bytes_per_worker;
	if (it->count > 0) {
		double *e = realloc(m->ends, (m->nends + it->count) * sizeof(double));
		if (!e) {
			dmls_iterations_release(it);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		m->ends = e;
		memcpy(m->ends + m->nends, it->comm_end_s, it->count * sizeof(double));
		c->end_off = m->nends;
		m->nends += it->count;
	}
	dmls_iterations_release(it);
	m->nranks++;
	return 0;
}

static int clocked(const dmls_rank_clock *c)
{
	return c->count >= DMLS_MODE_MIN_STEPS && isfinite(c->period_s) && c->period_s > 0;
}

/* Rank i's clock from its own requests (exchanges.c): their count, mean
 * period and bytes. */
/* The period of requests at t[0..k) (ascending) of which some were missed
 * (kc > k were sent, by the connections): the span over m steps, m from
 * k - 1 to kc - 1, whose period the intervals fit best as whole multiples
 * (mean distance to the nearest multiple, one at least; the larger m on a
 * tie).  A gossiping rank's bursts missed 7 of 16 pushes, spread over its
 * run: the span over the bursts' own count was 87 % long.  The fit tells
 * only where it is good (a mean distance of DMLS_MISSED_FIT or less):
 * irregular steps (pair averaging without a pace, intervals' CV about
 * 0.5) fit every m about alike (0.25, as random intervals do), and a
 * request missed is then far likelier two merged into one burst inside
 * the span than one beyond its ends: the span over kc - 1 steps (a
 * 3-rank run's ranks 6 of 40 requests short: +11 and +17 % by the best
 * fit, within 1 % by the span). */
#define DMLS_MISSED_FIT 0.15
double dmls_period_of_missed(const double *t, size_t k, size_t kc)
{
	double span = t[k - 1] - t[0], best = INFINITY, P = NAN;
	if (!(span > 0))
		return NAN;
	for (size_t m = k - 1; m <= kc - 1; m++) {
		double p = span / (double)m, err = 0;
		for (size_t i = 0; i + 1 < k; i++) {
			double x = (t[i + 1] - t[i]) / p, r = fmax(1, round(x));
			err += fabs(x - r);
		}
		if (err <= best + 1e-9)
			best = err, P = p;
	}
	if (!(best <= DMLS_MISSED_FIT * (double)(k - 1)))
		return span / (double)(kc - 1);
	return P;
}

/* Answers taken for requests (period.h). */
double dmls_period_of_extra(const double *t, size_t k, size_t kc, double span_period)
{
	double *d = malloc((k - 1) * sizeof(double));
	if (!d)
		return span_period;
	for (size_t i = 0; i + 1 < k; i++)
		d[i] = t[i + 1] - t[i];
	double med = dmls_median(d, k - 1);
	size_t close = 0, e = k - kc;
	for (size_t i = 0; i + 1 < k; i++)
		close += t[i + 1] - t[i] < 0.25 * med;
	free(d);
	if (4 * e > kc) /* too many answers to place them */
		return fabs(span_period - med) > 0.1 * med ? med : span_period;
	if (2 * close >= e && span_period <= 1.25 * med)
		return span_period;
	/* answers beyond an end: after the last step, the bursts after a gap
	 * of over three medians (a rank answering others after its own last
	 * step, at their pace; two such answers 0.03 s apart, 0.82 s after
	 * the rank's last step, at 2 % loss); before the first, each burst
	 * over three medians from the next (a group there held the rank's
	 * first steps, a stall after them); as many as the extra bursts at
	 * most: the span without them */
	size_t a = 0, b = 0;
	for (size_t j = 1; j <= e && j + 1 < k; j++)
		if (t[k - j] - t[k - j - 1] > 3.0 * med)
			b = j;
	while (a + b < e && t[a + 1] - t[a] > 3.0 * med)
		a++;
	if (a || b)
		return (t[k - 1 - b] - t[a]) / (double)(kc - 1);
	/* none beyond the ends: the answers are inside the span, whose
	 * period is the requests' (the median interval is not: answers can
	 * run dense, a rank at 2 % loss answered 28 times 0.02 s apart, and
	 * the median was 68 % short of its step) */
	return span_period;
}

/* A lone burst at one end of t[0..k) (k >= 4), over DMLS_LONE_ANSWER_GAP
 * medians from the next: 1 at the start, 2 at the end (the larger gap),
 * else 0.  A rank's answer after its own last step, or before its first
 * (period.h, dmls_period_of_even). */
#define DMLS_LONE_ANSWER_GAP 6.0
static int lone_end(const double *t, size_t k)
{
	if (k < 4)
		return 0;
	double *d = malloc((k - 1) * sizeof(double));
	if (!d)
		return 0;
	for (size_t i = 0; i + 1 < k; i++)
		d[i] = t[i + 1] - t[i];
	double med = dmls_median(d, k - 1);
	free(d);
	double head = t[1] - t[0], tail = t[k - 1] - t[k - 2];
	if (!(med > 0) || !(fmax(head, tail) > DMLS_LONE_ANSWER_GAP * med))
		return 0;
	return tail >= head ? 2 : 1;
}

/* Bursts as many as requests (period.h). */
double dmls_period_of_even(const double *t, size_t k, double span_period)
{
	int lone = lone_end(t, k);
	if (!lone)
		return span_period;
	/* the lone burst is an answer; a request was missed among the rest */
	return dmls_period_of_missed(lone == 1 ? t + 1 : t, k - 1, k);
}

/* A rank's requests' period from its bursts (period.h). */
double dmls_period_of_requests(const double *t, size_t k, size_t kc)
{
	size_t ks = kc < k ? kc : k;
	double span = ks >= 2 ? (t[k - 1] - t[0]) / (double)(ks - 1) : NAN;
	if (kc > k && k >= 3) { /* a lone answer at an end is no request */
		int lone = lone_end(t, k);
		return dmls_period_of_missed(t + (lone == 1), k - (lone != 0), kc);
	}
	if (kc < k && k >= 4)
		return dmls_period_of_extra(t, k, kc, span);
	if (kc == k)
		return dmls_period_of_even(t, k, span);
	return span;
}

static int event_clocks(dmls_mode *m, const dmls_exchanges *ex, const size_t *ranks, size_t take,
			dmls_error *err)
{
	size_t total = 0;
	for (size_t i = 0; i < take; i++)
		total += ex->count[i];
	m->ends = malloc((total ? total : 1) * sizeof(double));
	if (!m->ends)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t i = 0; i < take; i++) {
		dmls_rank_clock *c = &m->ranks[m->nranks++];
		size_t k = ex->count[i];
		/* the requests its connections carried, when they are known and
		 * near the bursts' count: two ranks asking each other at once
		 * make the bursts swap a request for an answer (exchanges.c) */
		size_t kc = ex->by_conn && ex->by_conn[i] >= 2 && k >= 2 &&
					    2 * ex->by_conn[i] >= k && ex->by_conn[i] <= 2 * k
				    ? ex->by_conn[i]
				    : k;
		c->host = ranks[i];
		c->count = kc;
		c->nends = k;
		/* the span over the steps in it: fewer by the connections than
		 * bursts, an answer was counted as a request inside the span;
		 * more, requests were missed, at the ends or inside the span
		 * (dmls_period_of_missed) */
		c->period_s = dmls_period_of_requests(ex->t[i], k, kc);
		c->bytes_per_exchange = ex->bytes[i];
		c->end_off = m->nends;
		if (k)
			memcpy(m->ends + m->nends, ex->t[i], k * sizeof(double));
		m->nends += k;
	}
	return 0;
}

static int decide(dmls_mode *m, size_t n, int lossy, dmls_error *err);

int dmls_mode_find(dmls_mode *m, const dmls_stats *st, const size_t *ranks, size_t n,
		   const size_t *pairs, size_t np, const dmls_exchanges *ex,
		   const dmls_iterations *job, dmls_error *err)
{
	memset(m, 0, sizeof(*m));
	m->period_spread = m->phase_spread = m->step_lock = NAN;
	int steady = job && job->count >= DMLS_MODE_MIN_STEPS && isfinite(job->bytes_spread) &&
		     job->bytes_spread <= DMLS_MODE_STEADY_BYTES &&
		     isfinite(job->bytes_outliers) && job->bytes_outliers <= DMLS_MODE_OUTLIERS;
	if (steady && n >= 2) { /* decided without the ranks' own clocks */
		m->mode = DMLS_MODE_SYNC;
		m->why = "the job's steps move steady bytes per rank, every rank in every step";
		return 0;
	}
	int lossy = dmls_hosts_lossy(st, ranks, n);
	size_t take = n < DMLS_MODE_MAX_RANKS ? n : DMLS_MODE_MAX_RANKS;
	m->ranks = calloc(take ? take : 1, sizeof(*m->ranks));
	if (!m->ranks)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (ex && ex->n == take && isfinite(ex->paired_share) &&
	    ex->paired_share >= DMLS_EXCHANGES_PAIRED) {
		int rc = event_clocks(m, ex, ranks, take, err);
		if (rc)
			return rc;
		m->by_request = 1;
		return decide(m, n, lossy, err);
	}
	dmls_iterations *its = malloc((take ? take : 1) * sizeof(*its));
	if (!its)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	int rc = dmls_iterations_find_clocks(its, st, ranks, take, pairs, np, err);
	for (size_t i = 0; i < take && rc == 0; i++)
		if ((rc = rank_clock(m, ranks[i], &its[i], err)))
			while (++i < take)
				dmls_iterations_release(&its[i]);
	free(its);
	return rc ? rc : decide(m, n, lossy, err);
}

/* The verdict from the clocks in m->ranks (n: the ranks asked for;
 * lossy: they sent DMLS_LOSSY_SHARE of their packets again). */
static int decide(dmls_mode *m, size_t n, int lossy, dmls_error *err)
{
	for (size_t i = 0; i < m->nranks; i++)
		m->ranks[i].ends = m->nends ? m->ends + m->ranks[i].end_off : NULL;
	double *p = malloc((m->nranks ? m->nranks : 1) * sizeof(double));
	if (!p)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	size_t nc = 0, ref = 0;
	for (size_t i = 0; i < m->nranks; i++) {
		const dmls_rank_clock *c = &m->ranks[i];
		if (!clocked(c))
			continue;
		p[nc++] = c->period_s;
		if (!clocked(&m->ranks[ref]))
			ref = i;
	}
	if (nc < 2) {
		m->mode = DMLS_MODE_UNKNOWN;
		m->why = n < 2 ? "one rank's sending in the capture: no second clock to compare"
			       : "fewer than two ranks keep a clock of their own (4 or more "
				 "periodic exchanges)";
		free(p);
		return 0;
	}
	double *q = malloc(nc * sizeof(double));
	if (!q) {
		free(p);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	memcpy(q, p, nc * sizeof(double));
	double P = dmls_median(q, nc);
	size_t off = 0, nclock = nc;
	for (size_t i = 0; i < nc; i++)
		off += fabs(p[i] - P) > DMLS_MODE_PERIOD_OFF * P;
	/* the median of two is their midpoint: two clocks of enough steps each
	 * (one step missed at a short window's edge moves a 10-step mean by
	 * 10 %) are apart when their periods are */
	size_t least = SIZE_MAX;
	for (size_t i = 0; i < m->nranks; i++)
		if (clocked(&m->ranks[i]) && m->ranks[i].count < least)
			least = m->ranks[i].count;
	if (nc == 2 && least >= DMLS_MODE_PAIR_STEPS)
		off = fabs(p[0] - p[1]) > DMLS_MODE_PERIOD_OFF * fmin(p[0], p[1]) ? 2 : 0;
	for (size_t i = 0; i < m->nranks; i++) /* the reference: nearest P */
		if (clocked(&m->ranks[i]) &&
		    fabs(m->ranks[i].period_s - P) < fabs(m->ranks[ref].period_s - P))
			ref = i;
	m->period_spread = (double)off / (double)nc;
	size_t nl = 0;
	nc = 0;
	for (size_t j = 0; j < m->nranks; j++) {
		const dmls_rank_clock *c = &m->ranks[j];
		if (j == ref || !clocked(c) || fabs(c->period_s - P) > DMLS_MODE_PERIOD_OFF * P)
			continue; /* a rank off P: counted above */
		double s, l;
		dmls_clock_compare(m->ranks[ref].ends, m->ranks[ref].nends, c->ends, c->nends, P,
				   &s, &l, NULL);
		if (isfinite(s))
			p[nc++] = s;
		if (isfinite(l))
			q[nl++] = l;
	}
	m->phase_spread = nc ? dmls_median(p, nc) : NAN;
	m->step_lock = nl ? dmls_median(q, nl) : NAN;
	free(p);
	free(q);
	if (off >= 2 && 2 * off >= nclock && lossy && !m->by_request) {
		m->mode = DMLS_MODE_UNKNOWN;
		m->why = "on a lossy path the ranks' own clocks disagree: their periods cannot be "
			 "compared";
	} else if (off >= 2 && 2 * off >= nclock) {
		m->mode = DMLS_MODE_ASYNC;
		m->why = "ranks at their own pace: their periods differ";
	} else if (isfinite(m->step_lock) && m->step_lock < DMLS_MODE_MIN_LOCK &&
		   !(m->phase_spread <= DMLS_MODE_TIGHT_PHASE)) {
		m->mode = DMLS_MODE_ASYNC;
		m->why = "ranks at their own pace: steps not in lockstep";
	} else if (m->step_lock < DMLS_MODE_FULL_LOCK &&
		   m->phase_spread >= DMLS_MODE_FREE_PHASE) {
		m->mode = DMLS_MODE_ASYNC;
		m->why = "ranks at one pace but their own steps: offsets spread over the period";
	} else if (!isfinite(m->step_lock)) {
		m->mode = DMLS_MODE_UNKNOWN;
		m->why = "too few steps to compare the ranks' clocks";
	} else {
		m->mode = DMLS_MODE_SYNC;
		m->why = "one period across ranks, one exchange per rank per step";
	}
	return 0;
}
