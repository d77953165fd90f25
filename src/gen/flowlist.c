/*
 * flowlist.c - the schedule as a flow list: one row per message.
 *
 * CSV (dmls_gen_write_csv):
 * Columns (doc/contract.md): src,dst,sport,dport,start_s,bytes,
 * iteration,phase.  Addresses in dotted form, ports of the message's
 * sender and receiver on their connection, start_s the first segment's
 * time in seconds from the start of the capture (9 decimals), bytes the
 * application payload, iteration 0-based, phase as dmls_gen_phase_name.
 * Rows are in time order, so a network simulator can replay them as is.
 *
 * HPCC's ns-3 simulator (dmls_gen_write_hpcc; Li et al., "HPCC: High
 * Precision Congestion Control", SIGCOMM 2019, and its traffic_gen/README:
 * alibaba-edu/High-Precision-Congestion-Control; read in scratch/third.cc):
 * the number of flows on the first line, then
 * `<src host> <dst host> 3 <dst port> <bytes> <start s>` with hosts as node
 * numbers from 0 (our host index) and priority group 3, sorted by start.
 * Start times are shifted by 2 s, as HPCC's own generator does, so routing
 * has settled.  HPCC reads the size into 32 bits: 4 GiB or more is refused.
 * The node ids are those of the topology file: hosts must be nodes
 * 0..N-1, which dmls_gen_write_hpcc_topology writes (hosts first, then one
 * switch, node N; HPCC's own mix/topology.txt numbers its switch 0 and
 * cannot take this flow file).  Other simulators derived from HPCC read
 * other fields (ConWeave's reader takes five): not this file.
 */
#include <inttypes.h>

#include "gen/gen_int.h"

int dmls_gen_write_csv(const dmls_gen_schedule *s, FILE *fp, dmls_error *err)
{
	fputs("src,dst,sport,dport,start_s,bytes,iteration,phase\n", fp);
	for (size_t i = 0; i < s->nmsgs; i++) {
		const dmls_gen_msg *m = &s->msgs[i];
		const dmls_gen_conn *c = &s->conns[m->conn];
		char src[16], dst[16];
		dmls_gen_host_addr(m->src, src, sizeof(src));
		dmls_gen_host_addr(m->dst, dst, sizeof(dst));
		int a_sends = m->src == c->a;
		fprintf(fp, "%s,%s,%u,%u,%" PRId64 ".%09" PRId64 ",%" PRIu64 ",%u,%s\n", src, dst,
			a_sends ? c->aport : c->bport, a_sends ? c->bport : c->aport,
			m->start_ns / 1000000000, m->start_ns % 1000000000, m->bytes,
			m->iteration, dmls_gen_phase_name(m->phase));
	}
	if (fflush(fp) || ferror(fp))
		return dmls_fail(err, DMLS_EIO, "cannot write the flow list");
	return DMLS_OK;
}

int dmls_gen_write_hpcc(const dmls_gen_schedule *s, FILE *fp, dmls_error *err)
{
	int rc = gen_check_sizes(s, "HPCC", UINT32_MAX, "an unsigned 32-bit int", err);
	if (rc)
		return rc;
	fprintf(fp, "%zu\n", s->nmsgs);
	for (size_t i = 0; i < s->nmsgs; i++) {
		const dmls_gen_msg *m = &s->msgs[i];
		const dmls_gen_conn *c = &s->conns[m->conn];
		int64_t t = m->start_ns + 2000000000LL;
		fprintf(fp, "%u %u 3 %u %" PRIu64 " %" PRId64 ".%09" PRId64 "\n", m->src, m->dst,
			m->src == c->a ? c->bport : c->aport, m->bytes, t / 1000000000,
			t % 1000000000);
	}
	if (fflush(fp) || ferror(fp))
		return dmls_fail(err, DMLS_EIO, "cannot write the flow list");
	return DMLS_OK;
}

int dmls_gen_hpcc_rate_known(double gbps)
{
	/* the rates HPCC's IntHop knows (src/point-to-point/model/int-header.cc) */
	static const double known[] = {25, 50, 100, 200, 400};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (gbps == known[i])
			return 1;
	return 0;
}

/* HPCC's topology (scratch/third.cc): `nodes switches links`, the switch
 * ids, then `a b rate delay error_rate` per link. */
int dmls_gen_write_hpcc_topology(const dmls_gen_schedule *s, FILE *fp, dmls_error *err)
{
	size_t n = s->nhosts;
	fprintf(fp, "%zu 1 %zu\n%zu\n", n + 1, n, n);
	for (size_t h = 0; h < n; h++)
		fprintf(fp, "%zu %zu %gGbps 0.001ms 0\n", n, h, s->job.link_gbps);
	if (fflush(fp) || ferror(fp))
		return dmls_fail(err, DMLS_EIO, "cannot write the topology");
	return DMLS_OK;
}
