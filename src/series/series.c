/*
 * series.c - sparse time series of byte counts in runs of bins (series.h).
 *
 * Runs are sorted by their first bin and disjoint; their values live in one
 * buffer v, each run a contiguous slice.  Only the run whose slice ends the
 * buffer can grow in place, and in time-ordered input that is the run being
 * written, so almost every packet costs a comparison and an addition.  A
 * bin outside every run starts a new one (its slice appended to v, its
 * header inserted in order); a bin up to `join` past the end of the last
 * run extends it with zeros, which costs less than a run header.  Values
 * are 32-bit until one would pass UINT32_MAX: the buffer is then widened
 * to 64 bits once (widen), for good.
 */
#include "dmlscope/series.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_JOIN 4u

void dmls_series_init(dmls_series *s, int64_t t0_ns, int64_t bin_ns, uint32_t join_bins)
{
	memset(s, 0, sizeof(*s));
	s->t0_ns = t0_ns;
	s->bin_ns = bin_ns > 0 ? bin_ns : 1;
	s->join = join_bins ? join_bins : DEFAULT_JOIN;
	s->min_bin = INT64_MAX;
	s->max_bin = INT64_MIN;
}

void dmls_series_release(dmls_series *s)
{
	free(s->v);
	free(s->runs);
	s->v = NULL;
	s->runs = NULL;
	s->nv = s->vcap = s->nruns = s->rcap = 0;
	s->wide = 0;
}

/* Index of the last run with first <= k, or nruns when none. */
static size_t run_at(const dmls_series *s, int64_t k)
{
	if (s->last < s->nruns && s->runs[s->last].first <= k &&
	    (s->last + 1 == s->nruns || s->runs[s->last + 1].first > k))
		return s->last;
	size_t lo = 0, hi = s->nruns; /* first run with first > k */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->runs[mid].first <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? s->nruns : lo - 1;
}

static size_t value_bytes(const dmls_series *s)
{
	return s->wide ? sizeof(uint64_t) : sizeof(uint32_t);
}

int dmls_series_reserve(dmls_series *s, size_t n)
{
	if (s->nv + n <= s->vcap)
		return 0;
	if (s->nv + n > UINT32_MAX)
		return -1;
	size_t cap = s->vcap ? s->vcap : 16;
	while (cap < s->nv + n)
		cap *= 2;
	void *v = realloc(s->v, cap * value_bytes(s));
	if (!v)
		return -1;
	s->v = v;
	s->vcap = cap;
	return 0;
}

/* The values as 64-bit ones from now on: 0, or -1 when out of memory (the
 * series is then unchanged). */
static int widen(dmls_series *s)
{
	if (s->wide)
		return 0;
	uint64_t *w = malloc((s->vcap ? s->vcap : 1) * sizeof(*w));
	if (!w)
		return -1;
	for (size_t i = 0; i < s->nv; i++)
		w[i] = s->v32[i];
	free(s->v32);
	s->v64 = w;
	s->wide = 1;
	return 0;
}

/* Add bytes to value i, widening the buffer when it would overflow. */
static int add_value(dmls_series *s, size_t i, uint64_t bytes)
{
	if (!s->wide) {
		uint64_t x = (uint64_t)s->v32[i] + bytes;
		if (x <= UINT32_MAX) {
			s->v32[i] = (uint32_t)x;
			return 0;
		}
		if (widen(s))
			return -1;
	}
	s->v64[i] += bytes;
	return 0;
}

int dmls_series_append_value(dmls_series *s, uint64_t x)
{
	if (s->nv >= s->vcap || (!s->wide && x > UINT32_MAX && widen(s)))
		return -1;
	if (s->wide)
		s->v64[s->nv++] = x;
	else
		s->v32[s->nv++] = (uint32_t)x;
	return 0;
}

/* Extend run r (its slice ends v) to hold bin k. */
static int extend(dmls_series *s, size_t r, int64_t k)
{
	dmls_series_run *u = &s->runs[r];
	size_t add = (size_t)(k - (u->first + u->len)) + 1;
	if (dmls_series_reserve(s, add))
		return -1;
	memset((char *)s->v + s->nv * value_bytes(s), 0, add * value_bytes(s));
	s->nv += add;
	s->runs[r].len += (uint32_t)add;
	return 0;
}

/* A new run holding bin k, inserted at index r. */
static int insert_run(dmls_series *s, size_t r, int64_t k)
{
	if (dmls_grow((void **)&s->runs, &s->rcap, s->nruns, sizeof(*s->runs), 4) ||
	    dmls_series_reserve(s, 1))
		return -1;
	memmove(&s->runs[r + 1], &s->runs[r], (s->nruns - r) * sizeof(*s->runs));
	s->runs[r] = (dmls_series_run){k, (uint32_t)s->nv, 1};
	if (dmls_series_append_value(s, 0))
		return -1;
	s->nruns++;
	return 0;
}

int dmls_series_add_bin(dmls_series *s, int64_t k, uint64_t bytes)
{
	if (dmls_series_add_fast(s, k, bytes))
		return 0;
	size_t r = run_at(s, k);
	if (r < s->nruns) {
		dmls_series_run *u = &s->runs[r];
		int64_t end = u->first + u->len;
		if (k >= end) {
			int tail = u->off + u->len == s->nv;
			int room = r + 1 == s->nruns || s->runs[r + 1].first > k;
			if (tail && room && k - end < (int64_t)s->join &&
			    (uint64_t)(k - u->first) < UINT32_MAX) {
				if (extend(s, r, k))
					return -1;
			} else if (insert_run(s, ++r, k)) {
				return -1;
			}
		}
	} else if (insert_run(s, r = 0, k)) {
		return -1;
	}
	s->last = r;
	if (add_value(s, s->runs[r].off + (size_t)(k - s->runs[r].first), bytes))
		return -1;
	if (k < s->min_bin)
		s->min_bin = k;
	if (k > s->max_bin)
		s->max_bin = k;
	s->total += bytes;
	return 0;
}

int dmls_series_add(dmls_series *s, int64_t ts_ns, uint64_t bytes)
{
	return dmls_series_add_bin(s, dmls_floor_div(ts_ns - s->t0_ns, s->bin_ns), bytes);
}

uint64_t dmls_series_get(const dmls_series *s, int64_t k)
{
	size_t r = run_at(s, k);
	if (r >= s->nruns || k >= s->runs[r].first + s->runs[r].len)
		return 0;
	return dmls_series_val(s, s->runs[r].off + (size_t)(k - s->runs[r].first));
}

int dmls_series_empty(const dmls_series *s)
{
	return s->min_bin > s->max_bin;
}

int64_t dmls_series_span_bins(const dmls_series *s)
{
	return dmls_series_empty(s) ? 0 : s->max_bin - s->min_bin + 1;
}

/* Calls fn for every non-zero bin of [a, b) in order. */
#define FOR_RANGE(s, a, b, k, val, body)                                                      \
	do {                                                                                  \
		size_t r_ = run_at((s), (a));                                                 \
		r_ = r_ >= (s)->nruns ? 0 : r_;                                               \
		for (; r_ < (s)->nruns && (s)->runs[r_].first < (b); r_++) {                  \
			const dmls_series_run *u_ = &(s)->runs[r_];                           \
			int64_t lo_ = u_->first > (a) ? u_->first : (a);                      \
			int64_t hi_ = u_->first + u_->len < (b) ? u_->first + u_->len : (b);  \
			for (int64_t k = lo_; k < hi_; k++) {                                 \
				uint64_t val = dmls_series_val((s), u_->off + (size_t)(k - u_->first)); \
				if (val) {                                                    \
					body;                                                 \
				}                                                             \
			}                                                                     \
		}                                                                             \
	} while (0)

double dmls_series_range(const dmls_series *s, int64_t a, int64_t b, double *ksum)
{
	double sum = 0, ks = 0;
	FOR_RANGE(s, a, b, k, val, {
		sum += (double)val;
		ks += (double)val * ((double)k + 0.5);
	});
	if (ksum)
		*ksum = ks;
	return sum;
}

void dmls_series_dense_add(const dmls_series *s, int64_t from, size_t n, uint32_t factor,
			   double scale, double *out)
{
	if (factor == 0)
		factor = 1;
	int64_t end = from + (int64_t)n * factor;
	FOR_RANGE(s, from, end, k, val, out[(k - from) / factor] += scale * (double)val);
}

void dmls_series_dense(const dmls_series *s, int64_t from, size_t n, uint32_t factor,
		       double *out)
{
	memset(out, 0, n * sizeof(*out));
	dmls_series_dense_add(s, from, n, factor, 1.0, out);
}

void dmls_series_foreach(const dmls_series *s, dmls_series_visit_fn fn, void *ctx)
{
	for (size_t r = 0; r < s->nruns; r++) {
		const dmls_series_run *u = &s->runs[r];
		for (uint32_t j = 0; j < u->len; j++)
			if (dmls_series_val(s, u->off + j))
				fn(u->first + j, dmls_series_val(s, u->off + j), ctx);
	}
}

size_t dmls_series_mem_bytes(const dmls_series *s)
{
	return s->vcap * value_bytes(s) + s->rcap * sizeof(*s->runs);
}

/* Add src's non-zero bins into dst, bin k of src landing in bin
 * floor(k / ratio); the range holding traffic follows. */
static int add_scaled(dmls_series *dst, const dmls_series *src, int64_t ratio)
{
	for (size_t r = 0; r < src->nruns; r++) {
		const dmls_series_run *u = &src->runs[r];
		/* bin first + j lands in k, at position m within it: no division
		 * per bin */
		int64_t k = dmls_floor_div(u->first, ratio), m = u->first - k * ratio;
		for (uint32_t j = 0; j < u->len; j++) {
			uint64_t v = dmls_series_val(src, u->off + j);
			if (v && !dmls_series_add_fast(dst, k, v) && dmls_series_add_bin(dst, k, v))
				return -1;
			if (++m == ratio)
				m = 0, k++;
		}
	}
	if (!dmls_series_empty(src)) { /* bins of zero bytes still hold traffic */
		int64_t lo = dmls_floor_div(src->min_bin, ratio), hi = dmls_floor_div(src->max_bin, ratio);
		dst->min_bin = lo < dst->min_bin ? lo : dst->min_bin;
		dst->max_bin = hi > dst->max_bin ? hi : dst->max_bin;
	}
	return 0;
}

int dmls_series_coarsen(dmls_series *s)
{
	dmls_series t;
	dmls_series_init(&t, s->t0_ns, s->bin_ns * 2, s->join);
	/* room for the halved runs at once: bins are added in order, in place */
	if (dmls_series_reserve(&t, s->nv / 2 + s->nruns + 1) || add_scaled(&t, s, 2)) {
		dmls_series_release(&t);
		return -1;
	}
	dmls_series_release(s);
	*s = t;
	return 0;
}

int dmls_series_merge(dmls_series *dst, const dmls_series *src)
{
	if (dst->t0_ns != src->t0_ns || src->bin_ns <= 0 || dst->bin_ns % src->bin_ns)
		return -1;
	return add_scaled(dst, src, dst->bin_ns / src->bin_ns);
}
