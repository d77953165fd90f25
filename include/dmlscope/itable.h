/*
 * itable.h - one open-addressing hash index for every table of the one pass.
 *
 * An itable maps keys to uint32 indexes into an array the caller owns
 * (hosts, pairs, flows): the entries stay dense and in first-seen order in
 * that array, the itable only finds them.  Each slot keeps the entry's
 * index and 32 bits of its hash, so growing never asks the caller to hash
 * again, and most probes that miss are rejected without touching the
 * caller's array.  Linear probing (Knuth, TAOCP vol. 3, 6.4, algorithm L),
 * doubling at 1/2 load.  Like redis' dict.c with its dictType, the caller
 * supplies the key comparison; unlike it, entries are never removed one by
 * one: a caller that folds entries away compacts its array and rebuilds the
 * index (dmls_itable_clear, then dmls_itable_insert for each survivor).
 *
 * Ownership: dmls_itable_init / dmls_itable_release; the struct is the
 * caller's, the slots are the table's.
 */
#ifndef DMLSCOPE_ITABLE_H
#define DMLSCOPE_ITABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct dmls_islot {
	uint32_t idx;  /* UINT32_MAX: empty */
	uint32_t hash;
} dmls_islot;

typedef struct dmls_itable {
	dmls_islot *slots;
	size_t cap;    /* power of two, 0 before the first insert */
	size_t n;
} dmls_itable;

/* Does the caller's entry idx hold key? */
typedef int (*dmls_itable_eq_fn)(const void *ctx, uint32_t idx, const void *key);

void dmls_itable_init(dmls_itable *t);
void dmls_itable_release(dmls_itable *t);
/* Forget every entry, keep the slots. */
void dmls_itable_clear(dmls_itable *t);

/* Index of the entry with this hash and key, or -1. */
long dmls_itable_find(const dmls_itable *t, uint64_t hash, dmls_itable_eq_fn eq,
		      const void *ctx, const void *key);
/* Index a new entry (the caller checked it is absent).  0, or -1 when out
 * of memory (the table is unchanged). */
int dmls_itable_insert(dmls_itable *t, uint64_t hash, uint32_t idx);
/* Room for n entries in all, so that inserting up to them never grows the
 * slots (one allocation instead of a doubling and a rehash per power of
 * two).  0, or -1 when out of memory (the table is unchanged). */
int dmls_itable_reserve(dmls_itable *t, size_t n);

/* 64-bit mix (splitmix64 finalizer, Steele, Lea & Flood, OOPSLA 2014). */
static inline uint64_t dmls_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

#endif
