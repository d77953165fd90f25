/*
 * connections.c - how many connections carry a job's data between two of
 * its ranks.
 *
 * A job is found by its hosts (jobs.c), so two jobs whose ranks run on the
 * same hosts (two 4-GPU jobs on the same two 8-GPU nodes, two testbed DDP
 * rings on hosts 0-3) are one component: their steps add up to one clock
 * and their bytes to one S (the testbed's pair of 4-rank rings: ring/4, 298
 * iterations for 300 each, S twice a job's).  What shows it is the
 * connections: each job's ranks open their own, so every data pair carries
 * its bytes over two connections of like volume.  One job's ranks do that
 * too when their transport opens parallel connections (NCCL's sockets per
 * peer, TensorPipe's pair averaging), so the count is a note that names
 * both readings, not a verdict: which one holds needs each connection's
 * steps, which the flows' 10 s series do not show.  On the testbed, the
 * data pairs of DDP, RPC, MPI and the manual collectives each hold one
 * connection, those of TensorPipe's pair averaging two or more.
 */
#include <stdlib.h>

#include "analysis/analysis_int.h"

#define CONN_SHARE 0.2    /* a connection with this share of its pair's bytes */
#define CONN_MAX_RANKS 256 /* a pair matrix of at most this many ranks */

void dmls_connections_count(dmls_analysis *a, const dmls_stats *st, const dmls_job_scope *job)
{
	a->data_pairs = a->split_pairs = 0;
	if (!job || job->n < 2 || job->n > CONN_MAX_RANKS)
		return;
	size_t n = job->n;
	size_t *at = malloc(st->nhosts * sizeof(size_t));
	double *payload = calloc(n * n, sizeof(double));
	unsigned *conns = calloc(n * n, sizeof(unsigned));
	if (!at || !payload || !conns)
		goto out; /* a note left out: nothing is wrong with the job */
	for (size_t h = 0; h < st->nhosts; h++)
		at[h] = n;
	for (size_t i = 0; i < n; i++)
		at[job->hosts[i]] = i;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		size_t s = at[pr->src], d = at[pr->dst];
		if (s < n && d < n && (double)pr->payload_bytes >= job->thr && pr->payload_bytes > 0)
			payload[s * n + d] = (double)pr->payload_bytes;
	}
	for (size_t f = 0; f < st->nflows; f++) {
		const dmls_flow *fl = &st->flows[f];
		size_t s = at[fl->src], d = at[fl->dst];
		if (s < n && d < n && payload[s * n + d] > 0 &&
		    (double)fl->payload_bytes >= CONN_SHARE * payload[s * n + d])
			conns[s * n + d]++;
	}
	for (size_t i = 0; i < n * n; i++)
		if (payload[i] > 0) {
			a->data_pairs++;
			a->split_pairs += conns[i] >= 2;
		}
out:
	free(at);
	free(payload);
	free(conns);
}
