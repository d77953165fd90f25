/*
 * clocks.h - the clock offsets of captures made on different machines
 * (see clocks.c).  Private to src/io (input.c).
 */
#ifndef DMLS_IO_CLOCKS_H
#define DMLS_IO_CLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/input.h"

/* Records read from the start of each capture to estimate its clock, and
 * the observations kept over all captures (24 bytes each). */
#define DMLS_CLOCK_PREFIX_RECORDS 2048
#define DMLS_CLOCK_MAX_OBS (1u << 20)
/* Records are read from where every capture has begun: the latest first
 * stamp less this, skipping DMLS_CLOCK_MAX_SKIP records at most. */
#define DMLS_CLOCK_ALIGN_NS 1000000000LL
#define DMLS_CLOCK_MAX_SKIP 65536
/* Captures estimated at most (an n x n matrix of bounds). */
#define DMLS_CLOCK_MAX_FILES 256
/* Offsets under this are left as they are: clocks of one machine, or
 * synchronised, agree within a one-way delay. */
#define DMLS_CLOCK_MIN_SHIFT_NS 1000000LL

/* The offset of each source's clock from the first's, in off_ns[] (to be
 * subtracted from its time stamps; 0 where none is needed or none could
 * be told), from the TCP packets at the start of each capture: an
 * acknowledgement is sent after the data it acknowledges arrived.  Sources
 * read from a stream are not read twice (offset 0).  Returns 0, or -1 when
 * out of memory (off_ns then all 0); *inconsistent is set when the bounds
 * contradict each other (no offset applied). */
int dmls_clocks_estimate(const dmls_source *src, size_t n, int64_t *off_ns, int *inconsistent);

#endif
