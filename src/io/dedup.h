/*
 * dedup.h - drop a packet captured at both ends, or on two interfaces (see
 * dedup.c).  Private to src/io (input.c, live.c).
 */
#ifndef DMLS_IO_DEDUP_H
#define DMLS_IO_DEDUP_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlscope/decode.h"
#include "dmlscope/itable.h"

/* The readers' settings (input.c, live.c) */
#define DMLS_DEDUP_WINDOW_NS 100000000    /* 100 ms */
#define DMLS_DEDUP_MAX_ENTRIES (1u << 18) /* about 22 MiB at most */
#define DMLS_DEDUP_MAX_FLOWS (1u << 18)   /* TCP flows: about 20 MiB at most */

typedef struct dmls_dedup_entry dmls_dedup_entry;
typedef struct dmls_dedup_flow dmls_dedup_flow;

typedef struct dmls_dedup {
	int64_t window_ns;
	/* exact-match packets (UDP, other protocols, IP fragments) */
	uint64_t size, max_size; /* ring slots (a power of two), its cap */
	uint64_t head, tail;     /* live entries have seq in [head, tail) */
	dmls_dedup_entry *ring;  /* slot = seq & (size - 1) */
	uint64_t *buckets;       /* newest seq of each hash chain, 0 = none */
	/* TCP: one owner per directional flow, in a dense array */
	uint64_t nflows, flow_cap, max_flows; /* used, allocated, cap */
	dmls_dedup_flow *flows;
	dmls_itable flow_idx;
	uint32_t nfiles;
	bool *ended;     /* file reached its end */
	uint64_t *group; /* per file (point): its capture; points of one share a clock */
} dmls_dedup;

/* window_ns: how long after it was seen a packet can reappear from another
 * file (and how long an owner may be silent on a TCP flow before another
 * file can take it over); max_size: cap on remembered non-TCP packets, and
 * max_flows on remembered TCP flows (powers of two); nfiles: the number of
 * files merged.  Returns 0, -1 out of memory. */
int dmls_dedup_init(dmls_dedup *d, int64_t window_ns, uint64_t max_size, uint64_t max_flows,
		    uint32_t nfiles);
/* True if p (from file, 0 <= file < nfiles) is a copy of a packet already
 * delivered from another file: a duplicate.  Otherwise remembers p and
 * returns false.  Packets come in capture-time order. */
bool dmls_dedup_check(dmls_dedup *d, const dmls_pkt *p, uint32_t file);
/* File (a capture point: input.c) point is one of capture group's, the
 * files up to it known (not yet told: groups of their own).  0, or -1
 * when out of memory. */
int dmls_dedup_point(dmls_dedup *d, uint32_t point, uint64_t group);
/* File has delivered its last packet: it stops owning its TCP flows. */
void dmls_dedup_file_end(dmls_dedup *d, uint32_t file);
void dmls_dedup_release(dmls_dedup *d);

#endif
