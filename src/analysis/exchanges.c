/*
 * exchanges.c - who started each exchange: requests and their answers.
 *
 * In pair averaging (AD-PSGD, Lian et al., ICML 2018; KungFu's pair
 * averaging) a rank that finishes a step sends its parameters to a random
 * peer, and the peer answers with its own.  A rank's sending therefore
 * holds its own steps (its requests) and its answers to others' requests:
 * counted together they give it more "iterations" than it made steps.
 *
 * Per pair of ranks, the bursts each way (runs of 1 ms bins holding at
 * least BURST_SHARE of the pair's busiest bin, joined across gaps of up to
 * BURST_JOIN bins: a transfer's acknowledgements weigh a few per cent and
 * stay out) are put in time order; a burst followed by one the other way
 * that starts within ANSWER_MAX_S of its end and moves a like amount
 * (within SIZE_TOL) is a request and its answer; any other burst is a
 * request without one (gossip's pushes).  When at least
 * DMLS_EXCHANGES_PAIRED of
 * the bursts pair up, the job works by request and answer, and each rank's
 * clock is its requests alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/endpoints.h"
#include "analysis/period.h"
#include "dmlscope/analysis.h"
#include "util/grow.h"

#define BURST_SHARE 0.1
#define BURST_JOIN 10
#define ANSWER_MAX_S 0.2
#define SIZE_TOL 0.5
#define MAX_BURSTS (1u << 20) /* all pairs together */
#define MIN_ANSWERED 3          /* answered requests that give a rank's bytes per request */

typedef struct burst {
	double t0, t1, bytes; /* seconds from st->t0_ns; payload (wire x the pair's share) */
	size_t src;
} burst;

typedef struct bursts {
	burst *b;
	size_t n, cap;
	int oom;
	/* the run being built */
	double thr, bin_s, off_s, scale; /* scale: the pair's payload / wire */
	int64_t last;
	size_t src;
	int open;
	int64_t edge_bin; /* the last bin below the threshold, and its bytes */
	double edge_bytes;
} bursts;

static void push(bursts *bs, burst x)
{
	if (bs->n == bs->cap) {
		size_t cap = bs->cap ? 2 * bs->cap : 256;
		burst *b = cap <= MAX_BURSTS ? realloc(bs->b, cap * sizeof(*b)) : NULL;
		if (!b) {
			bs->oom = 1;
			return;
		}
		bs->b = b, bs->cap = cap;
	}
	bs->b[bs->n++] = x;
}

/* A burst's bytes take in the bins just below the threshold on either
 * side of it (its first and last milliseconds), so that bytes per request
 * are whole; its times are those of the bins above. */
static void visit(int64_t bin, uint64_t bytes, void *ctx)
{
	bursts *bs = ctx;
	if (bs->oom)
		return;
	if ((double)bytes < bs->thr) {
		if (bs->open && bin == bs->last + 1)
			bs->b[bs->n - 1].bytes += bs->scale * (double)bytes;
		bs->edge_bin = bin, bs->edge_bytes = bs->scale * (double)bytes;
		return;
	}
	double t = bs->off_s + (double)bin * bs->bin_s;
	if (bs->open && bin - bs->last <= BURST_JOIN) {
		burst *b = &bs->b[bs->n - 1];
		b->t1 = t + bs->bin_s;
		b->bytes += bs->scale * (double)bytes;
	} else {
		double lead = bs->edge_bin == bin - 1 && !(bs->open && bs->edge_bin == bs->last + 1)
				      ? bs->edge_bytes
				      : 0;
		push(bs, (burst){t, t + bs->bin_s, bs->scale * (double)bytes + lead, bs->src});
		bs->open = !bs->oom;
	}
	bs->last = bin;
}

static void max_bin(int64_t bin, uint64_t bytes, void *ctx)
{
	(void)bin;
	double *m = ctx;
	*m = fmax(*m, (double)bytes);
}

/* Bursts of pair k (one direction) appended to bs. */
static void pair_bursts(bursts *bs, const dmls_stats *st, long k)
{
	if (k < 0)
		return;
	const dmls_pair *pr = &st->pairs[k];
	double m = 0;
	dmls_series_foreach(&pr->series, max_bin, &m);
	bs->thr = BURST_SHARE * m;
	bs->bin_s = (double)pr->series.bin_ns * 1e-9;
	bs->off_s = (double)(pr->series.t0_ns - st->t0_ns) * 1e-9;
	bs->src = pr->src;
	bs->scale = dmls_pair_series_payload(pr);
	bs->open = 0;
	bs->edge_bin = INT64_MIN;
	dmls_series_foreach(&pr->series, visit, bs);
}


static int cmp_t0(const void *x, const void *y)
{
	const burst *a = x, *b = y;
	return (a->t0 > b->t0) - (a->t0 < b->t0);
}

void dmls_exchanges_release(dmls_exchanges *x)
{
	for (size_t i = 0; x->t && i < x->n; i++)
		free(x->t[i]);
	free(x->t);
	free(x->bytes);
	free(x->count);
	free(x->by_conn);
	memset(x, 0, sizeof(*x));
}

/*
 * Requests by connection.  Bursts alone cannot tell a request from an
 * answer when two ranks ask each other at once; the connections can: an
 * RPC runtime (tensorpipe, gRPC) sends a request over a connection the
 * asker opened to the peer's listening port, and the answer comes back
 * over it, while the peer's own requests go over the connection it opened.
 * A TCP endpoint (host, port) that talks to two remote endpoints or more is
 * a listening port; a flow from an endpoint that is not one to an endpoint
 * that is carries its source's requests.  Their payload over the ranks'
 * median bytes per request is the rank's count (by_conn; 0 when unknown:
 * no listening port on either side, or flows folded away at the cap).
 * Every request moves the same model, and the connections' payload is
 * exact where the bursts' bytes are not: by_conn corrects the count when
 * the bursts swapped a request for an answer.  (Counting a flow's messages
 * instead, runs of payload after a pause, counts the runtime's set-up
 * messages too: one more per rank, one more per peer from rank 0.)
 */
static int by_connection(dmls_exchanges *x, const dmls_stats *st, const size_t *local)
{
	x->by_conn = calloc(x->n ? x->n : 1, sizeof(size_t));
	if (!x->by_conn)
		return -1;
	if (st->fold_flows.packets > 0)
		return 0; /* flows folded away: their payload is not known */
	dmls_endpoint *e;
	size_t m;
	int listed = dmls_endpoints_list(st, local, x->n, &e, &m);
	double *req = calloc(x->n ? x->n : 1, sizeof(double)), S = NAN;
	double *b = malloc((x->n ? x->n : 1) * sizeof(double));
	int rc = -1;
	if (listed || !req || !b)
		goto out;
	size_t nb = 0;
	for (size_t i = 0; i < x->n; i++)
		if (x->count[i] && isfinite(x->bytes[i]) && x->bytes[i] > 0)
			b[nb++] = x->bytes[i];
	S = nb ? dmls_median(b, nb) : NAN;
	for (size_t f = 0; f < st->nflows; f++) {
		const dmls_flow *fl = &st->flows[f];
		if (fl->proto != 6 || local[fl->src] >= x->n || local[fl->dst] >= x->n ||
		    dmls_flow_hidden(st, f))
			continue;
		if (dmls_endpoint_listens(e, m, fl->dst, fl->dport) &&
		    !dmls_endpoint_listens(e, m, fl->src, fl->sport))
			req[local[fl->src]] += (double)fl->payload_bytes;
	}
	for (size_t i = 0; i < x->n && S > 0; i++)
		x->by_conn[i] = (size_t)llround(req[i] / S);
	rc = 0;
out:
	free(e);
	free(req);
	free(b);
	return rc;
}

/* Per rank, the bytes of its requests that were answered (a like amount
 * back: a whole request, neither split nor merged with another). */
typedef struct answered_bytes {
	double *v;
	size_t n, cap;
} answered_bytes;

/* Label the bursts of one pair (sorted): requests appended per rank. */
static int label(dmls_exchanges *x, size_t *cap, const size_t *local, burst *b, size_t n,
		 answered_bytes *ab, size_t *bursts_n, size_t *paired)
{
	for (size_t k = 0; k < n; k++) {
		*bursts_n += 1;
		int answered = k + 1 < n && b[k + 1].src != b[k].src &&
			       b[k + 1].t0 - b[k].t1 <= ANSWER_MAX_S &&
			       fabs(b[k + 1].bytes - b[k].bytes) <= SIZE_TOL * b[k].bytes;
		size_t r = local[b[k].src];
		if (r < x->n) {
			if (dmls_grow((void **)&x->t[r], &cap[r], x->count[r], sizeof(double), 64))
				return -1;
			x->t[r][x->count[r]++] = b[k].t0;
			x->bytes[r] += b[k].bytes;
		}
		if (answered && r < x->n) {
			if (dmls_grow((void **)&ab[r].v, &ab[r].cap, ab[r].n, sizeof(double), 64))
				return -1;
			ab[r].v[ab[r].n++] = b[k].bytes;
		}
		if (answered) {
			*bursts_n += 1;
			*paired += 2;
			k++;
		}
	}
	return 0;
}

int dmls_exchanges_find(dmls_exchanges *x, const dmls_stats *st, const size_t *ranks, size_t n)
{
	memset(x, 0, sizeof(*x));
	x->n = n;
	x->t = calloc(n ? n : 1, sizeof(double *));
	x->bytes = calloc(n ? n : 1, sizeof(double));
	x->count = calloc(n ? n : 1, sizeof(size_t));
	size_t *local = malloc(st->nhosts * sizeof(size_t));
	size_t *cap = calloc(n ? n : 1, sizeof(size_t)); /* of each x->t[i] */
	answered_bytes *ab = calloc(n ? n : 1, sizeof(*ab));
	bursts bs = {0};
	int rc = -1;
	if (!x->t || !x->bytes || !x->count || !local || !cap || !ab)
		goto out;
	for (size_t i = 0; i < st->nhosts; i++)
		local[i] = n;
	for (size_t i = 0; i < n; i++)
		local[ranks[i]] = i;
	size_t total = 0, paired = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			bs.n = 0;
			pair_bursts(&bs, st,
				    dmls_stats_find_pair(st, (uint32_t)ranks[i], (uint32_t)ranks[j]));
			pair_bursts(&bs, st,
				    dmls_stats_find_pair(st, (uint32_t)ranks[j], (uint32_t)ranks[i]));
			if (bs.oom)
				goto out;
			qsort(bs.b, bs.n, sizeof(burst), cmp_t0);
			if (label(x, cap, local, bs.b, bs.n, ab, &total, &paired))
				goto out;
		}
	x->paired_share = total ? (double)paired / (double)total : NAN;
	for (size_t i = 0; i < n; i++) {
		if (x->count[i])
			qsort(x->t[i], x->count[i], sizeof(double), dmls_cmp_double);
		x->bytes[i] = x->count[i] ? x->bytes[i] / (double)x->count[i] : NAN;
		/* bytes per request: the median of its answered requests where
		 * there are some (contention splits a burst, and a mean over all
		 * its bursts reads low: -5 % at 8 ranks), else the mean */
		if (ab[i].n >= MIN_ANSWERED)
			x->bytes[i] = dmls_median(ab[i].v, ab[i].n);
	}
	if (by_connection(x, st, local))
		goto out;
	rc = 0;
out:
	for (size_t i = 0; ab && i < n; i++)
		free(ab[i].v);
	free(ab);
	free(local);
	free(cap);
	free(bs.b);
	if (rc)
		dmls_exchanges_release(x);
	return rc;
}
