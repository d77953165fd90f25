/*
 * part.h - one job read in parts: some of its captures per process, the
 * parts' states merged, the job finished from the merge.
 *
 * What `mpirun dmlscope analyze` does (doc/mpi.md), callable without MPI:
 *   1. the origin: the earliest first packet of all captures
 *      (dmls_part_first_ns on each, the minimum over all);
 *   2. each part reads its captures into a mergeable dmls_stats on that
 *      origin (dmls_part_read: one capture at a time, or captures that
 *      share flows together, so packets captured at both ends count once
 *      as in one pass), and notes each capture's flow keys;
 *   3. captures whose flow keys meet (dmls_part_groups) must be read
 *      together; when none meet, the parts are exact as they are;
 *   4. the parts merge (dmls_stats_merge, or their serialized form:
 *      serial.h) and dmls_job_finish analyzes the merge.
 * The result equals one pass over all the captures (tests/unit/test_part.c)
 * while no table reaches its cap (sink.h).
 */
#ifndef DMLSCOPE_PART_H
#define DMLSCOPE_PART_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/input.h"
#include "dmlscope/job.h"
#include "dmlscope/stats.h"

/*
 * The capture time of the first packet of captures paths[0..n) that the
 * job would count (decoded IP, through opts' filter and decode flags; opts
 * may be NULL) into *t0_ns.  Returns 1 when found, 0 when none (or the
 * captures cannot be read: dmls_part_read says why), a DMLS_EUSAGE status
 * (negated) when the filter does not compile.
 */
int dmls_part_first_ns(const char *const *paths, size_t n, const dmls_job_opts *opts,
		       int64_t *t0_ns, dmls_error *err);

/*
 * The same for one capture, reading up to npackets of them, with the flow
 * keys of those packets (*keys malloc'd, sorted, unique: see
 * dmls_part_read): a cheap first look at which captures share flows.
 */
int dmls_part_probe(const char *path, const dmls_job_opts *opts, size_t npackets,
		    int64_t *t0_ns, uint64_t **keys, size_t *nkeys, dmls_error *err);

/* One part: a mergeable state, what its inputs counted, and its flow keys. */
typedef struct dmls_part {
	dmls_stats stats;          /* mergeable, on the job's origin */
	dmls_input_counts counts;  /* summed over the captures read */
	int has_counts;            /* counts hold a packet (first/last valid) */
	uint64_t *keys;            /* flow keys of the captures read (see below) */
	size_t nkeys, keys_cap;
} dmls_part;

/* opts as dmls_job_analyze's (bin, filter, limits; progress unused). */
void dmls_part_init(dmls_part *p, const dmls_job_opts *opts, int64_t t0_ns);
void dmls_part_release(dmls_part *p);

/*
 * Read captures paths[0..n), together (one merge in time order with the
 * duplicate check of input.h), into a fresh state merged into p; order[i]
 * is capture i's place in the job (what one pass would number it: ties in
 * time between captures go to the lower).  files
 * (n entries, may be NULL) receive what each capture gave (paths copied:
 * free them).  With keys set, p->keys gets one 64-bit hash per
 * directional flow (address family, protocol, addresses, ports) of these
 * captures, sorted and unique: what dmls_part_groups compares.
 * Returns DMLS_OK (a capture that cannot be read or is damaged is in its
 * files entry, and the first such error in *damage when that is OK), or
 * DMLS_ENOMEM / a bad filter's DMLS_EUSAGE.
 */
int dmls_part_read(dmls_part *p, const char *const *paths, const uint32_t *order, size_t n,
		   const dmls_job_opts *opts, int keys, dmls_input_file *files, dmls_error *damage,
		   dmls_error *err);

/*
 * Files that must be read together: keys[i] (nkeys[i] sorted hashes) are
 * file i's flow keys; group[i] receives the smallest index of the files
 * connected to i through a shared key (i itself when it shares none).
 * Returns the number of files that share a key with another, or -1 when
 * out of memory.
 */
long dmls_part_groups(const uint64_t *const *keys, const size_t *nkeys, size_t nfiles,
		      size_t *group);

/* Sum of two parts' counts (first/last: the earlier and later). */
void dmls_part_counts_add(dmls_input_counts *dst, int *dst_has, const dmls_input_counts *src,
			  int src_has);

/*
 * The job of inputs (as dmls_job_analyze: captures or a run folder) from
 * already merged parts: opens the run, takes stats (moved into the job:
 * *stats is left empty), counts and the captures' files (paths taken), then
 * finishes the one pass and runs the analysis as dmls_job_analyze does.
 * damage is the first damaged input (status DMLS_OK if none).  The caller
 * releases job with dmls_job_release in every case.
 */
int dmls_job_from_parts(dmls_job *job, const char *const *inputs, size_t n, dmls_stats *stats,
			const dmls_input_counts *counts, dmls_input_file *files, size_t nfiles,
			const dmls_error *damage, dmls_error *err);

#endif
