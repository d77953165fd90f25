/*
 * dedup.c - count a packet once when both ends captured it.
 *
 * When sender and receiver both run tcpdump (without a `src` filter), one
 * packet appears in two files a little apart in time (clock offset plus
 * path delay).  Two ways to recognise the copies, by protocol:
 *
 * TCP: ownership of the sequence space.  On Linux, segmentation offload
 * makes the copies differ: the sender's capture holds GSO/TSO super-packets
 * (up to 64 kB), the receiver's holds GRO-merged packets or MTU-sized
 * segments, so neither lengths nor sequence starts match from one end to
 * the other.  What both ends agree on is the byte stream of each
 * directional flow.  So, per directional flow (address family, addresses,
 * ports):
 *   - the file that first delivers a packet of the flow owns it; the
 *     owner's packets are always counted (retransmissions included);
 *   - a packet of the flow from another file is a duplicate while the
 *     owner is alive: it has not reached its end and has delivered a packet
 *     of the flow within the window (100 ms) before;
 *   - when the owner has stopped (end of file, or silent on the flow for
 *     longer than the window), a packet from another file that goes beyond
 *     the owner's coverage is new: its sequence end (seq + payload, + 1 for
 *     SYN and for FIN: SEG.LEN, RFC 793 3.3) passes the highest end the
 *     flow delivered, or it acknowledges more than the flow acknowledged
 *     (so a pure-ACK flow is taken over too).  That file becomes the owner.
 *     A packet within the coverage is a late copy: a duplicate.
 * A SYN opens a connection anew on the 5-tuple (a run after another, a
 * job restarted, on the same ports): from its owner's file, or from
 * another once the owner stopped, it starts the flow's coverage again at
 * its own sequence number, in its file.  A SYN the owner sent again
 * (the same number) or a copy from the other end while the owner is alive
 * is not a new connection.
 * Sequence numbers compare modulo 2^32 (RFC 793 3.3: a > b iff
 * (int32_t)(a - b) > 0).  Pure ACKs from both ends are the same packet seen
 * twice and follow the same rule.  A hand-over can count the part of the
 * new owner's first packet that overlaps the old coverage twice (at most
 * one packet per hand-over; none when a flow resumes after an idle phase,
 * since the new data then starts where the old ended), and data that only
 * a non-owner captured while the owner was alive (drops in the owner's
 * capture) is not counted.  When each flow appears in one file only (the
 * study's `tcpdump src <own ip>`), every packet comes from its owner and
 * nothing is dropped.
 *
 * "File" above is a capture point (input.c, points.c): an interface of a
 * file.  Two points of one file (its group) share a clock, and may each
 * see only part of a flow (a bond's two slaves, each under the bond): a
 * packet from a point that does not own the flow is then a duplicate only
 * when the flow's coverage already holds it (not beyond it), alive owner
 * or not; bytes new to the flow are counted.
 *
 * The flows live in a dense array found through the one pass's hash index
 * (itable.h), up to 3/4 of max_flows of them; at the cap, the flows least
 * recently seen are forgotten (the array keeps the more recent half of the
 * time span, repeatedly, and is indexed again), so memory grows with flows,
 * never with packets.
 *
 * Other protocols (UDP, ICMP, ...) and IP fragments without a TCP header:
 * exact match.  Two copies are the same packet when they share the key
 * (address family, protocol, addresses, ports, IPv4/IPv6-fragment id, TCP
 * sequence number, IP length; for RoCEv2 also its opcode, queue pair and
 * PSN, since its IP ids are often all 0), come from different files, and
 * the second is seen within the window after the first.  Within one file an equal key
 * is a retransmission or a coincidence, never a duplicate.
 *
 * Memory is bounded by the window, not by the packet count: entries live
 * in a ring in arrival order, each numbered by a sequence number seq
 * (slot = seq mod ring size), and hash chains link entries by seq, newest
 * first.  A link is valid only while its slot still holds that seq, so an
 * overwritten entry needs no unlinking: a walk stops at the first link
 * that is stale (overwritten, or older than the window) and cuts the chain
 * there, because everything after it is older still.  The ring doubles only
 * when it is full of entries inside the window, up to max_size; beyond that
 * the oldest are forgotten (a rare duplicate may then be counted twice).
 */
#include "io/dedup.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

typedef struct dedup_key {
	uint8_t src[16], dst[16];
	uint32_t ip_id, tcp_seq, ip_bytes;
	uint16_t sport, dport;
	uint8_t proto, af, pad[2];
	uint32_t qp;           /* RoCEv2: opcode and destination queue pair */
} dedup_key;

struct dmls_dedup_entry {
	uint64_t seq, next;
	int64_t ts;
	uint32_t file, hash;
	dedup_key key;
};

typedef struct flow_key {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint8_t af, pad[3];
} flow_key;

struct dmls_dedup_flow {
	flow_key key;
	bool has_ack;      /* ack is valid */
	uint32_t hash, owner;
	uint32_t hi;       /* highest sequence end delivered (RFC 793 SEG.SEQ+SEG.LEN) */
	uint32_t ack;      /* highest acknowledgment number delivered */
	int64_t owner_ts;  /* the owner's last packet of the flow */
	int64_t last_ts;   /* the flow's last packet from any file */
};

#define INIT_SIZE 4096u
#define INIT_FLOWS 1024u

int dmls_dedup_init(dmls_dedup *d, int64_t window_ns, uint64_t max_size, uint64_t max_flows,
		    uint32_t nfiles)
{
	memset(d, 0, sizeof(*d));
	d->window_ns = window_ns;
	d->max_size = max_size < INIT_SIZE ? INIT_SIZE : max_size;
	d->size = INIT_SIZE;
	d->head = d->tail = 1; /* seq 0 means "no entry" */
	d->ring = calloc(d->size, sizeof(*d->ring));
	d->buckets = calloc(d->size, sizeof(*d->buckets));
	d->max_flows = (max_flows < INIT_FLOWS ? INIT_FLOWS : max_flows) / 4 * 3;
	dmls_itable_init(&d->flow_idx);
	d->nfiles = nfiles;
	d->ended = calloc(nfiles ? nfiles : 1, sizeof(*d->ended));
	d->group = malloc((nfiles ? nfiles : 1) * sizeof(*d->group));
	if (!d->ring || !d->buckets || !d->ended || !d->group) {
		dmls_dedup_release(d);
		return -1;
	}
	for (uint32_t i = 0; i < nfiles; i++)
		d->group[i] = i;
	return 0;
}

void dmls_dedup_release(dmls_dedup *d)
{
	free(d->ring);
	free(d->buckets);
	free(d->flows);
	dmls_itable_release(&d->flow_idx);
	free(d->ended);
	free(d->group);
	d->ring = NULL;
	d->buckets = NULL;
	d->flows = NULL;
	d->ended = NULL;
	d->group = NULL;
}

int dmls_dedup_point(dmls_dedup *d, uint32_t point, uint64_t group)
{
	if (point >= d->nfiles) {
		uint32_t n = point + 1;
		bool *e = realloc(d->ended, n * sizeof(*e));
		if (!e)
			return -1;
		d->ended = e;
		uint64_t *g = realloc(d->group, n * sizeof(*g));
		if (!g)
			return -1;
		d->group = g;
		for (uint32_t i = d->nfiles; i < n; i++)
			d->ended[i] = false, d->group[i] = UINT64_MAX - i;
		d->nfiles = n;
	}
	d->group[point] = group;
	return 0;
}

void dmls_dedup_file_end(dmls_dedup *d, uint32_t file)
{
	if (file < d->nfiles)
		d->ended[file] = true;
}

static uint32_t key_hash(const dedup_key *k)
{
	uint64_t w[7], h = 0x9e3779b97f4a7c15ull;
	_Static_assert(sizeof(dedup_key) == sizeof(w), "dedup key is 7 words");
	memcpy(w, k, sizeof(w));
	for (int i = 0; i < 7; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (uint32_t)h;
}

/* Double the ring and rebuild the chains (oldest first, so newest first in
 * each chain).  Returns false if out of memory: keep the old ring. */
static bool grow(dmls_dedup *d)
{
	uint64_t nsize = d->size * 2, nmask = nsize - 1, mask = d->size - 1;
	dmls_dedup_entry *ring = calloc(nsize, sizeof(*ring));
	uint64_t *buckets = calloc(nsize, sizeof(*buckets));
	if (!ring || !buckets) {
		free(ring);
		free(buckets);
		return false;
	}
	for (uint64_t s = d->head; s < d->tail; s++) {
		dmls_dedup_entry *e = &ring[s & nmask];
		*e = d->ring[s & mask];
		e->next = buckets[e->hash & nmask];
		buckets[e->hash & nmask] = s;
	}
	free(d->ring);
	free(d->buckets);
	d->ring = ring;
	d->buckets = buckets;
	d->size = nsize;
	return true;
}

/* Exact match: true if the same key came from another file within the
 * window; otherwise remember p. */
static bool exact_check(dmls_dedup *d, const dmls_pkt *p, uint32_t file)
{
	dedup_key k;
	memset(&k, 0, sizeof(k));
	memcpy(k.src, p->src, 16);
	memcpy(k.dst, p->dst, 16);
	k.ip_id = p->ip_id;
	k.tcp_seq = p->tcp_seq;
	if (p->roce) { /* the PSN tells a queue pair's packets apart (IP ids are often 0) */
		k.tcp_seq = p->bth_psn;
		k.qp = (uint32_t)p->bth_opcode << 24 | p->bth_qp;
	}
	k.ip_bytes = (uint32_t)p->ip_bytes;
	k.sport = p->sport;
	k.dport = p->dport;
	k.proto = p->proto;
	k.af = p->af;
	uint32_t h = key_hash(&k);
	uint64_t mask = d->size - 1;
	int64_t oldest = p->ts_ns - d->window_ns;

	uint64_t *link = &d->buckets[h & mask];
	for (uint64_t s = *link; s; s = *link) {
		dmls_dedup_entry *e = &d->ring[s & mask];
		if (e->seq != s || s < d->head || e->ts < oldest) {
			*link = 0; /* the rest of the chain is older still */
			break;
		}
		if (e->hash == h && e->file != file && memcmp(&e->key, &k, sizeof(k)) == 0)
			return true;
		link = &e->next;
	}

	if (d->tail - d->head == d->size) {
		const dmls_dedup_entry *old = &d->ring[d->head & mask];
		if (old->ts < oldest || d->size >= d->max_size || !grow(d))
			d->head++;
		mask = d->size - 1;
	}
	dmls_dedup_entry *e = &d->ring[d->tail & mask];
	e->seq = d->tail;
	e->ts = p->ts_ns;
	e->file = file;
	e->hash = h;
	e->key = k;
	e->next = d->buckets[h & mask];
	d->buckets[h & mask] = d->tail;
	d->tail++;
	return false;
}

/* ---- TCP: ownership of each directional flow's sequence space ---- */

/* RFC 793 3.3: sequence numbers compare modulo 2^32. */
static bool seq_gt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static uint32_t flow_hash(const flow_key *k)
{
	uint64_t w[5], h = 0x9e3779b97f4a7c15ull;
	_Static_assert(sizeof(flow_key) == sizeof(w), "flow key is 5 words");
	memcpy(w, k, sizeof(w));
	for (int i = 0; i < 5; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (uint32_t)h;
}

static int flow_eq(const void *ctx, uint32_t i, const void *key)
{
	return memcmp(&((const dmls_dedup *)ctx)->flows[i].key, key, sizeof(flow_key)) == 0;
}

/* Keep the flows seen at or after cutoff (in order) and index them again. */
static void flows_keep_since(dmls_dedup *d, int64_t cutoff)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < d->nflows; i++)
		if (d->flows[i].last_ts >= cutoff)
			d->flows[n++] = d->flows[i];
	d->nflows = n;
	dmls_itable_clear(&d->flow_idx);
	for (uint64_t i = 0; i < n; i++) /* the slots are there: cannot fail */
		(void)dmls_itable_insert(&d->flow_idx, d->flows[i].hash, (uint32_t)i);
}

/* Room for one more flow: grow the array, or at the cap forget the flows
 * not seen in the older half of the time span between the least recently
 * seen flow and now.  False if out of memory. */
static bool flows_room(dmls_dedup *d, int64_t now)
{
	while (d->nflows >= d->max_flows) {
		int64_t oldest = now;
		for (uint64_t i = 0; i < d->nflows; i++)
			if (d->flows[i].last_ts < oldest)
				oldest = d->flows[i].last_ts;
		flows_keep_since(d, oldest + (now - oldest) / 2 + 1);
	}
	size_t cap = (size_t)d->flow_cap;
	if (dmls_grow((void **)&d->flows, &cap, (size_t)d->nflows, sizeof(*d->flows), INIT_FLOWS))
		return false;
	d->flow_cap = cap;
	return true;
}

/* Extend the flow's coverage with p (sequence end `end`). */
static void flow_cover(dmls_dedup_flow *f, const dmls_pkt *p, uint32_t end)
{
	if (seq_gt(end, f->hi))
		f->hi = end;
	if (p->tcp_flags & DMLS_TCP_ACK) {
		if (!f->has_ack || seq_gt(p->tcp_ack, f->ack))
			f->ack = p->tcp_ack;
		f->has_ack = true;
	}
}

static bool tcp_check(dmls_dedup *d, const dmls_pkt *p, uint32_t file)
{
	flow_key k;
	memset(&k, 0, sizeof(k));
	memcpy(k.src, p->src, 16);
	memcpy(k.dst, p->dst, 16);
	k.sport = p->sport;
	k.dport = p->dport;
	k.af = p->af;
	uint32_t h = flow_hash(&k);
	/* SEG.SEQ + SEG.LEN; SYN and FIN occupy one sequence number each */
	uint32_t end = p->tcp_seq + (uint32_t)p->payload_bytes +
		       !!(p->tcp_flags & DMLS_TCP_SYN) + !!(p->tcp_flags & DMLS_TCP_FIN);

	long fi = dmls_itable_find(&d->flow_idx, h, flow_eq, d, &k);
	if (fi < 0) {
		if (!flows_room(d, p->ts_ns) ||
		    dmls_itable_insert(&d->flow_idx, h, (uint32_t)d->nflows))
			return false; /* cannot remember it: count it */
		dmls_dedup_flow *f = &d->flows[d->nflows++];
		memset(f, 0, sizeof(*f));
		f->key = k;
		f->hash = h;
		f->hi = end;
		f->owner = file;
		f->owner_ts = f->last_ts = p->ts_ns;
		flow_cover(f, p, end);
		return false;
	}
	dmls_dedup_flow *f = &d->flows[fi];
	if (p->ts_ns > f->last_ts)
		f->last_ts = p->ts_ns;
	if (p->tcp_flags & DMLS_TCP_SYN) {
		bool stopped = f->owner == file ||
			       (f->owner < d->nfiles && d->ended[f->owner]) ||
			       p->ts_ns - f->owner_ts > d->window_ns;
		if (stopped && (f->owner != file || p->tcp_seq + 1 != f->hi)) {
			/* a connection opened anew on the 5-tuple (a run after
			 * another): its own sequence space, owned by its file */
			f->owner = file;
			f->hi = end;
			f->has_ack = false;
			f->owner_ts = p->ts_ns;
			flow_cover(f, p, end);
			return false;
		}
	}
	if (f->owner != file) {
		bool stopped = (f->owner < d->nfiles && d->ended[f->owner]) ||
			       p->ts_ns - f->owner_ts > d->window_ns;
		bool beyond = seq_gt(end, f->hi) ||
			      ((p->tcp_flags & DMLS_TCP_ACK) &&
			       (!f->has_ack || seq_gt(p->tcp_ack, f->ack)));
		if (!beyond)
			return true;
		if (f->owner < d->nfiles && file < d->nfiles &&
		    d->group[f->owner] == d->group[file] && !stopped) {
			flow_cover(f, p, end); /* new bytes on another interface */
			return false;
		}
		if (!stopped)
			return true;
		f->owner = file; /* the old owner stopped: new data */
	}
	f->owner_ts = p->ts_ns;
	flow_cover(f, p, end);
	return false;
}

bool dmls_dedup_check(dmls_dedup *d, const dmls_pkt *p, uint32_t file)
{
	if (p->proto == 6 && !p->is_fragment)
		return tcp_check(d, p, file);
	return exact_check(d, p, file);
}
