/*
 * dedup.c - count a packet once when both ends captured it.
 *
 * When sender and receiver both run tcpdump, one packet appears in two
 * files a little apart in time (clock offset plus path delay).  Two copies
 * are the same packet when they share the key (address family, protocol,
 * addresses, ports, IPv4/IPv6-fragment id, TCP sequence number, IP length),
 * come from different files, and the second is seen within the window
 * (100 ms) after the first.  Within one file an equal key is a
 * retransmission or a coincidence, never a duplicate.
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

#include <stdlib.h>
#include <string.h>

typedef struct dedup_key {
	uint8_t src[16], dst[16];
	uint32_t ip_id, tcp_seq, ip_bytes;
	uint16_t sport, dport;
	uint8_t proto, af, pad[6];
} dedup_key;

struct dmls_dedup_entry {
	uint64_t seq, next;
	int64_t ts;
	uint32_t file, hash;
	dedup_key key;
};

#define INIT_SIZE 4096u

int dmls_dedup_init(dmls_dedup *d, int64_t window_ns, uint64_t max_size)
{
	memset(d, 0, sizeof(*d));
	d->window_ns = window_ns;
	d->max_size = max_size < INIT_SIZE ? INIT_SIZE : max_size;
	d->size = INIT_SIZE;
	d->head = d->tail = 1; /* seq 0 means "no entry" */
	d->ring = calloc(d->size, sizeof(*d->ring));
	d->buckets = calloc(d->size, sizeof(*d->buckets));
	if (!d->ring || !d->buckets) {
		dmls_dedup_release(d);
		return -1;
	}
	return 0;
}

void dmls_dedup_release(dmls_dedup *d)
{
	free(d->ring);
	free(d->buckets);
	d->ring = NULL;
	d->buckets = NULL;
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

bool dmls_dedup_check(dmls_dedup *d, const dmls_pkt *p, uint32_t file)
{
	dedup_key k;
	memset(&k, 0, sizeof(k));
	memcpy(k.src, p->src, 16);
	memcpy(k.dst, p->dst, 16);
	k.ip_id = p->ip_id;
	k.tcp_seq = p->tcp_seq;
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
