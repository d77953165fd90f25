/*
 * series.h - binned byte counts over capture time, sparse in time.
 *
 * A dmls_series counts bytes in bins of bin_ns nanoseconds, bin k covering
 * [t0_ns + k*bin_ns, t0_ns + (k+1)*bin_ns).  Only bins near traffic are
 * held: consecutive bins form runs (a run takes in up to join_bins empty
 * bins rather than start a new run), and the values of all runs share one
 * growing buffer, of 32-bit values until a bin passes 4 GiB (a 1 ms bin
 * would need 34 Tbit/s), then of 64-bit ones (`wide`: the whole buffer is
 * widened once).  A burst of traffic costs its bins (4 bytes each) plus one
 * run header (8 bytes: its first value and its first bin, 32 bits from the
 * series' base), so memory follows the bins that hold traffic: never the
 * packets, never the span of the capture (a clock that jumps by years costs
 * one more run, not years of bins: its headers then take 12 bytes).  Bin
 * indexes are signed: a packet before t0 (out of order input) still lands.
 * A bin of no bytes counts in the range holding traffic (min_bin, max_bin)
 * but takes no room.
 *
 * Data arrive in time order almost always: the last run is then extended in
 * place, in O(1).  A bin elsewhere is found by binary search over the runs,
 * and a new run is inserted there, the smaller side of the values moved
 * (rare: out-of-order input, O(1) at either end; merges build a new
 * series in order).
 *
 * Ownership: dmls_series_init/dmls_series_release; the struct is the
 * caller's, the buffers are the series'.
 */
#ifndef DMLSCOPE_SERIES_H
#define DMLSCOPE_SERIES_H

#include <stddef.h>
#include <stdint.h>

/* A run, as dmls_series_run_get gives it (the series stores it packed). */
typedef struct dmls_series_run {
	int64_t first;       /* first bin */
	size_t off;          /* index of its first value */
	size_t len;          /* bins */
} dmls_series_run;

typedef struct dmls_series {
	int64_t t0_ns;       /* time of bin 0 */
	int64_t bin_ns;      /* bin width */
	uint32_t join;       /* empty bins a run takes in rather than end */
	int wide;            /* values are v64 (else v32) */
	union {              /* the runs' values: read them by dmls_series_val */
		uint32_t *v32;
		uint64_t *v64;
		void *v;
	};
	size_t v0, nv, vcap; /* values in v[v0, v0 + nv) of vcap */
	/* Runs, sorted by first bin and disjoint; their values are in v in
	 * the same order, so run r's are v[roff[r], roff[r + 1]) (the last's
	 * end at v0 + nv).  A run's first bin is base + rel[r] while every
	 * run's fits 32 bits from base; a series whose runs are further apart
	 * (a clock that jumps by years) holds them as first[r] (far).  Both
	 * arrays have q0 free entries before index 0 and the values v0 before
	 * theirs, so a run or a bin is added at either end in O(1) (a capture
	 * read backwards too) and one in the middle moves the smaller side. */
	uint32_t *roff;
	union {
		uint32_t *rel;
		int64_t *first;
	};
	int64_t base;
	int far;
	size_t q0, nruns, rcap; /* runs in [q0, q0 + nruns) of rcap entries */
	size_t last;         /* index of the run hit last (fast path), */
	int64_t last_first;  /* its first bin */
	size_t last_off;     /* and first value */
	int64_t min_bin, max_bin; /* range holding traffic; min > max when empty */
	uint64_t total;      /* sum of all bins */
} dmls_series;

/* Run r's first bin, first value and number of bins. */
static inline int64_t dmls_series_run_first(const dmls_series *s, size_t r)
{
	return s->far ? s->first[r] : s->base + (int64_t)s->rel[r];
}

static inline size_t dmls_series_run_len(const dmls_series *s, size_t r)
{
	return (r + 1 < s->nruns ? s->roff[r + 1] : s->v0 + s->nv) - s->roff[r];
}

static inline dmls_series_run dmls_series_run_get(const dmls_series *s, size_t r)
{
	return (dmls_series_run){dmls_series_run_first(s, r), s->roff[r], dmls_series_run_len(s, r)};
}

/* join_bins: 0 for the default (4). */
void dmls_series_init(dmls_series *s, int64_t t0_ns, int64_t bin_ns, uint32_t join_bins);
void dmls_series_release(dmls_series *s);

/* Add bytes at time ts_ns.  Returns 0, or -1 when out of memory. */
int dmls_series_add(dmls_series *s, int64_t ts_ns, uint64_t bytes);
/* Add bytes at bin index k. */
int dmls_series_add_bin(dmls_series *s, int64_t k, uint64_t bytes);

/* Floor division that rounds toward minus infinity (a bin index). */
static inline int64_t dmls_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Value i of the buffer (a run's bin j is value off + j). */
static inline uint64_t dmls_series_val(const dmls_series *s, size_t i)
{
	return s->wide ? s->v64[i] : s->v32[i];
}

/* Room for n more values.  0, or -1 when out of memory. */
int dmls_series_reserve(dmls_series *s, size_t n);

/* The fast path of dmls_series_add_bin: bin k inside the run hit last, or
 * just past it when that run ends the series and its buffer has room (the
 * way time-ordered traffic arrives), or a bin of no bytes.  Allocates
 * nothing.  Returns 1 when
 * done, 0 when the caller must call dmls_series_add_bin. */
static inline int dmls_series_add_fast(dmls_series *s, int64_t k, uint64_t bytes)
{
	if (!bytes) { /* in the range holding traffic, in no run (a flood's SYNs) */
		s->min_bin = k < s->min_bin ? k : s->min_bin;
		s->max_bin = k > s->max_bin ? k : s->max_bin;
		return 1;
	}
	size_t r = s->last;
	if (r >= s->nruns)
		return 0;
	uint64_t j = (uint64_t)(k - s->last_first);
	size_t tail = r + 1 == s->nruns, end = s->v0 + s->nv;
	size_t len = (tail ? end : s->roff[r + 1]) - s->last_off;
	if (j >= len) {
		uint64_t add = j - len + 1;
		if (add > s->join || !tail || end + add > s->vcap || j >= UINT32_MAX)
			return 0;
		for (uint64_t z = 0; z < add; z++)
			if (s->wide)
				s->v64[end + z] = 0;
			else
				s->v32[end + z] = 0;
		s->nv += add;
		if (k > s->max_bin)
			s->max_bin = k;
	}
	size_t i = s->last_off + (size_t)j;
	if (s->wide) {
		s->v64[i] += bytes;
	} else {
		uint64_t x = (uint64_t)s->v32[i] + bytes;
		if (x > UINT32_MAX)
			return 0; /* the slow path widens */
		s->v32[i] = (uint32_t)x;
	}
	s->total += bytes;
	return 1;
}

/* Value of bin k (0 where nothing was counted). */
uint64_t dmls_series_get(const dmls_series *s, int64_t k);
/* True when no bytes were counted. */
int dmls_series_empty(const dmls_series *s);
/* Number of bins from min_bin to max_bin inclusive (0 when empty). */
int64_t dmls_series_span_bins(const dmls_series *s);

/*
 * Sum bins [from, from + n*factor) into out[0..n) with factor bins per
 * output bin (re-binning to a coarser width).  out is zeroed first.
 */
void dmls_series_dense(const dmls_series *s, int64_t from, size_t n,
		       uint32_t factor, double *out);
/* Sum of bins [a, b); *ksum (may be NULL) = sum of bytes x (k + 0.5), for a
 * byte-weighted mean time.  Visits the chunks in the range only. */
double dmls_series_range(const dmls_series *s, int64_t a, int64_t b, double *ksum);
/* The same, adding scale times the bins to out (not zeroed first). */
void dmls_series_dense_add(const dmls_series *s, int64_t from, size_t n, uint32_t factor,
			   double scale, double *out);
/* The same into 32-bit counts (scale 1): 0, or -1 when a sum passed
 * UINT32_MAX (out then holds it wrapped). */
int dmls_series_dense_add_u32(const dmls_series *s, int64_t from, size_t n, uint32_t factor,
			      uint32_t *out);

/* Bytes the series holds (values and run headers, allocated). */
size_t dmls_series_mem_bytes(const dmls_series *s);

/*
 * Double the bin width: bin k becomes bin floor(k / 2) of a grid with the
 * same t0, so every count stays and only resolution is lost.  0, or -1 when
 * out of memory (the series is then unchanged).
 */
int dmls_series_coarsen(dmls_series *s);

/*
 * Add every bin of src into dst: a partial state of the same series (the
 * same t0) merges exactly.  dst's bin width must be a multiple of src's
 * (src is coarsened first when it is finer than dst and dst's width is a
 * multiple of it; returns -1 when the grids do not fit or out of memory).
 */
int dmls_series_merge(dmls_series *dst, const dmls_series *src);

/* A walk over a series' non-empty bins in time order, bin k read as bin
 * floor(k / ratio) (ratio 1: as stored): bin and val are the bin at hand,
 * bin INT64_MAX past the last.  Two walks merged by bin read two series
 * side by side in the memory of their runs, not of their span. */
typedef struct dmls_series_walk {
	const dmls_series *s;
	int64_t ratio;
	size_t r, j;
	dmls_series_run u;
	int64_t bin;
	uint64_t val;
} dmls_series_walk;
void dmls_series_walk_start(dmls_series_walk *w, const dmls_series *s, int64_t ratio);
void dmls_series_walk_next(dmls_series_walk *w);

/* Visit every non-empty bin in time order. */
typedef void (*dmls_series_visit_fn)(int64_t bin, uint64_t bytes, void *ctx);
void dmls_series_foreach(const dmls_series *s, dmls_series_visit_fn fn, void *ctx);

#endif
