/*
 * rank_select.c - exact order statistics of integer sequences that are not
 * held in memory.
 *
 * A caller whose values (bin byte counts, burst lengths in bins) come out
 * of a walk over a series can ask for the k-th smallest of each of several
 * sequences without copying them: most-significant-digit radix selection
 * (Knuth, TAOCP vol. 3, 5.2.5; the "radix select" of e.g. GPU top-k work),
 * a pass over the values per digit of RANK_DIGIT_BITS bits.  Each pass
 * counts, for every target, the next digit of the values that share the
 * digits found so far, and keeps the bucket where the target's rank falls.
 * Memory is one histogram per target whatever the number of values; the
 * passes are as many as the largest value has digits (a 1 ms bin's bytes
 * at 100 Gbit/s: 2 passes; a burst of up to 2^22 bins: 2).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"

#define RANK_DIGIT_BITS 11
#define RANK_BUCKETS (1u << RANK_DIGIT_BITS)

typedef struct target {
	unsigned seq;
	uint64_t rank;   /* still to skip within the values matching `known` */
	uint64_t known;  /* the value's bits above `shift` */
	unsigned shift;  /* bits below it are still unknown */
	unsigned width;  /* this pass's digit: bits [shift - width, shift) */
} target;

typedef struct selector {
	target *t;
	size_t nt;
	uint64_t *hist;  /* nt x RANK_BUCKETS */
} selector;

static void count_digit(void *ctx, unsigned seq, uint64_t v)
{
	selector *s = ctx;
	for (size_t i = 0; i < s->nt; i++) {
		target *t = &s->t[i];
		if (t->seq != seq || t->width == 0)
			continue;
		if (t->shift < 64 && (v >> t->shift) != t->known)
			continue;
		unsigned lo = t->shift - t->width;
		s->hist[i * RANK_BUCKETS + ((v >> lo) & ((1u << t->width) - 1))]++;
	}
}

int dmls_rank_select(dmls_rank_walk walk, void *ctx, const dmls_rank_ask *ask, size_t n,
		     uint64_t *out)
{
	selector s = {.t = calloc(n ? n : 1, sizeof(target)), .nt = n};
	s.hist = s.t ? malloc((n ? n : 1) * RANK_BUCKETS * sizeof(uint64_t)) : NULL;
	if (!s.hist) {
		free(s.t);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned bits = 0;
		while (bits < 64 && (ask[i].max >> bits))
			bits++;
		s.t[i] = (target){.seq = ask[i].seq, .rank = ask[i].rank, .shift = bits};
	}
	for (;;) {
		int more = 0;
		for (size_t i = 0; i < n; i++) {
			target *t = &s.t[i];
			t->width = t->shift < RANK_DIGIT_BITS ? t->shift : RANK_DIGIT_BITS;
			more |= t->width > 0;
		}
		if (!more)
			break;
		memset(s.hist, 0, n * RANK_BUCKETS * sizeof(uint64_t));
		walk(ctx, count_digit, &s);
		for (size_t i = 0; i < n; i++) {
			target *t = &s.t[i];
			if (t->width == 0)
				continue;
			const uint64_t *h = &s.hist[i * RANK_BUCKETS];
			uint64_t b = 0, last = (1u << t->width) - 1;
			while (b < last && t->rank >= h[b])
				t->rank -= h[b++];
			t->known = (t->known << t->width) | b;
			t->shift -= t->width;
		}
	}
	for (size_t i = 0; i < n; i++)
		out[i] = s.t[i].known;
	free(s.hist);
	free(s.t);
	return 0;
}
