/*
 * series.c - sparse chunked time series of byte counts.
 *
 * Bins are grouped in chunks of chunk_bins counters (a power of two).  The
 * chunk array is kept sorted by first_bin; captures arrive in time order,
 * so the chunk hit last, or a new one appended at the end, serves almost
 * every packet in O(1); anything else falls back to a binary search and an
 * insertion (out-of-order input, rare).  Memory is one chunk per stretch of
 * time that holds traffic: independent of packet count and of the span
 * between first and last timestamp.
 */
#include "dmlscope/series.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_CHUNK_BINS 4096u

static uint32_t round_pow2(uint32_t v)
{
	uint32_t p = 1;
	while (p < v && p < (1u << 24))
		p <<= 1;
	return p;
}

void dmls_series_init(dmls_series *s, int64_t t0_ns, int64_t bin_ns, uint32_t chunk_bins)
{
	memset(s, 0, sizeof(*s));
	s->t0_ns = t0_ns;
	s->bin_ns = bin_ns > 0 ? bin_ns : 1;
	s->chunk_bins = round_pow2(chunk_bins ? chunk_bins : DEFAULT_CHUNK_BINS);
	s->min_bin = INT64_MAX;
	s->max_bin = INT64_MIN;
}

void dmls_series_release(dmls_series *s)
{
	for (size_t i = 0; i < s->nchunks; i++)
		free(s->chunks[i].v);
	free(s->chunks);
	s->chunks = NULL;
	s->nchunks = s->cap = 0;
}

/* Floor division that rounds toward minus infinity. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Index of the first chunk with first_bin >= key. */
static size_t lower_bound(const dmls_series *s, int64_t key)
{
	size_t lo = 0, hi = s->nchunks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->chunks[mid].first_bin < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static dmls_series_chunk *find_chunk(const dmls_series *s, int64_t first)
{
	if (s->nchunks && s->last < s->nchunks && s->chunks[s->last].first_bin == first)
		return &s->chunks[s->last];
	size_t i = lower_bound(s, first);
	if (i < s->nchunks && s->chunks[i].first_bin == first)
		return &s->chunks[i];
	return NULL;
}

static dmls_series_chunk *get_chunk(dmls_series *s, int64_t first)
{
	if (s->nchunks) {
		if (s->chunks[s->last].first_bin == first)
			return &s->chunks[s->last];
		if (s->chunks[s->nchunks - 1].first_bin == first) {
			s->last = s->nchunks - 1;
			return &s->chunks[s->last];
		}
	}
	size_t i = (s->nchunks && s->chunks[s->nchunks - 1].first_bin < first)
			   ? s->nchunks
			   : lower_bound(s, first);
	if (i < s->nchunks && s->chunks[i].first_bin == first) {
		s->last = i;
		return &s->chunks[i];
	}
	if (s->nchunks == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 8;
		dmls_series_chunk *nc = realloc(s->chunks, ncap * sizeof(*nc));
		if (!nc)
			return NULL;
		s->chunks = nc;
		s->cap = ncap;
	}
	uint64_t *v = calloc(s->chunk_bins, sizeof(*v));
	if (!v)
		return NULL;
	memmove(&s->chunks[i + 1], &s->chunks[i], (s->nchunks - i) * sizeof(*s->chunks));
	s->chunks[i].first_bin = first;
	s->chunks[i].v = v;
	s->nchunks++;
	s->last = i;
	return &s->chunks[i];
}

int dmls_series_add_bin(dmls_series *s, int64_t k, uint64_t bytes)
{
	int64_t first = k & ~(int64_t)(s->chunk_bins - 1);
	dmls_series_chunk *c = get_chunk(s, first);
	if (!c)
		return -1;
	c->v[k - first] += bytes;
	if (k < s->min_bin)
		s->min_bin = k;
	if (k > s->max_bin)
		s->max_bin = k;
	s->total += bytes;
	return 0;
}

int dmls_series_add(dmls_series *s, int64_t ts_ns, uint64_t bytes)
{
	return dmls_series_add_bin(s, floor_div(ts_ns - s->t0_ns, s->bin_ns), bytes);
}

uint64_t dmls_series_get(const dmls_series *s, int64_t k)
{
	int64_t first = k & ~(int64_t)(s->chunk_bins - 1);
	const dmls_series_chunk *c = find_chunk(s, first);
	return c ? c->v[k - first] : 0;
}

int dmls_series_empty(const dmls_series *s)
{
	return s->min_bin > s->max_bin;
}

int64_t dmls_series_span_bins(const dmls_series *s)
{
	return dmls_series_empty(s) ? 0 : s->max_bin - s->min_bin + 1;
}

void dmls_series_dense_add(const dmls_series *s, int64_t from, size_t n, uint32_t factor,
			   double scale, double *out)
{
	if (factor == 0)
		factor = 1;
	int64_t end = from + (int64_t)n * factor;
	size_t i = lower_bound(s, from & ~(int64_t)(s->chunk_bins - 1));
	for (; i < s->nchunks && s->chunks[i].first_bin < end; i++) {
		const dmls_series_chunk *c = &s->chunks[i];
		for (uint32_t j = 0; j < s->chunk_bins; j++) {
			int64_t k = c->first_bin + j;
			if (k < from || k >= end || !c->v[j])
				continue;
			out[(k - from) / factor] += scale * (double)c->v[j];
		}
	}
}

void dmls_series_dense(const dmls_series *s, int64_t from, size_t n, uint32_t factor,
		       double *out)
{
	memset(out, 0, n * sizeof(*out));
	dmls_series_dense_add(s, from, n, factor, 1.0, out);
}

void dmls_series_foreach(const dmls_series *s, dmls_series_visit_fn fn, void *ctx)
{
	for (size_t i = 0; i < s->nchunks; i++)
		for (uint32_t j = 0; j < s->chunk_bins; j++)
			if (s->chunks[i].v[j])
				fn(s->chunks[i].first_bin + j, s->chunks[i].v[j], ctx);
}

size_t dmls_series_mem_bytes(const dmls_series *s)
{
	return s->nchunks * (size_t)s->chunk_bins * sizeof(uint64_t);
}

/* Add src's bins into dst, bin k of src landing in bin floor(k * ratio)
 * (ratio = dst width / src width, a power-of-two shift or a divisor). */
static int add_scaled(dmls_series *dst, const dmls_series *src, int64_t ratio)
{
	for (size_t i = 0; i < src->nchunks; i++)
		for (uint32_t j = 0; j < src->chunk_bins; j++) {
			uint64_t v = src->chunks[i].v[j];
			if (v && dmls_series_add_bin(dst, floor_div(src->chunks[i].first_bin + j, ratio), v))
				return -1;
		}
	return 0;
}

int dmls_series_coarsen(dmls_series *s)
{
	dmls_series t;
	dmls_series_init(&t, s->t0_ns, s->bin_ns * 2, s->chunk_bins);
	if (add_scaled(&t, s, 2)) {
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
