/*
 * pattern_two.c - two ranks: a ring all-reduce or a parameter server?
 *
 * With two hosts every shape has one edge each way, so the volume matrix
 * cannot tell a 2-rank ring all-reduce from a server with one worker.
 * Timing can: in a ring all-reduce both ranks send at the same time
 * (reduce-scatter and all-gather exchange chunks in both directions at
 * once); a worker pushes, then the server answers.  With a and b the two
 * hosts' sent payload in 1 ms bins:
 *   overlap = sum_k min(a_k, b_k) / min(sum a, sum b)
 * Below 0.2 the two take turns: a star.  The server is the host that
 * answers: the byte-weighted mean delay from the other's last sending bin
 * to its own is shorter (the server's update is quicker than the worker's
 * forward and backward pass).
 *
 * A hub (dmls_pattern_check_hub) is a parameter server only when its
 * spokes take turns with it the same way: a spoke pushes, the hub
 * answers.  The same overlap per spoke, on the pair series of hub -> spoke
 * and spoke -> hub (wire bytes: the acknowledgements of a push weigh a few
 * per cent, far below TWO_OVERLAP), tells a spoke that exchanges with the
 * hub at once, as collectives do.  Three ranks where a spoke exchanges
 * are MPICH's all-reduce for N = 3 (Thakur, Rabenseifner & Gropp 2005,
 * sec. 4: the extra rank hands its vector to a core rank and gets the
 * result back, the two core ranks run the butterfly): a butterfly.  The
 * other spoke takes turns in MPICH's; in Open MPI's its hand-over and the
 * butterfly overlap in time, and both spokes can pass TWO_OVERLAP (0.33
 * and 0.47 in one run of the testbed, under 0.2 and over it in another).
 * More spokes exchanging: a hub-shaped collective, no server
 * (p->hub_exchanges, noted).
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/period.h"
#include "dmlscope/analysis.h"

#define TWO_OVERLAP 0.2
/* The pairs' bins past which a push and its answer fall in one bin: the
 * testbed's parameter servers of 4-16 ranks read "exchanging" from 16-64
 * ms bins, the one of 3 from 3 ms (its one spoke exchanging makes it a
 * butterfly) */
#define TWO_MAX_BIN_NS 2000000LL

/* Two series side by side, a and b (in bins of one grid):
 *   overlap  sum_k min(a_k, b_k) / min(sum a, sum b)
 *   delay    byte-weighted mean delay (bins) from a's last non-empty bin
 *            before k to each of b's bins k (ab), and the other way (ba);
 *            INFINITY without any
 * read in one walk over their non-empty bins: memory of their runs, not
 * of their span (a dense copy of an hour at 1 ms was 29 MB a series). */
typedef struct two_side {
	double overlap, delay_ab, delay_ba;
} two_side;

static int side_by_side(const dmls_series *sa, const dmls_series *sb, two_side *o)
{
	if (dmls_series_empty(sa) || dmls_series_empty(sb) || sa->bin_ns != sb->bin_ns ||
	    sa->t0_ns != sb->t0_ns)
		return -1;
	double both = 0, ta = 0, tb = 0, sab = 0, wab = 0, sba = 0, wba = 0;
	int64_t la = INT64_MIN, lb = INT64_MIN; /* a's, b's last non-empty bin */
	dmls_series_walk wa, wb;
	dmls_series_walk_start(&wa, sa, 1);
	dmls_series_walk_start(&wb, sb, 1);
	while (wa.bin != INT64_MAX || wb.bin != INT64_MAX) {
		int64_t k = wa.bin < wb.bin ? wa.bin : wb.bin;
		double x = wa.bin == k ? (double)wa.val : 0, y = wb.bin == k ? (double)wb.val : 0;
		both += x < y ? x : y;
		ta += x;
		tb += y;
		if (y > 0 && la != INT64_MIN) {
			sab += y * (double)(k - la);
			wab += y;
		}
		if (x > 0 && lb != INT64_MIN) {
			sba += x * (double)(k - lb);
			wba += x;
		}
		if (x > 0) {
			la = k;
			dmls_series_walk_next(&wa);
		}
		if (y > 0) {
			lb = k;
			dmls_series_walk_next(&wb);
		}
	}
	o->overlap = both / (ta < tb ? ta : tb);
	o->delay_ab = wab > 0 ? sab / wab : INFINITY;
	o->delay_ba = wba > 0 ? sba / wba : INFINITY;
	return 0;
}

void dmls_pattern_check_two(dmls_pattern *p, const dmls_stats *st)
{
	if (p->ranks != 2 || p->kind != DMLS_PAT_RING)
		return;
	two_side t;
	if (side_by_side(&st->hosts[p->members[0]].tx_payload,
			 &st->hosts[p->members[1]].tx_payload, &t) == 0 &&
	    t.overlap < TWO_OVERLAP) {
		int b_answers = t.delay_ab < t.delay_ba;
		p->kind = DMLS_PAT_STAR;
		p->hubs[0] = p->members[b_answers ? 1 : 0];
		p->nhubs = 1;
		p->norder = 0;
		p->confidence = 0.6 + 0.4 * (1 - t.overlap / TWO_OVERLAP);
	}
}

/* The pair series a->b and b->a side by side (-1 when either is missing);
 * *bin_ns: a->b's bin width (0 without it). */
static int pair_sides(const dmls_stats *st, size_t a, size_t b, two_side *t, int64_t *bin_ns)
{
	long k1 = dmls_stats_find_pair(st, (uint32_t)a, (uint32_t)b);
	long k2 = dmls_stats_find_pair(st, (uint32_t)b, (uint32_t)a);
	*bin_ns = k1 >= 0 ? st->pairs[k1].series.bin_ns : 0;
	return k1 < 0 || k2 < 0 ? -1 : side_by_side(&st->pairs[k1].series, &st->pairs[k2].series, t);
}

/* Overlap of the pair series a->b and b->a (0 when either is missing);
 * *bin_ns: a->b's bin width (0 without it). */
static double pair_overlap(const dmls_stats *st, size_t a, size_t b, int64_t *bin_ns)
{
	two_side t;
	return pair_sides(st, a, b, &t, bin_ns) ? 0 : t.overlap;
}

/* The hub's spokes (members[0..n) but hub) that exchange with it at once
 * (*exchanging of *spokes) and the one that takes turns the most (*turns:
 * an extra rank); -1 where a pair's bins are too coarse to tell (*bin_ns). */
static int hub_spokes(const dmls_stats *st, size_t hub, const size_t *members, size_t n,
		      size_t *spokes, size_t *exchanging, size_t *turns, int64_t *bin_ns)
{
	double least = INFINITY;
	*spokes = *exchanging = 0;
	*turns = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (members[i] == hub)
			continue;
		(*spokes)++;
		double o = pair_overlap(st, hub, members[i], bin_ns);
		if (*bin_ns > TWO_MAX_BIN_NS)
			return -1;
		*exchanging += o >= TWO_OVERLAP;
		if (o < least)
			least = o, *turns = members[i];
	}
	return 0;
}

double dmls_hub_answers(const dmls_stats *st, size_t hub, const size_t *members, size_t n)
{
	double *r = malloc((n ? n : 1) * sizeof(double));
	size_t m = 0;
	for (size_t i = 0; r && i < n; i++) {
		if (members[i] == hub)
			continue;
		two_side t;
		int64_t bin;
		if (pair_sides(st, hub, members[i], &t, &bin))
			continue;
		if (isfinite(t.delay_ab) && isfinite(t.delay_ba) && t.delay_ab > 0)
			r[m++] = t.delay_ba / t.delay_ab;
	}
	double med = m ? dmls_median(r, m) : NAN;
	free(r);
	return med;
}

int dmls_hub_exchanges(const dmls_stats *st, size_t hub, const size_t *members, size_t n)
{
	size_t spokes, exchanging, turns;
	int64_t bin;
	return hub_spokes(st, hub, members, n, &spokes, &exchanging, &turns, &bin) == 0 &&
	       spokes >= 3 && 2 * exchanging >= spokes;
}

void dmls_pattern_check_hub(dmls_pattern *p, const dmls_stats *st)
{
	if (p->kind != DMLS_PAT_STAR || p->nhubs != 1 || p->partial || p->ranks < 3)
		return;
	size_t spokes, exchanging, turns;
	int64_t bin;
	if (hub_spokes(st, p->hubs[0], p->members, p->ranks, &spokes, &exchanging, &turns, &bin)) {
		p->hub_unchecked_s = (double)bin * 1e-9; /* too coarse to tell: not made */
		return;
	}
	if (exchanging == 0)
		return;
	if (p->ranks == 3) { /* one spoke exchanging, or both (Open MPI's overlap more) */
		p->kind = DMLS_PAT_BUTTERFLY;
		p->nhubs = 0;
		p->extra = turns;
		p->confidence = 0.7;
	} else if (2 * exchanging >= spokes) {
		p->hub_exchanges = 1;
	}
}
