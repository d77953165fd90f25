/*
 * classes.c - series that share a bin width and a memory budget.
 *
 * Every series of a class (stats.h) is on one grid from st->t0_ns; when the
 * class holds more than its budget, or (the host class) the capture's
 * active span passes span_bins bins (stats.h), every series doubles its
 * bin width (dmls_series_coarsen): resolution is lost, never bytes.
 */
#include "flow/stats_int.h"

#include <stdlib.h>
#include <string.h>

/* The i-th series of class c, NULL past the last. */
dmls_series *st_class_series(dmls_stats *st, int c, size_t i)
{
	switch (c) {
	case DMLS_CLASS_HOST:
		return i < st->nhosts ? &st->hosts[i].tx_payload : NULL;
	case DMLS_CLASS_TOTAL:
		return i == 0 ? &st->total_payload : NULL;
	case DMLS_CLASS_PAIR:
		return i < st->npairs ? &st->pairs[i].series : NULL;
	case DMLS_CLASS_WIRE:
		return i == 0 ? &st->total_wire : NULL;
	case DMLS_CLASS_REOPEN:
		return i < st->npairs ? &st->pairs[i].reopens : NULL;
	case DMLS_CLASS_FLOW:
		return i < st->nflows ? &st->flows[i].activity : NULL;
	case DMLS_CLASS_CONN:
		return i < st->nflows ? &st->flows[i].conn : NULL;
	default:
		return i == 0 && st->mergeable ? &st->fine_series : NULL;
	}
}

size_t st_class_mem(dmls_stats *st, int c)
{
	size_t m = 0;
	dmls_series *s;
	for (size_t i = 0; (s = st_class_series(st, c, i)); i++)
		m += dmls_series_mem_bytes(s);
	return m;
}

/* Double the class' bin width until it fits its budget.  Sparse traffic
 * (a burst per step) shrinks only once bins grow past a burst, so a doubling
 * that gains nothing is followed by the next; past DMLS_MAX_BIN_NS the class
 * stays as it is until its memory has doubled again (a floor of one run per
 * series and burst, bounded by the table caps). */
int st_class_coarsen(dmls_stats *st, int c)
{
	dmls_series_class *k = &st->cls[c];
	k->trigger_bytes = k->budget_bytes;
	while (k->mem_bytes > k->budget_bytes) {
		if (k->bin_ns > DMLS_MAX_BIN_NS / 2) {
			k->trigger_bytes = 2 * k->mem_bytes;
			break;
		}
		if (st_class_double(st, c))
			return -1;
	}
	return 0;
}

int st_class_double(dmls_stats *st, int c)
{
	dmls_series_class *k = &st->cls[c];
	dmls_series *s;
	for (size_t i = 0; (s = st_class_series(st, c, i)); i++)
		if (dmls_series_coarsen(s))
			return -1;
	k->bin_ns *= 2;
	k->coarsened++;
	k->active_bins = (k->active_bins + 1) / 2;
	k->last_bin /= 2; /* never negative: it starts at 0 and only grows */
	k->cache_lo = INT64_MAX, k->cache_hi = INT64_MIN; /* a new grid */
	k->mem_bytes = st_class_mem(st, c);
	return 0;
}

int st_class_span(dmls_stats *st, int c, int64_t bin)
{
	dmls_series_class *k = &st->cls[c];
	if (!k->span_bins || bin <= k->last_bin)
		return 0;
	int64_t step = bin - k->last_bin, idle = DMLS_SERIES_IDLE_NS / k->bin_ns;
	k->active_bins += step < idle ? step : idle;
	k->last_bin = bin;
	while (k->active_bins >= k->span_bins) /* each doubling halves it */
		if (st_class_double(st, c))
			return -1;
	return 0;
}

void st_class_forget(dmls_stats *st, int c, dmls_series *s)
{
	st->cls[c].mem_bytes -= dmls_series_mem_bytes(s);
	dmls_series_release(s);
}

int st_entry_single(dmls_stats *st, int c, dmls_series *s, uint64_t count, int64_t first,
		    uint64_t bytes)
{
	if (count != 1 || !dmls_series_empty(s))
		return 0;
	return st_class_add(st, c, s, first, bytes);
}

int st_class_add_slow(dmls_stats *st, int c, dmls_series *s, int64_t bin, uint64_t bytes)
{
	size_t before = dmls_series_mem_bytes(s);
	if (dmls_series_add_bin(s, bin, bytes))
		return -1;
	dmls_series_class *k = &st->cls[c];
	k->mem_bytes += dmls_series_mem_bytes(s) - before;
	if (st_class_span(st, c, bin))
		return -1;
	return k->mem_bytes > k->trigger_bytes ? st_class_coarsen(st, c) : 0;
}
