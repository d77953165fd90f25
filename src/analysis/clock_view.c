/*
 * clock_view.c - the job's iterations as its view and its roles allow.
 *
 * iterations.c finds iterations in a series of bytes; this picks the
 * series and fixes what a partial view gets wrong: one sender seen alone
 * ends its steps with the acknowledgements of its peer's reply
 * (ends_from_acks), a parameter server's first sends seen with its hub are
 * the workers' initial pull (initial_pull), a hub seen alone that answers
 * one spoke at a time has no period (one_at_a_time).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "analysis/period.h"

#define ACK_JOIN 10          /* bins (1 ms): acknowledgements of one reply */
#define ACK_MIN_WIRE 1024.0  /* bytes of acknowledgements that make a reply */
#define ACK_MAX_BINS (1 << 24)
#define INITIAL_PULL_SHARE 0.5 /* workers' bytes in a pull-only first iteration, of a step's */
#define ONE_SHARE 0.1 /* a data peer served in an iteration: this share of an even split */
#define PACE_EDGES 16  /* data edges given a clock of their own */
#define PACE_OFF 0.10   /* two edges' periods this far apart: two clocks */
#define PACE_PHASE 0.15 /* closer, their steps' offsets this unsteady: two clocks */
#define PACE_MULTIPLE 4 /* an edge with up to so many bursts a step */

/* Payload host h sent in [t0_s, t1_s) (seconds from st->t0_ns): the
 * series' runs in the range only (a capture may span years). */
static double sent_between(const dmls_stats *st, size_t h, double t0_s, double t1_s)
{
	const dmls_series *s = &st->hosts[h].tx_payload;
	double bin_s = (double)s->bin_ns * 1e-9, off_s = (double)(s->t0_ns - st->t0_ns) * 1e-9;
	return dmls_series_range(s, (int64_t)floor((t0_s - off_s) / bin_s),
				 (int64_t)floor((t1_s - off_s) / bin_s), NULL);
}

/* One sender with one data peer (a parameter server's worker, or a ring
 * rank) seen alone: its step ends when it has received the reply (the
 * server's parameters), which the capture does not hold, but the sender's
 * acknowledgements of it are there: bins where it sent to its peer
 * packets without payload.  Each iteration's end moves to the end of the
 * first burst of acknowledgements after its own sending (bins at most
 * ACK_JOIN apart, at least ACK_MIN_WIRE bytes of them); when an iteration
 * has none, the ends stay.  Returns 1 when they moved. */
static int ends_from_acks(dmls_analysis *a, const dmls_stats *st)
{
	const dmls_pattern *p = &a->pattern;
	dmls_iterations *it = &a->iter;
	if (!p->lone_sender || p->npairs != 1 || it->count < 3)
		return 0;
	const dmls_pair *pr = &st->pairs[p->pairs[0]];
	const dmls_series *w = &pr->series, *x = &st->hosts[pr->src].tx_payload;
	if (w->bin_ns != x->bin_ns || w->t0_ns != x->t0_ns)
		return 0;
	double bin_s = (double)w->bin_ns * 1e-9, off_s = (double)(w->t0_ns - st->t0_ns) * 1e-9;
	double *end = malloc(it->count * sizeof(double));
	if (!end)
		return 0;
	size_t found = 0;
	int64_t budget = ACK_MAX_BINS; /* bins looked at, all iterations together */
	for (size_t i = 0; i < it->count; i++) {
		int64_t k = (int64_t)ceil((it->comm_end_s[i] - off_s) / bin_s);
		int64_t stop = i + 1 < it->count ? (int64_t)floor((it->bounds_s[i + 1] - off_s) / bin_s)
						 : w->max_bin + 1;
		k = k < w->min_bin ? w->min_bin : k;
		stop = stop > w->max_bin + 1 ? w->max_bin + 1 : stop;
		if (stop - k > budget)
			break; /* too long to scan bin by bin: keep the ends */
		budget -= stop > k ? stop - k : 0;
		int64_t first = -1, last = -1;
		double sum = 0;
		for (; k < stop; k++) {
			if (dmls_series_get(w, k) == 0 || dmls_series_get(x, k) != 0)
				continue; /* acknowledgements only */
			if (last >= 0 && k - last > ACK_JOIN) {
				if (sum >= ACK_MIN_WIRE)
					break;
				first = -1, sum = 0; /* a lone ACK: not the reply */
			}
			if (first < 0)
				first = k;
			last = k;
			sum += (double)dmls_series_get(w, k);
		}
		if (first < 0 || sum < ACK_MIN_WIRE)
			break;
		end[i] = off_s + (double)(last + 1) * bin_s;
		found++;
	}
	if (found == it->count) {
		memcpy(it->comm_end_s, end, it->count * sizeof(double));
		dmls_iterations_period(it);
	}
	free(end);
	return found == it->count;
}

/* A star seen with its hub: is the first iteration the workers' initial
 * pull of the model (the hub sends, no observed worker pushes)? */
static int initial_pull(const dmls_analysis *a, const dmls_stats *st, const size_t *workers,
			size_t nw)
{
	const dmls_iterations *it = &a->iter;
	if (it->count < 3)
		return 0;
	if (nw == 0)
		return 1; /* the hub alone sends steps + 1 times */
	double first = 0, rest = 0;
	for (size_t w = 0; w < nw; w++) {
		first += sent_between(st, workers[w], it->bounds_s[0], it->bounds_s[1]);
		rest += sent_between(st, workers[w], it->bounds_s[1], it->bounds_s[it->count - 1]);
	}
	return first < INITIAL_PULL_SHARE * rest / (double)(it->count - 2);
}

/* The robust spread of clock e's offsets from clock ref's ends, over P. */
static double phase_spread(const double *ref, size_t nref, const double *e, size_t n, double P)
{
	double spread, lock;
	dmls_clock_compare(ref, nref, e, n, P, &spread, &lock, NULL);
	return spread;
}

/* The phase spread of two clocks whose periods are near a ratio of the
 * whole number k >= 2 (pb the slower's): the faster clock's every k-th
 * end, at the offset of the k that fits best, against the slower clock. */
static double multiple_spread(const double *fast, size_t nf, const double *slow, size_t nsl,
			      double pb, size_t k)
{
	double best = INFINITY, *d = malloc((nf / k + 1) * sizeof(double));
	for (size_t j = 0; d && j < k; j++) {
		size_t m = 0;
		for (size_t i = j; i < nf; i += k)
			d[m++] = fast[i];
		if (m >= 4)
			best = fmin(best, phase_spread(slow, nsl, d, m, pb));
	}
	free(d);
	return best;
}

/* The phase spread of two clocks of one period P that may each count two
 * bursts a step: every other end of each (the best of the four pairings
 * of their offsets) against the other's, over 2 P. */
static double halves_spread(const double *a, size_t na, const double *b, size_t nb, double P)
{
	double best = INFINITY, *x = malloc((na / 2 + 1) * sizeof(double));
	for (size_t i = 0; x && i < 2; i++) {
		size_t mx = 0;
		for (size_t k = i; k < na; k += 2)
			x[mx++] = a[k];
		if (mx >= 4) /* b's every other end, at its better offset, against x */
			best = fmin(best, multiple_spread(b, nb, x, mx, 2 * P, 2));
	}
	free(x);
	return best;
}

/* Do the sender's data edges keep clocks of their own?  Each edge's own
 * clock (the iterations of that pair alone, for the PACE_EDGES heaviest,
 * of 4 steps or more) against the first: 1 when their periods are more
 * than PACE_OFF apart, or their steps' offsets are not steady (robust
 * spread over PACE_PHASE of the period, dmls_clock_compare).  Measured on
 * the testbed: a synchronous server's, tree's or butterfly's edges are
 * within 7 % and 0.11; a host with ranks of two jobs at 8-9 % apart, or at
 * one period with offsets spread 0.27-0.51; an asynchronous server's
 * workers 14 % apart.  Offsets spread wider as noise about one offset
 * (dmls_steps_lock: one period within 3 %, lock 0.9, spread up to 0.30,
 * not wandering) are one clock: a clique rank sending to five peers at
 * once, one edge's ends 0.16-0.23 of a period from the first's.  An
 * asynchronous server with two workers answers both within most
 * iterations of the merged clock, which the count below cannot see.  An edge can carry two bursts a step where another carries
 * one (a rank of Open MPI's Rabenseifner all-reduce sends to its nearest
 * partner first and last in a step: that edge's clock counts 72 for the
 * step's 36, which withheld every rank's file of the testbed's runs):
 * periods near a whole multiple k (up to PACE_MULTIPLE) are one clock
 * when the faster's every k-th end, at the best of its k offsets, keeps a
 * steady offset to the slower's.  Two edges can each carry two bursts a
 * step (a rank of Rabenseifner's all-reduce on 8: S/2 to one partner first
 * and last, S/4 to another second and fifth): both clocks count twice the
 * steps at one period, their ends in turn near and far from each other's,
 * and 6 of the 8 ranks' files were withheld that way.  So where the job's
 * clock (job_s) is twice their period, every other end of each (halves_spread)
 * keeping a steady offset makes them one clock too. */
static int clocks_apart(const dmls_stats *st, size_t hub, const long *pk, size_t ns, double job_s)
{
	double ref_p = NAN, *ref = NULL;
	size_t nref = 0;
	int apart = 0;
	for (size_t j = 0; j < ns && j < PACE_EDGES && !apart; j++) {
		if (pk[j] < 0)
			continue;
		size_t pair = (size_t)pk[j];
		dmls_iterations it;
		dmls_error err;
		if (dmls_iterations_find_pairs(&it, st, &hub, 1, &hub, 1, &pair, 1, &err))
			break;
		if (it.count >= 4 && isfinite(it.period_s) && it.period_s > 0) {
			if (!ref) { /* the first steady edge is the reference */
				ref = it.comm_end_s, nref = it.count, ref_p = it.period_s;
				it.comm_end_s = NULL;
			} else {
				double lo = fmin(it.period_s, ref_p), hi = fmax(it.period_s, ref_p);
				double k = round(hi / lo);
				const double *fast = it.comm_end_s, *slow = ref;
				size_t nf = it.count, ns_slow = nref;
				if (ref_p < it.period_s)
					fast = ref, nf = nref, slow = it.comm_end_s, ns_slow = it.count;
				if (fabs(hi - lo) <= PACE_OFF * lo) /* lock: 0.66-1 either way */
					apart = phase_spread(ref, nref, it.comm_end_s, it.count, lo) >
							PACE_PHASE &&
						!dmls_steps_lock(ref, nref, ref_p, it.comm_end_s,
								 it.count, it.period_s) &&
						!(fabs(job_s - 2 * lo) <= PACE_OFF * job_s &&
						  halves_spread(ref, nref, it.comm_end_s, it.count,
								lo) <= PACE_PHASE);
				else if (k >= 2 && k <= PACE_MULTIPLE && fabs(hi - k * lo) <= PACE_OFF * hi)
					apart = multiple_spread(fast, nf, slow, ns_slow, hi, (size_t)k) >
						PACE_PHASE;
				else
					apart = 1;
			}
		}
		dmls_iterations_release(&it);
	}
	free(ref);
	return apart;
}

/* One sender seen alone with two data peers or more: does it serve them
 * all in each iteration (a synchronous server, a butterfly's or a tree's
 * rank), or one at a time (an asynchronous server answering each worker
 * at its own pace, a rank gossiping or averaging with a random peer, whose
 * sending mixes its own steps with answers to others)?  Per iteration, the
 * peers that got at least ONE_SHARE of an even split of its bytes (a
 * butterfly's farthest partner gets S/2, its nearest 2S/N: all count); 1
 * when the median count is below the number of peers, or when its edges
 * keep clocks of their own (clocks_apart). */
static int one_at_a_time(const dmls_analysis *a, const dmls_stats *st)
{
	const dmls_pattern *p = &a->pattern;
	const dmls_iterations *it = &a->iter;
	size_t hub = p->observed[0], ns = 0;
	if (it->count < 3 || p->nobserved != 1)
		return 0;
	long *pk = malloc(p->ranks * sizeof(long));
	double *cnt = malloc(it->count * sizeof(double)), *sent = malloc(p->ranks * sizeof(double));
	int r = 0;
	if (!pk || !cnt || !sent)
		goto out;
	for (size_t i = 0; i < p->npairs && ns < p->ranks; i++) /* its data edges */
		if (st->pairs[p->pairs[i]].src == hub)
			pk[ns++] = (long)p->pairs[i];
	for (size_t k = 0; k + 1 < it->count; k++) {
		double total = 0;
		for (size_t j = 0; j < ns; j++) {
			sent[j] = 0;
			if (pk[j] < 0)
				continue;
			const dmls_series *s = &st->pairs[pk[j]].series;
			double bin_s = (double)s->bin_ns * 1e-9;
			double off_s = (double)(s->t0_ns - st->t0_ns) * 1e-9;
			sent[j] = dmls_series_range(s, (int64_t)floor((it->bounds_s[k] - off_s) / bin_s),
						    (int64_t)floor((it->bounds_s[k + 1] - off_s) / bin_s),
						    NULL);
			total += sent[j];
		}
		size_t got = 0;
		for (size_t j = 0; j < ns; j++)
			got += total > 0 && sent[j] >= ONE_SHARE * total / (double)ns;
		cnt[k] = (double)got;
	}
	if (ns < 2)
		goto out;
	r = dmls_median(cnt, it->count - 1) < (double)ns;
	int apart = !r && clocks_apart(st, hub, pk, ns, it->period_s);
	if (!r && (apart || p->kind == DMLS_PAT_STAR)) {
		/* edges served in turn within a step keep one clock; a star's
		 * hub serving one spoke a step in turn (a rank of pair averaging
		 * on a round-robin schedule, its clock broken only at its byes,
		 * spans several steps) serves them one at a time */
		size_t *edge = malloc(ns * sizeof(size_t)), ne = 0;
		double share;
		for (size_t j = 0; edge && j < ns; j++)
			if (pk[j] >= 0)
				edge[ne++] = (size_t)pk[j];
		int turn = edge ? dmls_edges_in_turn(st, edge, ne, it->bounds_s, it->count, &share) : -1;
		free(edge);
		r = turn < 0 || (apart && turn != 1) || (p->kind == DMLS_PAT_STAR && turn == 2);
	}
out:
	free(pk);
	free(cnt);
	free(sent);
	return r;
}

/* Iterations of the job, bytes per worker from the hosts with role worker.
 * On a partial view only the observed ranks count: the series is their
 * data edges, bytes per worker come from observed workers.  A star seen
 * with its hub: the hub's first sends are the workers' initial pull of the
 * model (a worker pulls before its first push), warm-up, not a step, when
 * no observed worker pushed in it; seen from its hub alone, the hub's
 * bytes per iteration (server_bytes) give S.  At a rank's bounds at_s, its
 * own bytes (at_host, when a worker) give the bytes per worker. */
static int find_iterations(dmls_analysis *a, dmls_stats *st, const size_t *jpairs,
			   size_t njpairs, double guide_s, const double *at_s, size_t nat,
			   size_t at_host, dmls_error *err)
{
	dmls_pattern *p = &a->pattern;
	size_t nw = 0, *workers = malloc((p->ranks ? p->ranks : 1) * sizeof(size_t));
	if (!workers)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	const size_t *hosts = p->partial ? p->observed : p->members;
	size_t nh = p->partial ? p->nobserved : p->ranks;
	for (size_t i = 0; i < nh; i++)
		if (st->hosts[hosts[i]].role == DMLS_ROLE_WORKER)
			workers[nw++] = hosts[i];
	int hub_seen = p->partial && p->kind == DMLS_PAT_STAR && nw < nh;
	int hub_only = hub_seen && nw == 0;
	size_t nworkers = nw;
	if (hub_only)
		for (size_t i = 0; i < nh; i++)
			workers[nw++] = hosts[i];
	dmls_iterations_release(&a->iter);
	a->pulled_first = 0;
	const size_t *pairs = p->partial ? p->pairs : jpairs;
	size_t np = p->partial ? p->npairs : njpairs;
	/* another rank's bounds: only its own bytes keep its phase */
	int mine = at_s && at_host < st->nhosts && st->hosts[at_host].role == DMLS_ROLE_WORKER;
	int rc = at_s ? dmls_iterations_find_at(&a->iter, st, hosts, nh, mine ? &at_host : workers,
						mine ? 1 : nw, pairs, np, at_s, nat, err)
		      : dmls_iterations_find_guided(&a->iter, st, hosts, nh, workers, nw, pairs,
						    np, guide_s, err);
	a->server_bytes = NAN;
	if (rc == 0 && hub_only) {
		a->server_bytes = a->iter.bytes_per_worker;
		a->iter.bytes_per_worker = a->iter.bytes_spread = NAN;
	}
	if (rc == 0)
		a->ends_from_acks = ends_from_acks(a, st);
	if (rc == 0 && hub_seen && initial_pull(a, st, workers, nworkers)) {
		dmls_iterations_drop_first(&a->iter);
		a->pulled_first = 1;
	}
	if (rc == 0 && p->partial && p->nobserved == 1 &&
	    (a->hub_one_at_a_time = one_at_a_time(a, st)))
		a->iter.period_s = a->iter.period_median_s = NAN; /* the spokes' paces merged */
	free(workers);
	return rc;
}

int dmls_find_iterations(dmls_analysis *a, dmls_stats *st, const size_t *jpairs,
			 size_t njpairs, dmls_error *err)
{
	return find_iterations(a, st, jpairs, njpairs, 0, NULL, 0, SIZE_MAX, err);
}

int dmls_find_iterations_guided(dmls_analysis *a, dmls_stats *st, const size_t *jpairs,
				size_t njpairs, double guide_s, dmls_error *err)
{
	return find_iterations(a, st, jpairs, njpairs, guide_s, NULL, 0, SIZE_MAX, err);
}

int dmls_find_iterations_at(dmls_analysis *a, dmls_stats *st, const size_t *jpairs,
			    size_t njpairs, const double *at_s, size_t nat, size_t host,
			    dmls_error *err)
{
	return find_iterations(a, st, jpairs, njpairs, 0, at_s, nat, host, err);
}
