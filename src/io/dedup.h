/*
 * dedup.h - drop a packet captured at both ends (see dedup.c).  Private to
 * src/io/input.c.
 */
#ifndef DMLS_IO_DEDUP_H
#define DMLS_IO_DEDUP_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlscope/decode.h"

typedef struct dmls_dedup_entry dmls_dedup_entry;

typedef struct dmls_dedup {
	int64_t window_ns;
	uint64_t size, max_size; /* ring slots (a power of two), its cap */
	uint64_t head, tail;     /* live entries have seq in [head, tail) */
	dmls_dedup_entry *ring;  /* slot = seq & (size - 1) */
	uint64_t *buckets;       /* newest seq of each hash chain, 0 = none */
} dmls_dedup;

/* window_ns: how long after it was seen a packet can reappear; max_size:
 * cap on remembered packets (a power of two).  Returns 0, -1 out of memory. */
int dmls_dedup_init(dmls_dedup *d, int64_t window_ns, uint64_t max_size);
/* True if p (from file) was seen within the window from another file:
 * a duplicate.  Otherwise remembers p and returns false. */
bool dmls_dedup_check(dmls_dedup *d, const dmls_pkt *p, uint32_t file);
void dmls_dedup_release(dmls_dedup *d);

#endif
