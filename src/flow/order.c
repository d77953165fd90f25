/*
 * order.c - a merged state's tables in one pass's order (stats.h,
 * dmls_born).
 *
 * One pass over a job's captures makes a host, pair or flow entry at its
 * first packet, so its tables are in order of first packets; everything
 * downstream that breaks ties by table order (lists of equal volume, the
 * busiest hosts "in table order") then depends on it.  Merged parts make
 * entries in the order the parts came, so at finish the tables are sorted
 * by birth (first packet time, capture, order within the capture) and the
 * indexes renumbered: hosts first (pairs and flows name them), then pairs
 * (flows name them), then flows.
 */
#include "flow/stats_int.h"

#include <stdlib.h>
#include <string.h>

static int by_born(const void *a, const void *b, void *ctx)
{
	const dmls_born *v = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return st_born_less(v[x], v[y]) ? -1 : st_born_less(v[y], v[x]) ? 1 : 0;
}

/* perm: indexes of n entries sorted by birth; inv[old] = new. */
static int sort_perm(const dmls_born *born, size_t n, uint32_t **perm, uint32_t **inv)
{
	*perm = malloc((n ? n : 1) * sizeof(**perm));
	*inv = malloc((n ? n : 1) * sizeof(**inv));
	if (!*perm || !*inv)
		return -1;
	for (size_t i = 0; i < n; i++)
		(*perm)[i] = (uint32_t)i;
	qsort_r(*perm, n, sizeof(**perm), by_born, (void *)born);
	for (size_t i = 0; i < n; i++)
		(*inv)[(*perm)[i]] = (uint32_t)i;
	return 0;
}

/* Reorder n elements of size sz at arr by perm (new i = old perm[i]). */
static int permute(void *arr, size_t n, size_t sz, const uint32_t *perm)
{
	if (n == 0)
		return 0; /* arr may be NULL: no memcpy */
	char *tmp = malloc(n * sz);
	if (!tmp)
		return -1;
	for (size_t i = 0; i < n; i++)
		memcpy(tmp + i * sz, (char *)arr + (size_t)perm[i] * sz, sz);
	memcpy(arr, tmp, n * sz);
	free(tmp);
	return 0;
}

static dmls_born *borns(const void *arr, size_t n, size_t sz, size_t off)
{
	dmls_born *b = malloc((n ? n : 1) * sizeof(*b));
	for (size_t i = 0; b && i < n; i++)
		memcpy(&b[i], (const char *)arr + i * sz + off, sizeof(*b));
	return b;
}

static int order_hosts(dmls_stats *st)
{
	uint32_t *perm = NULL, *inv = NULL;
	dmls_born *b = borns(st->hosts, st->nhosts, sizeof(dmls_host), offsetof(dmls_host, born));
	int rc = -1;
	if (b && !sort_perm(b, st->nhosts, &perm, &inv) &&
	    !permute(st->hosts, st->nhosts, sizeof(dmls_host), perm)) {
		for (size_t i = 0; i < st->npairs; i++)
			st->pairs[i].src = inv[st->pairs[i].src], st->pairs[i].dst = inv[st->pairs[i].dst];
		for (size_t i = 0; i < st->nflows; i++)
			st->flows[i].src = inv[st->flows[i].src], st->flows[i].dst = inv[st->flows[i].dst];
		dmls_itable_clear(&st->host_idx);
		rc = 0;
		for (size_t i = 0; i < st->nhosts && !rc; i++)
			rc = dmls_itable_insert(&st->host_idx, st_hash_addr(st->hosts[i].addr),
						(uint32_t)i);
	}
	free(b);
	free(perm);
	free(inv);
	return rc;
}

static int order_pairs(dmls_stats *st)
{
	uint32_t *perm = NULL, *inv = NULL;
	dmls_born *b = borns(st->pairs, st->npairs, sizeof(dmls_pair), offsetof(dmls_pair, born));
	int rc = -1;
	if (b && !sort_perm(b, st->npairs, &perm, &inv) &&
	    !permute(st->pairs, st->npairs, sizeof(dmls_pair), perm)) {
		for (size_t i = 0; i < st->nflows; i++)
			if (st->flows[i].pair != NO_PAIR)
				st->flows[i].pair = inv[st->flows[i].pair];
		rc = st_reindex_pairs(st);
	}
	free(b);
	free(perm);
	free(inv);
	return rc;
}

static int order_flows(dmls_stats *st)
{
	uint32_t *perm = NULL, *inv = NULL;
	dmls_born *b = borns(st->flows, st->nflows, sizeof(dmls_flow), offsetof(dmls_flow, born));
	int rc = -1;
	if (b && !sort_perm(b, st->nflows, &perm, &inv) &&
	    !permute(st->flows, st->nflows, sizeof(dmls_flow), perm))
		rc = st_reindex_flows(st);
	free(b);
	free(perm);
	free(inv);
	return rc;
}

int st_tables_order(dmls_stats *st)
{
	st_reset_cache(st);
	return order_hosts(st) || order_pairs(st) || order_flows(st) ? -1 : 0;
}
