/* endpoints.h - the TCP endpoints of a job's flows, and which listen
 * (exchanges.c: requests by connection; jobs_listen.c: rendezvous). */
#ifndef DMLS_ANALYSIS_ENDPOINTS_H
#define DMLS_ANALYSIS_ENDPOINTS_H

#include "dmlscope/stats.h"

typedef struct dmls_endpoint {
	uint32_t host, rhost;  /* st->hosts indexes: this end's, the remote end's */
	uint16_t port, rport;
	uint32_t remotes;      /* distinct remote endpoints of (host, port) */
	size_t flow;           /* the flow's st->flows index */
} dmls_endpoint;

/* Both ends of every TCP flow between two hosts h with local[h] < n (not
 * hidden: dmls_flow_hidden), sorted by host, port, remote host and remote
 * port, each with its (host, port)'s remotes: *ne of them in *out, which
 * the caller frees.  A TCP endpoint that talks to two remote endpoints or
 * more is a listening port (an ephemeral port connects to one).  0, or -1
 * when out of memory. */
int dmls_endpoints_list(const dmls_stats *st, const size_t *local, size_t n, dmls_endpoint **out,
			size_t *ne);

/* Does (host, port) listen, in the sorted endpoints e[0..n)? */
int dmls_endpoint_listens(const dmls_endpoint *e, size_t n, uint32_t host, uint16_t port);

#endif
