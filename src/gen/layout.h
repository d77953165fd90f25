/*
 * layout.h - the state of a schedule being laid out and the pieces it is
 * laid with (layout.c), shared by schedule.c (every pattern, buckets, the
 * time line) and star.c (a parameter server's iteration as --like
 * calibrates it).
 */
#ifndef DMLS_GEN_LAYOUT_H
#define DMLS_GEN_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "gen/gen_int.h"

typedef struct layout {
	dmls_gen_schedule *s;
	uint32_t *conn_of;    /* nhosts x nhosts, UINT32_MAX = none */
	uint32_t *fan_out, *fan_in;
	double frame_ns;      /* wire time of one full frame at the link rate */
} layout;

/* Lay the transfers x[0..n) of one step of iteration k from t0 at their
 * fair shares of the links (layout.c); returns when the step is received
 * (last segment plus the ACK delay), or -1 when out of memory.  Messages
 * are stored only when store is set. */
int64_t gen_lay_step(layout *L, const gen_xfer *x, size_t n, uint32_t k, int64_t t0, int store);

/* Floor or ceil of x for iteration k, the ceils spread evenly (layout.c);
 * tag picks the drawn phase. */
uint32_t gen_count_of(const dmls_gen_job *job, double x, uint32_t k, uint64_t tag);

/* The spans of the B buckets of iteration k (ns, into span[], at most 64):
 * lognormal with the job's median and mean, shrunk with the gaps after them
 * (*gap) so that they fit in room ns.  Returns their sum. */
double gen_bucket_spans(const dmls_gen_job *job, uint32_t k, uint32_t B, double room,
			double *span, double *gap);

/* Lay the transfers x[0..n) of iteration k from t0 as step number step,
 * paced slower to last span ns (0: at line rate); stored only when store
 * is set.  Returns the end (received and acknowledged) or -1 when out of
 * memory. */
int64_t gen_lay_paced(layout *L, gen_xfer *x, size_t n, uint32_t k, uint32_t step,
		      int64_t t0, double span, int store);

/* Iteration k of a star with push groups or a push gap (star.c), from t0;
 * returns its end or -1 when out of memory. */
int64_t gen_lay_star(layout *L, gen_plan *p, uint32_t k, int64_t t0, int store);

#endif
