/*
 * fold.c - the tables' caps: past one, the smaller half folds into `other`.
 *
 * The larger half by wire bytes stays (Hoare's selection, O(n)); the rest
 * is added to the table's dmls_fold account and its series released, and
 * the survivors are compacted in order and indexed again.  A host that
 * folds takes its pairs and flows with it; the others are renumbered.
 * Batch eviction in the manner of lossy counting (Manku & Motwani, VLDB
 * 2002): a heavy hitter is never folded while lighter entries exist, and a
 * new entry has half a table of arrivals to grow before the next fold.
 */
#include "flow/stats_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct rank_item {
	uint64_t bytes;
	uint32_t idx;
} rank_item;

static int rank_before(const rank_item *x, const rank_item *y)
{
	return x->bytes != y->bytes ? x->bytes > y->bytes : x->idx < y->idx;
}

static void rank_swap(rank_item *a, rank_item *b)
{
	rank_item t = *a;
	*a = *b;
	*b = t;
}

/* Put the k items that come first (more bytes, then the earlier) in
 * r[0..k), in no order: Hoare's selection (FIND, CACM 4(7), 1961) with a
 * median-of-three pivot, O(n) on average. */
static void select_first(rank_item *r, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* the k-th boundary lies in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rank_before(&r[hi - 1], &r[lo]))
			rank_swap(&r[hi - 1], &r[lo]);
		if (rank_before(&r[mid], &r[lo]))
			rank_swap(&r[mid], &r[lo]);
		if (rank_before(&r[hi - 1], &r[mid]))
			rank_swap(&r[hi - 1], &r[mid]);
		rank_item pivot = r[mid];
		rank_swap(&r[mid], &r[hi - 1]);
		size_t store = lo;
		for (size_t i = lo; i < hi - 1; i++)
			if (rank_before(&r[i], &pivot))
				rank_swap(&r[i], &r[store++]);
		rank_swap(&r[store], &r[hi - 1]);
		if (store == k)
			return;
		if (store < k)
			lo = store + 1;
		else
			hi = store;
	}
}

/* keep[i] = 1 for the larger half of n entries by bytes(i) (ties: the
 * earlier).  -1 on OOM. */
static int larger_half(size_t n, uint64_t (*bytes)(const dmls_stats *, size_t),
		       const dmls_stats *st, uint8_t *keep)
{
	rank_item *r = malloc((n ? n : 1) * sizeof(*r));
	if (!r)
		return -1;
	for (size_t i = 0; i < n; i++)
		r[i] = (rank_item){bytes(st, i), (uint32_t)i};
	select_first(r, n, n / 2);
	memset(keep, 0, n);
	for (size_t i = 0; i < n / 2; i++)
		keep[r[i].idx] = 1;
	free(r);
	return 0;
}

static uint64_t host_bytes(const dmls_stats *st, size_t i)
{
	return st->hosts[i].tx_wire_bytes + st->hosts[i].rx_wire_bytes;
}

static uint64_t pair_bytes(const dmls_stats *st, size_t i)
{
	return st->pairs[i].wire_bytes;
}

static uint64_t flow_bytes(const dmls_stats *st, size_t i)
{
	return st->flows[i].wire_bytes;
}

void st_fold_add(dmls_fold *f, uint64_t packets, uint64_t wire, uint64_t payload)
{
	f->entries++;
	f->packets += packets;
	f->wire_bytes += wire;
	f->payload_bytes += payload;
}

int st_reindex_pairs(dmls_stats *st)
{
	dmls_itable_clear(&st->pair_idx);
	for (size_t i = 0; i < st->npairs; i++)
		if (dmls_itable_insert(&st->pair_idx, st_hash_pair(st->pairs[i].src, st->pairs[i].dst),
				       (uint32_t)i))
			return -1;
	return 0;
}

int st_reindex_flows(dmls_stats *st)
{
	dmls_itable_clear(&st->flow_idx);
	for (size_t i = 0; i < st->nflows; i++) {
		const dmls_flow *f = &st->flows[i];
		flow_key k = {st->hosts[f->src].addr, st->hosts[f->dst].addr, f->sport, f->dport,
			      f->proto};
		if (dmls_itable_insert(&st->flow_idx, st_hash_flow(&k), (uint32_t)i))
			return -1;
	}
	return 0;
}

/* Keep the flows with keep[i] (or, with host_map, the flows whose hosts
 * both survive, renumbered), fold the rest; pair_map renumbers their pairs
 * (NO_PAIR: folded, found again at the flow's next packet). */
static void compact_flows(dmls_stats *st, const uint8_t *keep, const uint32_t *host_map,
			  const uint32_t *pair_map)
{
	size_t n = 0;
	for (size_t i = 0; i < st->nflows; i++) {
		dmls_flow *f = &st->flows[i];
		int k = keep ? keep[i]
			     : host_map[f->src] != UINT32_MAX && host_map[f->dst] != UINT32_MAX;
		if (!k) {
			st_fold_add(&st->fold_flows, f->packets, f->wire_bytes, f->payload_bytes);
			st_class_forget(st, DMLS_CLASS_FLOW, &f->activity);
			st_class_forget(st, DMLS_CLASS_CONN, &f->conn);
			continue;
		}
		if (host_map)
			f->src = host_map[f->src], f->dst = host_map[f->dst];
		if (pair_map && f->pair != NO_PAIR)
			f->pair = pair_map[f->pair];
		st->flows[n++] = *f;
	}
	st->nflows = n;
}

/* The same for pairs; map[old] = new index or NO_PAIR. */
static void compact_pairs(dmls_stats *st, const uint8_t *keep, const uint32_t *host_map,
			  uint32_t *map)
{
	size_t n = 0;
	for (size_t i = 0; i < st->npairs; i++) {
		dmls_pair *p = &st->pairs[i];
		int k = keep ? keep[i]
			     : host_map[p->src] != UINT32_MAX && host_map[p->dst] != UINT32_MAX;
		if (!k) {
			map[i] = NO_PAIR;
			st_fold_add(&st->fold_pairs, p->packets, p->wire_bytes, p->payload_bytes);
			st_class_forget(st, DMLS_CLASS_PAIR, &p->series);
			st_class_forget(st, DMLS_CLASS_REOPEN, &p->reopens);
			continue;
		}
		if (host_map)
			p->src = host_map[p->src], p->dst = host_map[p->dst];
		map[i] = (uint32_t)n;
		st->pairs[n++] = *p;
	}
	st->npairs = n;
}

int st_fold_flows(dmls_stats *st)
{
	st->batch_folds[2]++;
	uint8_t *keep = malloc(st->nflows ? st->nflows : 1);
	if (!keep || larger_half(st->nflows, flow_bytes, st, keep)) {
		free(keep);
		return -1;
	}
	compact_flows(st, keep, NULL, NULL);
	free(keep);
	st_reset_cache(st);
	return st_reindex_flows(st);
}

int st_fold_pairs(dmls_stats *st)
{
	st->batch_folds[1]++;
	uint8_t *keep = malloc(st->npairs ? st->npairs : 1);
	uint32_t *map = malloc((st->npairs ? st->npairs : 1) * sizeof(*map));
	if (!keep || !map || larger_half(st->npairs, pair_bytes, st, keep)) {
		free(keep);
		free(map);
		return -1;
	}
	compact_pairs(st, keep, NULL, map);
	for (size_t i = 0; i < st->nflows; i++)
		if (st->flows[i].pair != NO_PAIR)
			st->flows[i].pair = map[st->flows[i].pair];
	free(keep);
	free(map);
	st_reset_cache(st);
	return st_reindex_pairs(st);
}

void st_host_burst_free(dmls_stats *st, dmls_host *h)
{
	if (!h->tx_burst)
		return;
	dmls_burst_stream_release(&h->tx_burst->s);
	free(h->tx_burst);
	h->tx_burst = NULL;
	st->host_bursts--;
}

/* Hosts: the pairs and flows of a folded host fold with it; the others are
 * renumbered. */
int st_fold_hosts(dmls_stats *st)
{
	st->batch_folds[0]++;
	size_t n = st->nhosts;
	uint8_t *keep = malloc(n ? n : 1);
	uint32_t *map = malloc((n ? n : 1) * sizeof(*map));
	uint32_t *pmap = malloc((st->npairs ? st->npairs : 1) * sizeof(*pmap));
	if (!keep || !map || !pmap || larger_half(n, host_bytes, st, keep)) {
		free(keep);
		free(map);
		free(pmap);
		return -1;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		dmls_host *h = &st->hosts[i];
		if (!keep[i]) {
			map[i] = UINT32_MAX;
			st_fold_add(&st->fold_hosts, h->tx_packets, h->tx_wire_bytes,
				 h->tx_payload_bytes);
			st_class_forget(st, DMLS_CLASS_HOST, &h->tx_payload);
			st_host_burst_free(st, h);
			continue;
		}
		map[i] = (uint32_t)m;
		st->hosts[m++] = *h;
	}
	st->nhosts = m;
	compact_pairs(st, NULL, map, pmap);
	compact_flows(st, NULL, map, pmap);
	free(pmap);
	free(keep);
	free(map);
	st_reset_cache(st);
	dmls_itable_clear(&st->host_idx);
	for (size_t i = 0; i < st->nhosts; i++)
		if (dmls_itable_insert(&st->host_idx, st_hash_addr(st->hosts[i].addr), (uint32_t)i))
			return -1;
	return st_reindex_pairs(st) || st_reindex_flows(st) ? -1 : 0;
}

