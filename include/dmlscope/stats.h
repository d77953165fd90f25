/*
 * stats.h - everything one pass over a job's packets computes.
 *
 * dmls_stats is fed packet by packet (dmls_stats_add) from a dmls_input and
 * holds small independent sinks: a host table, a pair (source-destination)
 * table that is the volume matrix, a flow table (TCP/UDP 5-tuples, never
 * split at idle time: a training job idles through every compute phase),
 * binned time series and an online burstiness window.  Every counter is
 * 64-bit.
 *
 * Memory is bounded, whatever the capture:
 *   - Tables have a cap (dmls_stats_limits: hosts, pairs, flows).  At the
 *     cap, the smaller half of the table (by wire bytes) is folded into an
 *     `other` account (dmls_fold) and its slots reused: the largest hosts,
 *     pairs and flows stay exact (a heavy hitter is never folded while
 *     lighter entries exist; batch eviction in the manner of Manku &
 *     Motwani's lossy counting, VLDB 2002), totals are always exact, and
 *     the folded entries, packets and bytes are counted.  A folded key seen
 *     again starts a new entry from zero.  Once a table has folded, a new
 *     key takes a slot only at its second sighting (a doorkeeper, as in
 *     TinyLFU: Einziger, Friedman & Manes, ACM ToS 13(4), 2017): a scan's
 *     one-packet keys go straight to `other`, and a real flow that starts
 *     during a flood is counted from its second packet.
 *   - Series are sparse (series.h) and belong to a class sharing one bin
 *     width (hosts' tx payload; pairs; the total wire bytes; the total
 *     payload; flows' activity; split pairs' connections).  When a class holds more than its
 *     budget of bins, every series of the class doubles its bin width
 *     (dmls_series_coarsen): resolution is lost, never bytes, and the bin
 *     width in the output says so.  Bursty training traffic (a burst per
 *     step, quiet compute in between) stays at full resolution for hours.
 *   - Burstiness of the total wire bytes at 100 us, and of each of the
 *     first DMLS_HOST_BURST_STREAMS hosts' sent payload at 1 ms, is
 *     computed online (burst.h) and needs no series; so is the busiest bin
 *     of the total wire bytes at --bin (peak_bin_wire_bytes).
 *
 * Time series kept (all in bytes; "payload" = TCP/UDP payload):
 *   total_wire      all packets, wire bytes, wire class (bin_ns, --bin)
 *   total_payload   all packets, payload bytes, total class (1 ms): a class
 *                   of its own, so that the on/off phases keep 1 ms bins
 *                   long after the hosts' series have coarsened
 *   host.tx_payload each host's sent payload, host class (1 ms)
 *   pair.series     each pair's wire bytes, pair class (bin_ns, --bin)
 *   flow.activity   each flow's wire bytes, flow class (10 s)
 *   flow.conn       a data connection's payload on a pair with two or
 *                   more, connection class (1 ms; DMLS_CONN_MIN_BYTES)
 */
#ifndef DMLSCOPE_STATS_H
#define DMLSCOPE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/burst.h"
#include "dmlscope/decode.h"
#include "dmlscope/series.h"
#include "dmlscope/sink.h"
#include "dmlscope/itable.h"

#define DMLS_FINE_BIN_NS 100000LL          /* 100 us */
#define DMLS_HOST_BIN_NS 1000000LL         /* 1 ms */
#define DMLS_ACTIVITY_BIN_NS 10000000000LL /* 10 s */

enum dmls_role { DMLS_ROLE_OTHER = 0, DMLS_ROLE_WORKER = 1, DMLS_ROLE_SERVER = 2 };

/* When a host, pair or flow entry was made: the time of its first packet,
 * then (seq) its capture's place in the job (dmls_stats.file_order, high
 * bits) and the order it was made in within its state (low 40 bits).  One
 * pass makes entries in this order; a merged state sorts its tables by it
 * at finish, so merged parts list hosts, pairs and flows as one pass over
 * time-ordered captures does (sink.h). */
typedef struct dmls_born {
	int64_t ts;
	uint64_t seq;
} dmls_born;

/* A host's pauses (1 ms bins without payload between two with): counted by
 * length in quarter octaves (bucket 4 o + s holds lengths in
 * [2^o (1 + s/4), 2^o (1 + (s+1)/4)) bins), so the iterations can tell
 * whether the series' bins hide a finer period (iterations.c). */
#define DMLS_GAP_BUCKETS (4 * 48)

/* A host's sent payload at 1 ms bins, online (burst.h): its burstiness
 * stays exact at every time scale from 1 ms up whatever the host class'
 * bin width becomes.  The open bin is added when a packet passes its end. */
typedef struct dmls_host_burst {
	dmls_burst_stream s;
	int64_t bin, end;      /* the open bin and where it ends (ns) */
	uint64_t bytes;        /* its bytes so far */
	uint64_t pauses[DMLS_GAP_BUCKETS]; /* by length (DMLS_GAP_BUCKETS) */
} dmls_host_burst;

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
	dmls_host_burst *tx_burst;   /* NULL: none (past DMLS_HOST_BURST_STREAMS
				      * hosts, or a mergeable state) */
	dmls_born born;
} dmls_host;

typedef struct dmls_pair {
	uint32_t src, dst;     /* host indexes */
	uint64_t packets, wire_bytes, payload_bytes;
	int64_t first_ns, last_ns;
	dmls_series series;    /* wire bytes, bin_ns bins */
	dmls_series reopens;   /* connections opened anew: SYNs (without ACK),
				* or RoCEv2 5-tuples' first packets, sent once
				* the pair carried payload, counted at 1 ms
				* (DMLS_CLASS_REOPEN) */
	dmls_born born;
	uint8_t conns;         /* its data connections (DMLS_CONN_MIN_BYTES) at once,
				* up to 255 */
	uint8_t series_payload; /* 1: series counts payload bytes (a view's
				 * connection, jobs_overlap.c); 0: wire */
	uint32_t conn_flow;    /* the data connection that sent last (internal) */
	int64_t conn_ns;       /* ... and when */
} dmls_pair;

typedef struct dmls_flow {
	uint32_t src, dst;     /* host indexes */
	uint32_t pair;         /* its pair's index (internal; UINT32_MAX: refind) */
	uint16_t sport, dport;
	uint8_t proto;
	uint64_t packets, wire_bytes, payload_bytes;
	uint64_t retransmissions;
	int64_t first_ns, last_ns;
	uint32_t next_seq;     /* highest TCP sequence end seen; RoCEv2: the
				* next PSN, shifted left by 8 (internal) */
	uint32_t qp;           /* RoCEv2: the queue pair judged (internal) */
	uint8_t seq_valid;
	dmls_series activity;  /* wire bytes, 10 s bins */
	dmls_series conn;      /* payload, 1 ms: a split pair's data connection
				* (DMLS_CONN_MIN_BYTES), else empty */
	uint8_t heavy;         /* passed DMLS_CONN_MIN_BYTES: 1, counted in its
				* pair's conns: 2 */
	dmls_born born;
} dmls_flow;

/* Table caps: past them the smaller half folds into `other`. */
#define DMLS_DEFAULT_MAX_HOSTS 8192
#define DMLS_DEFAULT_MAX_FLOWS 131072
/* Series budgets per class, bytes of bins (4 bytes each; 8 in a series
 * once one of its bins passes 4 GiB) and run headers.  The pairs' is small
 * for so many series: the analysis reads a pair's bytes over a step or
 * more (the pattern, its exchanges, a rank's share), which coarse bins
 * keep (an hour of a generated 8-host ring gives the same document with
 * its pairs at 2 ms and at 0.5 s bins), and their 8 MiB, before, was most
 * of a long capture's memory.  1.5 MiB holds as many bursts (a run header
 * and a few bins each) at 8-byte run headers as 2 MiB did at 16-byte ones,
 * so the pairs keep the bins they had over a capture of any length.  The
 * total wire bytes, a class of their own, keep the throughput's bins. */
#define DMLS_HOST_SERIES_BUDGET (8u << 20)
#define DMLS_PAIR_SERIES_BUDGET (3u << 19) /* every pair's: 1.5 MiB */
#define DMLS_FLOW_SERIES_BUDGET (4u << 20)
#define DMLS_FINE_SERIES_BUDGET (8u << 20) /* mergeable states only */
#define DMLS_TOTAL_SERIES_BUDGET (8u << 20) /* the total payload alone */
#define DMLS_CONN_SERIES_BUDGET (4u << 20) /* connections of split pairs */
#define DMLS_WIRE_SERIES_BUDGET (4u << 20) /* the total wire bytes alone */
#define DMLS_REOPEN_SERIES_BUDGET (1u << 20) /* the pairs' reopened connections */
/* A connection (a TCP/UDP flow) whose payload passes this is a data
 * connection of its pair; once a pair has two at once (one sends within
 * DMLS_CONN_AT_ONCE_NS of the other), each of them keeps a series of its
 * payload at 1 ms from its next packet on (flow.conn, the class
 * DMLS_CLASS_CONN), so that the analysis can tell two jobs on the same
 * hosts from one job's parallel connections by their steps
 * (src/analysis/connections.c).  A pair with one data connection at a
 * time, the common case (runs back to back or a job restarted on the same
 * hosts included), costs nothing more; a mergeable state keeps none. */
#define DMLS_CONN_MIN_BYTES (64u << 10)
#define DMLS_CONN_AT_ONCE_NS 1000000000LL
#define DMLS_MAX_BIN_NS (1LL << 36)  /* coarsening stops at about 69 s bins */
/* The host class also doubles its bin width whenever the capture's active
 * span passes this many bins (8.7 minutes at 1 ms): its resolution follows
 * the span, so a host's series holds at most this many bins however long
 * the capture, and the job series (at most 2^18 bins) never gets finer
 * bins than it can use.  The active span is the time from the first
 * packet to the last with each silence counted as at most
 * DMLS_SERIES_IDLE_NS: a week's pause between two sessions, or one packet
 * stamped years later, costs no resolution.  Pairs, the total wire bytes
 * (series.csv; --bin) and the total payload (on/off phases) keep their
 * bins under their budgets alone. */
#define DMLS_SERIES_SPAN_BINS (1LL << 19)
#define DMLS_SERIES_IDLE_NS 60000000000LL /* 60 s */
/* A packet stamped this long or longer before the bin the online numbers
 * (the busiest bin at --bin, the burstiness streams) have open is late:
 * they put it in that bin, which is right for the few packets a capture's
 * queues reorder by microseconds, or, a second or more before, start a
 * new time line there (a clock stepped back: one late packet).  Past
 * DMLS_LATE_SHARE of the packets (and DMLS_LATE_FEW) the records are out
 * of time order (a capture merged badly, shuffled, read backwards: a
 * second of packets piles into one bin, or the time lines restart again
 * and again) and the series answer instead, which put every packet in its
 * own bin (at their width: time scales below it are then null). */
#define DMLS_LATE_NS 1000000LL
#define DMLS_LATE_SHARE 0.001
#define DMLS_LATE_FEW 8 /* late packets that never count as disorder (steps) */
/* True when the online numbers do not answer for st (DMLS_LATE_SHARE). */
#define DMLS_STATS_DISORDERED(st)                                                              \
	((st)->late_packets > DMLS_LATE_FEW &&                                                 \
	 (double)(st)->late_packets > DMLS_LATE_SHARE * (double)(st)->packets)

/* Hosts with an online burstiness stream (dmls_host_burst, 16 KiB each)
 * at a time: a host gets one at its second packet while fewer are held. */
#define DMLS_HOST_BURST_STREAMS 64

typedef struct dmls_stats_limits {
	size_t max_hosts;      /* 0 = default */
	size_t max_pairs;      /* 0 = 4 x max_hosts */
	size_t max_flows;      /* 0 = default */
	int mergeable;         /* keep what an exact merge needs (sink.h) */
} dmls_stats_limits;

/* What was folded out of a table: entries, and their counts at folding. */
typedef struct dmls_fold {
	uint64_t entries, packets, wire_bytes, payload_bytes;
} dmls_fold;

enum { DMLS_CLASS_HOST, DMLS_CLASS_PAIR, DMLS_CLASS_FLOW, DMLS_CLASS_FINE, DMLS_CLASS_TOTAL,
       DMLS_CLASS_CONN, DMLS_CLASS_WIRE, DMLS_CLASS_REOPEN, DMLS_NCLASS };

/* Series sharing one bin width and one memory budget. */
typedef struct dmls_series_class {
	int64_t base_bin_ns;   /* the width asked for */
	int64_t bin_ns;        /* the width now (base x 2^coarsened) */
	unsigned coarsened;
	size_t mem_bytes;      /* bins held by the class */
	size_t budget_bytes;
	size_t trigger_bytes;  /* coarsen past this (>= budget) */
	int64_t span_bins;     /* active span allowed, in bins (0: no limit) */
	int64_t active_bins;   /* the active span so far, in bins */
	int64_t last_bin;      /* the latest bin counted in it */
	int64_t cache_lo, cache_hi, cache_bin; /* the last bin looked up (internal) */
} dmls_series_class;

typedef struct dmls_stats {
	int64_t bin_ns;        /* --bin asked for, default 1 ms (pair and wire classes) */
	int64_t t0_ns;         /* origin of every series: the first packet, or
				* dmls_stats_set_origin */
	int64_t first_ns, last_ns;
	uint64_t packets, wire_bytes, payload_bytes;
	uint64_t retransmissions;
	uint64_t tcp_gap_bytes;     /* TCP sequence skipped over: data the capture
				     * never showed, or showed later (stats.c) */
	uint64_t tcp_resent_bytes;  /* payload of the segments counted as
				     * retransmissions */
	uint64_t late_packets; /* stamped DMLS_LATE_NS or more before the open
				* 100 us bin of the burstiness stream */
	int64_t late_max_ns;   /* the most behind of them */
	uint64_t flows_seen;   /* flow entries ever made (distinct 5-tuples unless
				* a folded flow came back) */

	size_t max_hosts, max_pairs, max_flows;
	dmls_fold fold_hosts;  /* hosts folded: their sending (tx) counts */
	dmls_fold fold_pairs, fold_flows;
	uint64_t batch_folds[3];   /* folds of hosts, pairs, flows (internal) */
	uint64_t *door;            /* the doorkeeper's bits (internal, stats.c) */
	size_t door_set;

	size_t nhosts, hosts_cap;
	dmls_host *hosts;
	size_t npairs, pairs_cap;
	dmls_pair *pairs;
	size_t nflows, flows_cap;
	dmls_flow *flows;

	dmls_series total_wire;    /* wire class */
	dmls_series total_payload; /* total class */
	size_t host_bursts;        /* hosts holding a tx_burst */
	dmls_series_class cls[DMLS_NCLASS];

	/* burstiness of the total wire bytes, 100 us bins: online, and for a
	 * mergeable state also as a series (fine class) */
	dmls_burst_stream fine;
	int64_t fine_bin;          /* the open bin */
	int64_t fine_end;          /* where it ends (ns) */
	uint64_t fine_bytes;       /* its bytes so far */
	int mergeable;
	dmls_series fine_series;   /* mergeable only */
	/* the total wire bytes' open bin at --bin and the busiest closed one,
	 * online (a late packet joins the open bin); whole while wire_online,
	 * that is, this state saw every packet itself (not merged, not read
	 * from a serialized state) */
	int64_t wire_end;          /* the end of the open bin */
	uint64_t wire_open_bytes, wire_peak_bytes;
	int wire_online;
	unsigned merged;           /* partial states merged into this one */
	uint32_t file_order;       /* the capture of the next packets: its place
				    * in the job (set by a reader of parts) */
	int64_t born_ts;           /* the packet being counted (internal) */
	uint64_t born_next;        /* entries made so far (internal) */

	/* results of dmls_stats_finish */
	int finished;
	int analysis_threads;      /* the analysis may use 2 (job.c); 0 or 1: one */
	/* the analysis' window on time, set by it for the job it reads
	 * (analysis.c): of runs back to back, the busiest (stretch.c), which
	 * every clock of the job reads; runs 1 and INT64_MIN, INT64_MAX: the
	 * whole capture */
	int64_t run_from_ns, run_to_ns; /* [from, to) */
	size_t runs;
	/* per flow, 1 when another job's in a job's view of the stats (a
	 * pair two jobs share, jobs_overlap.c); NULL: none (the stats' own) */
	const unsigned char *flow_hidden;
	/* 1 in a view whose hosts' series hold streams left out of it
	 * (jobs_overlap.c, dmls_job_view_background): a job's series are its
	 * pairs', at their own bins */
	int hosts_mixed;
	dmls_burst burst_total;    /* total wire bytes, 100 us bins */
	uint64_t peak_bin_wire_bytes; /* the busiest bin of the total wire bytes */
	int64_t peak_bin_ns;       /* its width: --bin, or where a merged state's
				    * series coarsened, that series' bin */
	uint64_t flow_p50_bytes, flow_p90_bytes, flow_p99_bytes, flow_max_bytes;

	/* indexes (internal) */
	dmls_itable host_idx, pair_idx, flow_idx;
	int oom;                   /* set when an allocation failed */
	/* the previous packet's addresses, ports and table indexes: packets
	 * come in runs of one flow, so most skip the flow, host and pair
	 * lookups */
	uint8_t last_src[16], last_dst[16];
	long last_s, last_d, last_pair; /* -1 when not set */
	long last_flow;                 /* the previous packet's flow, or -1 */
	uint16_t last_sport, last_dport;
	uint8_t last_proto;
} dmls_stats;

/* TCP data the capture missed, at least: sequence gaps no retransmission
 * filled (stats.c, tcp_gap). */
static inline uint64_t dmls_stats_missed_bytes(const dmls_stats *st)
{
	return st->tcp_gap_bytes > st->tcp_resent_bytes ? st->tcp_gap_bytes - st->tcp_resent_bytes
							: 0;
}

/* Flow f is another job's in this view of the stats (flow_hidden). */
static inline int dmls_flow_hidden(const dmls_stats *st, size_t f)
{
	return st->flow_hidden && st->flow_hidden[f];
}

/* Payload bytes per byte of a pair's series: 1 where it counts payload (a
 * view's connection), else the pair's payload share of its wire bytes. */
static inline double dmls_pair_series_payload(const dmls_pair *pr)
{
	if (pr->series_payload)
		return 1.0;
	return pr->wire_bytes ? (double)pr->payload_bytes / (double)pr->wire_bytes : 0;
}

/* bin_ns <= 0 selects the default 1 ms; limits NULL: the defaults. */
void dmls_stats_init(dmls_stats *st, int64_t bin_ns);
void dmls_stats_init_limits(dmls_stats *st, int64_t bin_ns, const dmls_stats_limits *lim);
void dmls_stats_release(dmls_stats *st);
/* Release the series only the analysis reads: the hosts' sent payload,
 * the total payload and the fine series.  After dmls_analysis_run nothing
 * reads them (outputs read the pairs', the total wire bytes' and the flows'
 * series, and the analysis' own arrays), so a job lets them go before it
 * is rendered: the renderers' memory then replaces theirs instead of adding
 * to it.  A state released so must not be analyzed, merged or serialized
 * again. */
void dmls_stats_release_analysis_series(dmls_stats *st);

/* Count one decoded packet.  Returns 0, or -1 when out of memory. */
int dmls_stats_add(dmls_stats *st, const dmls_pkt *p);

/* Fix the time origin of every series before the first packet: partial
 * states that will merge share one (e.g. the earliest first packet of the
 * job's files).  A packet before it still lands (negative bins). */
void dmls_stats_set_origin(dmls_stats *st, int64_t t0_ns);

/*
 * dst += src, exactly (sink.h): totals, tables (hosts, pairs, flows by
 * their addresses and ports; folded accounts; caps applied after),
 * series on the coarser of the two grids, burstiness.  Both states must
 * come from the same options and origin, be mergeable and not finished.
 * 0; -1 out of memory; -2 not mergeable (different origin, bin or limits).
 */
int dmls_stats_merge(dmls_stats *dst, const dmls_stats *src);

/* After the last packet: closes the online windows and computes the
 * summary numbers (burst_total, peak bin, flow size quantiles).  Idempotent;
 * 0, or -1 when out of memory. */
int dmls_stats_finish(dmls_stats *st);

/* Bin width of the series of a class now (DMLS_CLASS_*). */
int64_t dmls_stats_class_bin_ns(const dmls_stats *st, int cls);

/* Index of the host with this address, or -1. */
long dmls_stats_find_host(const dmls_stats *st, const uint8_t addr[16]);
/* Pair index for src->dst host indexes, or -1. */
long dmls_stats_find_pair(const dmls_stats *st, uint32_t src, uint32_t dst);

/* Duration from first to last packet in seconds (0 when < 2 packets). */
double dmls_stats_duration_s(const dmls_stats *st);
/* Pauses of host h's sending (no payload for 1 ms or more, between two 1 ms
 * bins with some) of at least min_ns, into *n: a lower bound (the quarter
 * octave holding min_ns is left out).  0, or -1 when h keeps no online
 * stream (dmls_host.tx_burst) to count them. */
int dmls_host_pauses(const dmls_host *h, int64_t min_ns, uint64_t *n);

/* Flow-size quantile q in [0,1] of wire bytes (nearest rank), 0 if no flows. */
uint64_t dmls_stats_flow_quantile(const dmls_stats *st, double q);

#endif
