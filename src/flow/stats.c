/*
 * stats.c - the one pass: every packet through the sinks (sink.h), in order:
 *   totals  packets, bytes and span, exact whatever the tables fold
 *   series  the total wire bytes (pair class) and payload (host class)
 *   burst   E(tau), B_max(r) of the wire bytes at 100 us, online (burst.c)
 *   tables  hosts, pairs and flows (tables.c) with their series
 * then finish, and the merge of partial states (merge.c for the tables).
 *
 * A TCP/UDP packet finds its flow first (one hash of addresses and ports),
 * which knows its hosts and pair; other packets find their hosts and pair,
 * through a one-entry cache.  Bounded memory (stats.h): a table at its cap
 * folds its smaller half (fold.c) and from then on admits a new key at its
 * second sighting (the doorkeeper below); a series class past its budget
 * coarsens (classes.c).  Nothing is allocated per packet once an entry and
 * its series' run exist.
 *
 * Flows are directional 5-tuples (the study captured each worker's outgoing
 * packets only, so a TCP connection shows as one flow per direction), and
 * are never split at idle time: a training job's connections idle through
 * every compute phase (Zeek issue 1196 splits them).
 *
 * TCP retransmissions are found from sequence numbers, as Wireshark's
 * tcp.analysis.retransmission does in its simplest form: a segment that
 * carries data and starts before the highest sequence number already sent
 * on its flow is a retransmission (RFC 793 modular comparison).  RoCEv2's
 * likewise from the PSNs of reliable requests (roce_retransmission).  Bytes
 * are never derived from sequence numbers (Zeek issue 3313 shows why).
 */
#include "flow/stats_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void class_init(dmls_series_class *c, int64_t bin_ns, size_t budget)
{
	c->base_bin_ns = c->bin_ns = bin_ns;
	c->cache_lo = INT64_MAX;
	c->cache_hi = INT64_MIN;
	c->budget_bytes = c->trigger_bytes = budget;
}

void dmls_stats_init_limits(dmls_stats *st, int64_t bin_ns, const dmls_stats_limits *lim)
{
	memset(st, 0, sizeof(*st));
	st->bin_ns = bin_ns > 0 ? bin_ns : 1000000;
	st->first_ns = INT64_MAX;
	st->last_ns = INT64_MIN;
	st->t0_ns = INT64_MIN; /* set by the first packet */
	st->run_from_ns = INT64_MIN, st->run_to_ns = INT64_MAX, st->runs = 1;
	st_reset_cache(st);
	st->max_hosts = lim && lim->max_hosts ? lim->max_hosts : DMLS_DEFAULT_MAX_HOSTS;
	st->max_pairs = lim && lim->max_pairs ? lim->max_pairs : 4 * st->max_hosts;
	st->max_flows = lim && lim->max_flows ? lim->max_flows : DMLS_DEFAULT_MAX_FLOWS;
	if (st->max_hosts < 4)
		st->max_hosts = 4; /* a packet needs two, a fold keeps half */
	if (st->max_pairs < 2)
		st->max_pairs = 2;
	if (st->max_flows < 2)
		st->max_flows = 2;
	class_init(&st->cls[DMLS_CLASS_HOST], DMLS_HOST_BIN_NS, DMLS_HOST_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_PAIR], st->bin_ns, DMLS_PAIR_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_FLOW], DMLS_ACTIVITY_BIN_NS, DMLS_FLOW_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_FINE], DMLS_FINE_BIN_NS, DMLS_FINE_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_TOTAL], DMLS_HOST_BIN_NS, DMLS_TOTAL_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_CONN], DMLS_HOST_BIN_NS, DMLS_CONN_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_WIRE], st->bin_ns, DMLS_WIRE_SERIES_BUDGET);
	class_init(&st->cls[DMLS_CLASS_REOPEN], DMLS_HOST_BIN_NS, DMLS_REOPEN_SERIES_BUDGET);
	st->cls[DMLS_CLASS_HOST].span_bins = DMLS_SERIES_SPAN_BINS;
	st->mergeable = lim && lim->mergeable;
	st->wire_online = 1;
	dmls_itable_init(&st->host_idx);
	dmls_itable_init(&st->pair_idx);
	dmls_itable_init(&st->flow_idx);
}

void dmls_stats_init(dmls_stats *st, int64_t bin_ns)
{
	dmls_stats_init_limits(st, bin_ns, NULL);
}

void dmls_stats_release(dmls_stats *st)
{
	for (size_t i = 0; i < st->nhosts; i++) {
		dmls_series_release(&st->hosts[i].tx_payload);
		st_host_burst_free(st, &st->hosts[i]);
	}
	for (size_t i = 0; i < st->npairs; i++) {
		dmls_series_release(&st->pairs[i].series);
		dmls_series_release(&st->pairs[i].reopens);
	}
	for (size_t i = 0; i < st->nflows; i++) {
		dmls_series_release(&st->flows[i].activity);
		dmls_series_release(&st->flows[i].conn);
	}
	dmls_series_release(&st->total_wire);
	dmls_series_release(&st->total_payload);
	dmls_burst_stream_release(&st->fine);
	dmls_series_release(&st->fine_series);
	free(st->door);
	free(st->hosts);
	free(st->pairs);
	free(st->flows);
	dmls_itable_release(&st->host_idx);
	dmls_itable_release(&st->pair_idx);
	dmls_itable_release(&st->flow_idx);
	memset(st, 0, sizeof(*st));
	st_reset_cache(st);
}

void dmls_stats_release_analysis_series(dmls_stats *st)
{
	for (size_t i = 0; i < st->nhosts; i++)
		dmls_series_release(&st->hosts[i].tx_payload);
	dmls_series_release(&st->total_payload);
	dmls_series_release(&st->fine_series);
}

int64_t dmls_stats_class_bin_ns(const dmls_stats *st, int cls)
{
	return st->cls[cls].bin_ns;
}

static void span(int64_t *first, int64_t *last, int64_t ts)
{
	if (ts < *first)
		*first = ts;
	if (ts > *last)
		*last = ts;
}

/* RFC 793 modular sequence comparison: a < b. */
static int seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* Track the highest sequence end sent on f: 1 when [start, end) starts
 * below it and may be a retransmission (counts). */
static int seq_track(dmls_flow *f, uint32_t start, uint32_t end, int counts)
{
	int retrans = counts && f->seq_valid && seq_lt(start, f->next_seq);
	if (!f->seq_valid || seq_lt(f->next_seq, end)) {
		f->next_seq = end;
		f->seq_valid = 1;
	}
	return retrans;
}

/* A segment whose TCP header was cut (decode.h, tcp_cut) is of a new
 * connection on its 5-tuple, its SYN unseen (cut_renewed), when it starts
 * SEQ_FAR_BYTES below the data sent (further than a window reaches: 64 MiB
 * is 5 ms at 100 Gbit/s, more than a path here holds), or after the flow was
 * silent CUT_NEW_IDLE_NS (a run after another; a retransmission timeout
 * that long comes after three backoffs) below the data sent or
 * CUT_NEW_JUMP_BYTES past it (a random initial sequence number). */
#define SEQ_FAR_BYTES (64u << 20)
#define CUT_NEW_IDLE_NS 1000000000LL
#define CUT_NEW_JUMP_BYTES (1u << 20)

static int cut_renewed(const dmls_flow *f, const dmls_pkt *p)
{
	if (!p->tcp_cut || !f->packets || !f->seq_valid)
		return 0;
	if (seq_lt(p->tcp_seq + SEQ_FAR_BYTES, f->next_seq))
		return 1;
	return p->ts_ns - f->last_ns >= CUT_NEW_IDLE_NS &&
	       (seq_lt(p->tcp_seq + DMLS_TCP_CUT_SLACK_BYTES, f->next_seq) ||
		seq_lt(f->next_seq + CUT_NEW_JUMP_BYTES, p->tcp_seq));
}

/* A TCP segment that carries data (not a reset) is sent again when it
 * starts below the highest sequence end sent.  A SYN opens a connection:
 * the 5-tuple's sequence starts again from it, so a connection that
 * reuses the ports of an earlier one (a job restarted, runs back to back)
 * is judged on its own numbers (Wireshark's "TCP port numbers reused"),
 * and its data are not all taken for retransmissions of the earlier
 * one's, as they were when its initial sequence number fell below. */
static int tcp_retransmission(dmls_flow *f, const dmls_pkt *p, int renewed)
{
	if ((p->tcp_flags & DMLS_TCP_SYN) || renewed) /* renewed: cut_renewed */
		f->seq_valid = 0;
	uint32_t len = (uint32_t)p->payload_bytes;
	uint32_t end = p->tcp_seq + len + ((p->tcp_flags & (DMLS_TCP_SYN | DMLS_TCP_FIN)) ? 1 : 0);
	if (p->tcp_cut) /* its length estimated: sent again only when it starts
			 * below what an overestimate could reach (decode.h) */
		return seq_track(f, p->tcp_seq + DMLS_TCP_CUT_SLACK_BYTES, end, len > 0);
	return seq_track(f, p->tcp_seq, end, len > 0 && !(p->tcp_flags & DMLS_TCP_RST));
}

/*
 * The sequence space a TCP segment skips: it starts past the highest end
 * sent on its flow.  A segment lost on the path before the capture point
 * leaves such a gap, filled when it is sent again (a retransmission); one
 * the capture dropped (tcpdump's "dropped by kernel", a mirror port over
 * its rate) leaves it for good, as its data reached the receiver.  So the
 * gaps less the retransmitted bytes are the data the capture missed (at
 * least; dmls_stats_missed_bytes).  A gap of 12 bytes or less after a cut
 * header is the estimate's (decode.h), and one of SEQ_FAR_BYTES or more a
 * connection's SYN missed rather than its data.
 */
static uint64_t tcp_gap(const dmls_flow *f, const dmls_pkt *p, int renewed)
{
	if (!f->seq_valid || renewed || (p->tcp_flags & DMLS_TCP_SYN) || f->packets < 2)
		return 0;
	uint32_t gap = p->tcp_seq - f->next_seq;
	return seq_lt(f->next_seq, p->tcp_seq) && gap < SEQ_FAR_BYTES &&
			       (!p->tcp_cut || gap > DMLS_TCP_CUT_UNDER_BYTES)
		       ? gap
		       : 0;
}

/* RoCEv2: a reliable connection's requests carry consecutive PSNs (24
 * bits, modular; a read request takes one for each response packet it
 * asks for), and the requester's go-back-N sends them again from the first
 * one lost.  Judged are RC and XRC requests (sends, writes, read requests,
 * atomics); not acknowledgements, nor read responses (they count in the
 * requester's PSN space, and may share a direction and a queue pair with
 * the responder's own requests), nor UC, UD or CNP packets (never sent
 * again).  Per flow, on the first destination queue pair seen: two queue
 * pairs behind one UDP 5-tuple keep two sequences, and the others are not
 * judged.  The PSN is kept shifted left by 8 so that RFC 793's 32-bit
 * order (seq_lt, and the merge's) orders 24-bit PSNs. */
static int roce_retransmission(dmls_flow *f, const dmls_pkt *p)
{
	unsigned cls = p->bth_opcode >> 5, op = p->bth_opcode & 0x1fu;
	int request = op <= 0x0c || op == 0x13 || op == 0x14 || op == 0x16 || op == 0x17;
	if ((cls != 0 && cls != 5) || !request || (f->seq_valid && f->qp != p->bth_qp))
		return 0;
	if (!f->seq_valid)
		f->qp = p->bth_qp;
	uint32_t psn = p->bth_psn << 8;
	return seq_track(f, psn, psn + (1u << 8), 1);
}

/* A data connection's payload (stats.h, DMLS_CONN_MIN_BYTES): counted on
 * its pair when it passes the floor, the pair's first or while another
 * sends (DMLS_CONN_AT_ONCE_NS), into its series while the pair has two or
 * more so counted. */
static int count_conn(dmls_stats *st, dmls_flow *f, long fi, long pi, const dmls_pkt *p)
{
	dmls_pair *pr = &st->pairs[pi];
	if (f->heavy < 2) {
		f->heavy = 1;
		if (pr->conns == 0 || (pr->conn_flow != (uint32_t)fi &&
				       p->ts_ns - pr->conn_ns < DMLS_CONN_AT_ONCE_NS)) {
			f->heavy = 2;
			pr->conns += pr->conns < UINT8_MAX;
		}
	}
	pr->conn_flow = (uint32_t)fi;
	pr->conn_ns = p->ts_ns;
	return pr->conns >= 2 && f->heavy == 2
		       ? st_class_add(st, DMLS_CLASS_CONN, &f->conn, p->ts_ns, p->payload_bytes)
		       : 0;
}

static int count_flow(dmls_stats *st, long fi, long pi, const dmls_pkt *p, int renewed)
{
	dmls_flow *f = &st->flows[fi];
	f->packets++;
	f->wire_bytes += p->wire_bytes;
	f->payload_bytes += p->payload_bytes;
	span(&f->first_ns, &f->last_ns, p->ts_ns);
	if (p->proto == 6 && !p->is_fragment)
		st->tcp_gap_bytes += tcp_gap(f, p, renewed);
	if (!p->is_fragment && ((p->proto == 6 && tcp_retransmission(f, p, renewed)) ||
				(p->proto == 17 && p->roce && roce_retransmission(f, p)))) {
		f->retransmissions++;
		st->hosts[f->src].tx_retransmissions++;
		st->retransmissions++;
		st->tcp_resent_bytes += p->proto == 6 ? p->payload_bytes : 0;
	}
	if (p->payload_bytes && f->payload_bytes >= DMLS_CONN_MIN_BYTES && pi >= 0 &&
	    !st->mergeable && count_conn(st, f, fi, pi, p))
		return -1;
	return st_entry_series(st, DMLS_CLASS_FLOW, &f->activity, f->packets, f->first_ns, f->last_ns,
			    f->wire_bytes, p->ts_ns, p->wire_bytes);
}

#define FINE_BIN_NS DMLS_FINE_BIN_NS

void dmls_stats_set_origin(dmls_stats *st, int64_t t0_ns)
{
	if (st->t0_ns != INT64_MIN)
		return; /* packets already counted on another origin */
	st->t0_ns = t0_ns;
	dmls_series_init(&st->total_wire, t0_ns, st->cls[DMLS_CLASS_WIRE].bin_ns, 0);
	dmls_series_init(&st->total_payload, t0_ns, st->cls[DMLS_CLASS_TOTAL].bin_ns, 0);
	dmls_series_init(&st->fine_series, t0_ns, st->cls[DMLS_CLASS_FINE].bin_ns, 0);
	st->fine_bin = INT64_MIN;
	st->fine_end = INT64_MIN;
	st->fine_bytes = 0;
	st->wire_end = INT64_MIN;
	st->wire_open_bytes = st->wire_peak_bytes = 0;
	if (dmls_burst_stream_init(&st->fine, FINE_BIN_NS))
		st->oom = 1;
}

/* ---- the sinks ---- */

/* totals: packets, bytes and span of everything, exact whatever folds */
static int totals_add(dmls_stats *st, const dmls_pkt *p)
{
	st->packets++;
	st->wire_bytes += p->wire_bytes;
	st->payload_bytes += p->payload_bytes;
	span(&st->first_ns, &st->last_ns, p->ts_ns);
	return 0;
}

static int totals_merge(dmls_stats *dst, const dmls_stats *src)
{
	dst->packets += src->packets;
	dst->wire_bytes += src->wire_bytes;
	dst->payload_bytes += src->payload_bytes;
	dst->retransmissions += src->retransmissions;
	dst->tcp_gap_bytes += src->tcp_gap_bytes;
	dst->tcp_resent_bytes += src->tcp_resent_bytes;
	dst->late_packets += src->late_packets; /* each part's own order */
	dst->late_max_ns = src->late_max_ns > dst->late_max_ns ? src->late_max_ns : dst->late_max_ns;
	if (src->packets) {
		span(&dst->first_ns, &dst->last_ns, src->first_ns);
		span(&dst->first_ns, &dst->last_ns, src->last_ns);
	}
	return 0;
}

/* series: the total wire bytes (wire class) and payload (total class),
 * and the busiest bin of the wire bytes at --bin, online (stats.h) */
static int series_add(dmls_stats *st, const dmls_pkt *p)
{
	if (dmls_open_bin_moves(p->ts_ns, st->wire_end, st->cls[DMLS_CLASS_WIRE].base_bin_ns)) {
		int64_t bin_ns = st->cls[DMLS_CLASS_WIRE].base_bin_ns;
		int64_t d = ts_bin_floor(p->ts_ns - st->t0_ns, bin_ns);
		if (st->wire_open_bytes > st->wire_peak_bytes)
			st->wire_peak_bytes = st->wire_open_bytes;
		st->wire_open_bytes = 0;
		st->wire_end = st->t0_ns + (d + 1) * bin_ns;
	}
	st->wire_open_bytes += p->wire_bytes; /* a packet a little late joins the open bin */
	return st_class_add(st, DMLS_CLASS_WIRE, &st->total_wire, p->ts_ns, p->wire_bytes) ||
			       st_class_add(st, DMLS_CLASS_TOTAL, &st->total_payload, p->ts_ns,
					    p->payload_bytes)
		       ? -1
		       : 0;
}

static void peak_bin(int64_t bin, uint64_t bytes, void *ctx)
{
	uint64_t *peak = ctx;
	(void)bin;
	if (bytes > *peak)
		*peak = bytes;
}

/* The busiest bin: the series' while it kept --bin (exact whatever the
 * order of the packets), else the online one at --bin, else (a merged
 * state whose series coarsened) the series' at its bin. */
static int series_finish(dmls_stats *st)
{
	const dmls_series_class *k = &st->cls[DMLS_CLASS_WIRE];
	st->peak_bin_wire_bytes = 0;
	st->peak_bin_ns = st->total_wire.bin_ns;
	if (!st->packets)
		return 0;
	if (k->coarsened && st->wire_online && !DMLS_STATS_DISORDERED(st)) {
		st->peak_bin_wire_bytes = st->wire_peak_bytes > st->wire_open_bytes
						  ? st->wire_peak_bytes
						  : st->wire_open_bytes;
		st->peak_bin_ns = k->base_bin_ns;
		return 0;
	}
	dmls_series_foreach(&st->total_wire, peak_bin, &st->peak_bin_wire_bytes);
	return 0;
}

static int series_merge(dmls_stats *dst, const dmls_stats *src)
{
	return dmls_series_merge(&dst->total_wire, &src->total_wire) ||
			       dmls_series_merge(&dst->total_payload, &src->total_payload)
		       ? -1
		       : 0;
}

/* burst: E(tau) and B_max(r) of the total wire bytes at 100 us, online
 * (burst.h); a mergeable state also keeps the bins */
static int burst_add(dmls_stats *st, const dmls_pkt *p)
{
	/* stamped before the open bin: late (stats.h) when by DMLS_LATE_NS */
	int64_t open = st->fine_end == INT64_MIN ? INT64_MIN : st->fine_end - FINE_BIN_NS;
	if (p->ts_ns < open && (uint64_t)open - (uint64_t)p->ts_ns >= (uint64_t)DMLS_LATE_NS) {
		uint64_t behind = (uint64_t)open - (uint64_t)p->ts_ns; /* exact: no overflow */
		int64_t b = behind > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)behind;
		st->late_packets++;
		st->late_max_ns = b > st->late_max_ns ? b : st->late_max_ns;
	}
	if (dmls_open_bin_moves(p->ts_ns, st->fine_end, FINE_BIN_NS)) {
		int64_t d = ts_bin_floor(p->ts_ns - st->t0_ns, FINE_BIN_NS);
		if (st->fine_bytes)
			dmls_burst_stream_push(&st->fine, st->fine_bin, (double)st->fine_bytes);
		st->fine_bin = d;
		st->fine_bytes = 0;
		st->fine_end = st->t0_ns + (d + 1) * FINE_BIN_NS;
	}
	st->fine_bytes += p->wire_bytes; /* a packet a little late joins the open bin */
	return st->mergeable ? st_class_add(st, DMLS_CLASS_FINE, &st->fine_series, p->ts_ns,
					    p->wire_bytes)
			     : 0;
}

static int burst_finish(dmls_stats *st)
{
	if (st->packets && st->fine_bytes) {
		dmls_burst_stream_push(&st->fine, st->fine_bin, (double)st->fine_bytes);
		st->fine_bytes = 0;
	}
	double dur = dmls_stats_duration_s(st), fine_s = (double)FINE_BIN_NS * 1e-9;
	if (st->merged && st->mergeable) /* the merged bins, not a part's window */
		dmls_burst_compute(&st->burst_total, &st->fine_series, dur >= fine_s ? dur : fine_s);
	else if (DMLS_STATS_DISORDERED(st)) /* every packet in its bin, at the series' width */
		dmls_burst_compute(&st->burst_total, st->mergeable ? &st->fine_series : &st->total_wire,
				   dur >= fine_s ? dur : fine_s);
	else
		dmls_burst_stream_result(&st->fine, dur >= fine_s ? dur : fine_s, &st->burst_total);
	return 0;
}

static int burst_merge(dmls_stats *dst, const dmls_stats *src)
{
	return dmls_series_merge(&dst->fine_series, &src->fine_series) ? -1 : 0;
}

#define REJECTED (-2) /* not admitted: counted in the table's `other` */
#define DOOR_BITS (1u << 21)  /* 256 kB */
#define DOOR_RESET (1u << 18) /* a new epoch past this many keys: <= 1/8 set */
enum { T_HOSTS, T_PAIRS, T_FLOWS };

/* The doorkeeper (stats.h): before table t first folds, every key is
 * admitted; after, a key is admitted at its second sighting in an epoch. */
static int admitted(dmls_stats *st, int t, uint64_t h)
{
	if (!st->batch_folds[t])
		return 1;
	if (!st->door && !(st->door = calloc(DOOR_BITS / 64, sizeof(uint64_t))))
		return 1; /* without memory for it, admit */
	uint64_t bit = dmls_mix64(h ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(t + 1))) & (DOOR_BITS - 1);
	uint64_t *w = &st->door[bit >> 6], m = 1ULL << (bit & 63);
	if (*w & m)
		return 1;
	*w |= m;
	if (++st->door_set >= DOOR_RESET) {
		memset(st->door, 0, DOOR_BITS / 8);
		st->door_set = 0;
	}
	return 0;
}

/* Index of the host: found, made, REJECTED, or -1 (memory). */
static long admit_host(dmls_stats *st, const uint8_t addr[16])
{
	long i = dmls_stats_find_host(st, addr);
	if (i >= 0)
		return i;
	if (!admitted(st, T_HOSTS, st_hash_addr(addr)))
		return REJECTED;
	return st_host_get(st, addr);
}

static long admit_pair(dmls_stats *st, long s, long d)
{
	long i = dmls_stats_find_pair(st, (uint32_t)s, (uint32_t)d);
	if (i >= 0)
		return i;
	if (!admitted(st, T_PAIRS, st_hash_pair((uint32_t)s, (uint32_t)d)))
		return REJECTED;
	return st_pair_get(st, (uint32_t)s, (uint32_t)d);
}

/* Hosts and pair of a packet, through the one-entry cache. */
static int lookup(dmls_stats *st, const dmls_pkt *p, long *s, long *d, long *pi)
{
	if (st->last_pair >= 0 && !memcmp(p->src, st->last_src, 16) &&
	    !memcmp(p->dst, st->last_dst, 16)) {
		*s = st->last_s, *d = st->last_d, *pi = st->last_pair;
		return 0;
	}
	st_reset_cache(st);
	uint64_t folds = st->batch_folds[T_HOSTS];
	if ((*s = admit_host(st, p->src)) == -1 || (*d = admit_host(st, p->dst)) == -1)
		return -1;
	if (*s >= 0 && st->batch_folds[T_HOSTS] != folds &&
	    (*s = admit_host(st, p->src)) == -1) /* the fold renumbered src */
		return -1;
	*pi = *s >= 0 && *d >= 0 ? admit_pair(st, *s, *d) : REJECTED;
	if (*pi == -1)
		return -1;
	if (*pi >= 0) {
		memcpy(st->last_src, p->src, 16);
		memcpy(st->last_dst, p->dst, 16);
		st->last_s = *s, st->last_d = *d, st->last_pair = *pi;
	}
	return 0;
}

/* The packet's flow and its hosts and pair as the one-entry cache (a run
 * of one flow's packets skips the flow's hash and probe too). */
static void remember_flow(dmls_stats *st, const dmls_pkt *p, long fi, long s, long d, long pi)
{
	memcpy(st->last_src, p->src, 16);
	memcpy(st->last_dst, p->dst, 16);
	st->last_s = s, st->last_d = d, st->last_pair = pi, st->last_flow = fi;
	st->last_sport = p->sport, st->last_dport = p->dport, st->last_proto = p->proto;
}

/* Hosts, pair and (TCP/UDP) flow of a packet: the flow first, which
 * knows the rest; hosts and pair only for a new flow or another protocol.
 * *fi is -1 for a packet of no flow; any index may be REJECTED. */
static int locate(dmls_stats *st, const dmls_pkt *p, long *s, long *d, long *pi, long *fi)
{
	*fi = -1;
	int is_flow = (p->proto == 6 || p->proto == 17) && !p->is_fragment;
	if (!is_flow)
		return lookup(st, p, s, d, pi);
	if (st->last_flow >= 0 && st->last_sport == p->sport && st->last_dport == p->dport &&
	    st->last_proto == p->proto && st_eq16(st->last_src, p->src) &&
	    st_eq16(st->last_dst, p->dst)) {
		*fi = st->last_flow;
		*s = st->last_s, *d = st->last_d, *pi = st->last_pair;
		return 0;
	}
	flow_key k = {p->src, p->dst, p->sport, p->dport, p->proto};
	uint64_t hv = st_hash_flow(&k);
	*fi = st_find_flow(st, hv, &k);
	if (*fi >= 0) {
		dmls_flow *f = &st->flows[*fi];
		*s = f->src, *d = f->dst;
		if (f->pair == NO_PAIR) {
			long q = st_pair_get(st, f->src, f->dst);
			if (q < 0)
				return -1;
			st->flows[*fi].pair = (uint32_t)q;
		}
		*pi = st->flows[*fi].pair;
		remember_flow(st, p, *fi, *s, *d, *pi);
		return 0;
	}
	if (lookup(st, p, s, d, pi))
		return -1;
	if (*pi < 0 || !admitted(st, T_FLOWS, hv)) {
		*fi = REJECTED;
		return 0;
	}
	*fi = st_flow_new(st, &k, hv, (uint32_t)*s, (uint32_t)*d, (uint32_t)*pi);
	if (*fi < 0)
		return -1;
	remember_flow(st, p, *fi, *s, *d, *pi);
	return 0;
}

static void fold_packet(dmls_fold *f, const dmls_pkt *p)
{
	st_fold_add(f, 1, p->wire_bytes, p->payload_bytes);
}

/* tables: hosts, pairs, flows and their series */
/* Bucket of a pause of g >= 1 bins (stats.h, DMLS_GAP_BUCKETS). */
static unsigned gap_bucket(uint64_t g)
{
	unsigned o = 63u - (unsigned)__builtin_clzll(g);
	unsigned s = o >= 2 ? (unsigned)(g >> (o - 2)) & 3u : (unsigned)(g << (2 - o)) & 3u;
	return 4 * o + s < DMLS_GAP_BUCKETS ? 4 * o + s : DMLS_GAP_BUCKETS - 1;
}

/* The smallest length (bins) of bucket b. */
static double gap_bucket_low(unsigned b)
{
	return ldexp(1.0 + (double)(b & 3u) / 4.0, (int)(b >> 2));
}

int dmls_host_pauses(const dmls_host *h, int64_t min_ns, uint64_t *n)
{
	*n = 0;
	if (!h->tx_burst)
		return -1;
	double want = (double)min_ns / (double)DMLS_HOST_BIN_NS;
	for (unsigned b = 0; b < DMLS_GAP_BUCKETS; b++)
		if (gap_bucket_low(b) >= want)
			*n += h->tx_burst->pauses[b];
	return 0;
}

/* Bytes at time ts into a host's online burstiness (its open 1 ms bin). */
static void host_burst_add(dmls_stats *st, dmls_host_burst *b, int64_t ts, uint64_t bytes)
{
	if (dmls_open_bin_moves(ts, b->end, DMLS_HOST_BIN_NS)) {
		int64_t d = ts_bin_floor(ts - st->t0_ns, DMLS_HOST_BIN_NS);
		if (b->bytes) {
			dmls_burst_stream_push(&b->s, b->bin, (double)b->bytes);
			if (d > b->bin + 1)
				b->pauses[gap_bucket((uint64_t)(d - b->bin - 1))]++;
		}
		b->bin = d;
		b->bytes = 0;
		b->end = st->t0_ns + (d + 1) * DMLS_HOST_BIN_NS;
	}
	b->bytes += bytes; /* a packet a little late joins the open bin */
}

/* The sending host's online burstiness (stats.h, dmls_host_burst): made at
 * its second packet while fewer than DMLS_HOST_BURST_STREAMS hosts hold one,
 * with the first packet's payload at its own time, so it is exact from the
 * host's start or not kept at all.  0, or -1 when out of memory. */
static int host_burst(dmls_stats *st, dmls_host *h, const dmls_pkt *p)
{
	dmls_host_burst *b = h->tx_burst;
	if (!b) {
		if (h->tx_packets != 2 || st->mergeable || st->host_bursts >= DMLS_HOST_BURST_STREAMS)
			return 0;
		b = malloc(sizeof(*b));
		if (!b)
			return -1;
		if (dmls_burst_stream_init(&b->s, DMLS_HOST_BIN_NS)) {
			dmls_burst_stream_release(&b->s);
			free(b);
			return -1;
		}
		b->bin = b->end = INT64_MIN;
		memset(b->pauses, 0, sizeof(b->pauses));
		b->bytes = 0;
		h->tx_burst = b;
		st->host_bursts++;
		uint64_t first = h->tx_payload_bytes - p->payload_bytes;
		if (first)
			host_burst_add(st, b, p->ts_ns == h->first_ns ? h->last_ns : h->first_ns,
				       first);
	}
	if (p->payload_bytes)
		host_burst_add(st, b, p->ts_ns, p->payload_bytes);
	return 0;
}

static int tables_add(dmls_stats *st, const dmls_pkt *p)
{
	long s, d, pi, fi;
	if (locate(st, p, &s, &d, &pi, &fi))
		return -1;
	int renewed = fi >= 0 && cut_renewed(&st->flows[fi], p);
	if (d >= 0) {
		dmls_host *hd = &st->hosts[d];
		hd->rx_packets++;
		hd->rx_wire_bytes += p->wire_bytes;
		hd->rx_payload_bytes += p->payload_bytes;
	}
	if (s >= 0) {
		dmls_host *hs = &st->hosts[s];
		hs->tx_packets++;
		hs->tx_wire_bytes += p->wire_bytes;
		hs->tx_payload_bytes += p->payload_bytes;
		span(&hs->first_ns, &hs->last_ns, p->ts_ns);
		if (st_entry_series(st, DMLS_CLASS_HOST, &hs->tx_payload, hs->tx_packets,
				    hs->first_ns, hs->last_ns, hs->tx_payload_bytes, p->ts_ns,
				    p->payload_bytes) ||
		    ((hs->tx_burst || hs->tx_packets == 2) && host_burst(st, hs, p)))
			return -1;
	} else {
		fold_packet(&st->fold_hosts, p);
	}
	if (pi >= 0) {
		dmls_pair *pr = &st->pairs[pi];
		/* a connection opened between hosts that already exchanged
		 * data: a run after another, or a job restarted (stretch.c
		 * tells runs apart by them).  TCP says so by a SYN, or with its
		 * header cut, by a 5-tuple's first packet or its sequence
		 * numbers begun anew (cut_renewed); RoCEv2 by a 5-tuple's first
		 * packet (its source port follows the queue pairs).  Other UDP
		 * says nothing: a request-response protocol (DNS, AFS) takes a
		 * new port for a new exchange */
		int first = fi >= 0 && st->flows[fi].packets == 0;
		int syn = (p->tcp_flags & (DMLS_TCP_SYN | DMLS_TCP_ACK)) == DMLS_TCP_SYN;
		int opens = p->tcp_cut ? first || renewed : p->proto == 6 ? syn : p->roce && first;
		if (opens && pr->payload_bytes > 0 &&
		    st_class_add(st, DMLS_CLASS_REOPEN, &pr->reopens, p->ts_ns, 1))
			return -1;
		pr->packets++;
		pr->wire_bytes += p->wire_bytes;
		pr->payload_bytes += p->payload_bytes;
		span(&pr->first_ns, &pr->last_ns, p->ts_ns);
		if (st_entry_series(st, DMLS_CLASS_PAIR, &pr->series, pr->packets, pr->first_ns,
				    pr->last_ns, pr->wire_bytes, p->ts_ns, p->wire_bytes))
			return -1;
	} else {
		fold_packet(&st->fold_pairs, p);
	}
	if (fi == REJECTED) {
		fold_packet(&st->fold_flows, p);
		st->flows_seen++;
	}
	return fi >= 0 && count_flow(st, fi, pi, p, renewed) ? -1 : 0;
}

static int tables_finish(dmls_stats *st);

/* The sinks, in the order a packet visits them. */
static const dmls_sink sinks[] = {
	{"totals", totals_add, NULL, totals_merge, NULL},
	{"series", series_add, series_finish, series_merge, NULL},
	{"burst", burst_add, burst_finish, burst_merge, NULL},
	{"tables", tables_add, tables_finish, st_tables_merge, NULL},
};
#define NSINKS (sizeof(sinks) / sizeof(sinks[0]))

int dmls_stats_add(dmls_stats *st, const dmls_pkt *p)
{
	if (st->t0_ns == INT64_MIN)
		dmls_stats_set_origin(st, p->ts_ns);
	if (st->oom)
		return -1;
	st->born_ts = p->ts_ns;
	for (size_t i = 0; i < NSINKS; i++)
		if (sinks[i].add(st, p)) {
			st->oom = 1;
			return -1;
		}
	return 0;
}

double dmls_stats_duration_s(const dmls_stats *st)
{
	if (st->packets < 2 || st->last_ns <= st->first_ns)
		return 0.0;
	return (double)(st->last_ns - st->first_ns) / 1e9;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: ceil(q * n), 1-based (Hyndman & Fan 1996, definition 1). */
static uint64_t nearest_rank(const uint64_t *v, size_t n, double q)
{
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	size_t rank = (size_t)(q * (double)n + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

uint64_t dmls_stats_flow_quantile(const dmls_stats *st, double q)
{
	if (!st->nflows)
		return 0;
	uint64_t *v = malloc(st->nflows * sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < st->nflows; i++)
		v[i] = st->flows[i].wire_bytes;
	qsort(v, st->nflows, sizeof(*v), cmp_u64);
	uint64_t r = nearest_rank(v, st->nflows, q);
	free(v);
	return r;
}


/* Names of the hosts kept, the entries of one packet into their series,
 * flow size quantiles. */
static int tables_finish(dmls_stats *st)
{
	if (st->merged && st_tables_order(st))
		return -1;
	for (size_t i = 0; i < st->nhosts; i++) {
		dmls_host *h = &st->hosts[i];
		dmls_addr_format(h->addr, h->name, sizeof(h->name));
		if (h->tx_burst && h->tx_burst->bytes) {
			dmls_burst_stream_push(&h->tx_burst->s, h->tx_burst->bin,
					       (double)h->tx_burst->bytes);
			h->tx_burst->bytes = 0;
		}
		if (st_entry_single(st, DMLS_CLASS_HOST, &h->tx_payload, h->tx_packets, h->first_ns,
				    h->tx_payload_bytes))
			return -1;
	}
	for (size_t i = 0; i < st->npairs; i++) {
		dmls_pair *p = &st->pairs[i];
		if (st_entry_single(st, DMLS_CLASS_PAIR, &p->series, p->packets, p->first_ns,
				    p->wire_bytes))
			return -1;
	}
	for (size_t i = 0; i < st->nflows; i++) {
		dmls_flow *f = &st->flows[i];
		if (st_entry_single(st, DMLS_CLASS_FLOW, &f->activity, f->packets, f->first_ns,
				    f->wire_bytes))
			return -1;
	}
	st->flow_p50_bytes = st->flow_p90_bytes = st->flow_p99_bytes = st->flow_max_bytes = 0;
	if (!st->nflows)
		return 0;
	uint64_t *v = malloc(st->nflows * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < st->nflows; i++)
		v[i] = st->flows[i].wire_bytes;
	qsort(v, st->nflows, sizeof(*v), cmp_u64);
	st->flow_p50_bytes = nearest_rank(v, st->nflows, 0.5);
	st->flow_p90_bytes = nearest_rank(v, st->nflows, 0.9);
	st->flow_p99_bytes = nearest_rank(v, st->nflows, 0.99);
	st->flow_max_bytes = v[st->nflows - 1];
	free(v);
	return 0;
}

int dmls_stats_finish(dmls_stats *st)
{
	if (st->finished)
		return 0;
	st->finished = 1;
	for (size_t i = 0; i < NSINKS; i++)
		if (sinks[i].finish && sinks[i].finish(st))
			return -1;
	return 0;
}

int dmls_stats_merge(dmls_stats *dst, const dmls_stats *src)
{
	if (!src->packets)
		return 0;
	if (dst->t0_ns == INT64_MIN)
		dmls_stats_set_origin(dst, src->t0_ns);
	if (dst->oom || src->oom)
		return -1;
	if (!dst->mergeable || !src->mergeable || dst->finished || src->finished ||
	    dst->t0_ns != src->t0_ns || dst->bin_ns != src->bin_ns)
		return -2;
	for (int c = 0; c < DMLS_NCLASS; c++) /* one grid: the coarser */
		while (dst->cls[c].bin_ns < src->cls[c].bin_ns)
			if (st_class_double(dst, c))
				return -1;
	for (size_t i = 0; i < NSINKS; i++)
		if (sinks[i].merge(dst, src))
			return -1;
	dst->merged++;
	dst->wire_online = 0; /* its online peak saw only its own packets */
	for (int c = 0; c < DMLS_NCLASS; c++) {
		dst->cls[c].mem_bytes = st_class_mem(dst, c);
		if (dst->cls[c].mem_bytes > dst->cls[c].trigger_bytes && st_class_coarsen(dst, c))
			return -1;
	}
	return 0;
}
