/*
 * byteclock.c - iteration boundaries on a clock that ticks in bytes.
 *
 * A synchronous job moves almost exactly the same bytes every iteration
 * (the gradient through the same collective), while the time an iteration
 * takes jitters with the host's load (on a busy testbed by 40 % and more,
 * which smears any time-domain period).  So the quiet stretches (compute
 * phases) are placed by the cumulative bytes sent before them, and the
 * period is found in that byte domain:
 *
 *   1. gaps: runs of off bins (see iterations.c for "on"), each with its
 *      position c = cumulative job bytes before it and its length;
 *   2. h = the gap lengths histogrammed over c (64 bins per gap at least,
 *      each spread by a triangle of +-3 bins so that a period falling
 *      between two bins still makes one peak);
 *      its autocorrelation's first strong peak (period.c) is B, the bytes
 *      per iteration; then h again with triangles of +-1 % of that lag
 *      (JITTER) and its peak again: retransmissions on a lossy path make
 *      the bytes per iteration vary by about a percent, which splits the
 *      narrow peak at B into several weaker ones, so that a multiple of B
 *      (2 or 3 iterations) whose drifts happen to cancel won before (a
 *      1 % loss DDP ring: period and S doubled); a lag counts only when
 *      its double holds a peak too (dmls_period_acf_lattice): a spacing
 *      that recurs inside each step, two gaps 8.8 MB apart in a 2-rank
 *      resnet50 DDP ring's 189 MB step, is no period;
 *   3. phase: gaps folded modulo B, weighted by length, smoothed over
 *      +-2 % of B.  A step can hold several recurring gaps (DDP: the
 *      compute phase before the first, small gradient bucket, then the
 *      rest of the backward pass before the others, often as long), so
 *      the phase is the recurring one (a local maximum with at least 25 %
 *      of the heaviest) at which the job's last byte ends an iteration
 *      (within 10 % of B): training stops after a step's communication,
 *      so that family is the step boundary.  Else (a capture cut inside
 *      an iteration) the heaviest phase.  In a capture of more than
 *      PHASE_LONG iterations only the last PHASE_STEPS are folded, with
 *      the bytes per iteration (within JITTER of B) that fold them
 *      sharpest: over thousands of steps the bytes per step wander
 *      against their mean (retransmissions at a rate that changes), so
 *      the whole capture's fold places the boundaries anywhere (a real
 *      hour of DDP had its first anchor on a short hole half a step off,
 *      its first 11 s one "iteration"), and on a lossy path (1.8 % of the
 *      packets retransmitted) they wander by several % of B over 256
 *      steps already (3000 steps of a 4-rank DDP ring: a rank lost 7);
 *   4. tracking: the first anchor is the best gap within +-5 % of B of
 *      that phase (the fold placed the family that precisely; a wider
 *      window lets the other family in) in the first lattice cell
 *      holding one at least a quarter as long as the family's median gap (a millisecond's pause
 *      inside the first burst is no step boundary: seen from one rank,
 *      DDP's first iteration sends all its buckets in one burst); each next anchor is
 *      the best gap within +-25 % of B around previous + B, "best" = the
 *      longest once weighed by closeness (1 at the expected position, 0 at
 *      the window's edges), so that another family a share of B away
 *      cannot take over (in a long capture an empty window is searched
 *      again over +-50 % of B for a gap at least as long as the family's
 *      median, not in a short one: there it tiled a ring whose steps move
 *      S or 3 S in no order, which must be withheld, even after a first
 *      empty window only (13 of 40 jitter draws of that ring counted 16
 *      "steps" for its 30); a step
 *      that carries a burst of retransmissions moves every later boundary
 *      by a share of B, and a lossy ring's ranks lost 1 and 3 of 3000
 *      steps; still none, e.g. an iteration without a gap, moves the
 *      expectation on by B; an anchor with less than 0.5 B after
 *      it is the last iteration's tail, not a start), and so back from the
 *      first anchor to the capture's start (gaps at least as long as the
 *      first's minimum: where the bytes per step creep, the fold's phase
 *      fits the later steps and the early ones fall outside +-5 %; in a
 *      long capture, where the first anchor is the best of the window's
 *      first ANCHOR_CELLS cells, that minimum holds for the first 2 B
 *      only, and the steps before the window are tracked as forward).
 *      Iterations start at
 *      the on bin after each anchor; the bytes before the first anchor
 *      count as an iteration only when they are one, 0.75 B to 1.25 B
 *      (else they are warm-up: DDP's initial parameter broadcast, 0.5 B
 *      in a ring as a rank forwards it, 1.33 B from rank 0 of a ring of 4,
 *      which counted made its files one iteration too many).
 * This is phase-locking a known lattice to event positions, the idea of
 * epoch folding in pulsar timing (Leahy et al., ApJ 266, 1983), applied
 * to cumulative bytes instead of time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/period.h"

#define FOLD_BINS 256
#define WIN 0.25
#define SMOOTH 3
#define TAIL 0.5
#define PHASE_SHARE 0.25 /* a recurring family of gaps, against the heaviest */
#define END_TOL 0.1     /* the last byte ends an iteration within this share of B */
#define FIRST_WIN 0.05 /* the first anchor: within this share of B of the phase */
#define FIRST_SHARE 0.25 /* the first anchor: at least this share of the family's median gap */
#define JITTER 0.01 /* bytes per iteration vary by this much (retransmissions) */
/* A pause (a checkpoint, an evaluation, a stall of minutes) is one gap
 * thousands of steps long: weighed by its length it would be the whole
 * histogram, and its autocorrelation no period.  Pauses can also recur (an
 * evaluation every 100 steps): their lattice then outweighed the steps'
 * (a ring's hour with a 5 s pause every 100 steps of 0.2 s gave 36
 * "iterations" of 100 steps).  Weights stop at twice the gaps' 99th
 * percentile: a step's compute gap, even where a step holds a dozen
 * shorter gaps (an MPI ring's phases), while pauses are under 1 % of the
 * gaps; a pause then weighs what two steps' gaps weigh.  (The 95th
 * percentile would admit pauses every 20 steps, but an 8-rank MPI ring's
 * 14 phases a step put its compute gaps below it, and its count off.)
 * Nor do the PAUSE_FEW longest gaps set it: a short capture's two
 * evaluations between three sessions of 15 steps are 4 % of its gaps, and
 * came out as 3 iterations of 15 steps. */
#define PAUSE_CAP 2.0
#define MIN_LAG_BINS 8 /* a B narrower than this many histogram bins is unresolved */
#define PAUSE_QUANTILE 0.99
#define PAUSE_FEW 8 /* so many pauses never set the cap, whatever the gaps */
/* B from the anchors' spacing past this many steps: the histogram's bin
 * (1/lag of B, lag ~ bins / iterations) drifts the fold by ~n^2 / bins of B
 * over n iterations, which matters from a few dozen on, while over a few
 * steps one anchor off by a share of B moves the spacing more than that. */
#define REFINE_STEPS 32
#define PHASE_LONG 256 /* a capture of more steps is long: */
#define PHASE_STEPS 32  /* its phase from its last so many steps */
#define ANCHOR_CELLS 8  /* and its first anchor: the best of so many cells */
#define WINDOW_STRIDE 4 /* window_B's coarse trials */
/* A long capture's first anchor weighs gaps up to this many family
 * medians: a retransmission timeout stalls a step in its middle for 5
 * boundaries' gaps, and took the first anchor of a lossy ring's rank.
 * (Tracking weighs them whole: capped there, short gaps nearer the
 * expected place moved the testbed's periods by up to 2 %.) */
#define ANCHOR_CAP 2.0
/* A short capture's tail with this many empty windows in a row up to its
 * end is tracked again, each window searched wide (as a long capture's,
 * below): an anchor taken on a retransmission stall inside a step (0.2 s,
 * twice the boundaries' gaps) sets the lattice a share of B off, and
 * every later boundary falls outside +-WIN (an RPC worker's file at 2 %
 * loss: its last 13 steps one iteration of 13.6 B; a cut last iteration
 * holds less than B).  Searched wide after each empty window, or after
 * up to 4 in a row, short captures tiled a ring whose steps move S or
 * 3 S in no order (test_uneven_withheld), which must be withheld. */
#define RELOCK_TAIL 3
#define SPLIT_MAX 32   /* an iteration of up to so many B is steps merged */
#define SPLIT_TOL 0.35 /* within this share of B of a whole number of B */
#define SPLIT_SHARE 0.05 /* and no more of the iterations than this */

typedef struct bgap {
	double pos, len;
	double w;   /* its weight in the histogram and the fold: len, at most
		     * PAUSE_CAP times the gaps' PAUSE_QUANTILE */
	size_t bin; /* first on bin after the gap */
} bgap;

static size_t collect_gaps(dmls_bins x, size_t n, double thr, bgap *g, double *total,
			   double *end_on)
{
	double cum = 0, cum_on = 0;
	size_t ng = 0, prev = n;
	for (size_t k = 0; k < n; k++) {
		cum += dmls_bin(x, k);
		if (!dmls_bin_on(x, k, thr))
			continue;
		if (prev != n && k > prev + 1)
			g[ng++] = (bgap){cum_on, (double)(k - prev - 1), (double)(k - prev - 1), k};
		prev = k;
		cum_on = cum;
	}
	*total = cum;
	*end_on = cum_on;
	return ng;
}

/* The phase (bytes in [0, B)) where iterations begin: the gaps folded
 * modulo B, weighted by length, smoothed over +-2 % of B.  Every local
 * maximum holding at least PHASE_SHARE of the heaviest is a family of gaps
 * that recurs each iteration (in DDP: the compute phase before the first
 * gradient bucket, and the rest of the backward pass before the others).
 * The one that ends the last iteration with the job's last byte (end_on),
 * within END_TOL of B, is the step boundary; without one (a capture cut
 * mid-iteration) the heaviest. */
static double fold_smoothed(const bgap *g, size_t ng, double B, double *sm)
{
	double f[FOLD_BINS] = {0}, best = 0;
	for (size_t i = 0; i < ng; i++) {
		int j = (int)(fmod(g[i].pos, B) / B * FOLD_BINS);
		f[j < 0 ? 0 : j % FOLD_BINS] += g[i].w;
	}
	int w = FOLD_BINS / 50; /* +-2 % */
	for (int j = 0; j < FOLD_BINS; j++) {
		double s = 0;
		for (int o = -w; o <= w; o++)
			s += f[(j + o + FOLD_BINS) % FOLD_BINS];
		sm[j] = s;
		best = fmax(best, s);
	}
	return best;
}

static double fold_phase(const bgap *g, size_t ng, double B, double end_on)
{
	double sm[FOLD_BINS], best = -1, phi = 0;
	fold_smoothed(g, ng, B, sm);
	for (int j = 0; j < FOLD_BINS; j++)
		if (sm[j] > best)
			best = sm[j], phi = (j + 0.5) * B / FOLD_BINS;
	double phi_end = fmod(end_on, B), dbest = END_TOL * B;
	for (int j = 0; j < FOLD_BINS; j++) {
		double l = sm[(j + FOLD_BINS - 1) % FOLD_BINS], r = sm[(j + 1) % FOLD_BINS];
		if (!(sm[j] >= PHASE_SHARE * best && sm[j] >= l && sm[j] >= r))
			continue;
		double c = (j + 0.5) * B / FOLD_BINS, dist = fabs(c - phi_end);
		dist = fmin(dist, B - dist);
		if (dist < dbest)
			dbest = dist, phi = c;
	}
	return phi;
}

/* The bytes per iteration that fold the gaps of the last `steps`
 * iterations sharpest, within JITTER of B: the whole capture's mean B
 * differs from the window's own as the retransmissions' rate changes
 * (0.2 % more a step is 6 % of B over 32 steps: a smeared fold, whose
 * phase can put the first anchor on a short hole inside a step).  Trials
 * are as close as to move the window's last step by one fold bin,
 * searched every WINDOW_STRIDE first; the one nearest B wins a tie. */
static double window_B(const bgap *g, size_t ng, double B, double steps)
{
	double step = 1.0 / (FOLD_BINS * fmax(steps, 1)), sm[FOLD_BINS], best = -1;
	long trials = lround(JITTER / step), at = 0;
	/* every WINDOW_STRIDE trials, then the ones between around the best */
	for (int fine = 0; fine < 2; fine++) {
		long from = fine ? at - WINDOW_STRIDE + 1 : -trials, to = fine ? at + WINDOW_STRIDE : trials;
		long by = fine ? 1 : WINDOW_STRIDE;
		for (long k = from; k < to + 1; k += by) {
			double pk = fold_smoothed(g, ng, B * (1 + (double)k * step), sm);
			if (pk > best * (1 + 1e-9) || (pk >= best * (1 - 1e-9) && labs(k) < labs(at)))
				best = pk, at = k;
		}
	}
	return B * (1 + (double)at * step);
}

/* h[0..m) = the gap lengths over their byte positions (bins of d bytes),
 * each spread by a triangle of half-width w bins */
static void histogram(const bgap *g, size_t ng, double d, long w, double *h, size_t m)
{
	memset(h, 0, m * sizeof(double));
	for (size_t i = 0; i < ng; i++) {
		long j = (long)(g[i].pos / d);
		for (long o = -w + 1; o < w; o++)
			if (j + o >= 0 && j + o < (long)m)
				h[j + o] += g[i].w * (double)(w - labs(o));
	}
}

/* The gap with pos in [c - half, c + half] that is longest once weighed
 * by its closeness to c (1 at c, 0 at the edges; the first of equals):
 * a gap of another recurring family (DDP's rest of the backward pass, a
 * share of B away) must be much longer to win over the one at c.  Lengths
 * count up to cap.  Gaps ascend by pos (bytes come between any two), so
 * the window's first is found by bisection. */
static long best_in(const bgap *g, size_t ng, double c, double half, double min_len,
		    double cap)
{
	size_t lo = 0, hi = ng;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g[mid].pos < c - half)
			lo = mid + 1;
		else
			hi = mid;
	}
	long best = -1;
	double bw = 0;
	for (size_t j = lo; j < ng && g[j].pos <= c + half; j++) {
		if (g[j].len < min_len)
			continue;
		double w = fmin(g[j].len, cap) * (1 - fabs(g[j].pos - c) / half);
		if (best < 0 || w > bw)
			best = (long)j, bw = w;
	}
	return best;
}

/* The anchor expected at c while tracking: best_in over +-WIN of B; where
 * none and wide, over +-50 % for a gap at least wide_len long (a burst of
 * retransmissions moved the step). */
static long step_anchor(const bgap *g, size_t ng, double c, double B, double min_len, int wide,
			double wide_len)
{
	long b = best_in(g, ng, c, WIN * B, min_len, INFINITY);
	return b < 0 && wide ? best_in(g, ng, c, 0.5 * B, wide_len, INFINITY) : b;
}


/* Median length of the gaps of the family at phase phi (within +-2 % of
 * B): what a step boundary's gap looks like. */
static double family_len(const bgap *g, size_t ng, double B, double phi)
{
	double *v = malloc((ng ? ng : 1) * sizeof(double)), m = 0;
	size_t n = 0;
	if (!v)
		return 0;
	for (size_t i = 0; i < ng; i++) {
		double d = fabs(fmod(g[i].pos, B) - phi);
		if (fmin(d, B - d) <= 0.02 * B)
			v[n++] = g[i].len;
	}
	if (n) {
		qsort(v, n, sizeof(double), dmls_cmp_double);
		m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	}
	free(v);
	return m;
}

/* Phase, first anchor, then anchor after anchor (steps 3 and 4 above).
 * *span and *steps: bytes between the first and the last anchor and the
 * lattice steps between them (an empty window is a step too). */
static size_t track(dmls_bins x, size_t n, double thr, const bgap *g, size_t ng, double B,
		    double total, double end_on, size_t *starts, double *span, double *steps)
{
	/* a long capture's phase from its last PHASE_STEPS iterations' gaps */
	size_t i = 0, ns = 0;
	double from = total > PHASE_LONG * B ? total - PHASE_STEPS * B : 0;
	while (i < ng && g[i].pos < from)
		i++;
	double Bw = from > 0 ? window_B(g + i, ng - i, B, PHASE_STEPS) : B;
	double phi = fold_phase(g + i, ng - i, Bw, end_on);
	double fam = family_len(g + i, ng - i, Bw, phi), min_len = fam * FIRST_SHARE;
	double cap = fam > 0 && from > 0 ? ANCHOR_CAP * fam : INFINITY;
	/* the first anchor: in the first lattice cell holding one; in a long
	 * capture's window, the best of its first ANCHOR_CELLS cells (the
	 * steps' bytes wander within the window too, so that a cell's
	 * boundary can fall outside FIRST_WIN while a short hole inside the
	 * step falls in it) */
	long a = -1;
	double aw = 0;
	int cells = 0;
	for (double c = phi + floor(from / Bw) * Bw; c <= total + B; c += Bw) {
		long b = best_in(g + i, ng - i, c, FIRST_WIN * B, min_len, cap); /* the window's */
		if (b < 0)
			continue;
		b += (long)i;
		double w = fmin(g[b].len, cap) * (1 - fabs(g[b].pos - c) / (FIRST_WIN * B));
		if (a < 0 || w > aw)
			a = b, aw = w;
		if (from == 0 || ++cells >= ANCHOR_CELLS)
			break;
	}
	if (a < 0)
		return 0;
	/* back from the first anchor, as forward below: where the bytes per
	 * step creep, the fold's phase fits the later steps and the early
	 * steps' gaps fall outside FIRST_WIN (an asynchronous rank's first 21
	 * of 36 steps, make validate); at least min_len long, as the first */
	size_t *back = malloc((ng ? ng : 1) * sizeof(size_t)), nb = 0;
	double kb = 0, k_first = 0;
	for (double c = g[a].pos - B; back && c + WIN * B >= 0; c -= B) { /* none: forward only */
		kb++;
		/* min_len guards the start-up; a long capture's steps before
		 * the phase window are tracked as forward */
		int past = from > 0 && c > 2 * B;
		long b = step_anchor(g, ng, c, B, past ? 0 : min_len, past, fam);
		if (b >= 0) {
			back[nb++] = (size_t)b;
			c = g[b].pos; /* the next expectation: this anchor - B */
			k_first = kb;
		}
	}
	size_t e = nb ? back[nb - 1] : (size_t)a;
	if (g[e].pos >= 0.75 * B && g[e].pos <= 1.25 * B) { /* a whole iteration before the first gap */
		size_t k = 0;
		while (k < n && !dmls_bin_on(x, k, thr))
			k++;
		starts[ns++] = k;
	}
	while (nb)
		starts[ns++] = g[back[--nb]].bin;
	free(back);
	starts[ns++] = g[a].bin;
	double expect = g[a].pos + B, first = g[e].pos, k = k_first;
	if (k_first > 0)
		*span = g[a].pos - first, *steps = k_first;
	/* where a short capture's windows come up empty from an anchor to
	 * its end (RELOCK_TAIL of them or more), its tail is tracked again
	 * from that anchor with every window searched wide */
	double k_last = k, expect_last = expect;
	int wide = from > 0, again = 0;
	size_t missed = 0; /* empty windows since the last anchor */
	for (;;) {
		while (expect <= total) {
			long b = step_anchor(g, ng, expect, B, 0, wide, fam);
			if (b >= 0 && total - g[b].pos < TAIL * B) {
				missed = 0;
				break; /* the tail of the last iteration, not a new one */
			}
			k++;
			if (b < 0) {
				expect += B;
				missed++;
				continue;
			}
			missed = 0;
			starts[ns++] = g[b].bin;
			expect = g[b].pos + B;
			*span = g[b].pos - first;
			*steps = k;
			k_last = k, expect_last = expect;
		}
		if (wide || again || missed < RELOCK_TAIL)
			break;
		again = wide = 1;
		k = k_last, expect = expect_last;
	}
	return ns;
}

/* The whole number k of steps of B bytes from a to b (1 if none fits, k
 * from 2 to SPLIT_MAX within SPLIT_TOL of B). */
static long merged_steps(double a, double b, double B)
{
	double D = b - a;
	long k = isfinite(D) ? lround(D / B) : 1;
	return k >= 2 && k <= SPLIT_MAX && fabs(D - (double)k * B) <= SPLIT_TOL * B ? k : 1;
}

/* Iterations that hold k = 2..SPLIT_MAX times B (within SPLIT_TOL of B):
 * tracking missed the boundaries inside them, where waits within a step
 * outlast its compute gap (a rank whose partners stall on a lossy path:
 * 9 of 400 steps of a Rabenseifner rank's file merged into their
 * neighbours), or where a step's retransmissions moved the next ones out
 * of its window until they drifted back (a butterfly rank's file over a
 * path losing 2 %: 11.9 B in one iteration, 182 of 200 steps).  Each is
 * split at the gaps best placed (best_in, +-WIN of its k-th share) at its
 * bytes' k-th shares, or where none is there (the steps ran back to back)
 * at the on bin where its bytes reach that share.  The last iteration,
 * which may be cut, is left whole; the starts stay within the caller's
 * room (period.h).  Only while such iterations are rare (SPLIT_SHARE): a
 * job whose steps move S or 3 S in no order has no unit, and must stay
 * unsure (test_uneven_withheld).  starts[0..ns) in, the count out. */
static size_t split_merged(dmls_bins x, double thr, const bgap *g, size_t ng, double B,
			   size_t *starts, size_t ns)
{
	size_t room = DMLS_BYTECLOCK_ROOM(ng); /* what the caller holds */
	size_t *out = malloc((room > ns ? room : ns) * sizeof(size_t)), no = 0, gi = 0;
	double *pos = malloc((ns ? ns : 1) * sizeof(double));
	if (!out || !pos) {
		free(out);
		free(pos);
		return ns;
	}
	for (size_t i = 0; i < ns; i++) { /* a start's bytes before it: its gap's */
		while (gi < ng && g[gi].bin < starts[i])
			gi++;
		pos[i] = gi < ng && g[gi].bin == starts[i] ? g[gi].pos : i ? NAN : 0;
	}
	size_t merged = 0;
	for (size_t i = 0; i + 2 < ns; i++)
		merged += merged_steps(pos[i], pos[i + 1], B) > 1;
	if (merged > SPLIT_SHARE * (double)ns) { /* steps of several sizes, not lost ones */
		free(out);
		free(pos);
		return ns;
	}
	for (size_t i = 0; i < ns; i++) {
		out[no++] = starts[i];
		if (i + 2 >= ns)
			continue;
		long k = merged_steps(pos[i], pos[i + 1], B);
		if (k < 2)
			continue;
		double D = pos[i + 1] - pos[i];
		double share = D / (double)k, last = pos[i], cum = pos[i];
		size_t at = starts[i];
		for (long j = 1; j < k; j++) {
			double want = pos[i] + (double)j * share;
			if (no + (ns - i - 1) >= room)
				break; /* the starts to come need the room left */
			long b = best_in(g, ng, want, WIN * share, 0, INFINITY);
			if (b >= 0 && g[b].pos > last && g[b].pos < pos[i + 1]) {
				out[no++] = g[b].bin;
				last = g[b].pos;
				continue;
			}
			/* no gap there: the steps ran back to back (the rank waited
			 * for its partners through its compute), so the on bin
			 * where the bytes reach it */
			while (at < starts[i + 1] && cum + dmls_bin(x, at) <= want)
				cum += dmls_bin(x, at++);
			if (at > out[no - 1] && at < starts[i + 1] && dmls_bin_on(x, at, thr) &&
			    cum > last) {
				out[no++] = at;
				last = cum;
			}
		}
	}
	memcpy(starts, out, no * sizeof(size_t));
	free(out);
	free(pos);
	return no;
}

/* The lag (bins of total / m) of the lattice autocorrelation of the gaps'
 * histogram over their first span bytes, smoothed, then again as wide as
 * the bytes jitter; -1 when none. */
static double histogram_lag(dmls_fft *fft, const bgap *g, size_t ng, double span, double *h,
			    size_t m, double *peak)
{
	double d = span / (double)m;
	histogram(g, ng, d, SMOOTH, h, m);
	double lag = dmls_period_acf_lattice(fft, h, m, peak);
	long wide = lround(JITTER * lag);
	if (lag > 0 && wide > SMOOTH) {
		histogram(g, ng, d, wide, h, m);
		lag = dmls_period_acf_lattice(fft, h, m, peak);
	}
	return lag;
}

size_t dmls_byteclock_starts(dmls_fft *fft, dmls_bins x, size_t n, double thr,
			     size_t *starts, double *B_out, double *peak)
{
	*B_out = NAN;
	*peak = NAN;
	size_t cap = 1, prev = n;
	for (size_t k = 0; k < n; k++) /* count the gaps first */
		if (dmls_bin_on(x, k, thr)) {
			cap += prev != n && k > prev + 1;
			prev = k;
		}
	bgap *g = malloc(cap * sizeof(bgap));
	double total = 0;
	double end_on = 0;
	size_t ng = g ? collect_gaps(x, n, thr, g, &total, &end_on) : 0, ns = 0;
	double *len = ng ? malloc(ng * sizeof(double)) : NULL;
	if (len) {
		for (size_t i = 0; i < ng; i++)
			len[i] = g[i].len;
		/* the PAUSE_QUANTILE, or below the PAUSE_FEW longest gaps */
		double q = fmin(PAUSE_QUANTILE, 1 - (double)PAUSE_FEW / (double)ng);
		double cap_len = PAUSE_CAP * dmls_quantile_select(len, ng, q > 0 ? q : 0);
		for (size_t i = 0; i < ng; i++)
			g[i].w = fmin(g[i].len, cap_len);
		free(len);
	}
	size_t m = 4096;
	while (m < 64 * ng && m < ((size_t)1 << 17))
		m <<= 1;
	/* the histogram in the transform's buffer: its autocorrelation runs in
	 * place (histogram_lag fills it anew for each) */
	double *h = ng >= 3 && total > 0 ? dmls_fft_points(fft, m) : NULL;
	if (!h)
		goto out;
	double lag = histogram_lag(fft, g, ng, total, h, m, peak);
	/* More steps than the histogram resolves (a long capture's tens of
	 * thousands): B from the bytes of the first m / 64 gaps, as a shorter
	 * capture gives it.  Where that B spans fewer than MIN_LAG_BINS bins
	 * of the whole histogram, what the whole found is a multiple of it (11
	 * steps, or 117 on 6 hours of 0.1 s steps), or nothing: the first
	 * gaps' B stands, and tracking runs over all. */
	if (ng > m / 64 && g[m / 64].pos > 0) {
		double pk, part = g[m / 64].pos, l = histogram_lag(fft, g, ng, part, h, m, &pk);
		double whole = l * part / total; /* in bins of the whole histogram */
		if (l > 0 && pk >= 0.15 && (whole < MIN_LAG_BINS || !(lag > 0) || !(*peak >= 0.15)))
			lag = whole, *peak = pk;
	}
	double d = total / (double)m;
	if (!(lag > 0) || !(*peak >= 0.15))
		goto out;
	/* B from the histogram is quantized by its bin (1 / lag of B): over a
	 * long capture's thousands of iterations that drifts the fold by
	 * several B.  The anchors' own spacing does not drift: track once,
	 * take B as their mean spacing, then fold and track again (from
	 * REFINE_STEPS steps on). */
	double B = lag * d;
	for (int pass = 0; pass < 2; pass++) {
		double span = 0, steps = 0;
		ns = track(x, n, thr, g, ng, B, total, end_on, starts, &span, &steps);
		if (pass > 0 || !(steps >= REFINE_STEPS) || !(span > 0))
			break;
		double B1 = span / steps;
		B = B1;
	}
	ns = split_merged(x, thr, g, ng, B, starts, ns);
	*B_out = B;
out:
	free(g);
	return ns;
}
