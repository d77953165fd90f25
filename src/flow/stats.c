/*
 * stats.c - the one pass: hosts, volume matrix, flows and time series.
 *
 * Each packet updates three indexes (itable.h: hosts by address, pairs by
 * host indexes, flows by directional 5-tuple) over dense arrays in
 * first-seen order, which keeps the output stable, a handful of sparse
 * series (series.c) and the online burstiness window (burst.c).  Nothing is
 * allocated per packet once a host, pair, flow or series chunk exists.
 *
 * Bounded memory (stats.h): tables fold their smaller half into `other` at
 * the cap (fold_*), series classes coarsen past their budget
 * (class_coarsen).  Both are rare events that cost one pass over a table,
 * amortized over the half table of new entries (or the doubling of memory)
 * that must come before the next one.
 *
 * Flows are directional 5-tuples (the study captured each worker's outgoing
 * packets only, so a TCP connection shows as one flow per direction), and
 * are never split at idle time: a training job's connections idle through
 * every compute phase (Zeek issue 1196 splits them).
 *
 * TCP retransmissions are found from sequence numbers, as Wireshark's
 * tcp.analysis.retransmission does in its simplest form: a segment that
 * carries data and starts before the highest sequence number already sent
 * on its flow is a retransmission (RFC 793 modular comparison).  Bytes are
 * never derived from sequence numbers (Zeek issue 3313 shows why).
 */
#include "flow/stats_int.h"

#include <stdlib.h>
#include <string.h>

static void class_init(dmls_series_class *c, int64_t bin_ns, size_t budget)
{
	c->base_bin_ns = c->bin_ns = bin_ns;
	c->cache_lo = INT64_MAX;
	c->cache_hi = INT64_MIN;
	c->budget_bytes = c->trigger_bytes = budget;
}

void dmls_stats_init_limits(dmls_stats *st, int64_t bin_ns, const dmls_stats_limits *lim)
{
	memset(st, 0, sizeof(*st));
	st->bin_ns = bin_ns > 0 ? bin_ns : 1000000;
	st->first_ns = INT64_MAX;
	st->last_ns = INT64_MIN;
	st->t0_ns = INT64_MIN; /* set by the first packet */
	st_reset_cache(st);
	st->max_hosts = lim && lim->max_hosts ? lim->max_hosts : DMLS_DEFAULT_MAX_HOSTS;
	st->max_pairs = lim && lim->max_pairs ? lim->max_pairs : 4 * st->max_hosts;
	st->max_flows = lim && lim->max_flows ? lim->max_flows : DMLS_DEFAULT_MAX_FLOWS;
	if (st->max_hosts < 4)
		st->max_hosts = 4; /* a packet needs two, a fold keeps half */
	if (st->max_pairs < 2)
		st->max_pairs = 2;
	if (st->max_flows < 2)
		st->max_flows = 2;
	class_init(&st->cls[DMLS_CLASS_HOST], DMLS_HOST_BIN_NS, DMLS_HOST_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_PAIR], st->bin_ns, DMLS_PAIR_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_FLOW], DMLS_ACTIVITY_BIN_NS, DMLS_FLOW_SERIES_BUDGET);
	dmls_itable_init(&st->host_idx);
	dmls_itable_init(&st->pair_idx);
	dmls_itable_init(&st->flow_idx);
}

void dmls_stats_init(dmls_stats *st, int64_t bin_ns)
{
	dmls_stats_init_limits(st, bin_ns, NULL);
}

void dmls_stats_release(dmls_stats *st)
{
	for (size_t i = 0; i < st->nhosts; i++)
		dmls_series_release(&st->hosts[i].tx_payload);
	for (size_t i = 0; i < st->npairs; i++)
		dmls_series_release(&st->pairs[i].series);
	for (size_t i = 0; i < st->nflows; i++)
		dmls_series_release(&st->flows[i].activity);
	dmls_series_release(&st->total_wire);
	dmls_series_release(&st->total_payload);
	dmls_burst_stream_release(&st->fine);
	free(st->hosts);
	free(st->pairs);
	free(st->flows);
	dmls_itable_release(&st->host_idx);
	dmls_itable_release(&st->pair_idx);
	dmls_itable_release(&st->flow_idx);
	memset(st, 0, sizeof(*st));
	st_reset_cache(st);
}

int64_t dmls_stats_class_bin_ns(const dmls_stats *st, int cls)
{
	return st->cls[cls].bin_ns;
}

static void span(int64_t *first, int64_t *last, int64_t ts)
{
	if (ts < *first)
		*first = ts;
	if (ts > *last)
		*last = ts;
}

/* RFC 793 modular sequence comparison: a < b. */
static int seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* Track the highest sequence number sent; returns 1 for a retransmission. */
static int tcp_retransmission(dmls_flow *f, const dmls_pkt *p)
{
	uint32_t len = (uint32_t)p->payload_bytes;
	uint32_t end = p->tcp_seq + len + ((p->tcp_flags & (DMLS_TCP_SYN | DMLS_TCP_FIN)) ? 1 : 0);
	int retrans = 0;
	if (f->seq_valid && len > 0 && seq_lt(p->tcp_seq, f->next_seq) &&
	    !(p->tcp_flags & DMLS_TCP_RST))
		retrans = 1;
	if (!f->seq_valid || seq_lt(f->next_seq, end)) {
		f->next_seq = end;
		f->seq_valid = 1;
	}
	return retrans;
}

static int count_flow(dmls_stats *st, long fi, const dmls_pkt *p)
{
	dmls_flow *f = &st->flows[fi];
	f->packets++;
	f->wire_bytes += p->wire_bytes;
	f->payload_bytes += p->payload_bytes;
	span(&f->first_ns, &f->last_ns, p->ts_ns);
	if (p->proto == 6 && !p->is_fragment && tcp_retransmission(f, p)) {
		f->retransmissions++;
		st->hosts[f->src].tx_retransmissions++;
		st->retransmissions++;
	}
	return st_entry_series(st, DMLS_CLASS_FLOW, &f->activity, f->packets, f->first_ns, f->last_ns,
			    f->wire_bytes, p->ts_ns, p->wire_bytes);
}

#define FINE_BIN_NS DMLS_FINE_BIN_NS

static int first_packet(dmls_stats *st, int64_t ts)
{
	st->t0_ns = ts;
	dmls_series_init(&st->total_wire, ts, st->cls[DMLS_CLASS_PAIR].bin_ns, 0);
	dmls_series_init(&st->total_payload, ts, st->cls[DMLS_CLASS_HOST].bin_ns, 0);
	st->fine_bin = 0;
	st->fine_bytes = 0;
	return dmls_burst_stream_init(&st->fine, FINE_BIN_NS);
}

/* The online burstiness window: bins close as time moves on. */
static void fine_add(dmls_stats *st, int64_t ts, uint64_t bytes)
{
	int64_t d = ts - st->t0_ns, k = d >= 0 ? d / FINE_BIN_NS : -((-d + FINE_BIN_NS - 1) / FINE_BIN_NS);
	if (k > st->fine_bin) {
		if (st->fine_bytes)
			dmls_burst_stream_push(&st->fine, st->fine_bin, (double)st->fine_bytes);
		st->fine_bin = k;
		st->fine_bytes = 0;
	}
	st->fine_bytes += bytes; /* a late packet joins the open bin */
}

/* Hosts and pair of a packet, through the one-entry cache. */
static int lookup(dmls_stats *st, const dmls_pkt *p, long *s, long *d, long *pi)
{
	if (st->last_pair >= 0 && !memcmp(p->src, st->last_src, 16) &&
	    !memcmp(p->dst, st->last_dst, 16)) {
		*s = st->last_s, *d = st->last_d, *pi = st->last_pair;
		return 0;
	}
	st_reset_cache(st);
	*s = st_host_get(st, p->src);
	uint64_t folds = st->fold_hosts.entries;
	*d = *s < 0 ? -1 : st_host_get(st, p->dst);
	if (*d >= 0 && st->fold_hosts.entries != folds)
		*s = st_host_get(st, p->src); /* the fold renumbered src (or folded it) */
	*pi = *s < 0 || *d < 0 ? -1 : st_pair_get(st, (uint32_t)*s, (uint32_t)*d);
	if (*pi < 0)
		return -1;
	memcpy(st->last_src, p->src, 16);
	memcpy(st->last_dst, p->dst, 16);
	st->last_s = *s, st->last_d = *d, st->last_pair = *pi;
	return 0;
}

/* Hosts, pair and (TCP/UDP) flow of a packet: the flow first, which
 * knows the rest; hosts and pair only for a new flow or another protocol. */
static int locate(dmls_stats *st, const dmls_pkt *p, long *s, long *d, long *pi, long *fi)
{
	*fi = -1;
	int is_flow = (p->proto == 6 || p->proto == 17) && !p->is_fragment;
	if (!is_flow)
		return lookup(st, p, s, d, pi);
	flow_key k = {p->src, p->dst, p->sport, p->dport, p->proto};
	uint64_t hv = st_hash_flow(&k);
	*fi = dmls_itable_find(&st->flow_idx, hv, st_eq_flow, st, &k);
	if (*fi >= 0) {
		dmls_flow *f = &st->flows[*fi];
		*s = f->src, *d = f->dst;
		if (f->pair == NO_PAIR) {
			long q = st_pair_get(st, f->src, f->dst);
			if (q < 0)
				return -1;
			st->flows[*fi].pair = (uint32_t)q;
		}
		*pi = st->flows[*fi].pair;
		return 0;
	}
	if (lookup(st, p, s, d, pi))
		return -1;
	*fi = st_flow_new(st, &k, hv, (uint32_t)*s, (uint32_t)*d, (uint32_t)*pi);
	return *fi < 0 ? -1 : 0;
}

int dmls_stats_add(dmls_stats *st, const dmls_pkt *p)
{
	if (st->t0_ns == INT64_MIN && first_packet(st, p->ts_ns))
		goto oom;
	long s, d, pi, fi;
	if (locate(st, p, &s, &d, &pi, &fi))
		goto oom;
	st->packets++;
	st->wire_bytes += p->wire_bytes;
	st->payload_bytes += p->payload_bytes;
	span(&st->first_ns, &st->last_ns, p->ts_ns);
	fine_add(st, p->ts_ns, p->wire_bytes);

	dmls_host *hs = &st->hosts[s], *hd = &st->hosts[d];
	hs->tx_packets++;
	hs->tx_wire_bytes += p->wire_bytes;
	hs->tx_payload_bytes += p->payload_bytes;
	span(&hs->first_ns, &hs->last_ns, p->ts_ns);
	hd->rx_packets++;
	hd->rx_wire_bytes += p->wire_bytes;
	hd->rx_payload_bytes += p->payload_bytes;

	dmls_pair *pr = &st->pairs[pi];
	pr->packets++;
	pr->wire_bytes += p->wire_bytes;
	pr->payload_bytes += p->payload_bytes;
	span(&pr->first_ns, &pr->last_ns, p->ts_ns);

	if (st_class_add(st, DMLS_CLASS_PAIR, &st->total_wire, p->ts_ns, p->wire_bytes) ||
	    st_class_add(st, DMLS_CLASS_HOST, &st->total_payload, p->ts_ns, p->payload_bytes) ||
	    st_entry_series(st, DMLS_CLASS_PAIR, &pr->series, pr->packets, pr->first_ns, pr->last_ns,
			 pr->wire_bytes, p->ts_ns, p->wire_bytes) ||
	    st_entry_series(st, DMLS_CLASS_HOST, &hs->tx_payload, hs->tx_packets, hs->first_ns,
			 hs->last_ns, hs->tx_payload_bytes, p->ts_ns, p->payload_bytes))
		goto oom;
	if (fi >= 0 && count_flow(st, fi, p))
		goto oom;
	return 0;
oom:
	st->oom = 1;
	return -1;
}

double dmls_stats_duration_s(const dmls_stats *st)
{
	if (st->packets < 2 || st->last_ns <= st->first_ns)
		return 0.0;
	return (double)(st->last_ns - st->first_ns) / 1e9;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: ceil(q * n), 1-based (Hyndman & Fan 1996, definition 1). */
static uint64_t nearest_rank(const uint64_t *v, size_t n, double q)
{
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	size_t rank = (size_t)(q * (double)n + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

uint64_t dmls_stats_flow_quantile(const dmls_stats *st, double q)
{
	if (!st->nflows)
		return 0;
	uint64_t *v = malloc(st->nflows * sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < st->nflows; i++)
		v[i] = st->flows[i].wire_bytes;
	qsort(v, st->nflows, sizeof(*v), cmp_u64);
	uint64_t r = nearest_rank(v, st->nflows, q);
	free(v);
	return r;
}

static void peak_bin(int64_t bin, uint64_t bytes, void *ctx)
{
	uint64_t *peak = ctx;
	(void)bin;
	if (bytes > *peak)
		*peak = bytes;
}

int dmls_stats_finish(dmls_stats *st)
{
	if (st->finished)
		return 0;
	st->finished = 1;
	for (size_t i = 0; i < st->nhosts; i++) {
		dmls_host *h = &st->hosts[i];
		dmls_addr_format(h->addr, h->name, sizeof(h->name));
		if (h->tx_packets == 1 &&
		    st_class_add(st, DMLS_CLASS_HOST, &h->tx_payload, h->first_ns, h->tx_payload_bytes))
			return -1;
	}
	for (size_t i = 0; i < st->npairs; i++) {
		dmls_pair *p = &st->pairs[i];
		if (p->packets == 1 &&
		    st_class_add(st, DMLS_CLASS_PAIR, &p->series, p->first_ns, p->wire_bytes))
			return -1;
	}
	for (size_t i = 0; i < st->nflows; i++) {
		dmls_flow *f = &st->flows[i];
		if (f->packets == 1 &&
		    st_class_add(st, DMLS_CLASS_FLOW, &f->activity, f->first_ns, f->wire_bytes))
			return -1;
	}
	if (st->packets && st->fine_bytes) {
		dmls_burst_stream_push(&st->fine, st->fine_bin, (double)st->fine_bytes);
		st->fine_bytes = 0;
	}
	double dur = dmls_stats_duration_s(st), fine_s = (double)DMLS_FINE_BIN_NS * 1e-9;
	dmls_burst_stream_result(&st->fine, dur >= fine_s ? dur : fine_s, &st->burst_total);
	st->peak_bin_wire_bytes = 0;
	if (st->packets)
		dmls_series_foreach(&st->total_wire, peak_bin, &st->peak_bin_wire_bytes);
	st->flow_p50_bytes = st->flow_p90_bytes = st->flow_p99_bytes = st->flow_max_bytes = 0;
	if (!st->nflows)
		return 0;
	uint64_t *v = malloc(st->nflows * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < st->nflows; i++)
		v[i] = st->flows[i].wire_bytes;
	qsort(v, st->nflows, sizeof(*v), cmp_u64);
	st->flow_p50_bytes = nearest_rank(v, st->nflows, 0.5);
	st->flow_p90_bytes = nearest_rank(v, st->nflows, 0.9);
	st->flow_p99_bytes = nearest_rank(v, st->nflows, 0.99);
	st->flow_max_bytes = v[st->nflows - 1];
	free(v);
	return 0;
}
