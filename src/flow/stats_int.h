/*
 * stats_int.h - what the files of the one pass share (src/flow): the
 * tables and their index (tables.c), the series classes (classes.c),
 * folding at the caps (fold.c), the one pass itself (stats.c) and the
 * merge of partial states (merge.c).  Internal: not part of the API.
 */
#ifndef DMLSCOPE_STATS_INT_H
#define DMLSCOPE_STATS_INT_H

#include <string.h>

#include "dmlscope/stats.h"

/* A flow is found by its addresses and ports, before its hosts: one
 * lookup serves most packets (the flow knows its hosts and pair). */
typedef struct flow_key {
	const uint8_t *src, *dst; /* 16 bytes each */
	uint16_t sport, dport;
	uint8_t proto;
} flow_key;

#define NO_PAIR UINT32_MAX

/* floor(d / bin) for bin > 0, rounding toward minus infinity. */
static inline int64_t ts_bin_floor(int64_t d, int64_t bin)
{
	int64_t q = d / bin;
	return d % bin && d < 0 ? q - 1 : q;
}

/* The keys' hashes (inline: the pass hashes every packet's flow). */
static inline uint64_t st_hash_addr(const uint8_t a[16])
{
	uint64_t lo, hi;
	memcpy(&lo, a, 8);
	memcpy(&hi, a + 8, 8);
	return dmls_mix64(lo ^ dmls_mix64(hi));
}

static inline uint64_t st_hash_pair(uint32_t s, uint32_t d)
{
	return dmls_mix64(((uint64_t)s << 32) | d);
}

/* Multiply-xor of the key's words with distinct odd constants, then the
 * splitmix64 finalizer for the avalanche. */
static inline uint64_t st_hash_flow(const flow_key *k)
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

/* tables.c */
int st_eq_flow(const void *ctx, uint32_t i, const void *key);

static inline int st_eq16(const uint8_t *a, const uint8_t *b)
{
	uint64_t a0, a1, b0, b1;
	memcpy(&a0, a, 8), memcpy(&a1, a + 8, 8);
	memcpy(&b0, b, 8), memcpy(&b1, b + 8, 8);
	return a0 == b0 && a1 == b1;
}

/* dmls_itable_find over the flows with st_eq_flow inlined: the lookup
 * every packet makes. */
static inline long st_find_flow(const dmls_stats *st, uint64_t hash, const flow_key *k)
{
	const dmls_itable *t = &st->flow_idx;
	if (!t->cap)
		return -1;
	uint32_t h32 = (uint32_t)hash;
	for (size_t i = h32 & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const dmls_islot *s = &t->slots[i];
		if (s->idx == UINT32_MAX)
			return -1;
		if (s->hash != h32)
			continue;
		const dmls_flow *f = &st->flows[s->idx];
		if (f->sport == k->sport && f->dport == k->dport && f->proto == k->proto &&
		    st_eq16(st->hosts[f->src].addr, k->src) && st_eq16(st->hosts[f->dst].addr, k->dst))
			return (long)s->idx;
	}
}
/* Index of the host, pair or flow, made when absent (folding at the cap
 * first); -1 when out of memory.  A host fold renumbers hosts and pairs. */
long st_host_get(dmls_stats *st, const uint8_t addr[16]);
long st_pair_get(dmls_stats *st, uint32_t src, uint32_t dst);
long st_flow_new(dmls_stats *st, const flow_key *k, uint64_t hv, uint32_t s, uint32_t d,
		 uint32_t pi);
int st_reindex_pairs(dmls_stats *st);
int st_reindex_flows(dmls_stats *st);
/* Forget the one-entry lookup cache (after a fold). */
static inline void st_reset_cache(dmls_stats *st)
{
	st->last_s = st->last_d = st->last_pair = st->last_flow = -1;
}

/* fold.c */
/* Release a host's online burstiness (a folded host's, or at the end). */
void st_host_burst_free(dmls_stats *st, dmls_host *h);
int st_fold_hosts(dmls_stats *st);
int st_fold_pairs(dmls_stats *st);
int st_fold_flows(dmls_stats *st);
void st_fold_add(dmls_fold *f, uint64_t packets, uint64_t wire, uint64_t payload);

/* classes.c */
dmls_series *st_class_series(dmls_stats *st, int c, size_t i);
size_t st_class_mem(dmls_stats *st, int c);
int st_class_coarsen(dmls_stats *st, int c);
void st_class_forget(dmls_stats *st, int c, dmls_series *s);
/* Double the bin width of every series of class c once. */
int st_class_double(dmls_stats *st, int c);
/* Count a bin (on class c's grid now) into the class' active span, and
 * double its bin width while that passes span_bins. */
int st_class_span(dmls_stats *st, int c, int64_t bin);
/* An entry of one packet whose series is still empty: add the packet at its
 * time (at finish, and before merging). */
int st_entry_single(dmls_stats *st, int c, dmls_series *s, uint64_t count, int64_t first,
		    uint64_t bytes);

/* merge.c: hosts, pairs and flows of src into dst (the tables sink). */
int st_tables_merge(dmls_stats *dst, const dmls_stats *src);

/* order.c: the tables of a merged state in the order one pass makes them
 * (by dmls_born); 0, -1 out of memory. */
int st_tables_order(dmls_stats *st);

/* The birth of an entry made now (stats.h, dmls_born). */
static inline dmls_born st_born(dmls_stats *st)
{
	dmls_born b = {st->born_ts,
		       ((uint64_t)st->file_order << 40) | (st->born_next++ & ((1ULL << 40) - 1))};
	return b;
}

static inline int st_born_less(dmls_born a, dmls_born b)
{
	return a.ts < b.ts || (a.ts == b.ts && a.seq < b.seq);
}

/* Bin of time ts on class c's grid: packets come in time order, many to a
 * bin, so the last bin's bounds answer most packets without a division. */
static inline int64_t st_class_bin(dmls_stats *st, int c, int64_t ts)
{
	dmls_series_class *k = &st->cls[c];
	if (ts >= k->cache_lo && ts < k->cache_hi)
		return k->cache_bin;
	int64_t b = ts_bin_floor(ts - st->t0_ns, k->bin_ns);
	k->cache_bin = b;
	k->cache_lo = st->t0_ns + b * k->bin_ns;
	k->cache_hi = k->cache_lo + k->bin_ns;
	return b;
}

/* The slow path of st_class_add (classes.c): a bin outside the run hit
 * last, which may allocate, then the budget. */
int st_class_add_slow(dmls_stats *st, int c, dmls_series *s, int64_t bin, uint64_t bytes);

static inline __attribute__((always_inline)) int st_class_add(dmls_stats *st, int c, dmls_series *s,
							    int64_t ts, uint64_t bytes)
{
	int64_t bin = st_class_bin(st, c, ts);
	if (dmls_series_add_fast(s, bin, bytes))
		return 0;
	return st_class_add_slow(st, c, s, bin, bytes);
}

/*
 * The series of one host, pair or flow, from its second packet on: a scan
 * or a flood makes an entry per packet, and an entry of one packet needs no
 * series until the end (dmls_stats_finish adds it then, for the entries
 * kept).  At the second packet the first one is added too, at its own time
 * (the other end of the entry's span), so the series stays exact.
 * count and total include the packet being added (ts, bytes).
 */
static inline int st_entry_series(dmls_stats *st, int c, dmls_series *s, uint64_t count,
				  int64_t first, int64_t last, uint64_t total, int64_t ts,
				  uint64_t bytes)
{
	if (count < 2)
		return 0;
	if (count == 2 && st_class_add(st, c, s, ts == first ? last : first, total - bytes))
		return -1;
	return st_class_add(st, c, s, ts, bytes);
}

#endif
