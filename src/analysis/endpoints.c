/*
 * endpoints.c - the TCP endpoints of a job's flows, and which listen.
 *
 * A runtime accepts its peers' connections on a listening port (an RPC
 * runtime's, a rendezvous store's) and opens its own from ephemeral ones,
 * each to one remote endpoint; so a TCP endpoint (host, port) that talks
 * to two remote endpoints or more listens.  exchanges.c tells a request
 * from an answer by it; jobs_listen.c names a job's hosts by its
 * rendezvous' clients.
 */
#include "analysis/endpoints.h"

#include <stdlib.h>

static int cmp_endpoint(const void *x, const void *y)
{
	const dmls_endpoint *a = x, *b = y;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if (a->rhost != b->rhost)
		return a->rhost < b->rhost ? -1 : 1;
	return (a->rport > b->rport) - (a->rport < b->rport);
}

static int inside(const dmls_stats *st, size_t f, const size_t *local, size_t n)
{
	const dmls_flow *fl = &st->flows[f];
	return fl->proto == 6 && local[fl->src] < n && local[fl->dst] < n && !dmls_flow_hidden(st, f);
}

int dmls_endpoints_list(const dmls_stats *st, const size_t *local, size_t n, dmls_endpoint **out,
			size_t *ne)
{
	size_t m = 0;
	for (size_t f = 0; f < st->nflows; f++)
		m += (size_t)inside(st, f, local, n);
	dmls_endpoint *e = malloc((m ? 2 * m : 1) * sizeof(*e));
	*out = e;
	*ne = 0;
	if (!e)
		return -1;
	m = 0;
	for (size_t f = 0; f < st->nflows; f++) {
		const dmls_flow *fl = &st->flows[f];
		if (!inside(st, f, local, n))
			continue;
		e[m++] = (dmls_endpoint){fl->src, fl->dst, fl->sport, fl->dport, 0, f};
		e[m++] = (dmls_endpoint){fl->dst, fl->src, fl->dport, fl->sport, 0, f};
	}
	qsort(e, m, sizeof(*e), cmp_endpoint);
	for (size_t i = 0; i < m;) { /* distinct remotes per (host, port) */
		size_t j = i, r = 0;
		for (; j < m && e[j].host == e[i].host && e[j].port == e[i].port; j++)
			r += j == i || e[j].rhost != e[j - 1].rhost || e[j].rport != e[j - 1].rport;
		for (size_t k = i; k < j; k++)
			e[k].remotes = (uint32_t)r;
		i = j;
	}
	*ne = m;
	return 0;
}

int dmls_endpoint_listens(const dmls_endpoint *e, size_t n, uint32_t host, uint16_t port)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].host < host || (e[mid].host == host && e[mid].port < port))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].host == host && e[lo].port == port && e[lo].remotes >= 2;
}
