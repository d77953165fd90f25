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
 * alibaba-edu/High-Precision-Congestion-Control), read by many data-center
 * simulators derived from it: the number of flows on the first line, then
 * `<src host> <dst host> 3 <dst port> <bytes> <start s>` with hosts as node
 * numbers from 0 (our host index) and priority group 3.  Start times are
 * shifted by 2 s, as HPCC's own generator does, so routing has settled.
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
