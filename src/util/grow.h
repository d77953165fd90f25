/*
 * grow.h - room for one more element in a doubling array (internal).
 *
 * The arrays of the one pass (hosts, pairs, flows, series runs, dedup
 * flows, log rows) all grow the same way; this is that way, once.
 */
#ifndef DMLS_UTIL_GROW_H
#define DMLS_UTIL_GROW_H

#include <stddef.h>
#include <stdlib.h>

/* Make *arr (of *cap elements of elem bytes) hold at least n + 1: double
 * it, or allocate first elements.  0, or -1 when out of memory (*arr and
 * *cap unchanged). */
static inline int dmls_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : first;
	if (ncap <= n || ncap > SIZE_MAX / elem)
		return -1;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

#endif
