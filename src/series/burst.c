/*
 * burst.c - E(tau) and B_max(r) online over a stream of bins (burst.h).
 *
 * The ring holds the non-empty bins of the last max-tau window (at most
 * max_w bins, so cap >= max_w + 1 is enough).  For each time scale a head
 * index marks the oldest bin still inside its window [bin - w + 1, bin];
 * pushing a bin advances every head past the bins that left, then adds it:
 * the window sum after each push is the sum of a window ending at a
 * non-empty bin, and the largest window sum is reached at such a window.
 * The backlog drains r * bin per bin, also across the empty bins between
 * two pushes (q = max(0, q - r * idle)), as the batch recursion did.  A bin
 * before the last one by more than the longest window (time stepped back)
 * empties every window and the backlog, and the stream goes on from it:
 * the maxima so far stay.
 */
#include "dmlscope/burst.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const double dmls_burst_tau_s[DMLS_NTAU] = {100e-6, 1e-3, 5e-3, 10e-3, 100e-3, 1.0};
const double dmls_burst_rate_bps[DMLS_NRATE] = {1e9, 10e9, 40e9, 100e9};

int dmls_burst_stream_init(dmls_burst_stream *b, int64_t bin_ns)
{
	memset(b, 0, sizeof(*b));
	b->bin_ns = bin_ns > 0 ? bin_ns : 1;
	double bin_s = (double)b->bin_ns * 1e-9;
	int64_t maxw = 1;
	b->w0 = DMLS_NTAU;
	for (int i = 0; i < DMLS_NTAU; i++) {
		double tau = dmls_burst_tau_s[i];
		int64_t w = llround(tau / bin_s);
		b->w[i] = (w < 1 || tau < bin_s * 0.999) ? 0 : w;
		maxw = b->w[i] > maxw ? b->w[i] : maxw;
		if (b->w[i] && b->w0 == DMLS_NTAU)
			b->w0 = i; /* the time scales grow: a window for every later one */
	}
	for (int i = 0; i < DMLS_NRATE; i++)
		b->drain[i] = dmls_burst_rate_bps[i] / 8 * bin_s;
	b->cap = 2;
	while (b->cap < (size_t)maxw + 1)
		b->cap *= 2;
	b->ring = malloc(b->cap * sizeof(*b->ring));
	b->last_bin = INT64_MIN;
	if (!b->ring) {
		b->oom = 1;
		return -1;
	}
	return 0;
}

void dmls_burst_stream_release(dmls_burst_stream *b)
{
	free(b->ring);
	b->ring = NULL;
}

/* Bins without bytes: the backlog drains idle_bins (> 0) bins' worth. */
static void drain(dmls_burst_stream *b, int64_t idle_bins)
{
	double bin_s = (double)b->bin_ns * 1e-9;
	for (int i = 0; i < DMLS_NRATE; i++) {
		double d = (double)idle_bins * dmls_burst_rate_bps[i] / 8 * bin_s;
		b->q[i] = b->q[i] > d ? b->q[i] - d : 0;
	}
}

/* A bin at or before the last one (bin <= last_bin), and further back than
 * the longest window reaches. */
static int before_every_window(const dmls_burst_stream *b, int64_t bin)
{
	int64_t maxw = 1;
	for (int i = 0; i < DMLS_NTAU; i++)
		maxw = b->w[i] > maxw ? b->w[i] : maxw;
	return (uint64_t)b->last_bin - (uint64_t)bin > (uint64_t)maxw; /* exact: bin <= last */
}

/* bytes late, into the last bin, which is inside every window. */
static void add_late(dmls_burst_stream *b, double bytes)
{
	b->ring[(b->tail - 1) & (b->cap - 1)].v += bytes;
	for (int i = b->w0; i < DMLS_NTAU; i++) {
		b->sum[i] += bytes;
		b->best[i] = b->sum[i] > b->best[i] ? b->sum[i] : b->best[i];
	}
	for (int i = 0; i < DMLS_NRATE; i++) {
		b->q[i] += bytes;
		b->qbest[i] = b->q[i] > b->qbest[i] ? b->q[i] : b->qbest[i];
	}
	b->total += bytes;
}

void dmls_burst_stream_push(dmls_burst_stream *b, int64_t bin, double bytes)
{
	if (b->oom || bytes <= 0)
		return;
	if (b->tail > 0 && bin <= b->last_bin) {
		if (!before_every_window(b, bin)) {
			add_late(b, bytes);
			return;
		}
		for (int i = 0; i < DMLS_NTAU; i++) { /* a new time line */
			b->head[i] = b->tail;
			b->sum[i] = 0;
		}
		for (int i = 0; i < DMLS_NRATE; i++)
			b->q[i] = 0;
		b->last_bin = bin - 1;
	}
	if (b->tail > 0 && bin - b->last_bin > 1) /* none drains without idle bins */
		drain(b, bin - b->last_bin - 1);
	/* each window: the bins that left it out, then this one in (the
	 * oldest head frees the ring: every live entry is within max_w) */
	size_t mask = b->cap - 1;
	const dmls_burst_slot *ring = b->ring;
	uint64_t tail = b->tail;
	for (int i = b->w0; i < DMLS_NTAU; i++) {
		uint64_t h = b->head[i];
		double sum = b->sum[i];
		int64_t out = bin - b->w[i];
		while (h < tail && ring[h & mask].bin <= out)
			sum -= ring[h++ & mask].v;
		if (h == tail)
			sum = 0; /* no rounding residue in an empty window */
		sum += bytes;
		b->head[i] = h;
		b->sum[i] = sum;
		b->best[i] = sum > b->best[i] ? sum : b->best[i];
	}
	b->ring[tail & mask] = (dmls_burst_slot){bin, bytes};
	b->tail = tail + 1;
	for (int i = 0; i < DMLS_NRATE; i++) {
		double q = b->q[i] + (bytes - b->drain[i]);
		q = q > 0 ? q : 0;
		b->q[i] = q;
		b->qbest[i] = q > b->qbest[i] ? q : b->qbest[i];
	}
	b->last_bin = bin;
	b->total += bytes;
}

void dmls_burst_stream_result(const dmls_burst_stream *b, double span_s, dmls_burst *out)
{
	for (int i = 0; i < DMLS_NTAU; i++)
		out->max_window_bytes[i] = out->peak_to_mean[i] = NAN;
	for (int i = 0; i < DMLS_NRATE; i++)
		out->max_backlog_bytes[i] = NAN;
	out->mean_bps = NAN;
	if (b->oom || b->tail == 0)
		return;
	double rate = span_s > 0 ? b->total / span_s : NAN; /* bytes/s */
	out->mean_bps = 8 * rate;
	for (int i = 0; i < DMLS_NTAU; i++) {
		if (!b->w[i])
			continue;
		out->max_window_bytes[i] = b->best[i];
		double tau = dmls_burst_tau_s[i];
		if (tau <= span_s && rate > 0)
			out->peak_to_mean[i] = b->best[i] / (rate * tau);
	}
	for (int i = 0; i < DMLS_NRATE; i++)
		out->max_backlog_bytes[i] = b->qbest[i];
}

/* Burstiness of a whole series: its non-empty bins, in time order, through
 * a stream. */
static void push(int64_t bin, uint64_t bytes, void *ctx)
{
	dmls_burst_stream_push(ctx, bin, (double)bytes);
}

void dmls_burst_compute(dmls_burst *b, const dmls_series *s, double span_s)
{
	dmls_burst_stream bs = {.oom = 1};
	if (!s || dmls_series_empty(s) || s->bin_ns <= 0) {
		dmls_burst_stream_result(&bs, 0, b);
		return;
	}
	if (dmls_burst_stream_init(&bs, s->bin_ns)) {
		dmls_burst_stream_release(&bs);
		dmls_burst_stream_result(&bs, 0, b);
		return;
	}
	dmls_series_foreach(s, push, &bs);
	double bin_s = (double)s->bin_ns * 1e-9;
	if (!(span_s >= bin_s))
		span_s = (double)dmls_series_span_bins(s) * bin_s;
	dmls_burst_stream_result(&bs, span_s, b);
	dmls_burst_stream_release(&bs);
}
