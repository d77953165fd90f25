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
#include "dmlscope/stats.h"

#include <stdlib.h>
#include <string.h>

/* A flow is found by its addresses and ports, before its hosts: one
 * lookup serves most packets (the flow knows its hosts and pair). */
typedef struct flow_key {
	const uint8_t *src, *dst; /* 16 bytes each */
	uint16_t sport, dport;
	uint8_t proto;
} flow_key;

#define NO_PAIR UINT32_MAX

static uint64_t hash_addr(const uint8_t a[16])
{
	uint64_t lo, hi;
	memcpy(&lo, a, 8);
	memcpy(&hi, a + 8, 8);
	return dmls_mix64(lo ^ dmls_mix64(hi));
}

static uint64_t hash_pair(uint32_t s, uint32_t d)
{
	return dmls_mix64(((uint64_t)s << 32) | d);
}

/* Multiply-xor of the key's words with distinct odd constants, then the
 * splitmix64 finalizer for the avalanche. */
static uint64_t hash_flow(const flow_key *k)
{
	uint64_t a0, a1, b0, b1;
	memcpy(&a0, k->src, 8);
	memcpy(&a1, k->src + 8, 8);
	memcpy(&b0, k->dst, 8);
	memcpy(&b1, k->dst + 8, 8);
	uint64_t h = a0 * 0x9e3779b97f4a7c15ULL ^ a1 * 0xc2b2ae3d27d4eb4fULL ^
		     b0 * 0x165667b19e3779f9ULL ^ b1 * 0xd6e8feb86659fd93ULL ^
		     (((uint64_t)k->sport << 24 | (uint64_t)k->dport << 8 | k->proto) *
		      0xff51afd7ed558ccdULL);
	return dmls_mix64(h);
}

static int eq_host(const void *ctx, uint32_t i, const void *key)
{
	return !memcmp(((const dmls_stats *)ctx)->hosts[i].addr, key, 16);
}

static int eq_pair(const void *ctx, uint32_t i, const void *key)
{
	const dmls_pair *p = &((const dmls_stats *)ctx)->pairs[i];
	const uint32_t *k = key;
	return p->src == k[0] && p->dst == k[1];
}

static int eq_flow(const void *ctx, uint32_t i, const void *key)
{
	const dmls_stats *st = ctx;
	const dmls_flow *f = &st->flows[i];
	const flow_key *k = key;
	return f->sport == k->sport && f->dport == k->dport && f->proto == k->proto &&
	       !memcmp(st->hosts[f->src].addr, k->src, 16) &&
	       !memcmp(st->hosts[f->dst].addr, k->dst, 16);
}

static void reset_cache(dmls_stats *st)
{
	st->last_s = st->last_d = st->last_pair = -1;
}

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
	reset_cache(st);
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
	reset_cache(st);
}

int64_t dmls_stats_class_bin_ns(const dmls_stats *st, int cls)
{
	return st->cls[cls].bin_ns;
}

/* ---- series classes ---- */

/* The i-th series of class c, NULL past the last. */
static dmls_series *class_series(dmls_stats *st, int c, size_t i)
{
	switch (c) {
	case DMLS_CLASS_HOST:
		return i < st->nhosts ? &st->hosts[i].tx_payload
		       : i == st->nhosts ? &st->total_payload : NULL;
	case DMLS_CLASS_PAIR:
		return i < st->npairs ? &st->pairs[i].series
		       : i == st->npairs ? &st->total_wire : NULL;
	default:
		return i < st->nflows ? &st->flows[i].activity : NULL;
	}
}

static size_t class_mem(dmls_stats *st, int c)
{
	size_t m = 0;
	dmls_series *s;
	for (size_t i = 0; (s = class_series(st, c, i)); i++)
		m += dmls_series_mem_bytes(s);
	return m;
}

/* Double the class' bin width until it fits its budget.  Sparse traffic
 * (a burst per step) shrinks only once bins grow past a burst, so a doubling
 * that gains nothing is followed by the next; past DMLS_MAX_BIN_NS the class
 * stays as it is until its memory has doubled again (a floor of one run per
 * series and burst, bounded by the table caps). */
static int class_coarsen(dmls_stats *st, int c)
{
	dmls_series_class *k = &st->cls[c];
	k->trigger_bytes = k->budget_bytes;
	while (k->mem_bytes > k->budget_bytes) {
		if (k->bin_ns > DMLS_MAX_BIN_NS / 2) {
			k->trigger_bytes = 2 * k->mem_bytes;
			break;
		}
		dmls_series *s;
		for (size_t i = 0; (s = class_series(st, c, i)); i++)
			if (dmls_series_coarsen(s))
				return -1;
		k->bin_ns *= 2;
		k->coarsened++;
		k->cache_lo = INT64_MAX, k->cache_hi = INT64_MIN; /* a new grid */
		k->mem_bytes = class_mem(st, c);
	}
	return 0;
}

/* Bin of time ts on class c's grid: packets come in time order, many to a
 * bin, so the last bin's bounds answer most packets without a division. */
static inline int64_t class_bin(dmls_stats *st, int c, int64_t ts)
{
	dmls_series_class *k = &st->cls[c];
	if (ts >= k->cache_lo && ts < k->cache_hi)
		return k->cache_bin;
	int64_t d = ts - st->t0_ns, b = d / k->bin_ns;
	if (d % k->bin_ns && d < 0)
		b--;
	k->cache_bin = b;
	k->cache_lo = st->t0_ns + b * k->bin_ns;
	k->cache_hi = k->cache_lo + k->bin_ns;
	return b;
}

static inline int class_add(dmls_stats *st, int c, dmls_series *s, int64_t ts, uint64_t bytes)
{
	int64_t bin = class_bin(st, c, ts);
	if (dmls_series_add_fast(s, bin, bytes))
		return 0;
	size_t before = dmls_series_mem_bytes(s);
	if (dmls_series_add_bin(s, bin, bytes))
		return -1;
	size_t after = dmls_series_mem_bytes(s);
	if (after == before)
		return 0;
	dmls_series_class *k = &st->cls[c];
	k->mem_bytes += after - before;
	return k->mem_bytes > k->trigger_bytes ? class_coarsen(st, c) : 0;
}

/*
 * The series of one host, pair or flow, from its second packet on: a scan
 * or a flood makes an entry per packet, and an entry of one packet needs no
 * series until the end (dmls_stats_finish adds it then, for the entries
 * kept).  At the second packet the first one is added too, at its own time
 * (the other end of the entry's span), so the series stays exact.
 * count and total include the packet being added (ts, bytes).
 */
static int entry_series(dmls_stats *st, int c, dmls_series *s, uint64_t count, int64_t first,
			int64_t last, uint64_t total, int64_t ts, uint64_t bytes)
{
	if (count < 2)
		return 0;
	if (count == 2 && class_add(st, c, s, ts == first ? last : first, total - bytes))
		return -1;
	return class_add(st, c, s, ts, bytes);
}

static void class_forget(dmls_stats *st, int c, dmls_series *s)
{
	st->cls[c].mem_bytes -= dmls_series_mem_bytes(s);
	dmls_series_release(s);
}

/* ---- folding at the caps ---- */

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

static void fold_add(dmls_fold *f, uint64_t packets, uint64_t wire, uint64_t payload)
{
	f->entries++;
	f->packets += packets;
	f->wire_bytes += wire;
	f->payload_bytes += payload;
}

static int reindex_pairs(dmls_stats *st)
{
	dmls_itable_clear(&st->pair_idx);
	for (size_t i = 0; i < st->npairs; i++)
		if (dmls_itable_insert(&st->pair_idx, hash_pair(st->pairs[i].src, st->pairs[i].dst),
				       (uint32_t)i))
			return -1;
	return 0;
}

static int reindex_flows(dmls_stats *st)
{
	dmls_itable_clear(&st->flow_idx);
	for (size_t i = 0; i < st->nflows; i++) {
		const dmls_flow *f = &st->flows[i];
		flow_key k = {st->hosts[f->src].addr, st->hosts[f->dst].addr, f->sport, f->dport,
			      f->proto};
		if (dmls_itable_insert(&st->flow_idx, hash_flow(&k), (uint32_t)i))
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
			fold_add(&st->fold_flows, f->packets, f->wire_bytes, f->payload_bytes);
			class_forget(st, DMLS_CLASS_FLOW, &f->activity);
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
			fold_add(&st->fold_pairs, p->packets, p->wire_bytes, p->payload_bytes);
			class_forget(st, DMLS_CLASS_PAIR, &p->series);
			continue;
		}
		if (host_map)
			p->src = host_map[p->src], p->dst = host_map[p->dst];
		map[i] = (uint32_t)n;
		st->pairs[n++] = *p;
	}
	st->npairs = n;
}

static int fold_flows(dmls_stats *st)
{
	uint8_t *keep = malloc(st->nflows ? st->nflows : 1);
	if (!keep || larger_half(st->nflows, flow_bytes, st, keep)) {
		free(keep);
		return -1;
	}
	compact_flows(st, keep, NULL, NULL);
	free(keep);
	reset_cache(st);
	return reindex_flows(st);
}

static int fold_pairs(dmls_stats *st)
{
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
	reset_cache(st);
	return reindex_pairs(st);
}

/* Hosts: the pairs and flows of a folded host fold with it; the others are
 * renumbered. */
static int fold_hosts(dmls_stats *st)
{
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
			fold_add(&st->fold_hosts, h->tx_packets, h->tx_wire_bytes,
				 h->tx_payload_bytes);
			class_forget(st, DMLS_CLASS_HOST, &h->tx_payload);
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
	reset_cache(st);
	dmls_itable_clear(&st->host_idx);
	for (size_t i = 0; i < st->nhosts; i++)
		if (dmls_itable_insert(&st->host_idx, hash_addr(st->hosts[i].addr), (uint32_t)i))
			return -1;
	return reindex_pairs(st) || reindex_flows(st) ? -1 : 0;
}

/* ---- tables ---- */

/* Grow an array of elem-sized items to hold one more. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

long dmls_stats_find_host(const dmls_stats *st, const uint8_t addr[16])
{
	return dmls_itable_find(&st->host_idx, hash_addr(addr), eq_host, st, addr);
}

long dmls_stats_find_pair(const dmls_stats *st, uint32_t src, uint32_t dst)
{
	uint32_t k[2] = {src, dst};
	return dmls_itable_find(&st->pair_idx, hash_pair(src, dst), eq_pair, st, k);
}

static long host_get(dmls_stats *st, const uint8_t addr[16])
{
	long i = dmls_stats_find_host(st, addr);
	if (i >= 0)
		return i;
	if (st->nhosts >= st->max_hosts && fold_hosts(st))
		return -1;
	if (grow((void **)&st->hosts, &st->hosts_cap, st->nhosts, sizeof(dmls_host)) ||
	    dmls_itable_insert(&st->host_idx, hash_addr(addr), (uint32_t)st->nhosts))
		return -1;
	dmls_host *h = &st->hosts[st->nhosts];
	memset(h, 0, sizeof(*h));
	memcpy(h->addr, addr, 16); /* name: dmls_stats_finish, for the hosts kept */
	h->first_ns = INT64_MAX;
	h->last_ns = INT64_MIN;
	dmls_series_init(&h->tx_payload, st->t0_ns, st->cls[DMLS_CLASS_HOST].bin_ns,
			 0);
	return (long)st->nhosts++;
}

static long pair_get(dmls_stats *st, uint32_t src, uint32_t dst)
{
	long i = dmls_stats_find_pair(st, src, dst);
	if (i >= 0)
		return i;
	if (st->npairs >= st->max_pairs && fold_pairs(st))
		return -1;
	if (grow((void **)&st->pairs, &st->pairs_cap, st->npairs, sizeof(dmls_pair)) ||
	    dmls_itable_insert(&st->pair_idx, hash_pair(src, dst), (uint32_t)st->npairs))
		return -1;
	dmls_pair *p = &st->pairs[st->npairs];
	memset(p, 0, sizeof(*p));
	p->src = src;
	p->dst = dst;
	p->first_ns = INT64_MAX;
	p->last_ns = INT64_MIN;
	dmls_series_init(&p->series, st->t0_ns, st->cls[DMLS_CLASS_PAIR].bin_ns, 0);
	return (long)st->npairs++;
}

/* A new flow of hosts s, d and pair pi (the caller found it absent). */
static long flow_new(dmls_stats *st, const flow_key *k, uint64_t hv, uint32_t s, uint32_t d,
		     uint32_t pi)
{
	if (st->nflows >= st->max_flows && fold_flows(st))
		return -1;
	if (grow((void **)&st->flows, &st->flows_cap, st->nflows, sizeof(dmls_flow)) ||
	    dmls_itable_insert(&st->flow_idx, hv, (uint32_t)st->nflows))
		return -1;
	dmls_flow *f = &st->flows[st->nflows];
	memset(f, 0, sizeof(*f));
	f->src = s;
	f->dst = d;
	f->pair = pi;
	f->sport = k->sport;
	f->dport = k->dport;
	f->proto = k->proto;
	f->first_ns = INT64_MAX;
	f->last_ns = INT64_MIN;
	dmls_series_init(&f->activity, st->t0_ns, st->cls[DMLS_CLASS_FLOW].bin_ns,
			 0);
	st->flows_seen++;
	return (long)st->nflows++;
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
	return entry_series(st, DMLS_CLASS_FLOW, &f->activity, f->packets, f->first_ns, f->last_ns,
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
	reset_cache(st);
	*s = host_get(st, p->src);
	uint64_t folds = st->fold_hosts.entries;
	*d = *s < 0 ? -1 : host_get(st, p->dst);
	if (*d >= 0 && st->fold_hosts.entries != folds)
		*s = host_get(st, p->src); /* the fold renumbered src (or folded it) */
	*pi = *s < 0 || *d < 0 ? -1 : pair_get(st, (uint32_t)*s, (uint32_t)*d);
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
	uint64_t hv = hash_flow(&k);
	*fi = dmls_itable_find(&st->flow_idx, hv, eq_flow, st, &k);
	if (*fi >= 0) {
		dmls_flow *f = &st->flows[*fi];
		*s = f->src, *d = f->dst;
		if (f->pair == NO_PAIR) {
			long q = pair_get(st, f->src, f->dst);
			if (q < 0)
				return -1;
			st->flows[*fi].pair = (uint32_t)q;
		}
		*pi = st->flows[*fi].pair;
		return 0;
	}
	if (lookup(st, p, s, d, pi))
		return -1;
	*fi = flow_new(st, &k, hv, (uint32_t)*s, (uint32_t)*d, (uint32_t)*pi);
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

	if (class_add(st, DMLS_CLASS_PAIR, &st->total_wire, p->ts_ns, p->wire_bytes) ||
	    class_add(st, DMLS_CLASS_HOST, &st->total_payload, p->ts_ns, p->payload_bytes) ||
	    entry_series(st, DMLS_CLASS_PAIR, &pr->series, pr->packets, pr->first_ns, pr->last_ns,
			 pr->wire_bytes, p->ts_ns, p->wire_bytes) ||
	    entry_series(st, DMLS_CLASS_HOST, &hs->tx_payload, hs->tx_packets, hs->first_ns,
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
		    class_add(st, DMLS_CLASS_HOST, &h->tx_payload, h->first_ns, h->tx_payload_bytes))
			return -1;
	}
	for (size_t i = 0; i < st->npairs; i++) {
		dmls_pair *p = &st->pairs[i];
		if (p->packets == 1 &&
		    class_add(st, DMLS_CLASS_PAIR, &p->series, p->first_ns, p->wire_bytes))
			return -1;
	}
	for (size_t i = 0; i < st->nflows; i++) {
		dmls_flow *f = &st->flows[i];
		if (f->packets == 1 &&
		    class_add(st, DMLS_CLASS_FLOW, &f->activity, f->first_ns, f->wire_bytes))
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
