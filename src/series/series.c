/*
 * series.c - sparse time series of byte counts in runs of bins (series.h).
 *
 * Runs are sorted by their first bin and disjoint, and their values lie in
 * one buffer v in the same order, so a run's header is its first value's
 * index and its first bin (32 bits from the series' base; 64 bits once two
 * runs are further apart than that: `far`), its length the distance to the
 * next run's values.  Time-ordered input writes the last run, whose values
 * end the buffer: almost every packet costs a comparison and an addition.
 * A bin up to `join` past the end of a run extends it with zeros (they cost
 * less than a run header); a bin outside every run starts a new one.  Both
 * move the smaller side, the values before them down (into room kept at
 * the front, for a capture read backwards) or those after them up, which
 * in time-ordered input are none.
 * Values are 32-bit until one would pass UINT32_MAX: the buffer is then
 * widened to 64 bits once (widen), for good.
 *
 * A buffer of BIG_BYTES or more is pages of its own (Linux, mmap), not
 * the heap's: growing one remaps its pages (mremap: no copy, and no hole
 * left behind for the heap to keep), the room kept for growth costs no
 * memory until it is written, and a released one goes back to the system.
 * A long capture's series grow by doubling, many at once: in the heap each
 * doubling left the old buffer behind as a hole, and the peak followed the
 * buffers' capacities and holes, not their bins (an hour of an 8-host job:
 * 2.5 MB of bins and headers in 3.5 MB of buffers, peak RSS 3 MiB over
 * ten minutes' where it is now 0.5-1.3 MiB over).  Sanitizer builds keep
 * every buffer in the heap, where the sanitizer sees it.
 *
 * BIG_BYTES is 256 KiB, not less: a page of its own is a page fault on
 * first touch, and in a VM a fault costs microseconds (the heap is backed
 * by huge pages, main.c).  At 64 KiB an hour's bench job took 1940 page
 * faults, most of them series growing and coarsening, for 580 now; CPU
 * 209 -> 182 ms (10 minutes: 50 -> 43 ms), peak RSS 10 minutes -> 1 hour
 * +1.2 MiB (at 1 MiB: 320 faults, but +2.5 MiB).
 */
#include "dmlscope/series.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define SERIES_MMAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SERIES_MMAP 0
#endif
#endif
#if !defined(SERIES_MMAP) && defined(__linux__)
#define SERIES_MMAP 1
#include <sys/mman.h>
#endif
#ifndef SERIES_MMAP
#define SERIES_MMAP 0
#endif

#define BIG_BYTES ((size_t)256 << 10)
#if SERIES_MMAP
#define PAGE_BYTES ((size_t)4096) /* mappings are whole pages of at least this */

static size_t pages(size_t bytes)
{
	return (bytes + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
}
#endif

/* A buffer of bytes (uninitialized), or NULL. */
static void *buf_alloc(size_t bytes)
{
#if SERIES_MMAP
	if (bytes >= BIG_BYTES) {
		void *p = mmap(NULL, pages(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
#endif
	return malloc(bytes ? bytes : 1);
}

/* Release p, a buffer of bytes from buf_alloc or buf_resize. */
static void buf_free(void *p, size_t bytes)
{
	if (!p)
		return;
#if SERIES_MMAP
	if (bytes >= BIG_BYTES) {
		munmap(p, pages(bytes));
		return;
	}
#else
	(void)bytes;
#endif
	free(p);
}

/* p (of old bytes) as a buffer of bytes, its first min(old, bytes) bytes
 * kept: realloc's contract (NULL when out of memory, p then unchanged). */
static void *buf_resize(void *p, size_t old, size_t bytes)
{
	if (!p)
		return buf_alloc(bytes);
#if SERIES_MMAP
	if (old >= BIG_BYTES && bytes >= BIG_BYTES) {
		void *q = mremap(p, pages(old), pages(bytes), MREMAP_MAYMOVE);
		return q == MAP_FAILED ? NULL : q;
	}
	if (old >= BIG_BYTES || bytes >= BIG_BYTES) { /* across the line: a copy */
		void *q = buf_alloc(bytes);
		if (q) {
			memcpy(q, p, old < bytes ? old : bytes);
			buf_free(p, old);
		}
		return q;
	}
#else
	(void)old;
#endif
	return realloc(p, bytes ? bytes : 1);
}

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

/* Bytes of a run's first bin as held: 32-bit from base, or 64-bit (far). */
static size_t rel_bytes(const dmls_series *s)
{
	return s->far ? sizeof(int64_t) : sizeof(uint32_t);
}

static size_t value_bytes(const dmls_series *s)
{
	return s->wide ? sizeof(uint64_t) : sizeof(uint32_t);
}

void dmls_series_release(dmls_series *s)
{
	buf_free(s->v, s->vcap * value_bytes(s));
	if (s->roff) {
		buf_free(s->roff - s->q0, s->rcap * sizeof(*s->roff));
		buf_free((char *)s->rel - s->q0 * rel_bytes(s), s->rcap * rel_bytes(s));
	}
	s->v = NULL;
	s->roff = NULL;
	s->rel = NULL;
	s->v0 = s->nv = s->vcap = s->q0 = s->nruns = s->rcap = 0;
	s->wide = s->far = 0;
}

/* Index of the last run with first <= k, or nruns when none. */
static size_t run_at(const dmls_series *s, int64_t k)
{
	size_t r = s->last;
	if (r < s->nruns && dmls_series_run_first(s, r) <= k &&
	    (r + 1 == s->nruns || dmls_series_run_first(s, r + 1) > k))
		return r;
	size_t lo = 0, hi = s->nruns; /* first run with first > k */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (dmls_series_run_first(s, mid) <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? s->nruns : lo - 1;
}

int dmls_series_reserve(dmls_series *s, size_t n)
{
	size_t need = s->v0 + s->nv + n;
	if (need <= s->vcap)
		return 0;
	if (need > UINT32_MAX)
		return -1;
	size_t cap = s->vcap ? s->vcap : 16;
	while (cap < need)
		cap *= 2;
	void *v = buf_resize(s->v, s->vcap * value_bytes(s), cap * value_bytes(s));
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
	uint64_t *w = buf_alloc(s->vcap * sizeof(*w));
	if (!w)
		return -1;
	for (size_t i = s->v0; i < s->v0 + s->nv; i++)
		w[i] = s->v32[i];
	buf_free(s->v32, s->vcap * sizeof(*s->v32));
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

/* Room for n values before v0: the room doubles with the values, so that
 * a series read backwards moves each value O(1) times.  0 or -1. */
static int front_room(dmls_series *s, size_t n)
{
	if (s->v0 >= n)
		return 0;
	size_t room = n + s->nv + 16, back = s->vcap - s->v0 - s->nv;
	size_t cap = room + s->nv + back, vb = value_bytes(s);
	if (cap > UINT32_MAX)
		return -1;
	char *v = buf_alloc(cap * vb);
	if (!v)
		return -1;
	memcpy(v + room * vb, (char *)s->v + s->v0 * vb, s->nv * vb);
	for (size_t r = 0; r < s->nruns; r++)
		s->roff[r] = (uint32_t)(s->roff[r] - s->v0 + room);
	s->last_off = s->last_off - s->v0 + room;
	buf_free(s->v, s->vcap * vb);
	s->v = v, s->v0 = room, s->vcap = cap;
	return 0;
}

/* n zero values where run idx's start (past the last run: at the end),
 * the smaller side moved to make the room where it has some (room is made
 * before the first run only for a run there: a capture read backwards);
 * *at = the first of them.  0, or -1 when out of memory (nothing
 * changed). */
static int open_values(dmls_series *s, size_t idx, size_t n, size_t *at)
{
	size_t end = s->v0 + s->nv, p = idx < s->nruns ? s->roff[idx] : end;
	size_t vb = value_bytes(s);
	if (p - s->v0 < end - p && (s->v0 >= n || idx == 0)) { /* the runs before idx move down */
		if (front_room(s, n))
			return -1;
		p = idx < s->nruns ? s->roff[idx] : s->v0 + s->nv;
		char *v = s->v;
		memmove(v + (s->v0 - n) * vb, v + s->v0 * vb, (p - s->v0) * vb);
		s->v0 -= n, p -= n;
		for (size_t r = 0; r < idx; r++)
			s->roff[r] -= (uint32_t)n;
	} else { /* the runs from idx on move up */
		if (dmls_series_reserve(s, n))
			return -1;
		char *v = s->v;
		memmove(v + (p + n) * vb, v + p * vb, (end - p) * vb);
		for (size_t r = idx; r < s->nruns; r++)
			s->roff[r] += (uint32_t)n;
	}
	memset((char *)s->v + p * vb, 0, n * vb);
	s->nv += n;
	*at = p;
	return 0;
}

/* A free header at index r (the runs from r on become r + 1 on), the
 * smaller side moved where it has room, else the other; the arrays double
 * when neither has, with room at the front for a run there (a capture
 * read backwards).  0, or -1 when out of memory (nothing changed). */
static int open_run(dmls_series *s, size_t r)
{
	size_t hb = rel_bytes(s), back = s->rcap - s->q0 - s->nruns;
	char *rel = (char *)s->rel;
	int front = r < s->nruns - r;
	if (s->q0 && (front || !back)) {
		memmove(s->roff - 1, s->roff, r * sizeof(*s->roff));
		memmove(rel - hb, rel, r * hb);
		s->roff--, s->rel = (void *)(rel - hb), s->q0--;
		return 0;
	}
	if (back && (!front || r > 0)) {
		memmove(s->roff + r + 1, s->roff + r, (s->nruns - r) * sizeof(*s->roff));
		memmove(rel + (r + 1) * hb, rel + r * hb, (s->nruns - r) * hb);
		return 0;
	}
	size_t cap = s->rcap ? 2 * s->rcap : 4;
	size_t q0 = r == 0 && s->nruns ? (cap - s->nruns - 1) / 2 : s->q0;
#if SERIES_MMAP
	/* at the end of headers that are pages of their own: remapped, not
	 * copied (the way time-ordered input grows them) */
	if (q0 == s->q0 && r == s->nruns && s->rcap * sizeof(*s->roff) >= BIG_BYTES) {
		size_t ob = s->rcap * sizeof(*s->roff), fb = s->rcap * hb;
		char *f = mremap(rel - q0 * hb, pages(fb), pages(cap * hb), MREMAP_MAYMOVE);
		if (f == MAP_FAILED)
			return -1;
		char *o = mremap(s->roff - q0, pages(ob), pages(cap * sizeof(*s->roff)),
				 MREMAP_MAYMOVE);
		if (o == MAP_FAILED) { /* the headers back as they were: a shrink in place */
			char *g = mremap(f, pages(cap * hb), pages(fb), 0);
			/* (should even that fail, the pages past fb stay mapped
			 * until exit: a leak, never a wrong size freed) */
			s->rel = (void *)((g == MAP_FAILED ? f : g) + q0 * hb);
			return -1;
		}
		s->roff = (uint32_t *)o + q0, s->rel = (void *)(f + q0 * hb), s->rcap = cap;
		return 0;
	}
#endif
	uint32_t *o = buf_alloc(cap * sizeof(*o));
	char *f = buf_alloc(cap * hb);
	if (!o || !f) {
		buf_free(o, cap * sizeof(*o)), buf_free(f, cap * hb);
		return -1;
	}
	if (s->roff) { /* none the first time */
		memcpy(o + q0, s->roff, r * sizeof(*o));
		memcpy(o + q0 + r + 1, s->roff + r, (s->nruns - r) * sizeof(*o));
		memcpy(f + q0 * hb, rel, r * hb);
		memcpy(f + (q0 + r + 1) * hb, rel + r * hb, (s->nruns - r) * hb);
		buf_free(s->roff - s->q0, s->rcap * sizeof(*o));
		buf_free(rel - s->q0 * hb, s->rcap * hb);
	}
	s->roff = o + q0, s->rel = (void *)(f + q0 * hb), s->q0 = q0, s->rcap = cap;
	return 0;
}

/* Make bin k a possible run start: rebase the 32-bit headers below it
 * (with as much room again as the runs span, so that a series read
 * backwards rebases O(log) times), or make them 64-bit.  0, or -1 when
 * out of memory (nothing changed). */
static int reach(dmls_series *s, int64_t k)
{
	if (s->far)
		return 0;
	if (!s->nruns) {
		s->base = k;
		return 0;
	}
	uint64_t top = s->rel[s->nruns - 1];
	if (k >= s->base && (uint64_t)(k - s->base) <= UINT32_MAX)
		return 0;
	if (k < s->base && (uint64_t)(s->base - k) <= UINT32_MAX - top) {
		uint64_t d = (uint64_t)(s->base - k), spare = UINT32_MAX - top - d;
		uint64_t more = d > top ? d : top; /* headroom below k: the span again */
		more = more > 4096 ? more : 4096;
		d += spare < more ? spare : more;
		for (size_t r = 0; r < s->nruns; r++)
			s->rel[r] += (uint32_t)d;
		s->base -= (int64_t)d;
		return 0;
	}
	int64_t *f = buf_alloc(s->rcap * sizeof(*f));
	if (!f)
		return -1;
	for (size_t r = 0; r < s->nruns; r++)
		f[s->q0 + r] = s->base + (int64_t)s->rel[r];
	buf_free(s->rel - s->q0, s->rcap * sizeof(*s->rel));
	s->first = f + s->q0;
	s->far = 1;
	return 0;
}

/* Extend run r to hold bin k (past its end, before the next run). */
static int extend(dmls_series *s, size_t r, int64_t k)
{
	size_t len = dmls_series_run_len(s, r), at;
	size_t add = (size_t)(k - dmls_series_run_first(s, r)) + 1 - len;
	return open_values(s, r + 1, add, &at);
}

/* A new run holding bin k, inserted at index r. */
static int insert_run(dmls_series *s, size_t r, int64_t k)
{
	size_t at;
	if (reach(s, k) || open_values(s, r, 1, &at))
		return -1;
	if (open_run(s, r)) { /* give the value back: as it was */
		size_t end = s->v0 + s->nv, vb = value_bytes(s);
		memmove((char *)s->v + at * vb, (char *)s->v + (at + 1) * vb, (end - at - 1) * vb);
		s->nv--;
		for (size_t j = r; j < s->nruns; j++)
			s->roff[j]--;
		return -1;
	}
	s->roff[r] = (uint32_t)at;
	if (s->far)
		s->first[r] = k;
	else
		s->rel[r] = (uint32_t)(k - s->base);
	s->nruns++;
	return 0;
}

int dmls_series_add_bin(dmls_series *s, int64_t k, uint64_t bytes)
{
	if (dmls_series_add_fast(s, k, bytes)) /* a bin of no bytes too */
		return 0;
	size_t r = run_at(s, k);
	s->last = SIZE_MAX; /* no run hit until this one is (the runs may move) */
	if (r < s->nruns) {
		int64_t first = dmls_series_run_first(s, r);
		int64_t end = first + (int64_t)dmls_series_run_len(s, r);
		if (k >= end) {
			int room = r + 1 == s->nruns || dmls_series_run_first(s, r + 1) > k;
			if (room && k - end < (int64_t)s->join && (uint64_t)(k - first) < UINT32_MAX) {
				if (extend(s, r, k))
					return -1;
			} else if (insert_run(s, ++r, k)) {
				return -1;
			}
		}
	} else if (insert_run(s, r = 0, k)) {
		return -1;
	}
	s->last = r, s->last_first = dmls_series_run_first(s, r), s->last_off = s->roff[r];
	if (add_value(s, s->last_off + (size_t)(k - s->last_first), bytes))
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
	if (r >= s->nruns)
		return 0;
	uint64_t j = (uint64_t)(k - dmls_series_run_first(s, r));
	return j < dmls_series_run_len(s, r) ? dmls_series_val(s, s->roff[r] + (size_t)j) : 0;
}

int dmls_series_empty(const dmls_series *s)
{
	return s->min_bin > s->max_bin;
}

int64_t dmls_series_span_bins(const dmls_series *s)
{
	return dmls_series_empty(s) ? 0 : s->max_bin - s->min_bin + 1;
}

/* Runs body for every non-zero bin k (value val) of [a, b), in order. */
#define FOR_RANGE(s, a, b, k, val, body)                                                      \
	do {                                                                                  \
		size_t r_ = run_at((s), (a));                                                 \
		r_ = r_ >= (s)->nruns ? 0 : r_;                                               \
		for (; r_ < (s)->nruns; r_++) {                                               \
			dmls_series_run u_ = dmls_series_run_get((s), r_);                    \
			if (u_.first >= (b))                                                  \
				break;                                                        \
			int64_t end_ = u_.first + (int64_t)u_.len;                            \
			int64_t lo_ = u_.first > (a) ? u_.first : (a);                        \
			int64_t hi_ = end_ < (b) ? end_ : (b);                                \
			for (int64_t k = lo_; k < hi_; k++) {                                 \
				uint64_t val = dmls_series_val((s), u_.off + (size_t)(k - u_.first)); \
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

int dmls_series_dense_add_u32(const dmls_series *s, int64_t from, size_t n, uint32_t factor,
			      uint32_t *out)
{
	if (factor == 0)
		factor = 1;
	int64_t end = from + (int64_t)n * factor;
	int over = 0;
	FOR_RANGE(s, from, end, k, val, {
		uint32_t *o = &out[(k - from) / factor];
		over |= val > (uint64_t)(UINT32_MAX - *o);
		*o += (uint32_t)val;
	});
	return over ? -1 : 0;
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
		dmls_series_run u = dmls_series_run_get(s, r);
		for (size_t j = 0; j < u.len; j++)
			if (dmls_series_val(s, u.off + j))
				fn(u.first + (int64_t)j, dmls_series_val(s, u.off + j), ctx);
	}
}

size_t dmls_series_mem_bytes(const dmls_series *s)
{
	return s->vcap * value_bytes(s) + s->rcap * (sizeof(uint32_t) + rel_bytes(s));
}

void dmls_series_walk_next(dmls_series_walk *w)
{
	for (;;) {
		if (w->j >= w->u.len) {
			if (w->r >= w->s->nruns) {
				w->bin = INT64_MAX;
				return;
			}
			w->u = dmls_series_run_get(w->s, w->r++);
			w->j = 0;
		}
		uint64_t v = dmls_series_val(w->s, w->u.off + w->j);
		int64_t k = w->u.first + (int64_t)w->j++;
		if (v) {
			w->bin = w->ratio == 1 ? k : dmls_floor_div(k, w->ratio);
			w->val = v;
			return;
		}
	}
}

void dmls_series_walk_start(dmls_series_walk *w, const dmls_series *s, int64_t ratio)
{
	*w = (dmls_series_walk){.s = s, .ratio = ratio, .bin = INT64_MAX};
	if (s)
		dmls_series_walk_next(w);
}

/* Bin k of bytes into t: 0, or -1 when out of memory. */
static int add_one(dmls_series *t, int64_t k, uint64_t bytes)
{
	return dmls_series_add_fast(t, k, bytes) || !dmls_series_add_bin(t, k, bytes) ? 0 : -1;
}

/* t's range holding traffic over s's too, s's bin k being t's floor(k / ratio)
 * (bins of zero bytes still hold traffic). */
static void cover(dmls_series *t, const dmls_series *s, int64_t ratio)
{
	if (!s || dmls_series_empty(s))
		return;
	int64_t lo = dmls_floor_div(s->min_bin, ratio), hi = dmls_floor_div(s->max_bin, ratio);
	t->min_bin = lo < t->min_bin ? lo : t->min_bin;
	t->max_bin = hi > t->max_bin ? hi : t->max_bin;
}

/* Add the non-zero bins of a (NULL: none) and of b (b's bin k landing in
 * floor(k / ratio)) into t, in order; the range holding traffic follows
 * both. */
static int add_both(dmls_series *t, const dmls_series *a, const dmls_series *b, int64_t ratio)
{
	dmls_series_walk wa, wb;
	dmls_series_walk_start(&wa, a, 1);
	dmls_series_walk_start(&wb, b, ratio);
	while (wa.bin != INT64_MAX || wb.bin != INT64_MAX) {
		dmls_series_walk *w = wa.bin <= wb.bin ? &wa : &wb;
		if (add_one(t, w->bin, w->val))
			return -1;
		dmls_series_walk_next(w);
	}
	cover(t, a, 1);
	cover(t, b, ratio);
	return 0;
}

/*
 * add_both(t, NULL, s, 2) with the pairs of bins summed first: each bin of
 * t is added once, from a loop over s's runs, not each half through the
 * walk.  The same series.  (A class's series are coarsened together when
 * over budget: the hour's bench job six times, 17.4 -> 16.5 ms in all;
 * most of the rest is the first touch of t's pages.)
 */
int dmls_series_coarsen(dmls_series *s)
{
	dmls_series t;
	dmls_series_init(&t, s->t0_ns, s->bin_ns * 2, s->join);
	/* room for the halved runs at once: bins are added in order, in place */
	if (dmls_series_reserve(&t, s->nv / 2 + s->nruns + 1))
		goto fail;
	int64_t open = INT64_MIN; /* the bin of t being summed */
	uint64_t sum = 0;
	for (size_t r = 0; r < s->nruns; r++) {
		dmls_series_run u = dmls_series_run_get(s, r);
		for (size_t j = 0; j < u.len; j++) {
			uint64_t v = dmls_series_val(s, u.off + j);
			if (!v)
				continue;
			int64_t k = dmls_floor_div(u.first + (int64_t)j, 2);
			if (k != open) {
				if (sum && add_one(&t, open, sum))
					goto fail;
				open = k, sum = 0;
			}
			sum += v;
		}
	}
	if (sum && add_one(&t, open, sum))
		goto fail;
	cover(&t, s, 2);
	dmls_series_release(s);
	*s = t;
	return 0;
fail:
	dmls_series_release(&t);
	return -1;
}

int dmls_series_merge(dmls_series *dst, const dmls_series *src)
{
	if (dst->t0_ns != src->t0_ns || src->bin_ns <= 0 || dst->bin_ns % src->bin_ns)
		return -1;
	dmls_series t;
	dmls_series_init(&t, dst->t0_ns, dst->bin_ns, dst->join);
	if (add_both(&t, dst, src, dst->bin_ns / src->bin_ns)) {
		dmls_series_release(&t);
		return -1;
	}
	dmls_series_release(dst);
	*dst = t;
	return 0;
}
