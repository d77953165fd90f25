/*
 * stats.h - everything one pass over a job's packets computes.
 *
 * dmls_stats is fed packet by packet (dmls_stats_add) from a dmls_input and
 * holds small independent sinks: a host table, a pair (source-destination)
 * table that is the volume matrix, a flow table (TCP/UDP 5-tuples, never
 * split at idle time: a training job idles through every compute phase),
 * and binned time series.  Memory grows with hosts, pairs, flows and the
 * time that holds traffic, never with packets.  Every counter is 64-bit.
 *
 * Time series kept (all in bytes; "payload" = TCP/UDP payload):
 *   total_wire      all packets, wire bytes, fine bins (fine_bin_ns, 100 us)
 *   total_payload   all packets, payload bytes, fine bins
 *   host.tx_payload each host's sent payload, bins of host_bin_ns (1 ms)
 *   pair.series     each pair's wire bytes, bins of bin_ns (--bin)
 *   flow.activity   each flow's wire bytes, 10 s bins
 */
#ifndef DMLSCOPE_STATS_H
#define DMLSCOPE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/decode.h"
#include "dmlscope/series.h"

#define DMLS_FINE_BIN_NS 100000LL          /* 100 us */
#define DMLS_HOST_BIN_NS 1000000LL         /* 1 ms */
#define DMLS_ACTIVITY_BIN_NS 10000000000LL /* 10 s */

enum dmls_role { DMLS_ROLE_OTHER = 0, DMLS_ROLE_WORKER = 1, DMLS_ROLE_SERVER = 2 };

typedef struct dmls_host {
	uint8_t addr[16];
	char name[48];         /* text form of addr */
	int role;              /* enum dmls_role, set by the analysis */
	uint64_t tx_packets, rx_packets;
	uint64_t tx_wire_bytes, tx_payload_bytes;
	uint64_t rx_wire_bytes, rx_payload_bytes;
	uint64_t tx_retransmissions; /* TCP segments this host sent again */
	int64_t first_ns, last_ns;   /* first and last packet sent */
	dmls_series tx_payload;      /* host_bin_ns bins */
} dmls_host;

typedef struct dmls_pair {
	uint32_t src, dst;     /* host indexes */
	uint64_t packets, wire_bytes, payload_bytes;
	int64_t first_ns, last_ns;
	dmls_series series;    /* wire bytes, bin_ns bins */
} dmls_pair;

typedef struct dmls_flow {
	uint32_t src, dst;     /* host indexes */
	uint16_t sport, dport;
	uint8_t proto;
	uint64_t packets, wire_bytes, payload_bytes;
	uint64_t retransmissions;
	int64_t first_ns, last_ns;
	uint32_t next_seq;     /* highest TCP sequence end seen (internal) */
	uint8_t seq_valid;
	dmls_series activity;  /* wire bytes, 10 s bins */
} dmls_flow;

typedef struct dmls_stats {
	int64_t bin_ns;        /* --bin, default 1 ms */
	int64_t t0_ns;         /* time of the first packet, origin of every series */
	int64_t first_ns, last_ns;
	uint64_t packets, wire_bytes, payload_bytes;
	uint64_t retransmissions;

	size_t nhosts, hosts_cap;
	dmls_host *hosts;
	size_t npairs, pairs_cap;
	dmls_pair *pairs;
	size_t nflows, flows_cap;
	dmls_flow *flows;

	dmls_series total_wire;    /* fine bins */
	dmls_series total_payload; /* fine bins */

	/* hash indexes (internal) */
	uint32_t *host_idx, *pair_idx, *flow_idx;
	size_t host_hcap, pair_hcap, flow_hcap;
	int oom;                   /* set when an allocation failed */
	/* the previous packet's addresses and table indexes: packets come in
	 * runs of one flow, so most packets skip the host and pair lookups */
	uint8_t last_src[16], last_dst[16];
	long last_s, last_d, last_pair; /* -1 when not set */
	long last_flow;
	uint16_t last_sport, last_dport;
	uint8_t last_proto;
} dmls_stats;

/* bin_ns <= 0 selects the default 1 ms. */
void dmls_stats_init(dmls_stats *st, int64_t bin_ns);
void dmls_stats_release(dmls_stats *st);

/* Count one decoded packet.  Returns 0, or -1 when out of memory. */
int dmls_stats_add(dmls_stats *st, const dmls_pkt *p);

/* Index of the host with this address, or -1. */
long dmls_stats_find_host(const dmls_stats *st, const uint8_t addr[16]);
/* Pair index for src->dst host indexes, or -1. */
long dmls_stats_find_pair(const dmls_stats *st, uint32_t src, uint32_t dst);

/* Duration from first to last packet in seconds (0 when < 2 packets). */
double dmls_stats_duration_s(const dmls_stats *st);

/* Flow-size quantile q in [0,1] of wire bytes (nearest rank), 0 if no flows. */
uint64_t dmls_stats_flow_quantile(const dmls_stats *st, double q);

#endif
