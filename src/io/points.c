/*
 * points.c - capture points: the interfaces a packet can be seen on.
 *
 * A capture point is a capture's interface: a pcapng interface, and in a
 * Linux cooked v2 record (what `tcpdump -i any` writes) the interface
 * index too.  On a host whose ranks talk through a bridge (containers,
 * network namespaces, a Kubernetes node's pods) `-i any` sees each packet
 * on the sender's veth, on the bridge and on the receiver's veth: the same
 * packet up to three times.  dedup.c counts a packet once over points as
 * over files.  A Linux cooked v1 record (older libpcaps' `-i any`) has no
 * interface index, but says whether the host sent or received it: two
 * points, which is enough for a bridge's ports (received on the sender's
 * port, sent on the receiver's) and for a router's two interfaces.  Points get dense ids in order of appearance, found through
 * one itable (a record's point is nearly always the previous one's: that
 * is checked first).
 */
#include "io/points.h"

#include <stdlib.h>

void dmls_points_init(dmls_points *p)
{
	p->v = NULL;
	p->n = p->cap = p->last = 0;
	dmls_itable_init(&p->idx);
}

void dmls_points_release(dmls_points *p)
{
	free(p->v);
	dmls_itable_release(&p->idx);
	dmls_points_init(p);
}

uint64_t dmls_point_key(int linktype, uint32_t iface, const uint8_t *data, uint32_t caplen)
{
	uint64_t k = (uint64_t)iface << 32;
	if (linktype == DMLS_LT_SLL2 && caplen >= 8)
		k |= (uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 | (uint32_t)data[6] << 8 |
		     data[7];
	else if (linktype == DMLS_LT_SLL && caplen >= 2)
		k |= data[0] == 0 && data[1] == 4; /* PACKET_OUTGOING */
	return k;
}

static int point_eq(const void *ctx, uint32_t idx, const void *key)
{
	const dmls_point *a = &((const dmls_points *)ctx)->v[idx], *b = key;
	return a->file == b->file && a->key == b->key;
}

uint32_t dmls_points_id(dmls_points *p, uint64_t file, uint64_t key, uint32_t max)
{
	dmls_point k = {file, key};
	if (p->last < p->n && point_eq(p, p->last, &k))
		return p->last;
	uint64_t h = dmls_mix64(key ^ dmls_mix64(file));
	long at = dmls_itable_find(&p->idx, h, point_eq, p, &k);
	if (at >= 0)
		return p->last = (uint32_t)at;
	if (p->n >= max)
		return UINT32_MAX;
	if (p->n == p->cap) {
		uint32_t cap = p->cap ? 2 * p->cap : 8;
		dmls_point *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return UINT32_MAX;
		p->v = v, p->cap = cap;
	}
	if (dmls_itable_insert(&p->idx, h, p->n))
		return UINT32_MAX;
	p->v[p->n] = k;
	return p->last = p->n++;
}
