/*
 * calibrate.c - a job description taken from the analysis of a real run
 * (`dmlscope generate --like RUN`).
 *
 * What the analysis measures is what the generator needs: the pattern and
 * its ranks, S as doc/analysis.md derives it from the bytes per worker (ring
 * and clique S = b N / (2(N-1)), star S = b), the number of iterations and
 * the mean period, and how much the iteration durations vary (their robust
 * coefficient of variation becomes --jitter) and the link rate (below).
 * Options the user gave win over the run.  A run scaled up (other ranks,
 * S or link rate given) keeps its mean compute gap instead of its period:
 * the new collective takes the time its size says, the compute does not
 * change.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"
#include "gen/gen_int.h"

#define HEAVY_KEEP_ON 0.025 /* keep_heavy */

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (n > 0; v sorted). */
static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/*
 * The rate of one link: E(1 ms), the most wire bytes of any millisecond
 * (burstiness.c), divided by the links busy at once: every rank in a ring,
 * clique, hierarchical or pairwise job; the server's one link in a star;
 * half the ranks (one tree level) in a tree; in a butterfly the core ranks,
 * the largest power of two p <= N (plan.c: N - p extra ranks only hand
 * their vector to a core rank and get it back, one link each, so at most p
 * links are busy at once: 2 of 3 ranks).  fallback if unknown.
 *
 * Ranks on their own clocks (an asynchronous run) are busy at once as they
 * happen to meet: a 4-rank gossip run's busiest millisecond is one push, an
 * 8-rank pair averaging run's several pairs.  So there it is the busiest
 * millisecond a host sent (its payload, on the wire as full frames), the
 * median over the hosts: two short messages can share a host's busiest
 * millisecond (1.10 MB against 0.55 to 0.81 MB for the other 7 hosts).
 */
static double link_gbps(const dmls_analysis *a, double fallback, int async)
{
	double e = NAN, ranks = (double)a->pattern.ranks;
	int ms = 0;
	for (int i = 0; i < DMLS_NTAU; i++)
		if (dmls_burst_tau_s[i] == 1e-3)
			e = a->burst_total.max_window_bytes[i], ms = i;
	double busy = a->pattern.kind == DMLS_PAT_STAR ? 1
		      : a->pattern.kind == DMLS_PAT_TREE ? ranks / 2 : ranks;
	if (a->pattern.kind == DMLS_PAT_BUTTERFLY && ranks >= 2)
		busy = exp2(floor(log2(ranks)));
	double h[64];
	size_t nh = 0;
	for (size_t i = 0; async && a->burst_host && i < a->nhosts && nh < 64; i++)
		if (a->burst_host[i].max_window_bytes[ms] > 0)
			h[nh++] = a->burst_host[i].max_window_bytes[ms];
	if (nh) /* the median host: one that sent two messages in a millisecond is not */
		e = median_of(h, nh) * GEN_FRAME_WIRE_BYTES / DMLS_GEN_MSS, busy = 1;
	if (!isfinite(e) || e <= 0 || busy < 1)
		return fallback;
	double g = e * 8 / 1e-3 / 1e9 / busy;
	return g < 0.1 ? 0.1 : g > 10000 ? 10000 : g;
}

/*
 * The compute gap G of the run: its period minus the collective the
 * generator lays out for the run as measured (its ranks, S and link rate,
 * in run), so that G + the collective of the scaled job is the run's
 * period again when nothing is scaled.  0 if that is not positive.
 */
static int64_t compute_gap_ns(const dmls_gen_job *run, double period_s)
{
	dmls_error err;
	int64_t C, g = 0;
	if (gen_collective_ns(run, &C, &err) == DMLS_OK)
		g = (int64_t)llround(period_s * 1e9) - C - GEN_STEP_GAP_NS;
	return g > 0 ? g : 0;
}

/*
 * A parameter server's iteration: the workers push when their own compute
 * ends, not together, and the server answers them all once it has every
 * push and has applied the update.  Of the run's B bursts per iteration
 * the last is the server's replies, the B - 1 others the workers' pushes
 * (push_groups); a push lasts a burst (the run's median and mean burst),
 * the median gap separates pushes and precedes the replies, all within 75
 * % of the period.  The replies go out at line rate (the run's 1 ms peak).
 */
static void keep_star_chain(dmls_gen_job *job, const dmls_phases *ph, double B, double T);

static void keep_star_shape(dmls_gen_job *job, const dmls_phases *ph, double T)
{
	double B = job->buckets;
	job->buckets = 0;
	if (B < 1.5)
		return;
	job->push_groups = B - 1; /* dense_fraction: the last pushes (schedule.c) */
	/* the update before the replies: a quiet the analysis sees (its gap
	 * threshold and a bin), so the replies stay a burst of their own */
	double u = ph->gap_threshold_s + ph->bin_s;
	job->update_ns = isfinite(u) && u > 0 && u < 1 ? (int64_t)llround(u * 1e9) : 0;
	double room = ceil(B - 1) * (double)(job->bucket_span_mean_ns + job->bucket_gap_ns);
	job->bucket_room_ns = (int64_t)llround(fmin(room, 0.75 * T * 1e9));
	keep_star_chain(job, ph, B, T);
}

/*
 * A star whose busiest 10 ms hold more than its replies and a push (the
 * replies are half an iteration's bytes, a push 1 / 2W: dense_fraction >
 * (W + 1) / 2W; not the sample, 0.50 of 2 workers) has a server that
 * answers as soon as the last push is in, and
 * workers whose pushes come a few ms apart: bursts of several messages
 * (the issue-9 star: pushes at 2712, 2727 and 2737 ms, replies at 2744,
 * 2745 and 2747), as long as the run's time in bursts says, B x the mean
 * burst per iteration (10.5 ms there, of 2 ms of transfers).  The workers
 * then push one by one (schedule.c, lay_star_chain), each quiet between
 * two messages a bucket gap with probability (B - 1) / W (B bursts on
 * average), else the push gap p that gives that time in bursts: W pushes
 * of d and the replies, R = W S / M at line rate (M servers), each burst
 * one bin more (a burst of length L covers L / bin + 1 bins on average),
 * and the W - (B - 1) quiets inside bursts: p = (B mean - B bin - W d - R)
 * / (W - (B - 1)), at most the analysis's gap threshold less a bin (so it
 * stays inside a burst), at least the server's update.  Not when its
 * longest iteration (every quiet a bucket gap) would take more than 75 %
 * of the period.
 */
static void keep_star_chain(dmls_gen_job *job, const dmls_phases *ph, double B, double T)
{
	double W = (double)job->workers, M = job->servers ? (double)job->servers : 1;
	double bin = ph->bin_s, most = ph->gap_threshold_s - bin, mean = ph->bursts.mean_s;
	if (!(job->dense_fraction > (W + 1) / (2 * W)) || !(bin > 0) || !(most > 0) ||
	    !(mean > 0) || W < 1)
		return;
	double seg = GEN_FRAME_WIRE_BYTES * 8 / (job->link_gbps * 1e9); /* s */
	double d = ceil((double)job->gradient_bytes / DMLS_GEN_MSS) * seg;
	double R = W * ceil((double)job->gradient_bytes / M / DMLS_GEN_MSS) * seg;
	double inside = W - (B - 1), p = most;
	if (inside > 0.01)
		p = (B * mean - B * bin - W * d - R) / inside;
	p = fmax(GEN_SERVER_UPDATE_NS * 1e-9, fmin(p, most));
	double big = (double)(job->bucket_gap_ns > job->update_ns ? job->bucket_gap_ns
								   : job->update_ns) * 1e-9;
	if (W * (fmax(big, p) + d) + R <= 0.75 * T)
		job->push_gap_ns = (int64_t)llround(p * 1e9);
}

/*
 * The quiet between two bursts of one iteration.  The run's gaps (phases.c)
 * mix those with the K - 1 gaps between iterations, which are as many or
 * more when an iteration has 2 bursts or fewer: their median is then a gap
 * between iterations (the butterfly sample: 0.305 s against 0.05 s inside
 * its 0.44 s iterations), and a bucket placed that far after the first one
 * lands next to the next iteration.  The gaps inside iterations add up to
 * the iterations' communication spans (each from the end of the gap before
 * it, bounds_s, to its communication's end, comm_end_s) minus the time in
 * bursts; over the n - K of them that is their mean.  The median of all
 * gaps when that is not known (or not positive), and never more than it.
 */
static double comm_span_s(const dmls_analysis *a); /* below */

static double inner_gap_s(const dmls_analysis *a)
{
	const dmls_phases *ph = &a->phases;
	size_t K = a->iter.count, n = ph->bursts.n;
	double med = ph->gaps.p50_s, span = comm_span_s(a) * (double)K;
	if (!isfinite(span) || n <= K || !(ph->bursts.mean_s > 0))
		return med;
	double g = (span - ph->bursts.mean_s * (double)n) / (double)(n - K);
	return g > 0 && g < med ? g : med;
}

/* The mean time an iteration communicates: from the end of the gap before
 * it (bounds_s) to its communication's end (comm_end_s); NAN if unknown. */
static double comm_span_s(const dmls_analysis *a)
{
	const dmls_iterations *it = &a->iter;
	double span = 0;
	if (!it->bounds_s || !it->comm_end_s || it->count < 1)
		return NAN;
	for (size_t k = 0; k < it->count; k++) {
		double d = it->comm_end_s[k] - it->bounds_s[k];
		if (!isfinite(d) || d < 0)
			return NAN;
		span += d;
	}
	return span / (double)it->count;
}

/* E(tau) / the iteration's bytes: the share of an iteration in its
 * busiest tau (not peak-to-mean x tau / T: the capture's mean counts its
 * quiet start and end too), at most 0.95; NAN if unknown. */
static double busiest_share(const dmls_analysis *a, double tau)
{
	double it = isfinite(a->observed_iter_bytes) ? a->observed_iter_bytes : a->iter.iter_bytes;
	for (int i = 0; i < DMLS_NTAU; i++)
		if (dmls_burst_tau_s[i] == tau && isfinite(a->burst_total.max_window_bytes[i]) &&
		    it > 0)
			return fmin(0.95, a->burst_total.max_window_bytes[i] / it);
	return NAN;
}

/*
 * The heavy bucket: a large model's iteration holds much more in its
 * busiest 100 ms than its busiest 10 ms and an even spread of the rest
 * give (DDP's resnet50 and mobilenet runs: 0.39 to 0.94 of an iteration in
 * 100 ms, against 0.07 to 0.39 in 10 ms, their bursts over 0.5 to 1.8 s):
 * a few of its buckets carry most of the bytes.  The share of the busiest
 * 100 ms beyond the dense bucket goes right after it, paced to end inside
 * the 100 ms (GEN_HEAVY_NS); the spread buckets share the rest.  Only when
 * the spread buckets' pace (the rest of S over their spans, most of them
 * at their mean span) would leave the 100 ms share short by more than 30
 * %: a run whose bytes are even over its bursts keeps its spread.
 */
static void keep_heavy(dmls_gen_job *job, const dmls_analysis *a, double most)
{
	double f10 = job->dense_fraction, f100 = busiest_share(a, 0.1);
	double on_s = most * (double)job->bucket_span_mean_ns * 1e-9;
	if (!(f10 > 0) || !(f100 > f10) || !(on_s > 0.1))
		return;
	double even = f10 + (1 - f10) * 0.1 / on_s; /* the spread pace's 100 ms */
	if (!(f100 > 1.3 * even))
		return;
	/* the spread buckets stay bursts: a millisecond of them at least
	 * HEAVY_KEEP_ON of one of the dense bucket's (the analysis calls a
	 * millisecond on from 2 % of its 99th percentile, phases.c) */
	double h = fmin(f100 - f10, 1 - f10 - HEAVY_KEEP_ON * f10 * on_s / 0.01);
	if (!(h > 0))
		return;
	/* its pace puts h x 10 ms / GEN_HEAVY_NS beside the dense bucket's 10
	 * ms: the dense bucket gives that up (the busiest 10 ms stay the run's)
	 * to the heavy one, down to half its share */
	double beside = fmin(h * (double)GEN_DENSE_NS / GEN_HEAVY_NS, f10 / 2);
	job->dense_fraction = f10 - beside;
	job->heavy_fraction = h + beside;
}

/*
 * The shape of an iteration (--like keeps more than the means): the run's
 * bursts (phases.c: 1 ms bins, on-stretches closer than the gap threshold
 * merged) per iteration become gradient buckets, as DDP's buckets and
 * buffer broadcasts go out while the backward pass runs.  Each bucket is a
 * collective of its share of S spread over the mean burst duration, the
 * buckets start the mean burst plus the median gap apart (the gaps between
 * bursts of one iteration), capped so that an iteration's buckets fit in
 * 90 % of the period.  Nothing changes for a run of one burst per iteration.
 */
static void keep_shape(dmls_gen_job *job, const dmls_analysis *a)
{
	const dmls_phases *ph = &a->phases;
	size_t K = a->iter.count;
	double T = a->iter.period_s;
	if (K < 2 || !(T > 0) || !(ph->bursts.p50_s > 0) || !(ph->gaps.p50_s > 0) ||
	    ph->bursts.n < K + K / 10)
		return;
	job->buckets = (double)ph->bursts.n / (double)K;
	job->bucket_span_ns = (int64_t)llround(ph->bursts.p50_s * 1e9);
	job->bucket_span_mean_ns = (int64_t)llround(ph->bursts.mean_s * 1e9);
	job->bucket_gap_ns = (int64_t)llround(inner_gap_s(a) * 1e9);
	/* the share of an iteration's bytes in its busiest 10 ms */
	double f10 = busiest_share(a, 1e-2);
	if (isfinite(f10))
		job->dense_fraction = f10;
	if (job->pattern == DMLS_PAT_STAR) {
		keep_star_shape(job, ph, T);
		return;
	}
	/* the dense burst is short: the spread buckets carry the run's time in
	 * bursts, B x the mean burst (at most twice their own).  There are B -
	 * 1 of them per iteration on average, but never fewer than one (an
	 * iteration of one bucket is the dense part and a spread part back to
	 * back, schedule.c), so B / max(1, B - 1) each */
	double B = job->buckets, grow = B > 1 ? fmin(2, B / fmax(1, B - 1)) : 1;
	if (job->dense_fraction > 0) {
		job->bucket_span_ns = (int64_t)llround(ph->bursts.p50_s * grow * 1e9);
		job->bucket_span_mean_ns = (int64_t)llround(ph->bursts.mean_s * grow * 1e9);
	}
	/* room for the most spread buckets at their mean span and a gap before
	 * each, within 75 % of the period (the rest: the dense burst and the
	 * compute after the iteration's communication), and within the run's
	 * communication span of an iteration: the spread block ends there in
	 * every iteration (schedule.c), so the room is how long an iteration
	 * communicates, and one of the most buckets would stretch every
	 * iteration (a 0.9 s span became 1.2 s, and iterations touched) */
	double most = ceil(B) - (job->dense_fraction > 0), cs = comm_span_s(a) * 1e9;
	double room = most * (double)(job->bucket_span_mean_ns + job->bucket_gap_ns);
	if (isfinite(cs) && cs > B * ph->bursts.mean_s * 1e9) /* else the span is not */
		room = fmin(room, cs);                           /* the bursts' extent */
	job->bucket_room_ns = (int64_t)llround(fmin(room, 0.75 * T * 1e9));
	keep_heavy(job, a, most);
}

/*
 * The run's clock: how many iterations, their mean period, how much they
 * vary, and when the first starts and the last ends (s from st->t0_ns).  A
 * synchronous run's are its iterations'.  An asynchronous one (gossip, pair
 * averaging, an asynchronous parameter server: mode.c) has no job-wide
 * iterations: each rank keeps its own clock, and a job-wide count is not
 * the run's (a 4-rank gossip run of 36 exchanges a rank read as 141
 * iterations, and generated 309 MB for its 79).  The generator lays out
 * steps the ranks take together; the nearest it has is the ranks' median
 * count and period, the spread of their periods as the jitter, from the
 * first exchange of any rank to the last.
 */
typedef struct run_clock {
	size_t count;
	double period_s, jitter, first_s, end_s;
	double shortest_s, longest_s; /* asynchronous: the ranks' periods; else 0 */
} run_clock;

static run_clock clock_of(const dmls_analysis *a)
{
	const dmls_iterations *it = &a->iter;
	run_clock c = {it->count, it->period_s, it->duration_cv,
		       it->count >= 1 && it->starts_s ? it->starts_s[0] : NAN, it->end_s, 0, 0};
	const dmls_mode *m = &a->mode;
	if (m->mode != DMLS_MODE_ASYNC || m->nranks == 0)
		return c;
	double cnt[DMLS_MODE_MAX_RANKS], per[DMLS_MODE_MAX_RANKS], dev[DMLS_MODE_MAX_RANKS];
	double first = INFINITY, last = -INFINITY;
	size_t n = 0;
	for (size_t i = 0; i < m->nranks && n < DMLS_MODE_MAX_RANKS; i++) {
		const dmls_rank_clock *r = &m->ranks[i];
		if (!(r->period_s > 0) || r->count < 1)
			continue;
		cnt[n] = (double)r->count, per[n++] = r->period_s;
		if (r->nends) {
			first = fmin(first, r->ends[0]);
			last = fmax(last, r->ends[r->nends - 1]);
		}
	}
	if (n == 0)
		return (run_clock){0, NAN, NAN, NAN, NAN, 0, 0};
	c.count = (size_t)llround(median_of(cnt, n));
	c.period_s = median_of(per, n);
	c.shortest_s = per[0], c.longest_s = per[n - 1]; /* sorted */
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(per[i] - c.period_s);
	c.jitter = n >= 2 ? 1.4826 * median_of(dev, n) / c.period_s : 0;
	c.first_s = isfinite(first) ? first : NAN;
	c.end_s = isfinite(last) ? last : NAN;
	return c;
}

/*
 * The run's quiet start and end: a capture opens well before the first
 * iteration (processes start, connections open, the first parameters go
 * out; a bridge or `-i any` capture may run for seconds before the job
 * starts) and closes after the last (shut-down).  Both are part of the
 * capture's mean rate, and so of its peak-to-mean at every timescale; the
 * generated capture keeps them (lead: the first iteration's start from the
 * capture's first packet; tail: the capture's last packet after the last
 * byte of its iterations).  The job's own first packet would leave out the
 * quiet before the job: on a bridge capture that started 6 s early, every
 * peak-to-mean came out half the run's.
 */
static void keep_quiet(dmls_gen_job *job, const dmls_analysis *a, const run_clock *c)
{
	double t0 = isfinite(a->capture_start_s) ? a->capture_start_s
		    : isfinite(a->job_start_s)   ? a->job_start_s
						 : 0;
	double t1 = isfinite(a->capture_end_s) ? a->capture_end_s : a->job_end_s;
	if (c->count >= 1 && isfinite(c->first_s) && c->first_s > t0)
		job->lead_ns = (int64_t)llround(fmin(c->first_s - t0, 86400) * 1e9);
	if (isfinite(t1) && isfinite(c->end_s) && t1 > c->end_s)
		job->tail_ns = (int64_t)llround(fmin(t1 - c->end_s, 86400) * 1e9);
}

/*
 * How the run's iterations vary, not only how much: its periods (comm end
 * to comm end, as iterations.c measures the mean period) over their mean,
 * as DMLS_GEN_NQ quantiles (linear between order statistics).  Each
 * generated iteration draws its period from them, so a run whose steps
 * take 0.14 to 0.31 s keeps that range, skew and all.  Needs 4 periods,
 * and periods that vary (robust CV 5 % or more): a run of steady steps
 * and one outlier keeps the lognormal of its robust CV, since an outlier
 * drawn into a short run squeezes every other gap (the mean period is
 * exact) until iterations touch.
 */
static void keep_periods(dmls_gen_job *job, const dmls_analysis *a)
{
	const dmls_iterations *it = &a->iter;
	double v[64], T = it->period_s;
	if (!it->comm_end_s || it->count < 5 || !(T > 0) || !(it->duration_cv >= 0.05))
		return;
	size_t ni = it->count - 1, take = ni < 64 ? ni : 64, n = 0;
	for (size_t m = 0; m < take; m++) { /* at most 64, evenly spread */
		size_t i = 1 + m * ni / take;
		double d = it->comm_end_s[i] - it->comm_end_s[i - 1];
		if (isfinite(d) && d > 0)
			v[n++] = fmin(d / T, 50);
	}
	if (n < 4)
		return;
	qsort(v, n, sizeof(*v), by_value);
	for (int q = 0; q < DMLS_GEN_NQ; q++) {
		double x = (double)q / (DMLS_GEN_NQ - 1) * (double)(n - 1);
		size_t i = (size_t)x < n - 1 ? (size_t)x : n - 2;
		job->period_q[q] = v[i] + (x - (double)i) * (v[i + 1] - v[i]);
	}
}

/* Scaled (other ranks, S or link rate given): the collective changes, the
 * compute between collectives does not: keep the gap, not T. */
static void keep_gap(dmls_gen_job *job, unsigned set, const dmls_analysis *a, size_t hubs,
		     const run_clock *c)
{
	const dmls_pattern *p = &a->pattern;
	unsigned scaled = set & (DMLS_GEN_SET_WORKERS | DMLS_GEN_SET_GRADIENT | DMLS_GEN_SET_LINK);
	if (!scaled || (set & DMLS_GEN_SET_PERIOD) || job->iteration_ns <= 0 ||
	    job->pattern != p->kind)
		return;
	dmls_gen_job run = *job; /* the job as measured */
	if (set & DMLS_GEN_SET_WORKERS)
		run.workers = p->ranks - hubs;
	if ((set & DMLS_GEN_SET_GRADIENT) && isfinite(a->gradient_bytes) && a->gradient_bytes >= 1)
		run.gradient_bytes = (uint64_t)llround(a->gradient_bytes);
	if (set & DMLS_GEN_SET_LINK)
		run.link_gbps = link_gbps(a, 10, c->longest_s > 0);
	int64_t g = compute_gap_ns(&run, c->period_s);
	if (g > 0) {
		job->compute_gap_ns = g;
		job->iteration_ns = 0;
		/* the run's periods over T mean nothing for another T */
		memset(job->period_q, 0, sizeof(job->period_q));
	}
}

int dmls_gen_calibrate(dmls_gen_job *job, unsigned set, const struct dmls_analysis *a,
		       const char *name, dmls_error *err)
{
	const dmls_pattern *p = &a->pattern;
	if (!(set & DMLS_GEN_SET_PATTERN)) {
		const char *kind = dmls_pattern_name(p->kind);
		if (dmls_gen_pattern_parse(kind) < 0)
			return dmls_fail(err, DMLS_EBAD,
					 "'%s': pattern '%s' cannot be generated; give the pattern",
					 name, kind);
		job->pattern = p->kind;
	}
	size_t hubs = 0;
	if (job->pattern == DMLS_PAT_STAR)
		hubs = set & DMLS_GEN_SET_SERVERS ? job->servers
		       : p->kind == DMLS_PAT_STAR && p->nhubs ? p->nhubs : 1;
	if (job->pattern == DMLS_PAT_STAR && !(set & DMLS_GEN_SET_SERVERS))
		job->servers = hubs;
	if (!(set & DMLS_GEN_SET_WORKERS)) {
		if (p->ranks < hubs + 1)
			return dmls_fail(err, DMLS_EBAD,
					 "'%s': no ranks found; give the number of workers", name);
		job->workers = p->ranks - hubs;
	}
	if (!(set & DMLS_GEN_SET_GRADIENT)) {
		if (!isfinite(a->gradient_bytes) || a->gradient_bytes < 1)
			return dmls_fail(err, DMLS_EBAD,
					 "'%s': gradient size unknown for a %s; give "
					 "the gradient size", name, dmls_pattern_name(p->kind));
		job->gradient_bytes = (uint64_t)llround(a->gradient_bytes);
	}
	run_clock c = clock_of(a);
	int async = c.longest_s > 0;
	if (!(set & DMLS_GEN_SET_ITERATIONS)) {
		if (c.count < 1)
			return dmls_fail(err, DMLS_EBAD, "'%s': no iterations found; give "
					 "the number of iterations", name);
		job->iterations = c.count;
	}
	if (!(set & DMLS_GEN_SET_PERIOD) && isfinite(c.period_s) && c.period_s > 0)
		job->iteration_ns = (int64_t)llround(c.period_s * 1e9);
	/* the run's robust CV of iteration durations is T / G times smaller
	 * than that of the compute gaps; with compute most of T, take it as is */
	if (!(set & DMLS_GEN_SET_JITTER) && isfinite(c.jitter))
		job->jitter = c.jitter < 2 ? c.jitter : 2;
	if (async) {
		job->async_periods_s[0] = c.shortest_s;
		job->async_periods_s[1] = c.longest_s;
		if (job->pattern == DMLS_PAT_PAIRWISE && job->iteration_ns > 0)
			job->pair_jitter_ns = job->iteration_ns / 2;
	} else if (!(set & (DMLS_GEN_SET_JITTER | DMLS_GEN_SET_PERIOD))) {
		keep_periods(job, a);
	}
	if (!(set & DMLS_GEN_SET_LINK))
		job->link_gbps = link_gbps(a, job->link_gbps, async);
	if (job->pattern == p->kind && !async) /* bursts per job-wide iteration */
		keep_shape(job, a);
	keep_quiet(job, a, &c);
	keep_gap(job, set, a, hubs, &c);
	return DMLS_OK;
}
