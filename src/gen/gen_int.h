/*
 * gen_int.h - internals shared by the generator's files (src/gen).
 */
#ifndef DMLS_GEN_INT_H
#define DMLS_GEN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/gen.h"

/* One transfer of an iteration's collective before it has a time. */
typedef struct gen_xfer {
	uint32_t step;          /* transfers of one step run together */
	uint32_t src, dst;
	uint64_t bytes;
	uint8_t phase;
} gen_xfer;

/* The collective of one iteration: transfers sorted by step. */
typedef struct gen_plan {
	size_t n, cap;
	gen_xfer *x;
	uint32_t nsteps;
} gen_plan;

/* Plan iteration k of job (hosts as in gen.h).  Returns 0, or -1 when out
 * of memory.  p is reused across calls; free p->x when done. */
int gen_plan_iteration(gen_plan *p, const dmls_gen_job *job, uint32_t k);

/* C, the longest collective of job's iterations as the schedule lays it
 * out (dmls_gen_schedule's collective_ns), without laying out the job. */
int gen_collective_ns(const dmls_gen_job *job, int64_t *C, dmls_error *err);

/* DMLS_EUSAGE naming the first message larger than max bytes, which the
 * simulator who reads as why (htsim.c). */
int gen_check_sizes(const dmls_gen_schedule *s, const char *who, uint64_t max,
		    const char *why, dmls_error *err);

/* first[k] = b[k], end[k] = b[K + k] (K iterations): when iteration k's
 * collective starts (its first message) and ends as planned (its last
 * segment received and acknowledged), ns; INT64_MAX and 0 for an
 * iteration without messages.  One allocation (free it), NULL when out of
 * memory. */
int64_t *gen_iteration_bounds(const dmls_gen_schedule *s);

/* Bytes of chunk c when S is cut into n chunks that differ by at most one
 * byte (as MPI and NCCL cut a buffer). */
static inline uint64_t gen_chunk(uint64_t S, uint64_t n, uint64_t c)
{
	return (uint64_t)(((unsigned __int128)S * (c + 1)) / n - ((unsigned __int128)S * c) / n);
}

/* Deterministic randomness: splitmix64 (Steele, Lea & Flood 2014) of the
 * seed and up to three tags, as a uniform double in [0, 1).  Hashing
 * instead of a sequential generator makes every draw independent of the
 * order in which things are computed. */
static inline uint64_t gen_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint64_t gen_hash(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	return gen_mix(gen_mix(gen_mix(gen_mix(seed) ^ a) ^ b) ^ c);
}

static inline double gen_u01(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	return (double)(gen_hash(seed, a, b, c) >> 11) * 0x1.0p-53;
}

/* Random-stream tags */
enum { GEN_R_ITER = 1, GEN_R_STEP, GEN_R_MSG, GEN_R_PAIR, GEN_R_SEG, GEN_R_ACK, GEN_R_ISN, GEN_R_PORT };

/* Wire time of one full segment at the link rate: frame 1514 bytes plus
 * preamble, start delimiter, FCS and inter-frame gap (24 bytes). */
#define GEN_FRAME_WIRE_BYTES (1514 + 24)
#define GEN_ACK_DELAY_NS 5000      /* receiver's ACK after the segment */
#define GEN_STEP_GAP_NS 20000      /* between steps: reduction, launch */
#define GEN_STEP_JITTER_NS 10000
#define GEN_MSG_JITTER_NS 2000
#define GEN_SERVER_UPDATE_NS 200000 /* parameter server applies the update */
#define GEN_DENSE_NS 10000000   /* the timescale of dense_fraction (--like) */
#define GEN_HEAVY_NS 90000000   /* dense and heavy bucket: inside 100 ms (--like) */
#define GEN_PAIR_JITTER_NS 500000  /* asynchronous pairs start apart */
#define GEN_LISTEN_PORT 29400
#define GEN_HANDSHAKE_NS 30000     /* one connection's handshake */
#define GEN_QUIET_NS 1000000       /* after the handshakes */
#define GEN_MAX_QUIET_NS 86400000000000LL /* a lead or tail: at most a day */
#define GEN_MIN_GAP_FACTOR 0.5    /* a gap drawn from a run's periods: at least G / 2 */
#define GEN_EPOCH_S 1704067200LL   /* 2024-01-01 00:00:00 UTC: time 0 */

#endif
