/*
 * gen.h - synthetic distributed-training traffic from a job description.
 *
 * Two stages (src/gen):
 *   1. schedule (schedule.c, plan.c): the job (pattern, ranks, gradient
 *      size S, iterations K, period T, link rate, seed) becomes a list of
 *      messages: who sends how many bytes to whom, when, in which iteration
 *      and phase of the collective.  Every iteration is a compute gap and
 *      then the collective, as the formulas of doc/analysis.md make it
 *      (Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan 2009).
 *   2. writers: pcap (pcap_writer.c, tcp_seg.c: each message cut into TCP
 *      segments of MSS 1448 on one long-lived connection per pair, paced at
 *      the link rate, ACKed every second segment), and flow lists
 *      (flowlist.c): CSV, one row per message, and HPCC's ns-3 flow file;
 *      simulators: htsim's connection matrix (htsim.c), Chakra execution
 *      traces for ASTRA-sim (chakra.c).
 *
 * Hosts are numbered 0..nhosts-1; host h has the address 198.18.a.b with
 * a.b = h + 1 (198.18.0.1, 198.18.0.2, ...).  For a star (parameter
 * server), hosts 0..k-1 are the k servers (shards) and hosts k..k+W-1 the
 * workers.
 *
 * Deterministic: the same job (seed included) gives the same schedule and
 * the same bytes.  Times are nanoseconds from the start of the capture.
 */
#ifndef DMLSCOPE_GEN_H
#define DMLSCOPE_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlscope/error.h"

#define DMLS_GEN_MSS 1448        /* TCP payload per segment (Ethernet, timestamps) */
#define DMLS_GEN_MAX_HOSTS 1024
#define DMLS_GEN_MAX_MSGS 50000000u
#define DMLS_GEN_JITTER 0.05     /* the CLI's --jitter: compute gaps vary 5 % */
#define DMLS_GEN_NQ 17           /* quantiles of a run's periods (--like) */

enum dmls_gen_phase {
	DMLS_GEN_REDUCE_SCATTER = 0,
	DMLS_GEN_ALL_GATHER,
	DMLS_GEN_PUSH,
	DMLS_GEN_PULL,
	DMLS_GEN_REDUCE,
	DMLS_GEN_BROADCAST,
	DMLS_GEN_EXCHANGE,
	DMLS_GEN_INTRA_REDUCE_SCATTER,
	DMLS_GEN_INTRA_ALL_GATHER,
	DMLS_GEN_INTER_REDUCE_SCATTER,
	DMLS_GEN_INTER_ALL_GATHER,
	DMLS_GEN_NPHASES
};

/* "reduce-scatter", "all-gather", "push", ... as written in the CSV. */
const char *dmls_gen_phase_name(int phase);

typedef struct dmls_gen_job {
	int pattern;            /* enum dmls_pattern_kind (analysis.h): ring, tree,
				 * star, clique, butterfly, hierarchical, pairwise */
	size_t workers;         /* N ranks; star: W workers (plus one server) */
	uint64_t gradient_bytes; /* S */
	size_t iterations;      /* K >= 1 */
	int64_t iteration_ns;   /* T, start to start; 0 = the collective plus
				 * compute_gap_ns, or 2.5 x the collective */
	double link_gbps;       /* > 0; 0 = 10 */
	uint64_t seed;
	size_t group_size;      /* hierarchical: ranks per group; 0 = automatic */
	size_t servers;         /* star: parameter-server shards k; 0 = 1 */
	double jitter;          /* coefficient of variation of the compute gap,
				 * in [0, 2] (0 = a perfect clock); the mean
				 * period stays T */
	int64_t compute_gap_ns; /* mean compute gap G when T is 0 (a run scaled
				 * up keeps its gap, not its period); 0 = none */
	double buckets;         /* > 1: the gradient in this many buckets per
				 * iteration (mean; floor or ceil each), as the
				 * framework overlaps them with the backward pass */
	int64_t bucket_span_ns;    /* median time a bucket's collective spans
				    * (its steps spread out); lognormal */
	int64_t bucket_span_mean_ns; /* their mean (>= the median) */
	int64_t bucket_gap_ns;     /* quiet between buckets of an iteration */
	double dense_fraction;     /* of S in the first bucket, at line rate
				    * (not spread); 0 = spans share S; a star
				    * with push groups: the share of an
				    * iteration in its busiest 10 ms (above 1/2:
				    * its last pushes, schedule.c) */
	double heavy_fraction;     /* of S right after the dense bucket, paced
				    * to end GEN_HEAVY_NS after the dense
				    * bucket's start: with it, the share of an
				    * iteration in its busiest 100 ms; 0 =
				    * none */
	int64_t bucket_room_ns;    /* the spread buckets and their gaps fit in
				    * this (shrunk if not) */
	double period_q[DMLS_GEN_NQ]; /* the last > 0: a run's periods (start to
				 * start over their mean), quantiles 0, 1/16,
				 * ..., 1, non-decreasing; each iteration's
				 * compute gap is drawn from them (the mean
				 * period stays T) instead of from jitter */
	double push_groups;     /* star, >= 1: the workers push in this many
				 * groups per iteration (mean; floor or ceil
				 * each), as workers whose compute ends at
				 * different times do: each group's pushes
				 * paced to last a bucket span, a bucket gap
				 * after each, then the server's replies at
				 * line rate; 0 = all at once */
	int64_t update_ns;      /* star, dense_fraction > 1/2: the server's
				 * update between the last pushes and its
				 * replies (the pushes paced to fit in 9 ms
				 * with it); 0 = the bucket gap, shortened */
	int64_t push_gap_ns;    /* star, > 0: each worker pushes on its own at
				 * line rate, this quiet (one burst to the
				 * analysis) after the one before, the
				 * replies this quiet (at least the update)
				 * after the last push; each of those W quiets
				 * is a bucket gap instead with probability
				 * push_groups / W (schedule.c); 0 = groups */
	int64_t lead_ns;        /* the first collective starts no earlier than
				 * this after the capture's start (a run's
				 * start-up before its first iteration); 0 =
				 * one compute gap after the handshakes */
	int64_t tail_ns;        /* > 0: this long after the last message the
				 * connections close (FIN, ACK), as a run's
				 * capture ends; 0 = no close */
	int64_t pair_jitter_ns; /* pairwise: each pair's exchange starts up to
				 * this after its step's start (uniform); 0 =
				 * 500 us.  --like of an asynchronous run:
				 * half its period, as ranks on their own
				 * clocks meet at any phase */
	double async_periods_s[2]; /* set by --like of an asynchronous run (its
				 * ranks keep their own clocks): their
				 * shortest and longest period, for a note;
				 * the steps are laid out together at the
				 * median period all the same */
} dmls_gen_job;

/* Parse a --pattern name ("ring", ...); returns the kind or -1. */
int dmls_gen_pattern_parse(const char *name);

typedef struct dmls_gen_conn {
	uint32_t a, b;          /* host indexes, a < b; b connected to a (a
				 * worker to its server at host 0) */
	uint16_t aport, bport;  /* a's listening port, b's ephemeral port */
} dmls_gen_conn;

typedef struct dmls_gen_msg {
	uint32_t src, dst;      /* host indexes */
	uint32_t conn;          /* index into conns */
	uint32_t iteration;     /* 0-based */
	uint32_t step;          /* step of the collective within the iteration */
	uint8_t phase;          /* enum dmls_gen_phase */
	uint64_t bytes;         /* application payload */
	int64_t start_ns;       /* first segment */
	int64_t gap_ns;         /* spacing of its segments (pacing), >= 1 */
} dmls_gen_msg;

typedef struct dmls_gen_schedule {
	dmls_gen_job job;       /* with defaults filled in (T, link, group size) */
	size_t nhosts;
	int64_t collective_ns;  /* the longest collective of an iteration */
	size_t nconns;
	dmls_gen_conn *conns;   /* in order of first use */
	size_t nmsgs, msgs_cap;
	dmls_gen_msg *msgs;     /* sorted by start_ns */
	int64_t end_ns;         /* after the last segment */
} dmls_gen_schedule;

/*
 * Build the schedule of job into s (which the caller releases with
 * dmls_gen_schedule_release, also on failure).  Fails with DMLS_EUSAGE on
 * an impossible job (no such pattern, too few ranks, S = 0, T shorter than
 * the collective) and names the option.
 */
int dmls_gen_schedule_build(dmls_gen_schedule *s, const dmls_gen_job *job, dmls_error *err);
void dmls_gen_schedule_release(dmls_gen_schedule *s);

/* "198.18.0.7" for host h into buf (at least 16 bytes). */
void dmls_gen_host_addr(uint32_t h, char *buf, size_t len);

/*
 * Bytes host h sends (tx) and receives (rx) in iteration k: the quantity the
 * formulas of doc/analysis.md give (ring 2(N-1)/N S each way, ...).
 */
void dmls_gen_host_bytes(const dmls_gen_schedule *s, uint32_t h, uint32_t k, uint64_t *tx,
			 uint64_t *rx);

/* Which fields of a dmls_gen_job the caller gave (the others may come from
 * a run, dmls_gen_calibrate). */
enum {
	DMLS_GEN_SET_PATTERN = 1,
	DMLS_GEN_SET_WORKERS = 2,
	DMLS_GEN_SET_GRADIENT = 4,
	DMLS_GEN_SET_ITERATIONS = 8,
	DMLS_GEN_SET_PERIOD = 16,
	DMLS_GEN_SET_JITTER = 32,
	DMLS_GEN_SET_LINK = 64,
	DMLS_GEN_SET_SERVERS = 128,
};

struct dmls_analysis;
/*
 * Fill the fields of job not in set from the analysis of a real run (name
 * is for messages): pattern.kind, ranks (a star's hubs are its servers,
 * the other ranks its workers), S = gradient_bytes, iterations.count, period_s, the
 * jitter from the spread of iteration durations, and the link rate from
 * the busiest millisecond shared by the ranks that send at once.
 * Fails with DMLS_EBAD when the run does not tell a needed value (an
 * unknown pattern, a tree's S) and says which value must be given.
 */
int dmls_gen_calibrate(dmls_gen_job *job, unsigned set, const struct dmls_analysis *a,
		       const char *name, dmls_error *err);

/* CSV, one row per message: src,dst,sport,dport,start_s,bytes,iteration,phase. */
int dmls_gen_write_csv(const dmls_gen_schedule *s, FILE *fp, dmls_error *err);

/* HPCC ns-3 flow file: a count line, then "src dst 3 dport bytes start_s"
 * per message (hosts as nodes 0..N-1, start times + 2 s).  Fails with
 * DMLS_EUSAGE, before writing, on a message of 4 GiB or more (HPCC reads
 * sizes into 32 bits). */
int dmls_gen_write_hpcc(const dmls_gen_schedule *s, FILE *fp, dmls_error *err);

/* HPCC's topology file for that flow file: hosts 0..N-1 first, then one
 * switch (node N) with a link to each at the job's rate, 1 us. */
int dmls_gen_write_hpcc_topology(const dmls_gen_schedule *s, FILE *fp, dmls_error *err);

/* 1 if HPCC's INT header knows the rate (25, 50, 100, 200, 400 Gbit/s):
 * at others it prints "IntHeader unknown rate" and flows run slow. */
int dmls_gen_hpcc_rate_known(double gbps);

/* htsim's connection matrix (src/gen/htsim.c): nodes is the `Nodes` line
 * (0 = the job's hosts; more pads it to a topology's host count, never
 * fewer); closed_loop chains the steps of an iteration with barrier
 * triggers on send_done_trigger (only each iteration's first step timed). */
typedef struct dmls_gen_htsim_opts {
	size_t nodes;
	int closed_loop;
} dmls_gen_htsim_opts;

/* `Nodes`, `Connections`, [`Triggers`], then `a->b id K start <ps> size <B>`
 * per message, K its CSV row (1 = the first after the header).  Fails
 * with DMLS_EUSAGE on a message of 2^31 bytes or more (htsim reads
 * sizes with stoi) or nodes below the job's hosts, before writing. */
int dmls_gen_write_htsim(const dmls_gen_schedule *s, const dmls_gen_htsim_opts *o, FILE *fp,
			 dmls_error *err);

/* htsim's topology file (-topo) for one switch holding `nodes` hosts (0 =
 * the job's) at the job's link rate; DMLS_EUSAGE unless it is a whole
 * number of Gbit/s. */
int dmls_gen_write_htsim_topology(const dmls_gen_schedule *s, size_t nodes, FILE *fp,
				  dmls_error *err);

/*
 * Chakra execution traces for ASTRA-sim (src/gen/chakra.c): one file
 * PREFIX.<rank>.et per host, length-delimited protobuf records of
 * Chakra's et_def.proto: GlobalMetadata, then per iteration a COMP_NODE of
 * the compute gap and the collective (one ALL_REDUCE of S; a parameter
 * server's or pairwise job's messages as SEND/RECV nodes), each node
 * depending on the one before.
 */
int dmls_gen_write_chakra(const dmls_gen_schedule *s, const char *prefix, dmls_error *err);

/*
 * Packet capture (Ethernet, nanosecond pcap) of the schedule: a three-way
 * handshake per connection at the start, then every message as TCP
 * segments with proper sequence and acknowledgement numbers, delayed ACKs
 * from the receiver.  snaplen 0 keeps whole frames; else frames are cut to
 * snaplen bytes (the original length stays whole, like tcpdump -s).
 * path "-" is not special: give a FILE with dmls_gen_write_pcap_fp.
 * *packets (may be NULL) = the frames written.
 */
int dmls_gen_write_pcap(const dmls_gen_schedule *s, const char *path, int snaplen,
			uint64_t *packets, dmls_error *err);
int dmls_gen_write_pcap_fp(const dmls_gen_schedule *s, FILE *fp, int snaplen,
			   uint64_t *packets, dmls_error *err);

#endif
