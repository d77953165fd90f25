/*
 * merge.c - the tables sink's merge: hosts, pairs and flows of a partial
 * state into another (sink.h, dmls_stats_merge).
 *
 * Entries meet by what identifies them, not by index: hosts by address,
 * pairs by their hosts' addresses, flows by addresses and ports.  The caps
 * are lifted while src's indexes are mapped to dst's (a fold would renumber
 * them), then applied: what passes them folds as it would have in one pass.
 * An entry of one packet has no series yet (stats.h); its packet is added
 * at its own time before the series meet, so the merged series are the
 * one pass's series.
 */
#include "flow/stats_int.h"

#include <stdlib.h>
#include <string.h>

static void span2(int64_t *first, int64_t *last, int64_t a, int64_t b)
{
	if (a < *first)
		*first = a;
	if (b > *last)
		*last = b;
}

/* dst series += src series, src's packet added alone when it has one. */
static int merge_series(dmls_stats *st, int c, dmls_series *d, uint64_t dcount, int64_t dfirst,
			uint64_t dbytes, const dmls_series *s, uint64_t scount, int64_t sfirst,
			uint64_t sbytes)
{
	if (st_entry_single(st, c, d, dcount, dfirst, dbytes))
		return -1;
	if (scount == 1 && dmls_series_empty(s))
		return st_class_add(st, c, d, sfirst, sbytes);
	return dmls_series_merge(d, s);
}

static int merge_hosts(dmls_stats *dst, const dmls_stats *src, uint32_t *hmap)
{
	for (size_t i = 0; i < src->nhosts; i++) {
		const dmls_host *s = &src->hosts[i];
		long h = st_host_get(dst, s->addr);
		if (h < 0)
			return -1;
		hmap[i] = (uint32_t)h;
		dmls_host *d = &dst->hosts[h];
		if (st_born_less(s->born, d->born))
			d->born = s->born;
		if (merge_series(dst, DMLS_CLASS_HOST, &d->tx_payload, d->tx_packets, d->first_ns,
				 d->tx_payload_bytes, &s->tx_payload, s->tx_packets, s->first_ns,
				 s->tx_payload_bytes))
			return -1;
		d->tx_packets += s->tx_packets;
		d->rx_packets += s->rx_packets;
		d->tx_wire_bytes += s->tx_wire_bytes;
		d->tx_payload_bytes += s->tx_payload_bytes;
		d->rx_wire_bytes += s->rx_wire_bytes;
		d->rx_payload_bytes += s->rx_payload_bytes;
		d->tx_retransmissions += s->tx_retransmissions;
		if (s->tx_packets)
			span2(&d->first_ns, &d->last_ns, s->first_ns, s->last_ns);
	}
	return 0;
}

static int merge_pairs(dmls_stats *dst, const dmls_stats *src, const uint32_t *hmap,
		       uint32_t *pmap)
{
	for (size_t i = 0; i < src->npairs; i++) {
		const dmls_pair *s = &src->pairs[i];
		long q = st_pair_get(dst, hmap[s->src], hmap[s->dst]);
		if (q < 0)
			return -1;
		pmap[i] = (uint32_t)q;
		dmls_pair *d = &dst->pairs[q];
		if (st_born_less(s->born, d->born))
			d->born = s->born;
		if (merge_series(dst, DMLS_CLASS_PAIR, &d->series, d->packets, d->first_ns,
				 d->wire_bytes, &s->series, s->packets, s->first_ns, s->wire_bytes) ||
		    dmls_series_merge(&d->reopens, &s->reopens))
			return -1;
		d->packets += s->packets;
		d->wire_bytes += s->wire_bytes;
		d->payload_bytes += s->payload_bytes;
		span2(&d->first_ns, &d->last_ns, s->first_ns, s->last_ns);
	}
	return 0;
}

static int merge_flows(dmls_stats *dst, const dmls_stats *src, const uint32_t *hmap,
		       const uint32_t *pmap, uint64_t *matched)
{
	for (size_t i = 0; i < src->nflows; i++) {
		const dmls_flow *s = &src->flows[i];
		flow_key k = {src->hosts[s->src].addr, src->hosts[s->dst].addr, s->sport, s->dport,
			      s->proto};
		uint64_t hv = st_hash_flow(&k);
		long f = dmls_itable_find(&dst->flow_idx, hv, st_eq_flow, dst, &k);
		if (f >= 0)
			(*matched)++;
		else
			f = st_flow_new(dst, &k, hv, hmap[s->src], hmap[s->dst],
					s->pair == NO_PAIR ? NO_PAIR : pmap[s->pair]);
		if (f < 0)
			return -1;
		dmls_flow *d = &dst->flows[f];
		if (st_born_less(s->born, d->born))
			d->born = s->born;
		if (merge_series(dst, DMLS_CLASS_FLOW, &d->activity, d->packets, d->first_ns,
				 d->wire_bytes, &s->activity, s->packets, s->first_ns, s->wire_bytes))
			return -1;
		d->packets += s->packets;
		d->wire_bytes += s->wire_bytes;
		d->payload_bytes += s->payload_bytes;
		d->retransmissions += s->retransmissions;
		span2(&d->first_ns, &d->last_ns, s->first_ns, s->last_ns);
		if (s->seq_valid && (!d->seq_valid || (d->qp == s->qp &&
						       (int32_t)(d->next_seq - s->next_seq) < 0))) {
			d->next_seq = s->next_seq; /* the higher end (RFC 793 modular order) */
			d->qp = s->qp;             /* RoCEv2: the same queue pair only */
			d->seq_valid = 1;
		}
	}
	return 0;
}

static void add_fold(dmls_fold *d, const dmls_fold *s)
{
	d->entries += s->entries;
	d->packets += s->packets;
	d->wire_bytes += s->wire_bytes;
	d->payload_bytes += s->payload_bytes;
}

int st_tables_merge(dmls_stats *dst, const dmls_stats *src)
{
	size_t caps[3] = {dst->max_hosts, dst->max_pairs, dst->max_flows};
	dst->max_hosts = dst->max_pairs = dst->max_flows = SIZE_MAX;
	uint32_t *hmap = malloc((src->nhosts + 1) * sizeof(*hmap));
	uint32_t *pmap = malloc((src->npairs + 1) * sizeof(*pmap));
	uint64_t seen = dst->flows_seen, matched = 0;
	dst->born_ts = INT64_MAX; /* entries made here take src's birth */
	int rc = -1;
	if (hmap && pmap && !merge_hosts(dst, src, hmap) && !merge_pairs(dst, src, hmap, pmap) &&
	    !merge_flows(dst, src, hmap, pmap, &matched))
		rc = 0;
	free(hmap);
	free(pmap);
	dst->max_hosts = caps[0], dst->max_pairs = caps[1], dst->max_flows = caps[2];
	st_reset_cache(dst);
	if (rc)
		return rc;
	/* flow entries made: both parts', a flow of both counted once */
	dst->flows_seen = seen + src->flows_seen - matched;
	add_fold(&dst->fold_hosts, &src->fold_hosts);
	add_fold(&dst->fold_pairs, &src->fold_pairs);
	add_fold(&dst->fold_flows, &src->fold_flows);
	while (dst->nhosts > dst->max_hosts)
		if (st_fold_hosts(dst))
			return -1;
	while (dst->npairs > dst->max_pairs)
		if (st_fold_pairs(dst))
			return -1;
	while (dst->nflows > dst->max_flows)
		if (st_fold_flows(dst))
			return -1;
	return 0;
}
