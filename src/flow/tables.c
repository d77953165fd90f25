/*
 * tables.c - hosts, pairs and flows: their keys, hashes and lookups.
 *
 * Each table is a dense array in first-seen order (which keeps the output
 * stable) found through an itable (itable.h).  Flows are directional
 * 5-tuples, found by addresses and ports; hosts by address; pairs by their
 * hosts' indexes.  A table at its cap folds first (fold.c).
 */
#include "flow/stats_int.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

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

int st_eq_flow(const void *ctx, uint32_t i, const void *key)
{
	const dmls_stats *st = ctx;
	const dmls_flow *f = &st->flows[i];
	const flow_key *k = key;
	return f->sport == k->sport && f->dport == k->dport && f->proto == k->proto &&
	       !memcmp(st->hosts[f->src].addr, k->src, 16) &&
	       !memcmp(st->hosts[f->dst].addr, k->dst, 16);
}

long dmls_stats_find_host(const dmls_stats *st, const uint8_t addr[16])
{
	return dmls_itable_find(&st->host_idx, st_hash_addr(addr), eq_host, st, addr);
}

long dmls_stats_find_pair(const dmls_stats *st, uint32_t src, uint32_t dst)
{
	uint32_t k[2] = {src, dst};
	return dmls_itable_find(&st->pair_idx, st_hash_pair(src, dst), eq_pair, st, k);
}

long st_host_get(dmls_stats *st, const uint8_t addr[16])
{
	long i = dmls_stats_find_host(st, addr);
	if (i >= 0)
		return i;
	if (st->nhosts >= st->max_hosts && st_fold_hosts(st))
		return -1;
	if (dmls_grow((void **)&st->hosts, &st->hosts_cap, st->nhosts, sizeof(dmls_host), 16) ||
	    dmls_itable_insert(&st->host_idx, st_hash_addr(addr), (uint32_t)st->nhosts))
		return -1;
	dmls_host *h = &st->hosts[st->nhosts];
	memset(h, 0, sizeof(*h));
	memcpy(h->addr, addr, 16); /* name: dmls_stats_finish, for the hosts kept */
	h->first_ns = INT64_MAX;
	h->last_ns = INT64_MIN;
	h->born = st_born(st);
	dmls_series_init(&h->tx_payload, st->t0_ns, st->cls[DMLS_CLASS_HOST].bin_ns,
			 0);
	return (long)st->nhosts++;
}

long st_pair_get(dmls_stats *st, uint32_t src, uint32_t dst)
{
	long i = dmls_stats_find_pair(st, src, dst);
	if (i >= 0)
		return i;
	if (st->npairs >= st->max_pairs && st_fold_pairs(st))
		return -1;
	if (dmls_grow((void **)&st->pairs, &st->pairs_cap, st->npairs, sizeof(dmls_pair), 16) ||
	    dmls_itable_insert(&st->pair_idx, st_hash_pair(src, dst), (uint32_t)st->npairs))
		return -1;
	dmls_pair *p = &st->pairs[st->npairs];
	memset(p, 0, sizeof(*p));
	p->src = src;
	p->dst = dst;
	p->first_ns = INT64_MAX;
	p->last_ns = INT64_MIN;
	p->born = st_born(st);
	dmls_series_init(&p->series, st->t0_ns, st->cls[DMLS_CLASS_PAIR].bin_ns, 0);
	dmls_series_init(&p->reopens, st->t0_ns, st->cls[DMLS_CLASS_REOPEN].bin_ns, 0);
	return (long)st->npairs++;
}

/* A new flow of hosts s, d and pair pi (the caller found it absent). */
long st_flow_new(dmls_stats *st, const flow_key *k, uint64_t hv, uint32_t s, uint32_t d,
		     uint32_t pi)
{
	if (st->nflows >= st->max_flows && st_fold_flows(st))
		return -1;
	if (dmls_grow((void **)&st->flows, &st->flows_cap, st->nflows, sizeof(dmls_flow), 16) ||
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
	f->born = st_born(st);
	dmls_series_init(&f->activity, st->t0_ns, st->cls[DMLS_CLASS_FLOW].bin_ns,
			 0);
	dmls_series_init(&f->conn, st->t0_ns, st->cls[DMLS_CLASS_CONN].bin_ns, 0);
	st->flows_seen++;
	return (long)st->nflows++;
}

