/*
 * stats.c - the one pass: hosts, volume matrix, flows and time series.
 *
 * Each packet updates three open-addressing hash tables (hosts by address,
 * pairs by host indexes, flows by directional 5-tuple) and a handful of
 * sparse series (series.c).  Tables hold indexes into growable arrays, so
 * the arrays stay dense and ordered by first appearance, which keeps the
 * output stable.  Nothing is allocated per packet once a host, pair, flow
 * or series chunk exists.
 *
 * Flows are directional 5-tuples (the study captured each worker's outgoing
 * packets only, so a TCP connection shows as one flow per direction), and
 * are never split at idle time: a training job's connections idle through
 * every compute phase (field notes: Zeek issue 1196).
 *
 * TCP retransmissions are found from sequence numbers, as Wireshark's
 * tcp.analysis.retransmission does in its simplest form: a segment that
 * carries data and starts before the highest sequence number already sent
 * on its flow is a retransmission (RFC 793 modular comparison).  Bytes are
 * never derived from sequence numbers (field notes: Zeek issue 3313).
 */
#include "dmlscope/stats.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY UINT32_MAX
#define PAIR_CHUNK_BINS 64u
#define HOST_CHUNK_BINS 1024u
#define FLOW_CHUNK_BINS 16u

/* 64-bit mix (splitmix64 finalizer, Steele et al. 2014). */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t hash_addr(const uint8_t a[16])
{
	uint64_t lo, hi;
	memcpy(&lo, a, 8);
	memcpy(&hi, a + 8, 8);
	return mix64(lo ^ mix64(hi));
}

static uint64_t hash_pair(uint32_t s, uint32_t d)
{
	return mix64(((uint64_t)s << 32) | d);
}

static uint64_t hash_flow(uint32_t s, uint32_t d, uint16_t sp, uint16_t dp, uint8_t pr)
{
	return mix64(hash_pair(s, d) ^ (((uint64_t)sp << 24) | ((uint64_t)dp << 8) | pr));
}

void dmls_stats_init(dmls_stats *st, int64_t bin_ns)
{
	memset(st, 0, sizeof(*st));
	st->bin_ns = bin_ns > 0 ? bin_ns : 1000000;
	st->first_ns = INT64_MAX;
	st->last_ns = INT64_MIN;
	st->t0_ns = INT64_MIN; /* set by the first packet */
	st->last_s = st->last_d = st->last_pair = st->last_flow = -1;
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
	free(st->hosts);
	free(st->pairs);
	free(st->flows);
	free(st->host_idx);
	free(st->pair_idx);
	free(st->flow_idx);
	memset(st, 0, sizeof(*st));
	st->last_s = st->last_d = st->last_pair = st->last_flow = -1;
}

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

/* Open-addressing table of uint32 indexes; rehash at 50 % load. */
typedef uint64_t (*rehash_fn)(const dmls_stats *st, uint32_t idx);

static int table_grow(const dmls_stats *st, uint32_t **tab, size_t *hcap, size_t n,
		      rehash_fn fn)
{
	if (n * 2 < *hcap)
		return 0;
	size_t ncap = *hcap ? *hcap * 2 : 64;
	uint32_t *nt = malloc(ncap * sizeof(*nt));
	if (!nt)
		return -1;
	memset(nt, 0xff, ncap * sizeof(*nt));
	for (size_t i = 0; i < *hcap; i++) {
		if ((*tab)[i] == EMPTY)
			continue;
		size_t h = fn(st, (*tab)[i]) & (ncap - 1);
		while (nt[h] != EMPTY)
			h = (h + 1) & (ncap - 1);
		nt[h] = (*tab)[i];
	}
	free(*tab);
	*tab = nt;
	*hcap = ncap;
	return 0;
}

static uint64_t rehash_host(const dmls_stats *st, uint32_t i)
{
	return hash_addr(st->hosts[i].addr);
}

static uint64_t rehash_pair(const dmls_stats *st, uint32_t i)
{
	return hash_pair(st->pairs[i].src, st->pairs[i].dst);
}

static uint64_t rehash_flow(const dmls_stats *st, uint32_t i)
{
	const dmls_flow *f = &st->flows[i];
	return hash_flow(f->src, f->dst, f->sport, f->dport, f->proto);
}

long dmls_stats_find_host(const dmls_stats *st, const uint8_t addr[16])
{
	if (!st->host_hcap)
		return -1;
	for (size_t h = hash_addr(addr) & (st->host_hcap - 1);; h = (h + 1) & (st->host_hcap - 1)) {
		uint32_t i = st->host_idx[h];
		if (i == EMPTY)
			return -1;
		if (!memcmp(st->hosts[i].addr, addr, 16))
			return i;
	}
}

long dmls_stats_find_pair(const dmls_stats *st, uint32_t src, uint32_t dst)
{
	if (!st->pair_hcap)
		return -1;
	for (size_t h = hash_pair(src, dst) & (st->pair_hcap - 1);; h = (h + 1) & (st->pair_hcap - 1)) {
		uint32_t i = st->pair_idx[h];
		if (i == EMPTY)
			return -1;
		if (st->pairs[i].src == src && st->pairs[i].dst == dst)
			return i;
	}
}

static long host_get(dmls_stats *st, const uint8_t addr[16])
{
	long i = dmls_stats_find_host(st, addr);
	if (i >= 0)
		return i;
	if (grow((void **)&st->hosts, &st->hosts_cap, st->nhosts, sizeof(dmls_host)) ||
	    table_grow(st, &st->host_idx, &st->host_hcap, st->nhosts + 1, rehash_host))
		return -1;
	dmls_host *h = &st->hosts[st->nhosts];
	memset(h, 0, sizeof(*h));
	memcpy(h->addr, addr, 16);
	dmls_addr_format(addr, h->name, sizeof(h->name));
	h->first_ns = INT64_MAX;
	h->last_ns = INT64_MIN;
	dmls_series_init(&h->tx_payload, st->t0_ns, DMLS_HOST_BIN_NS, HOST_CHUNK_BINS);
	size_t k = hash_addr(addr) & (st->host_hcap - 1);
	while (st->host_idx[k] != EMPTY)
		k = (k + 1) & (st->host_hcap - 1);
	st->host_idx[k] = (uint32_t)st->nhosts;
	return (long)st->nhosts++;
}

static long pair_get(dmls_stats *st, uint32_t src, uint32_t dst)
{
	long i = dmls_stats_find_pair(st, src, dst);
	if (i >= 0)
		return i;
	if (grow((void **)&st->pairs, &st->pairs_cap, st->npairs, sizeof(dmls_pair)) ||
	    table_grow(st, &st->pair_idx, &st->pair_hcap, st->npairs + 1, rehash_pair))
		return -1;
	dmls_pair *p = &st->pairs[st->npairs];
	memset(p, 0, sizeof(*p));
	p->src = src;
	p->dst = dst;
	p->first_ns = INT64_MAX;
	p->last_ns = INT64_MIN;
	dmls_series_init(&p->series, st->t0_ns, st->bin_ns, PAIR_CHUNK_BINS);
	size_t k = hash_pair(src, dst) & (st->pair_hcap - 1);
	while (st->pair_idx[k] != EMPTY)
		k = (k + 1) & (st->pair_hcap - 1);
	st->pair_idx[k] = (uint32_t)st->npairs;
	return (long)st->npairs++;
}

static long flow_get(dmls_stats *st, uint32_t src, uint32_t dst, const dmls_pkt *p)
{
	uint64_t hv = hash_flow(src, dst, p->sport, p->dport, p->proto);
	if (st->flow_hcap) {
		for (size_t h = hv & (st->flow_hcap - 1);; h = (h + 1) & (st->flow_hcap - 1)) {
			uint32_t i = st->flow_idx[h];
			if (i == EMPTY)
				break;
			const dmls_flow *f = &st->flows[i];
			if (f->src == src && f->dst == dst && f->sport == p->sport &&
			    f->dport == p->dport && f->proto == p->proto)
				return i;
		}
	}
	if (grow((void **)&st->flows, &st->flows_cap, st->nflows, sizeof(dmls_flow)) ||
	    table_grow(st, &st->flow_idx, &st->flow_hcap, st->nflows + 1, rehash_flow))
		return -1;
	dmls_flow *f = &st->flows[st->nflows];
	memset(f, 0, sizeof(*f));
	f->src = src;
	f->dst = dst;
	f->sport = p->sport;
	f->dport = p->dport;
	f->proto = p->proto;
	f->first_ns = INT64_MAX;
	f->last_ns = INT64_MIN;
	dmls_series_init(&f->activity, st->t0_ns, DMLS_ACTIVITY_BIN_NS, FLOW_CHUNK_BINS);
	size_t k = hv & (st->flow_hcap - 1);
	while (st->flow_idx[k] != EMPTY)
		k = (k + 1) & (st->flow_hcap - 1);
	st->flow_idx[k] = (uint32_t)st->nflows;
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

static int count_flow(dmls_stats *st, uint32_t s, uint32_t d, const dmls_pkt *p)
{
	long fi = st->last_flow;
	if (fi < 0 || st->flows[fi].src != s || st->flows[fi].dst != d || p->sport != st->last_sport ||
	    p->dport != st->last_dport || p->proto != st->last_proto) {
		fi = flow_get(st, s, d, p);
		if (fi < 0)
			return -1;
		st->last_flow = fi;
		st->last_sport = p->sport, st->last_dport = p->dport, st->last_proto = p->proto;
	}
	dmls_flow *f = &st->flows[fi];
	f->packets++;
	f->wire_bytes += p->wire_bytes;
	f->payload_bytes += p->payload_bytes;
	span(&f->first_ns, &f->last_ns, p->ts_ns);
	if (p->proto == 6 && !p->is_fragment && tcp_retransmission(f, p)) {
		f->retransmissions++;
		st->hosts[s].tx_retransmissions++;
		st->retransmissions++;
	}
	return dmls_series_add(&f->activity, p->ts_ns, p->wire_bytes);
}

int dmls_stats_add(dmls_stats *st, const dmls_pkt *p)
{
	if (st->t0_ns == INT64_MIN) {
		st->t0_ns = p->ts_ns;
		dmls_series_init(&st->total_wire, p->ts_ns, DMLS_FINE_BIN_NS, 0);
		dmls_series_init(&st->total_payload, p->ts_ns, DMLS_FINE_BIN_NS, 0);
	}
	long s, d, pi;
	if (st->last_pair >= 0 && !memcmp(p->src, st->last_src, 16) &&
	    !memcmp(p->dst, st->last_dst, 16)) {
		s = st->last_s, d = st->last_d, pi = st->last_pair;
	} else {
		s = host_get(st, p->src);
		d = s < 0 ? -1 : host_get(st, p->dst);
		pi = d < 0 ? -1 : pair_get(st, (uint32_t)s, (uint32_t)d);
		if (pi < 0)
			goto oom;
		memcpy(st->last_src, p->src, 16);
		memcpy(st->last_dst, p->dst, 16);
		st->last_s = s, st->last_d = d, st->last_pair = pi;
	}
	st->packets++;
	st->wire_bytes += p->wire_bytes;
	st->payload_bytes += p->payload_bytes;
	span(&st->first_ns, &st->last_ns, p->ts_ns);

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

	if (dmls_series_add(&pr->series, p->ts_ns, p->wire_bytes) ||
	    dmls_series_add(&hs->tx_payload, p->ts_ns, p->payload_bytes) ||
	    dmls_series_add(&st->total_wire, p->ts_ns, p->wire_bytes) ||
	    dmls_series_add(&st->total_payload, p->ts_ns, p->payload_bytes))
		goto oom;
	if ((p->proto == 6 || p->proto == 17) && !p->is_fragment &&
	    count_flow(st, (uint32_t)s, (uint32_t)d, p))
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
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	/* nearest rank: ceil(q * n), 1-based (Hyndman & Fan 1996, definition 1) */
	size_t rank = (size_t)(q * (double)st->nflows + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > st->nflows)
		rank = st->nflows;
	uint64_t r = v[rank - 1];
	free(v);
	return r;
}
