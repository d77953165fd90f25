/*
 * points.h - capture points, for dedup (see points.c).  Private to
 * src/io (input.c, live.c).
 */
#ifndef DMLS_IO_POINTS_H
#define DMLS_IO_POINTS_H

#include <stdint.h>

#include "dmlscope/itable.h"

#define DMLS_LT_SLL 113  /* Linux cooked v1: the packet type at offset 0 */
#define DMLS_LT_SLL2 276 /* Linux cooked v2: the interface index at offset 4 */
#define DMLS_MAX_POINTS 4096u /* points told apart (input.c, live.c) */

typedef struct dmls_point {
	uint64_t file; /* the capture (a file, or 0 for a live capture) */
	uint64_t key;  /* its interface: dmls_point_key */
} dmls_point;

typedef struct dmls_points {
	dmls_point *v; /* by id, in order of appearance */
	uint32_t n, cap, last;
	dmls_itable idx;
} dmls_points;

void dmls_points_init(dmls_points *p);
void dmls_points_release(dmls_points *p);
/* The interface of a record: pcapng interface << 32 | the interface index
 * of a Linux cooked v2 record, or of a v1 record whether it was sent
 * (packet type 4: outgoing) or received. */
uint64_t dmls_point_key(int linktype, uint32_t iface, const uint8_t *data, uint32_t caplen);
/* The id of point (file, key), a new one (p->n grows) when not seen
 * before; UINT32_MAX when there are max points already, or out of memory
 * (then p->n < max). */
uint32_t dmls_points_id(dmls_points *p, uint64_t file, uint64_t key, uint32_t max);

#endif
