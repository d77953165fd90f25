/*
 * stretch.c - the part of a job's traffic its clocks read: its busiest
 * run (analysis.c sets it on the stats for the job's stages), then the
 * busiest stretch of that (iterations.c).
 *
 * Runs: a capture may hold several runs of a job one after another on the
 * same hosts (a sweep, a job restarted, runs replayed back to back).  Their
 * steps differ, and one period over all of them is a period of nothing (of
 * the order the runs came in, when they repeat).  A run ends where the
 * traffic between the job's hosts stops for RUN_GAP_S or more and they
 * open connections anew in that silence: a SYN between two of them that
 * had already exchanged data, or a RoCEv2 5-tuple seen first
 * (dmls_pair.reopens).  A pause inside a run
 * (an evaluation, a checkpoint) keeps its connections, so it splits
 * nothing; the busiest run, by bytes, is kept.
 *
 * Stretches: a capture that holds two sessions a week apart (or one
 * packet stamped years later) has no period at the scale of its span: its
 * job series, decimated to fit, would hold a bin per hours.  So the
 * series' runs, merged into disjoint segments, are cut at their longest
 * gap while that gap is idle: IDLE_GAP_S or more, and half the stretch's
 * span or more (a pause for an evaluation or a checkpoint inside a run is
 * not) or one side a trace of the bytes (STRAY_SHARE: a packet stamped a
 * day before a session and another a day after, neither gap half the
 * span), keeping the side with more bytes, then again.  The span's ends
 * without bytes (a series' range reaches a packet of no payload) are cut
 * where IDLE_GAP_S or longer.
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/period.h"
#include "dmlscope/analysis.h"
#include "dmlscope/series.h"
#include "dmlscope/stats.h"

#define IDLE_GAP_S 600.0 /* a gap this long, and half the span, splits sessions */
#define RUN_GAP_S 0.5    /* a silence this long with connections opened anew ends a run */
#define RUN_MIN_SEGMENTS 4 /* bursts a run holds at least */
#define RUN_MIN_SHARE 0.01 /* ... and this share of the bytes of the largest part */
#define STRAY_SHARE 0.01 /* a side of an idle gap with this share of the bytes or less */
#define RUN_ON_BYTES 1500  /* a pair's bin under this is silent: acknowledgements,
			    * a connection's end, a keepalive, a rendezvous message */

typedef struct stretch {
	int64_t a, b;  /* bins [a, b) */
	double bytes;
} stretch;

static int cmp_stretch(const void *x, const void *y)
{
	const stretch *p = x, *q = y;
	return (p->a > q->a) - (p->a < q->a);
}

/* The stretches of bins of ser[0..n) holding at least min_bytes (0: the
 * series' runs, empty bins joined in them included) that reach into bins
 * [from, to], merged into disjoint segments in time order (*k of them);
 * NULL when out of memory. */
static stretch *segments(const dmls_series *const *ser, size_t n, int64_t from, int64_t to,
			 uint64_t min_bytes, size_t *k)
{
	size_t m = 0, cap = 0;
	for (size_t i = 0; i < n; i++)
		cap += ser[i]->nruns;
	stretch *seg = malloc((cap ? cap : 1) * sizeof(*seg));
	if (!seg)
		return NULL;
	cap = cap ? cap : 1;
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < ser[i]->nruns; r++) {
			dmls_series_run u = dmls_series_run_get(ser[i], r);
			if (u.first > to || u.first + (int64_t)u.len <= from)
				continue;
			int open = 0; /* seg[m - 1] takes the bins that follow */
			for (size_t j = 0; j < u.len; j++) {
				uint64_t v = dmls_series_val(ser[i], u.off + j);
				if (min_bytes && v < min_bytes) {
					open = 0;
					continue;
				}
				if (!open) {
					if (m == cap) {
						stretch *g = realloc(seg, 2 * cap * sizeof(*seg));
						if (!g) {
							free(seg);
							return NULL;
						}
						seg = g, cap *= 2;
					}
					seg[m++] = (stretch){u.first + (int64_t)j, u.first + (int64_t)j, 0};
					open = 1;
				}
				seg[m - 1].b = u.first + (int64_t)j + 1;
				seg[m - 1].bytes += (double)v;
			}
		}
	qsort(seg, m, sizeof(*seg), cmp_stretch);
	size_t c = 0; /* merge overlapping runs of different series */
	for (size_t i = 0; i < m; i++) {
		if (c && seg[i].a <= seg[c - 1].b) {
			seg[c - 1].b = seg[i].b > seg[c - 1].b ? seg[i].b : seg[c - 1].b;
			seg[c - 1].bytes += seg[i].bytes;
		} else {
			seg[c++] = seg[i];
		}
	}
	*k = c;
	return seg;
}

/* 1 when one of rs[0..n) counted a connection opened anew in [a, b) ns
 * (give or take a bin of theirs). */
static int reopened(const dmls_series *const *rs, size_t n, int64_t a, int64_t b)
{
	for (size_t i = 0; i < n; i++) {
		const dmls_series *s = rs[i];
		int64_t ka = (a - s->t0_ns) / s->bin_ns, kb = (b - s->t0_ns) / s->bin_ns + 1;
		if (ka > s->max_bin || kb <= s->min_bin)
			continue;
		if (dmls_series_range(s, ka - 1, kb, NULL) > 0)
			return 1;
	}
	return 0;
}

/* period.h: the busiest run of the job on hosts[0..nh), read on the
 * job's pairs (their wire bytes and reopens): a host's series holds its
 * traffic with hosts outside the job too (an MPI launcher's, between one
 * run and the next). */
int dmls_job_runs(const dmls_stats *st, const size_t *hosts, size_t nh, int64_t *from_ns,
		  int64_t *to_ns, size_t *runs, dmls_run_span *list, size_t cap, size_t *nlist)
{
	*runs = 1;
	if (nlist)
		*nlist = 0;
	*from_ns = INT64_MIN, *to_ns = INT64_MAX;
	uint8_t *in = calloc(st->nhosts ? st->nhosts : 1, 1);
	const dmls_series **rs = malloc(2 * (st->npairs ? st->npairs : 1) * sizeof(*rs));
	const dmls_series **ps = rs ? rs + (st->npairs ? st->npairs : 1) : NULL;
	size_t nrs = 0, nps = 0, k = 0;
	if (!in || !rs) {
		free(in);
		free(rs);
		return -1;
	}
	for (size_t h = 0; h < nh; h++)
		in[hosts[h]] = 1;
	for (size_t i = 0; i < st->npairs; i++) {
		const dmls_pair *p = &st->pairs[i];
		if (!in[p->src] || !in[p->dst])
			continue;
		if (!dmls_series_empty(&p->reopens))
			rs[nrs++] = &p->reopens;
		if (!dmls_series_empty(&p->series))
			ps[nps++] = &p->series;
	}
	free(in);
	if (!nrs || !nps) {
		free(rs);
		return 0;
	}
	int64_t pbin = ps[0]->bin_ns, pt0 = ps[0]->t0_ns;
	stretch *seg = segments(ps, nps, INT64_MIN, INT64_MAX, RUN_ON_BYTES, &k);
	size_t *cut = seg ? malloc(3 * (k + 1) * sizeof(*cut)) : NULL;
	if (!cut) {
		free(seg);
		free(rs);
		return -1;
	}
	size_t *rlo = cut + k + 1, *rhi = rlo + k + 1;
	int64_t gap = (int64_t)ceil(RUN_GAP_S * 1e9 / (double)pbin);
	/* The parts: cut at silences with connections opened anew (taken with
	 * a bin on each side: a handshake shares the bin of its connection's
	 * first data).  Part p is seg[cut[p], cut[p + 1]), the last ends at k. */
	size_t nparts = 0;
	double most = 0, bytes = 0;
	for (size_t i = 0; i <= k; i++) {
		if (i == 0 || i == k ||
		    (seg[i].a - seg[i - 1].b >= gap &&
		     reopened(rs, nrs, pt0 + (seg[i - 1].b - 1) * pbin, pt0 + (seg[i].a + 1) * pbin))) {
			most = bytes > most ? bytes : most;
			if (i < k)
				cut[nparts++] = i;
			bytes = 0;
		}
		if (i < k)
			bytes += seg[i].bytes;
	}
	/* A part of fewer than RUN_MIN_SEGMENTS bursts, or of less than
	 * RUN_MIN_SHARE of the largest part's bytes, is not a run: the
	 * rendezvous before a job's data connections open, a run cut short
	 * by the capture's end, or a step of a job that opens a connection
	 * for every step.  With two runs or more, the busiest is searched
	 * without them; with one, nothing is cut. */
	size_t nr = 0, best = 0;
	double best_bytes = -1;
	for (size_t p = 0; p < nparts; p++) {
		size_t lo = cut[p], hi = p + 1 < nparts ? cut[p + 1] : k;
		bytes = 0;
		for (size_t i = lo; i < hi; i++)
			bytes += seg[i].bytes;
		if (hi - lo < RUN_MIN_SEGMENTS || bytes < RUN_MIN_SHARE * most)
			continue;
		if (bytes > best_bytes)
			best_bytes = bytes, best = nr;
		rlo[nr] = lo, rhi[nr++] = hi;
	}
	if (nr > 1) {
		*from_ns = pt0 + seg[rlo[best]].a * pbin;
		*to_ns = pt0 + seg[rhi[best] - 1].b * pbin;
		*runs = nr;
		for (size_t r = 0; list && r < nr && r < cap; r++) {
			bytes = 0;
			for (size_t i = rlo[r]; i < rhi[r]; i++)
				bytes += seg[i].bytes;
			list[r] = (dmls_run_span){
				(double)(pt0 + seg[rlo[r]].a * pbin - st->t0_ns) * 1e-9,
				(double)(pt0 + seg[rhi[r] - 1].b * pbin - st->t0_ns) * 1e-9, bytes,
				r == best};
			*nlist = r + 1;
		}
	}
	free(cut);
	free(seg);
	free(rs);
	return 0;
}

/* period.h: [*lo, *hi] narrowed to the analysis' window on s's grid. */
int dmls_run_bins(const dmls_stats *st, const dmls_series *s, int64_t *lo, int64_t *hi)
{
	if (st->runs <= 1)
		return *lo <= *hi;
	int64_t a = dmls_floor_div(st->run_from_ns - s->t0_ns, s->bin_ns);
	int64_t b = dmls_floor_div(st->run_to_ns - 1 - s->t0_ns, s->bin_ns);
	*lo = a > *lo ? a : *lo;
	*hi = b < *hi ? b : *hi;
	return *lo <= *hi;
}

/* period.h: a pair's payload in the analysis' window, its wire bytes
 * there times its payload share. */
double dmls_pair_payload_in_run(const dmls_stats *st, const dmls_pair *pr)
{
	if (st->runs <= 1 || pr->wire_bytes == 0)
		return (double)pr->payload_bytes;
	int64_t a = INT64_MIN, b = INT64_MAX - 1;
	if (!dmls_run_bins(st, &pr->series, &a, &b))
		return 0;
	return dmls_series_range(&pr->series, a, b + 1, NULL) * dmls_pair_series_payload(pr);
}

/* period.h: the edge cut of the job whose hosts h have at[h] < n: thr, or
 * in the analysis' window its largest pair's share DMLS_EDGE_FRACTION. */
double dmls_run_edge_cut(const dmls_stats *st, const size_t *at, size_t n, double thr)
{
	if (st->runs <= 1)
		return thr;
	double most = 0;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (at[pr->src] < n && at[pr->dst] < n && pr->src != pr->dst)
			most = fmax(most, dmls_pair_payload_in_run(st, pr));
	}
	return DMLS_EDGE_FRACTION * most;
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
	size_t k;
	stretch *seg = segments(ser, n, *from, *to, 0, &k);
	if (!seg)
		return NAN;
	double total = 0, kept;
	for (size_t i = 0; i < k; i++)
		total += seg[i].bytes;
	kept = total;
	/* idle ends: the span's bins before the first segment and after the
	 * last hold no bytes (a handshake's or an acknowledgement's packet
	 * stamped apart): cut, nothing is lost */
	if (k && seg[0].a - *from >= idle)
		*gap_cut = seg[0].a - *from;
	if (k && *to + 1 - seg[k - 1].b >= idle && *to + 1 - seg[k - 1].b > *gap_cut)
		*gap_cut = *to + 1 - seg[k - 1].b;
	size_t lo = 0, hi = k; /* the stretch: seg[lo, hi) */
	while (hi - lo >= 2) {
		size_t at = lo + 1;
		for (size_t i = lo + 1; i < hi; i++)
			if (seg[i].a - seg[i - 1].b > seg[at].a - seg[at - 1].b)
				at = i;
		int64_t gap = seg[at].a - seg[at - 1].b;
		double left = 0;
		for (size_t i = lo; i < at; i++)
			left += seg[i].bytes;
		/* idle: half the span, or a side of a trace of the bytes (a
		 * packet or two stamped apart on both sides of a session) */
		if (gap < idle || (2 * gap < seg[hi - 1].b - seg[lo].a &&
				   fmin(left, kept - left) > STRAY_SHARE * kept))
			break;
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
