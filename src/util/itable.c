/*
 * itable.c - open-addressing index (see itable.h).
 */
#include "dmlscope/itable.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY UINT32_MAX

void dmls_itable_init(dmls_itable *t)
{
	memset(t, 0, sizeof(*t));
}

void dmls_itable_release(dmls_itable *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

void dmls_itable_clear(dmls_itable *t)
{
	if (t->slots)
		memset(t->slots, 0xff, t->cap * sizeof(*t->slots));
	t->n = 0;
}

long dmls_itable_find(const dmls_itable *t, uint64_t hash, dmls_itable_eq_fn eq,
		      const void *ctx, const void *key)
{
	if (!t->cap)
		return -1;
	uint32_t h32 = (uint32_t)hash;
	for (size_t i = h32 & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const dmls_islot *s = &t->slots[i];
		if (s->idx == EMPTY)
			return -1;
		if (s->hash == h32 && eq(ctx, s->idx, key))
			return (long)s->idx;
	}
}

static void place(dmls_islot *slots, size_t cap, uint32_t h32, uint32_t idx)
{
	size_t i = h32 & (cap - 1);
	while (slots[i].idx != EMPTY)
		i = (i + 1) & (cap - 1);
	slots[i].idx = idx;
	slots[i].hash = h32;
}

/* The slots doubled, or made of ncap (a power of two) when larger. */
static int grow_to(dmls_itable *t, size_t ncap)
{
	dmls_islot *ns = malloc(ncap * sizeof(*ns));
	if (!ns)
		return -1;
	memset(ns, 0xff, ncap * sizeof(*ns));
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].idx != EMPTY)
			place(ns, ncap, t->slots[i].hash, t->slots[i].idx);
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
}

static int grow(dmls_itable *t)
{
	return grow_to(t, t->cap ? t->cap * 2 : 64);
}

int dmls_itable_reserve(dmls_itable *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 64;
	if (n > SIZE_MAX / 4)
		return -1;
	while ((n + 1) * 2 > cap) /* the load insert keeps */
		cap *= 2;
	return cap > t->cap ? grow_to(t, cap) : 0;
}

int dmls_itable_insert(dmls_itable *t, uint64_t hash, uint32_t idx)
{
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return -1;
	place(t->slots, t->cap, (uint32_t)hash, idx);
	t->n++;
	return 0;
}
