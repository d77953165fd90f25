/*
 * serial.h - a partial state of the one pass as bytes, and back.
 *
 * A mergeable dmls_stats (sink.h) made by one process (an MPI rank) is
 * sent to another as a blob and merged there.  The format, version 2, all
 * integers little-endian, nothing padded (src/flow/serial.c writes and
 * checks it; doc/mpi.md shows it in full):
 *
 *   "DMLSSTAT"  8 bytes      magic
 *   u32         version      2
 *   u32         flags        0
 *   u64         body_len     bytes of body
 *   body                     totals, caps, folds, series classes, the
 *                            total series, hosts, pairs, flows (each with
 *                            its series: bin width, value width (4 or
 *                            8 bytes), run headers, values)
 *   u64         check        FNV-1a 64 of body (Fowler, Noll & Vo;
 *                            draft-eastlake-fnv)
 *
 * Reading trusts nothing: every count is checked against the bytes left
 * before anything is allocated, indexes against their tables, series runs
 * for order and overlap, sums against their totals, keys for uniqueness,
 * the caps and bin widths against the reader's own options.  A blob that
 * fails is an error (DMLS_EBAD with what is wrong), never a crash, never
 * a state that merges wrongly.  Internal caches (the doorkeeper, the burst
 * window of the last file) are not sent: a deserialized state only merges
 * and finishes.
 */
#ifndef DMLSCOPE_SERIAL_H
#define DMLSCOPE_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/error.h"
#include "dmlscope/stats.h"

#define DMLS_SERIAL_VERSION 8u /* 2: series values 4 bytes unless wide; 3: a flow's RoCEv2 queue pair; 4: the connections' series class; 5: the total wire bytes' class; 6: the pairs' reopened connections; 7: late packets; 8: TCP sequence gaps */

/* *buf (malloc'd, the caller frees it) and *len: st as a blob.  st must be
 * mergeable and not finished.  DMLS_OK, DMLS_EUSAGE, DMLS_ENOMEM. */
int dmls_stats_serialize(const dmls_stats *st, uint8_t **buf, size_t *len, dmls_error *err);

/* st (initialized here; release it in every case) from a blob made with
 * the same options: bin width from the blob, caps from lim (NULL: the
 * defaults) which must equal the blob's.  DMLS_OK, DMLS_EBAD (not a valid
 * blob, or other options), DMLS_ENOMEM. */
int dmls_stats_deserialize(dmls_stats *st, const uint8_t *buf, size_t len,
			   const dmls_stats_limits *lim, dmls_error *err);

/* FNV-1a 64 of n bytes (the blob's check; a fuzzer recomputes it). */
uint64_t dmls_serial_check(const uint8_t *p, size_t n);

#endif
