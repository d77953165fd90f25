/*
 * schedule.c - the job description becomes timed messages.
 *
 * Time line.  The capture opens with the TCP handshakes of every connection
 * (one long-lived connection per pair of hosts that talk, as Gloo, NCCL and
 * parameter servers keep them; never one per iteration), 30 us apart, then
 * 1 ms of quiet: together H.  Every iteration is a compute gap, then the
 * collective (plan.c); a job with a lead (--like: the run's start-up) starts
 * its first collective no earlier than that, and one with a tail closes its
 * connections that long after its last message (pcap_writer.c).  C is the longest collective of the job (plus 20
 * us), T the period, G = T - C the mean compute gap.  The first collective
 * starts at H + G; each next one C + G x_k after the one before, where x_k
 * is lognormal with mean 1 and coefficient of variation --jitter (step
 * times are skewed: a few slow steps, never a negative gap), or, for a job
 * with a run's period quantiles (--like), (T q - C) / G for a period T q
 * drawn from them (at least G / 2), normalized so
 * the gaps the analysis measures its period over add up to exactly their
 * number times G: from the second on for 4 iterations or more (the first
 * interval is a job's start-up, left out: DMLS_STEADY_FROM), else all
 * K - 1.  So collectives never overlap, steps jitter as much as asked, and
 * the mean period, (last start - second start) / (K - 2), is T to the
 * nanosecond.  Without
 * --iteration-time, T = C + the job's compute gap when it has one (a run
 * scaled up by --like keeps its measured gap), else 2.5 C rounded up to
 * 1 ms (communication 40 % of an iteration).
 *
 * Pacing.  A step's transfers share links the way TCP shares them (fair
 * share, Jain et al. 1984): a transfer from a host sending f messages at
 * once to a host receiving i messages at once gets link / max(f, i), so a
 * parameter server's incast runs at link / W per worker.  Segments of a
 * message are then spaced by (frame + 24 bytes of preamble, FCS and
 * inter-frame gap) x 8 / rate.  A step starts when the one before it has
 * been received and acknowledged, plus 20 us (+ up to 10 us) for the
 * reduction and the kernel launch; the parameter server adds 200 us to
 * apply the update before the pull.  Asynchronous pairs start up to 500 us
 * apart.
 *
 * A star that --like calibrated (push groups or a push gap) has its own
 * layout of an iteration, in star.c.
 *
 * All randomness is a hash of (seed, what, iteration, index) (gen_int.h),
 * so the same job gives the same schedule whatever the order of work.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"
#include "gen/gen_int.h"
#include "gen/layout.h"

const char *dmls_gen_phase_name(int phase)
{
	static const char *const names[DMLS_GEN_NPHASES] = {
		"reduce-scatter", "all-gather", "push", "pull", "reduce", "broadcast",
		"exchange", "intra-reduce-scatter", "intra-all-gather",
		"inter-reduce-scatter", "inter-all-gather"};
	return phase >= 0 && phase < DMLS_GEN_NPHASES ? names[phase] : "unknown";
}

int dmls_gen_pattern_parse(const char *name)
{
	static const int kinds[] = {DMLS_PAT_RING, DMLS_PAT_TREE, DMLS_PAT_STAR,
				    DMLS_PAT_CLIQUE, DMLS_PAT_HIERARCHICAL, DMLS_PAT_PAIRWISE,
				    DMLS_PAT_BUTTERFLY};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(name, dmls_pattern_name(kinds[i])))
			return kinds[i];
	return -1;
}

void dmls_gen_host_addr(uint32_t h, char *buf, size_t len)
{
	snprintf(buf, len, "198.18.%u.%u", (h + 1) >> 8, (h + 1) & 0xff);
}

/* Smallest divisor of n whose square reaches n (8 -> 4, 9 -> 3, 12 -> 4);
 * for a prime, ceil(sqrt(n)) with a smaller last group. */
static size_t auto_group(size_t n)
{
	for (size_t d = 2; d < n; d++)
		if (d * d >= n && n % d == 0)
			return d;
	size_t g = (size_t)ceil(sqrt((double)n));
	return g < 2 ? 2 : g;
}

static int check_job(dmls_gen_job *job, size_t *nhosts, dmls_error *err)
{
	int star = job->pattern == DMLS_PAT_STAR;
	if (dmls_pattern_name(job->pattern)[0] == 'u')
		return dmls_fail(err, DMLS_EUSAGE, "pattern %d cannot be generated", job->pattern);
	size_t min = job->pattern == DMLS_PAT_HIERARCHICAL ? 4 : star ? 1 : 2;
	if (job->workers < min)
		return dmls_fail(err, DMLS_EUSAGE, "workers: %s needs at least %zu",
				 dmls_pattern_name(job->pattern), min);
	if (!star)
		job->servers = 0;
	else if (job->servers == 0)
		job->servers = 1;
	*nhosts = job->workers + job->servers;
	if (*nhosts > DMLS_GEN_MAX_HOSTS)
		return dmls_fail(err, DMLS_EUSAGE, "workers: at most %d hosts",
				 DMLS_GEN_MAX_HOSTS);
	if (job->gradient_bytes == 0)
		return dmls_fail(err, DMLS_EUSAGE, "the gradient size must be positive");
	if (job->iterations == 0)
		return dmls_fail(err, DMLS_EUSAGE, "the number of iterations must be positive");
	if (job->link_gbps == 0)
		job->link_gbps = 10;
	if (!(job->link_gbps > 0 && job->link_gbps <= 10000))
		return dmls_fail(err, DMLS_EUSAGE, "the link rate must be in (0, 10000] Gbit/s");
	if (!(job->jitter >= 0 && job->jitter <= 2))
		return dmls_fail(err, DMLS_EUSAGE, "the jitter must be in [0, 2]");
	if (job->iteration_ns < 0 || job->compute_gap_ns < 0)
		return dmls_fail(err, DMLS_EUSAGE, "the iteration time must be positive");
	for (int i = 0; i < DMLS_GEN_NQ; i++)
		if (!(job->period_q[i] >= (i ? job->period_q[i - 1] : 0) && job->period_q[i] < 100))
			return dmls_fail(err, DMLS_EUSAGE, "the period quantiles must be "
					 "non-decreasing, in [0, 100)");
	if (!(job->push_groups >= 0 && job->push_groups <= DMLS_GEN_MAX_HOSTS))
		return dmls_fail(err, DMLS_EUSAGE, "the push groups must be in [0, %d]",
				 DMLS_GEN_MAX_HOSTS);
	if (!(job->dense_fraction >= 0 && job->heavy_fraction >= 0 &&
	      job->dense_fraction + job->heavy_fraction <= 1))
		return dmls_fail(err, DMLS_EUSAGE, "the dense and heavy buckets' shares of the "
				 "gradient must be in [0, 1] together");
	if (job->pair_jitter_ns < 0 || job->pair_jitter_ns > GEN_MAX_QUIET_NS)
		return dmls_fail(err, DMLS_EUSAGE, "the pairs' start jitter must be in [0, 1 day]");
	if (job->lead_ns < 0 || job->tail_ns < 0 || job->lead_ns > GEN_MAX_QUIET_NS ||
	    job->tail_ns > GEN_MAX_QUIET_NS || job->update_ns < 0 ||
	    job->update_ns > GEN_MAX_QUIET_NS || job->push_gap_ns < 0 ||
	    job->push_gap_ns > GEN_MAX_QUIET_NS)
		return dmls_fail(err, DMLS_EUSAGE, "the quiet before the first iteration, "
				 "after the last, between pushes and before a server's "
				 "replies must be in [0, 1 day]");
	if (job->pattern == DMLS_PAT_HIERARCHICAL) {
		if (job->group_size == 0)
			job->group_size = auto_group(job->workers);
		if (job->group_size < 2 || job->group_size * 2 > job->workers)
			return dmls_fail(err, DMLS_EUSAGE,
					 "group size: need 2 or more groups of 2 or more ranks");
	}
	return DMLS_OK;
}

static int64_t step_gap_ns(const dmls_gen_schedule *s, uint32_t k, uint32_t step, int phase)
{
	double j = gen_u01(s->job.seed, GEN_R_STEP, k, step);
	int64_t gap = GEN_STEP_GAP_NS + (int64_t)(j * GEN_STEP_JITTER_NS);
	return phase == DMLS_GEN_PULL ? gap + GEN_SERVER_UPDATE_NS : gap;
}

/* Lay out the collective of S = bytes (bucket b of iteration k) from t0,
 * its steps numbered from step0, with extra ns between steps; returns its
 * end or -1. */
static int64_t lay_collective(layout *L, gen_plan *p, uint32_t k, uint64_t bytes, uint32_t step0,
			      int64_t t0, int64_t extra, int store)
{
	dmls_gen_job job = L->s->job;
	job.gradient_bytes = bytes;
	if (gen_plan_iteration(p, &job, k))
		return -1;
	int64_t t = t0;
	for (size_t i = 0; i < p->n;) {
		size_t j = i;
		while (j < p->n && p->x[j].step == p->x[i].step)
			j++;
		if (i > 0)
			t += step_gap_ns(L->s, k, step0 + p->x[i].step, p->x[i].phase) + extra;
		for (size_t m = i; m < j; m++)
			p->x[m].step += step0;
		t = gen_lay_step(L, p->x + i, j - i, k, t, store);
		if (t < 0)
			return -1;
		i = j;
	}
	return t;
}

/* Buckets of iteration k: floor or ceil of job->buckets, their mean
 * job->buckets. */
static uint32_t buckets_of(const dmls_gen_job *job, uint32_t k)
{
	return gen_count_of(job, job->buckets < 1 ? 1 : job->buckets, k, 2);
}

/* Lay a bucket: bytes from start, paced slower to last span (0: at line
 * rate; a gradient bucket goes out as the backward pass computes it);
 * returns its end or -1; *step0 advances past its steps. */
static int64_t lay_bucket(layout *L, gen_plan *p, uint32_t k, uint64_t bytes, uint32_t *step0,
			  int64_t start, int64_t span, int store)
{
	double frame = L->frame_ns;
	int64_t c = lay_collective(L, p, k, bytes, *step0, start, 0, 0);
	uint32_t nsteps = p->nsteps;
	if (c < 0)
		return -1;
	if (span && c - start > 0 && span > c - start)
		L->frame_ns *= (double)span / (double)(c - start);
	int64_t e = lay_collective(L, p, k, bytes, *step0, start, 0, store);
	L->frame_ns = frame;
	*step0 += nsteps;
	return e;
}

/*
 * Lay out iteration k's communication from t0; returns its end or -1.
 * One collective of S, or (job->buckets > 1) the gradient in buckets, as
 * data-parallel frameworks send it while the backward pass runs: bucket
 * spans are lognormal (gen_bucket_spans), each bucket's collective paced to
 * last its span, a gap between buckets.  With a dense bucket
 * (dense_fraction of S at line rate, the burst that makes the run's 10 ms
 * peak) first, the spread buckets share the rest of S in proportion to
 * their spans and are placed to end at the same offset in every iteration,
 * so iterations start and end as regularly as the run's.  One bucket (B =
 * 1) is the dense part and its spread part back to back: one burst.
 */
static int64_t lay_iteration(layout *L, gen_plan *p, uint32_t k, int64_t t0, int store)
{
	const dmls_gen_job *job = &L->s->job;
	uint32_t B = buckets_of(job, k), step0 = 0;
	if (job->pattern == DMLS_PAT_STAR && (job->push_groups >= 1 || job->push_gap_ns > 0))
		return gen_lay_star(L, p, k, t0, store);
	if (job->buckets <= 1)
		return lay_collective(L, p, k, job->gradient_bytes, 0, t0, 0, store);
	B = B > 64 ? 64 : B;
	double f = job->dense_fraction, h = f > 0 ? job->heavy_fraction : 0;
	double S = (double)job->gradient_bytes, span[64];
	uint32_t nspread = f > 0 ? (B > 1 ? B - 1 : 1) : B;
	double A = (double)job->bucket_room_ns; /* the spread buckets' room */
	double gap, sum = gen_bucket_spans(job, k, nspread, A, span, &gap), done = 0;
	if (f > 0 && B == 1)
		gap = 0;
	int64_t start = t0, end = t0;
	uint64_t sent = 0, spread = (uint64_t)llround((f > 0 ? fmax(0, 1 - f - h) : 1) * S);
	if (f > 0) {
		uint64_t heavy = (uint64_t)llround(h * S);
		heavy = heavy > job->gradient_bytes - spread ? job->gradient_bytes - spread : heavy;
		uint64_t dense = job->gradient_bytes - spread - heavy;
		int64_t e = lay_bucket(L, p, k, dense, &step0, t0, 0, store);
		if (e < 0)
			return -1;
		/* the spread block ends at t0 + dense + A, whatever its spans */
		int64_t lead = (int64_t)(A - sum - nspread * gap);
		start = e + (int64_t)gap + (B > 1 && lead > 0 ? lead : 0);
		if (heavy) { /* right after, ending inside the dense bucket's 100 ms */
			int64_t hs = GEN_HEAVY_NS - (e - t0);
			if ((e = lay_bucket(L, p, k, heavy, &step0, e, hs > 0 ? hs : 0, store)) < 0)
				return -1;
			start = e + (int64_t)gap > start ? e + (int64_t)gap : start;
		}
		end = e;
	}
	for (uint32_t b = 0; b < nspread; b++) {
		done += span[b];
		double share = sum > 0 ? done / sum : (double)(b + 1) / nspread; /* spans of 0 */
		uint64_t bytes = (uint64_t)llround((double)spread * share) - sent;
		if (b + 1 == nspread)
			bytes = spread - sent;
		sent += bytes;
		int64_t e = bytes ? lay_bucket(L, p, k, bytes, &step0, start, (int64_t)span[b], store)
				  : start;
		if (e < 0)
			return -1;
		end = e > end ? e : end;
		start = e + (int64_t)gap;
	}
	return end;
}

static int by_start(const void *a, const void *b)
{
	const dmls_gen_msg *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Pass 1: the longest collective C and the period T. */
static int size_period(layout *L, gen_plan *p, dmls_error *err)
{
	dmls_gen_schedule *s = L->s;
	int64_t C = 0;
	for (uint32_t k = 0; k < s->job.iterations; k++) {
		/* the shape repeats, the jitter does not: every iteration */
		int64_t c = lay_iteration(L, p, k, 0, 0);
		if (c < 0)
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		C = c > C ? c : C;
	}
	s->collective_ns = C;
	if (s->job.iteration_ns == 0 && s->job.compute_gap_ns > 0)
		s->job.iteration_ns = C + GEN_STEP_GAP_NS + s->job.compute_gap_ns;
	else if (s->job.iteration_ns == 0)
		s->job.iteration_ns = (int64_t)ceil(2.5 * (double)C / 1e6) * 1000000;
	double T = (double)s->job.iteration_ns;
	if ((double)(C + GEN_STEP_GAP_NS) >= T)
		return dmls_fail(err, DMLS_EUSAGE,
				 "the iteration time %.6g s is not longer than the collective "
				 "(%.6g s at %g Gbit/s); raise it or the link rate",
				 T / 1e9, (double)C / 1e9, s->job.link_gbps);
	return DMLS_OK;
}

/* Lognormal draw of mean 1 and coefficient of variation cv (Box-Muller). */
static double gap_factor(uint64_t seed, uint32_t k, double cv)
{
	double sigma2 = log1p(cv * cv);
	double u1 = gen_u01(seed, GEN_R_ITER, k, 0), u2 = gen_u01(seed, GEN_R_ITER, k, 1);
	double z = sqrt(-2 * log1p(-u1)) * cos(2 * M_PI * u2);
	return exp(sqrt(sigma2) * z - sigma2 / 2);
}

/* The compute gap before iteration k over the mean gap G: lognormal of
 * the job's jitter, or (period_q given) the gap that makes a period drawn
 * from the run's quantiles (linear between them), T q - C, but at least
 * G / 2: a run's short periods come with short communication, and the
 * generated iteration's may be longer (a bucket layout fills up to 75 %
 * of T), so the drawn period alone could leave two iterations touching
 * (the analysis then sees one). */
static double gap_of(const dmls_gen_job *job, uint32_t k, double T, double C)
{
	const double *q = job->period_q;
	if (!(q[DMLS_GEN_NQ - 1] > 0) || !(T > C))
		return gap_factor(job->seed, k, job->jitter);
	double x = gen_u01(job->seed, GEN_R_ITER, k, 0) * (DMLS_GEN_NQ - 1);
	int i = (int)x < DMLS_GEN_NQ - 2 ? (int)x : DMLS_GEN_NQ - 2;
	double period = T * (q[i] + (x - i) * (q[i + 1] - q[i]));
	return fmax((period - C) / (T - C), GEN_MIN_GAP_FACTOR);
}

static int lay_all(layout *L, gen_plan *p, dmls_error *err)
{
	dmls_gen_schedule *s = L->s;
	size_t K = s->job.iterations;
	int64_t T = s->job.iteration_ns, C = s->collective_ns + GEN_STEP_GAP_NS;
	double G = (double)(T - C), sum = 0;
	/* the gaps the period is measured over: from the second on when the
	 * analysis leaves the first interval out (DMLS_STEADY_FROM) */
	uint32_t k1 = K >= DMLS_STEADY_FROM ? 2 : 1;
	for (uint32_t k = k1; k < K; k++)
		sum += gap_of(&s->job, k, (double)T, (double)C);
	if (!(sum > 0)) /* every drawn period shorter than the collective */
		sum = 0;
	int64_t t0 = GEN_QUIET_NS + (int64_t)s->nconns * GEN_HANDSHAKE_NS + (T - C);
	t0 = s->job.lead_ns > t0 ? s->job.lead_ns : t0;
	for (uint32_t k = 0; k < K; k++) {
		if (k > 0) /* normalized: gaps k1.. add up to (K - k1) G */
			t0 += C + llround(sum > 0 ? G * gap_of(&s->job, k, (double)T, (double)C) *
						    (double)(K - k1) / sum
						  : G);
		int64_t end = lay_iteration(L, p, k, t0, 1);
		if (end < 0)
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		s->end_ns = end > s->end_ns ? end : s->end_ns;
		if (s->nmsgs > DMLS_GEN_MAX_MSGS)
			return dmls_fail(err, DMLS_EUSAGE, "more than %u messages: fewer "
					 "iterations or workers", DMLS_GEN_MAX_MSGS);
	}
	qsort(s->msgs, s->nmsgs, sizeof(*s->msgs), by_start);
	return DMLS_OK;
}

/* Build s from job; only the period (pass 1) when lay is 0. */
static int build(dmls_gen_schedule *s, const dmls_gen_job *job, int lay, dmls_error *err)
{
	memset(s, 0, sizeof(*s));
	s->job = *job;
	int rc = check_job(&s->job, &s->nhosts, err);
	if (rc)
		return rc;
	layout L = {s, NULL, NULL, NULL, GEN_FRAME_WIRE_BYTES * 8.0 / s->job.link_gbps};
	gen_plan p = {0};
	L.conn_of = malloc(s->nhosts * s->nhosts * sizeof(*L.conn_of));
	L.fan_out = calloc(s->nhosts, sizeof(*L.fan_out));
	L.fan_in = calloc(s->nhosts, sizeof(*L.fan_in));
	if (!L.conn_of || !L.fan_out || !L.fan_in) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
	} else {
		memset(L.conn_of, 0xff, s->nhosts * s->nhosts * sizeof(*L.conn_of));
		rc = size_period(&L, &p, err);
		if (!rc && lay)
			rc = lay_all(&L, &p, err);
	}
	free(p.x);
	free(L.conn_of);
	free(L.fan_out);
	free(L.fan_in);
	return rc;
}

int dmls_gen_schedule_build(dmls_gen_schedule *s, const dmls_gen_job *job, dmls_error *err)
{
	return build(s, job, 1, err);
}

int gen_collective_ns(const dmls_gen_job *job, int64_t *C, dmls_error *err)
{
	dmls_gen_schedule s;
	dmls_gen_job j = *job;
	j.iteration_ns = INT64_MAX / 4; /* any T longer than the collective */
	int rc = build(&s, &j, 0, err);
	*C = s.collective_ns;
	dmls_gen_schedule_release(&s);
	return rc;
}

void dmls_gen_schedule_release(dmls_gen_schedule *s)
{
	free(s->conns);
	free(s->msgs);
	memset(s, 0, sizeof(*s));
}

void dmls_gen_host_bytes(const dmls_gen_schedule *s, uint32_t h, uint32_t k, uint64_t *tx,
			 uint64_t *rx)
{
	*tx = *rx = 0;
	for (size_t i = 0; i < s->nmsgs; i++) {
		const dmls_gen_msg *m = &s->msgs[i];
		if (m->iteration != k)
			continue;
		if (m->src == h)
			*tx += m->bytes;
		if (m->dst == h)
			*rx += m->bytes;
	}
}
