/*
 * synth.h - build a dmls_stats packet by packet for the analysis tests.
 *
 * Hosts are 198.18.0.<h>.  synth_send() emits `bytes` of TCP payload from
 * host s to host d as 64000-byte segments (segmentation-offload sized) 20 us
 * apart starting at t_ns, each answered by a pure ACK, so the wire carries
 * what a real transfer carries.  Deterministic: jitter comes from a fixed
 * linear congruential generator.
 */
#ifndef DMLS_TEST_SYNTH_H
#define DMLS_TEST_SYNTH_H

#include <string.h>

#include "dmlscope/stats.h"

#define SYNTH_SEG 64000ULL
#define SYNTH_T0 1700000000000000000LL /* a unix time in ns */

static inline dmls_pkt synth_pkt(int64_t ts, int s, int d, uint64_t payload, uint32_t seq)
{
	dmls_pkt p;
	memset(&p, 0, sizeof(p));
	p.ts_ns = ts;
	p.af = 4;
	p.proto = 6;
	p.src[10] = p.src[11] = p.dst[10] = p.dst[11] = 0xff;
	p.src[12] = p.dst[12] = 198;
	p.src[13] = p.dst[13] = 18;
	p.src[15] = (uint8_t)s;
	p.dst[15] = (uint8_t)d;
	p.sport = (uint16_t)(40000 + s * 100 + d);
	p.dport = (uint16_t)(50000 + d * 100 + s);
	p.tcp_seq = seq;
	p.tcp_flags = DMLS_TCP_ACK;
	p.payload_bytes = payload;
	p.ip_bytes = payload + 52;
	p.wire_bytes = payload + 66;
	return p;
}

static uint32_t synth_seq[256][256];

/* Returns the time after the last segment. */
static inline int64_t synth_send(dmls_stats *st, int64_t t_ns, int s, int d, uint64_t bytes)
{
	while (bytes > 0) {
		uint64_t n = bytes < SYNTH_SEG ? bytes : SYNTH_SEG;
		dmls_pkt p = synth_pkt(t_ns, s, d, n, synth_seq[s][d]);
		synth_seq[s][d] += (uint32_t)n;
		dmls_stats_add(st, &p);
		dmls_pkt a = synth_pkt(t_ns + 5000, d, s, 0, synth_seq[d][s]);
		a.sport = p.dport, a.dport = p.sport;
		dmls_stats_add(st, &a);
		bytes -= n;
		t_ns += 20000;
	}
	return t_ns;
}

/* A small control message (rendezvous store, heartbeat). */
static inline void synth_ctrl(dmls_stats *st, int64_t t_ns, int s, int d)
{
	dmls_pkt p = synth_pkt(t_ns, s, d, 40, synth_seq[s][d]);
	p.sport = 29500, p.dport = (uint16_t)(30000 + s);
	synth_seq[s][d] += 40;
	dmls_stats_add(st, &p);
}

static uint32_t synth_rng = 12345;
/* uniform in [-1, 1) */
static inline double synth_jitter(void)
{
	synth_rng = synth_rng * 1103515245u + 12345u;
	return ((double)((synth_rng >> 8) & 0xffff) / 32768.0) - 1.0;
}

#endif
