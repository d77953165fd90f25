/*
 * result_lists.c - the orders and figures of dmls_result, chosen once.
 *
 * What the outputs list in an order of their own, or a figure built from
 * the series: the hosts the terminal shows (every host, or the busiest
 * DMLS_HOSTS_SHOWN, in address order), the top pairs by wire bytes, the
 * volume matrix (past DMLS_MATRIX_MAX_HOSTS hosts the busiest ones and an
 * `other` row and column), the flows with the most retransmissions, each
 * host's retransmission rate, the flow sizes in order (their empirical
 * CDF), each iteration's duration, and all wire bytes in 10 ms bins (the
 * study's "link throughput in 10 ms bins").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/result_int.h"

static size_t *identity(size_t n)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	for (size_t i = 0; idx && i < n; i++)
		idx[i] = i;
	return idx;
}

static uint64_t host_volume(const dmls_stats *st, size_t h)
{
	return st->hosts[h].tx_wire_bytes + st->hosts[h].rx_wire_bytes;
}

static int cmp_volume_desc(const void *x, const void *y, void *ctx)
{
	uint64_t a = host_volume(ctx, *(const size_t *)x), b = host_volume(ctx, *(const size_t *)y);
	return (a < b) - (a > b);
}

static int cmp_addr(const void *x, const void *y, void *ctx)
{
	const dmls_stats *st = ctx;
	return memcmp(st->hosts[*(const size_t *)x].addr, st->hosts[*(const size_t *)y].addr, 16);
}

/* The terminal's hosts: address order; past DMLS_HOSTS_SHOWN, the busiest. */
static int hosts_shown(dmls_result *r, const dmls_stats *st)
{
	if (!(r->shown = identity(st->nhosts)))
		return DMLS_ENOMEM;
	r->nshown = st->nhosts;
	if (r->nshown > DMLS_HOSTS_SHOWN) {
		qsort_r(r->shown, st->nhosts, sizeof(*r->shown), cmp_volume_desc, (void *)st);
		r->nshown = DMLS_HOSTS_SHOWN;
	}
	qsort_r(r->shown, r->nshown, sizeof(*r->shown), cmp_addr, (void *)st);
	return DMLS_OK;
}

static int cmp_pair_desc(const void *x, const void *y, void *ctx)
{
	const dmls_stats *st = ctx;
	uint64_t a = st->pairs[*(const size_t *)x].wire_bytes;
	uint64_t b = st->pairs[*(const size_t *)y].wire_bytes;
	return (a < b) - (a > b);
}

static int top_pairs(dmls_result *r, const dmls_stats *st)
{
	size_t *idx = identity(st->npairs);
	if (!idx)
		return DMLS_ENOMEM;
	qsort_r(idx, st->npairs, sizeof(*idx), cmp_pair_desc, (void *)st);
	for (size_t i = 0; i < st->npairs && i < DMLS_TOP_PAIRS; i++) {
		const dmls_pair *p = &st->pairs[idx[i]];
		r->top_pairs[i] = idx[i];
		r->top_pair_percent[i] = st->wire_bytes ? 100.0 * (double)p->wire_bytes /
								  (double)st->wire_bytes
							: 0;
		r->ntop_pairs = i + 1;
	}
	free(idx);
	return DMLS_OK;
}

/* Busiest first (tx + rx wire bytes), ties to the earlier host. */
static int cmp_busy(const void *a, const void *b, void *ctx)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t bx = host_volume(ctx, x), by = host_volume(ctx, y);
	if (bx != by)
		return bx < by ? 1 : -1;
	return (x > y) - (x < y);
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Matrix rows: every host up to DMLS_MATRIX_MAX_HOSTS; beyond, the busiest
 * DMLS_MATRIX_MAX_HOSTS - 1 in table order and one `other` row and column
 * for the rest, folded pairs included (their ends are unknown: other ->
 * other). */
static int matrix(dmls_result *r, const dmls_stats *st)
{
	int fold = st->nhosts > DMLS_MATRIX_MAX_HOSTS || st->fold_pairs.entries > 0;
	size_t k = st->nhosts > DMLS_MATRIX_MAX_HOSTS ? DMLS_MATRIX_MAX_HOSTS - 1 : st->nhosts;
	size_t n = k + (fold ? 1 : 0), cells = n ? n * n : 1;
	size_t *order = identity(st->nhosts), *row = malloc((st->nhosts ? st->nhosts : 1) *
							     sizeof(*row));
	r->matrix.host = malloc((n ? n : 1) * sizeof(*r->matrix.host));
	r->matrix.wire_bytes = calloc(cells, sizeof(uint64_t));
	r->matrix.payload_bytes = calloc(cells, sizeof(uint64_t));
	int rc = DMLS_ENOMEM;
	if (!order || !row || !r->matrix.host || !r->matrix.wire_bytes || !r->matrix.payload_bytes)
		goto out;
	r->matrix.n = n;
	for (size_t i = 0; i < st->nhosts; i++)
		row[i] = k; /* k: other */
	if (st->nhosts > k) {
		qsort_r(order, st->nhosts, sizeof(*order), cmp_busy, (void *)st);
		qsort(order, k, sizeof(*order), cmp_index); /* the busiest, in table order */
	}
	for (size_t i = 0; i < k; i++) {
		row[order[i]] = i;
		r->matrix.host[i] = order[i];
	}
	if (fold)
		r->matrix.host[k] = SIZE_MAX;
	for (size_t i = 0; i < st->npairs; i++) {
		const dmls_pair *p = &st->pairs[i];
		size_t c = row[p->src] * n + row[p->dst];
		r->matrix.wire_bytes[c] += p->wire_bytes;
		r->matrix.payload_bytes[c] += p->payload_bytes;
	}
	if (fold) {
		r->matrix.wire_bytes[n * n - 1] += st->fold_pairs.wire_bytes;
		r->matrix.payload_bytes[n * n - 1] += st->fold_pairs.payload_bytes;
	}
	rc = DMLS_OK;
out:
	free(order);
	free(row);
	return rc;
}

/* Each host's retransmission rate, and the DMLS_TOP_LOSS_FLOWS flows with
 * the most retransmissions (by count, then in flow order). */
static int loss(dmls_result *r, const dmls_stats *st)
{
	r->loss.host_rate = malloc((st->nhosts ? st->nhosts : 1) * sizeof(double));
	if (!r->loss.host_rate)
		return DMLS_ENOMEM;
	for (size_t i = 0; i < st->nhosts; i++) {
		const dmls_host *h = &st->hosts[i];
		r->loss.host_rate[i] = h->tx_packets ? (double)h->tx_retransmissions /
							       (double)h->tx_packets
						     : NAN;
	}
	uint64_t floor_rt = 0;
	for (int k = 0; k < DMLS_TOP_LOSS_FLOWS; k++) {
		uint64_t best = 0;
		for (size_t i = 0; i < st->nflows; i++) {
			uint64_t n = st->flows[i].retransmissions;
			if (n > best && (k == 0 || n < floor_rt))
				best = n;
		}
		if (best == 0)
			break;
		floor_rt = best;
		for (size_t i = 0; i < st->nflows && r->loss.ntop < DMLS_TOP_LOSS_FLOWS; i++)
			if (st->flows[i].retransmissions == best)
				r->loss.top[r->loss.ntop++] = i;
	}
	return DMLS_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int flow_sizes(dmls_result *r, const dmls_stats *st)
{
	r->flow_sizes = malloc((st->nflows ? st->nflows : 1) * sizeof(*r->flow_sizes));
	if (!r->flow_sizes)
		return DMLS_ENOMEM;
	for (size_t i = 0; i < st->nflows; i++)
		r->flow_sizes[i] = st->flows[i].wire_bytes;
	qsort(r->flow_sizes, st->nflows, sizeof(*r->flow_sizes), cmp_u64);
	r->nflow_sizes = st->nflows;
	return DMLS_OK;
}

static int iteration_durations(dmls_result *r)
{
	size_t n = r->iter.n;
	r->iter.duration_s = malloc((n ? n : 1) * sizeof(double));
	if (!r->iter.duration_s)
		return DMLS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		double end = i + 1 < n ? r->iter.bounds_s[i + 1] : r->iter.end_s;
		r->iter.duration_s[i] = end - r->iter.bounds_s[i];
	}
	return DMLS_OK;
}

/* Total wire bytes in DMLS_FIGURE_BIN_NS bins (coarser for long runs), from
 * the first packet to the last. */
static int figure(dmls_result *r, const dmls_stats *st)
{
	const dmls_series *s = &st->total_wire;
	int64_t bin_ns = s->bin_ns > 0 ? s->bin_ns : DMLS_FIGURE_BIN_NS; /* 0: no packets */
	int64_t factor = DMLS_FIGURE_BIN_NS / bin_ns;
	if (factor < 1)
		factor = 1;
	int64_t from = 0, to = 0;
	if (st->packets && !dmls_series_empty(s)) {
		from = s->min_bin < 0 ? -((-s->min_bin + factor - 1) / factor) * factor : 0;
		to = s->max_bin + 1;
	}
	while ((to - from + factor - 1) / factor > DMLS_FIGURE_MAX_BINS)
		factor *= 2;
	size_t n = (size_t)((to - from + factor - 1) / factor);
	double *v = calloc(n ? n : 1, sizeof(*v));
	r->figure.wire_bytes = malloc((n ? n : 1) * sizeof(*r->figure.wire_bytes));
	if (!v || !r->figure.wire_bytes) {
		free(v);
		return DMLS_ENOMEM;
	}
	if (n)
		dmls_series_dense(s, from, n, (uint32_t)factor, v);
	for (size_t i = 0; i < n; i++)
		r->figure.wire_bytes[i] = (int64_t)v[i];
	free(v);
	r->figure.n = n;
	double t0 = (double)(s->t0_ns - st->first_ns + from * bin_ns) / 1e9;
	r->figure.bin_s = (double)(factor * bin_ns) / 1e9;
	r->figure.t0_s = st->packets ? t0 : 0.0;
	return DMLS_OK;
}

int dmls_result_lists(dmls_result *r)
{
	const dmls_stats *st = r->stats;
	if (hosts_shown(r, st) || top_pairs(r, st) || matrix(r, st) || loss(r, st) ||
	    flow_sizes(r, st) || iteration_durations(r) || figure(r, st))
		return DMLS_ENOMEM;
	return DMLS_OK;
}
