/*
 * stretch.c - the busiest stretch of a job's traffic (iterations.c).
 *
 * A capture that holds two sessions a week apart (or one packet stamped
 * years later) has no period at the scale of its span: its job series,
 * decimated to fit, would hold a bin per hours.  So the series' runs,
 * merged into disjoint segments, are cut at their longest gap while that
 * gap is idle: IDLE_GAP_S or more, and half the stretch's span or more (a
 * pause for an evaluation or a checkpoint inside a run is not), keeping
 * the side with more bytes, then again.
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/period.h"
#include "dmlscope/series.h"

#define IDLE_GAP_S 600.0 /* a gap this long, and half the span, splits sessions */

typedef struct stretch {
	int64_t a, b;  /* bins [a, b) */
	double bytes;
} stretch;

static int cmp_stretch(const void *x, const void *y)
{
	const stretch *p = x, *q = y;
	return (p->a > q->a) - (p->a < q->a);
}

/* period.h: [*from, *to] narrowed to the busiest stretch; the share of
 * the bytes kept, the longest gap cut (bins). */
double dmls_busiest_stretch(const dmls_series *const *ser, size_t n, int64_t *from, int64_t *to,
			    int64_t *gap_cut)
{
	double bin_s = (double)ser[0]->bin_ns * 1e-9;
	int64_t idle = (int64_t)ceil(IDLE_GAP_S / bin_s);
	*gap_cut = 0;
	if (*to - *from + 1 <= 2 * idle)
		return 1;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += ser[i]->nruns;
	stretch *seg = malloc((m ? m : 1) * sizeof(*seg));
	if (!seg)
		return NAN;
	m = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < ser[i]->nruns; r++) {
			const dmls_series_run *u = &ser[i]->runs[r];
			double b = 0;
			for (uint32_t j = 0; j < u->len; j++)
				b += (double)dmls_series_val(ser[i], u->off + j);
			seg[m++] = (stretch){u->first, u->first + u->len, b};
		}
	qsort(seg, m, sizeof(*seg), cmp_stretch);
	size_t k = 0; /* merge overlapping runs of different series */
	for (size_t i = 0; i < m; i++) {
		if (k && seg[i].a <= seg[k - 1].b) {
			seg[k - 1].b = seg[i].b > seg[k - 1].b ? seg[i].b : seg[k - 1].b;
			seg[k - 1].bytes += seg[i].bytes;
		} else {
			seg[k++] = seg[i];
		}
	}
	double total = 0, kept;
	for (size_t i = 0; i < k; i++)
		total += seg[i].bytes;
	kept = total;
	size_t lo = 0, hi = k; /* the stretch: seg[lo, hi) */
	while (hi - lo >= 2) {
		size_t at = lo + 1;
		for (size_t i = lo + 1; i < hi; i++)
			if (seg[i].a - seg[i - 1].b > seg[at].a - seg[at - 1].b)
				at = i;
		int64_t gap = seg[at].a - seg[at - 1].b;
		if (gap < idle || 2 * gap < seg[hi - 1].b - seg[lo].a)
			break;
		double left = 0;
		for (size_t i = lo; i < at; i++)
			left += seg[i].bytes;
		if (left >= kept - left)
			hi = at, kept = left;
		else
			lo = at, kept -= left;
		*gap_cut = gap > *gap_cut ? gap : *gap_cut;
	}
	if (k && *gap_cut > 0) {
		*from = seg[lo].a;
		*to = seg[hi - 1].b - 1;
	}
	free(seg);
	return total > 0 ? kept / total : 1;
}
