/*
 * jobs_overlap.c - jobs that share two hosts or more.
 *
 * A scheduler may place two jobs on overlapping hosts: ranks of one on
 * hosts 0-3, of the other on hosts 2-5.  Both then send between hosts 2
 * and 3, and when both rings use the same direction one pair carries the
 * two jobs' bytes, each over its own connection.  Every pair between two
 * hosts of a job is the job's (jobs.c), so the smaller job read the
 * larger one's steps and bytes on that pair: a testbed DDP ring of 4
 * (TinyCNN, 0.135 s a step) beside a MobileNetV2 ring on hosts 2-5 came
 * out "asynchronous" with no pattern, and a tree of 5 beside a ResNet-18
 * ring on two of its hosts as a clique of 3 and a star of 3.
 *
 * So each job gets a view of the stats (dmls_job_view_make) in which a pair
 * shared with another job (both its ends are hosts of both) carries what
 * is the job's:
 *   - the job's period, and the other's, are the median of the byte clocks
 *     (dmls_series_clock_of) of their heaviest pairs that no other job
 *     shares (OV_REF_PAIRS; two clocks at least, and half of them within
 *     OV_AGREE of it);
 *   - a shared pair over two connections or more (each with OV_SHARE of
 *     its payload, series kept from the pair's second: stats.h,
 *     DMLS_CONN_MIN_BYTES) gives each a clock; one whose period agrees
 *     with one job's (OV_AGREE) and not the other's is that job's.  When
 *     exactly one is the job's and the rest the other's, the pair in the
 *     view is that connection (its counters, its payload series), and the
 *     other job's connections are hidden (st->flow_hidden);
 *   - a shared pair over one connection whose clock (the byte clock, else
 *     the pair's iterations) is the other job's alone is out of the job's
 *     view (no bytes, no series);
 *   - where the two periods agree (two jobs of one period), a clock is
 *     the job's that locks to the steps of the job's heaviest own pair
 *     and not to the other's (owner_lock);
 *   - anything else (a clock of neither or of both: two jobs of one
 *     period in one step) stays as it was.
 * The view is a shallow copy of the stats with its own pairs array; the
 * series are the stats' (never released through the view), but for those
 * made for it (own_series).  Both the split at a shared host
 * (jobs_shared.c) and each job's analysis (analysis.c) read it.  Before
 * both, one component may be split into such jobs by its pairs' clocks
 * (dmls_jobs_split_overlap, below).  Before the split, the whole capture
 * gets a view of the same kind where a bulk transfer runs between hosts of
 * jobs (dmls_job_view_background, at the end), which everything after
 * reads.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "analysis/jobs_int.h"
#include "analysis/period.h"

#define OV_REF_PAIRS 8   /* a job's own pairs whose clocks give its period */
#define OV_MAX_CONNS 4   /* connections of a shared pair given a clock */
#define OV_MAX_SHARED 64 /* shared pairs looked at, per job */
#define REVERSE_SHARE 0.8 /* of a pair's payload on the other job's connections: the other's */
#define OV_SHARE 0.02    /* a connection with this share of its pair's payload (CONN_SHARE) */
#define OV_AGREE 0.1     /* a period within 10 % of a job's */
#define OV_MIN_STEPS 8   /* a pair's iterations that make a clock */
#define OV_STEADY_CV 0.5 /* a clock this steady (robust CV of its step lengths) */

static int agree(double x, double y)
{
	return isfinite(x) && isfinite(y) && fabs(x - y) <= OV_AGREE * fmax(x, y);
}

/* in[h] = 1 for the hosts of job (the rest 0). */
static void mark(unsigned char *in, size_t nh, const dmls_job_scope *job)
{
	memset(in, 0, nh);
	for (size_t i = 0; i < job->n; i++)
		in[job->hosts[i]] = 1;
}

/* shared[p] = 1 for the pairs between two hosts of job k that are both
 * hosts of another job too. */
static void shared_of(const dmls_stats *st, const dmls_job_scope *jobs, size_t njobs, size_t k,
		      unsigned char *shared, unsigned char *in, unsigned char *other)
{
	size_t nh = st->nhosts;
	memset(shared, 0, st->npairs);
	mark(in, nh, &jobs[k]);
	for (size_t o = 0; o < njobs; o++) {
		size_t common = 0;
		for (size_t i = 0; o != k && i < jobs[o].n; i++)
			common += in[jobs[o].hosts[i]];
		if (common < 2)
			continue;
		mark(other, nh, &jobs[o]);
		for (size_t p = 0; p < st->npairs; p++) {
			const dmls_pair *pr = &st->pairs[p];
			shared[p] |= pr->src != pr->dst && in[pr->src] && in[pr->dst] &&
				     other[pr->src] && other[pr->dst];
		}
	}
}

static int cmp_pair_payload_desc(const void *x, const void *y, void *ctx)
{
	const dmls_stats *st = ctx;
	uint64_t a = st->pairs[*(const size_t *)x].payload_bytes;
	uint64_t b = st->pairs[*(const size_t *)y].payload_bytes;
	return (a < b) - (a > b);
}

/* Job k's period from its OV_REF_PAIRS heaviest data pairs that no other
 * job shares: the median of their clocks with steps, when two or more and
 * over half of them are within OV_AGREE of it, else NAN; a job on the very
 * hosts of another (no pair of its own) has its connections' period.  0,
 * or -1 when out of memory. */
static int job_period(const dmls_stats *st, const dmls_job_scope *jobs, size_t njobs, size_t k,
		      unsigned char *shared, unsigned char *in, unsigned char *other, double *period,
		      dmls_series_clock *ref)
{
	*period = NAN;
	if (ref)
		free(ref->t), memset(ref, 0, sizeof(*ref));
	if (jobs[k].conn_period_s > 0) { /* a job on the very hosts of another */
		*period = jobs[k].conn_period_s;
		return 0;
	}
	shared_of(st, jobs, njobs, k, shared, in, other);
	size_t *own = malloc((st->npairs ? st->npairs : 1) * sizeof(size_t)), n = 0;
	if (!own)
		return -1;
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		if (!shared[p] && pr->src != pr->dst && in[pr->src] && in[pr->dst] &&
		    (double)pr->payload_bytes >= jobs[k].thr && pr->payload_bytes > 0)
			own[n++] = p;
	}
	qsort_r(own, n, sizeof(size_t), cmp_pair_payload_desc, (void *)st);
	n = n < OV_REF_PAIRS ? n : OV_REF_PAIRS;
	dmls_series_clock c[OV_REF_PAIRS];
	const dmls_series *s[OV_REF_PAIRS];
	for (size_t i = 0; i < n; i++)
		s[i] = &st->pairs[own[i]].series;
	int rc = n ? dmls_series_clocks(st, c, s, n) : 0;
	double per[OV_REF_PAIRS];
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (c[i].n)
			per[m++] = c[i].period_s;
	double mid = m ? dmls_median(per, m) : NAN; /* per reordered */
	size_t near = 0;
	for (size_t i = 0; i < m; i++)
		near += agree(per[i], mid);
	if (rc == 0 && near >= 2 && 2 * near > m)
		*period = mid;
	for (size_t i = 0; i < n; i++) {
		if (ref && !ref->t && isfinite(*period) && c[i].n && c[i].t &&
		    c[i].cv <= OV_STEADY_CV && agree(c[i].period_s, mid)) {
			*ref = c[i]; /* the heaviest steady clock at the period */
			continue;
		}
		free(c[i].t);
	}
	free(own);
	return rc;
}

#define OV_LOCK 0.6
#define OV_LOCK_PHASE 0.15
#define OV_LOCK_OTHER 0.5 /* a connection's lock to the other job's: below this */

/* Share of the slow clock's step starts within OV_LOCK_PHASE of the fast
 * clock's period from one of the fast clock's starts. */
static double lock_share(const dmls_series_clock *slow, const dmls_series_clock *fast)
{
	size_t hit = 0, j = 0;
	double tol = OV_LOCK_PHASE * fast->period_s;
	for (size_t i = 0; i < slow->n; i++) {
		while (j + 1 < fast->n && fast->t[j + 1] <= slow->t[i])
			j++;
		double d = fabs(slow->t[i] - fast->t[j]);
		if (j + 1 < fast->n)
			d = fmin(d, fabs(fast->t[j + 1] - slow->t[i]));
		hit += d <= tol;
	}
	return slow->n ? (double)hit / (double)slow->n : 0;
}

/* The owner of a clock: 1 job j's, 2 the other's, 0 neither or both. */
static int owner(const dmls_series_clock *c, double pj, double pk)
{
	if (!c->n || c->cv > OV_STEADY_CV)
		return 0;
	int j = agree(c->period_s, pj), k = agree(c->period_s, pk);
	return j && !k ? 1 : k && !j ? 2 : 0;
}

/* The owner of a clock by its steps, where the two jobs' periods are too
 * close to tell (two jobs on the very same hosts): 1 when it locks to j's
 * connection ref[0] (OV_LOCK of its starts) and not to the other's
 * ref[1], 2 the other way, 0 else (the testbed's two TinyCNN rings at
 * 0.116 and 0.119 s: 0.74-0.89 within a job, 0.33-0.39 across). */
static int owner_lock(const dmls_series_clock *c, const dmls_series_clock *ref)
{
	if (!c->n || !c->t) /* no steps (a pair's iterations stand in: no times) */
		return 0;
	double a = lock_share(c, &ref[0]), b = lock_share(c, &ref[1]);
	return a >= OV_LOCK && b < OV_LOCK_OTHER ? 1 : b >= OV_LOCK && a < OV_LOCK_OTHER ? 2 : 0;
}

/* The series of a pair's first data connection, in payload bytes: the
 * pair's bins from from_ns (the connection's first packet: what the pair
 * moved before is another's, a co-located job's initial broadcast) to
 * split_ns (wire bytes, at the pair's payload share), where its
 * connections' series start (the connection was the pair's only data
 * one then; the others had not passed DMLS_CONN_MIN_BYTES), its own after,
 * into v->own (released with the view) and *out.  0, or -1 when out of
 * memory. */
/* A new empty series of like's grid in v->own (released with the view;
 * OV_MAX_SHARED at most); NULL when out of memory. */
static dmls_series *new_own(dmls_job_view *v, const dmls_series *like)
{
	if (!v->own && !(v->own = malloc(OV_MAX_SHARED * sizeof(dmls_series))))
		return NULL;
	dmls_series *s = &v->own[v->nown++];
	dmls_series_init(s, like->t0_ns, like->bin_ns, like->join);
	return s;
}

static int own_series(dmls_job_view *v, dmls_series *out, const dmls_pair *pr,
		      const dmls_series *conn, int64_t from_ns, int64_t split_ns)
{
	const dmls_series *pair = &pr->series;
	double share = dmls_pair_series_payload(pr);
	dmls_series *s = new_own(v, conn);
	if (!s)
		return -1;
	dmls_series_walk w;
	for (dmls_series_walk_start(&w, pair, 1); w.bin != INT64_MAX; dmls_series_walk_next(&w)) {
		int64_t ts = pair->t0_ns + w.bin * pair->bin_ns;
		uint64_t x = (uint64_t)llround(share * (double)w.val);
		if (ts >= split_ns)
			break;
		if (x && ts + pair->bin_ns > from_ns && dmls_series_add(s, ts, x) < 0)
			return -1;
	}
	for (dmls_series_walk_start(&w, conn, 1); w.bin != INT64_MAX; dmls_series_walk_next(&w))
		if (dmls_series_add_bin(s, w.bin, w.val) < 0)
			return -1;
	*out = *s;
	return 0;
}

/* The heaviest OV_MAX_CONNS data connections of pair pr (each with
 * OV_SHARE of its payload) into f, heaviest first; how many.  In the
 * analysis' window [from, to) only (INT64_MIN, INT64_MAX: the capture). */
static size_t heavy_flows(const dmls_stats *st, const dmls_pair *pr, int64_t from, int64_t to,
			  size_t *f)
{
	size_t nf = 0;
	for (size_t i = 0; i < st->nflows; i++) {
		const dmls_flow *fl = &st->flows[i];
		if (fl->src != pr->src || fl->dst != pr->dst || fl->payload_bytes == 0 ||
		    (double)fl->payload_bytes < OV_SHARE * (double)pr->payload_bytes ||
		    fl->last_ns < from || fl->first_ns >= to)
			continue;
		size_t at = nf < OV_MAX_CONNS ? nf++ : OV_MAX_CONNS;
		while (at > 0 && st->flows[f[at - 1]].payload_bytes < fl->payload_bytes) {
			if (at < OV_MAX_CONNS)
				f[at] = f[at - 1];
			at--;
		}
		if (at < OV_MAX_CONNS)
			f[at] = i;
	}
	return nf;
}

/* Pair p out of the view: no packets, bytes or series. */
static void pair_out(dmls_job_view *v, const dmls_stats *st, size_t p)
{
	const dmls_pair *pr = &st->pairs[p];
	dmls_pair *q = &v->pairs[p];
	q->packets = q->wire_bytes = q->payload_bytes = 0;
	q->first_ns = pr->last_ns, q->last_ns = pr->first_ns;
	dmls_series_init(&q->series, pr->series.t0_ns, pr->series.bin_ns, pr->series.join);
	q->conns = 0;
}

/* Pair p in the view as its data connection f[one] alone (of its nf
 * heaviest, f): its packets, bytes and series (payload).  0, or -1 when
 * out of memory. */
static int take_conn(dmls_job_view *v, const dmls_stats *st, size_t p, const size_t *f, size_t nf,
		     size_t one)
{
	const dmls_pair *pr = &st->pairs[p];
	dmls_pair *q = &v->pairs[p];
	const dmls_flow *fl = &st->flows[f[one]];
	q->packets = fl->packets, q->wire_bytes = fl->wire_bytes;
	q->payload_bytes = fl->payload_bytes;
	q->first_ns = fl->first_ns, q->last_ns = fl->last_ns;
	q->series = fl->conn;
	q->series_payload = 1;
	q->conns = 1;
	v->replaced++;
	/* the pair's first data connection, alone before the pair's
	 * connections' series start (at the earliest of them: its own
	 * starts with its next packet): the one that moved the most
	 * outside its series, before (a connection opened first may
	 * send later: a co-located job's ring, idle until its first
	 * step is computed) */
	int first = 1;
	int64_t split_ns = INT64_MAX;
	uint64_t pre = fl->payload_bytes - fl->conn.total;
	for (size_t i = 0; i < nf; i++) {
		const dmls_flow *o = &st->flows[f[i]];
		const dmls_series *cs = &o->conn;
		first &= i == one || o->payload_bytes - cs->total < pre;
		if (!dmls_series_empty(cs) && cs->t0_ns + cs->min_bin * cs->bin_ns < split_ns)
			split_ns = cs->t0_ns + cs->min_bin * cs->bin_ns;
	}
	if (first)
		return own_series(v, &q->series, pr, &fl->conn, fl->first_ns, split_ns);
	return 0;
}

/* The job-j view of shared pair p, whose other job has period pk; told by
 * the lock to ref[0] (j's) and ref[1] where given, else by the periods,
 * or by the lock to alt[0] and alt[1] (each job's steps) where the
 * periods give every connection of the pair to one job. */
static int view_pair(dmls_job_view *v, const dmls_stats *st, size_t p, double pj, double pk,
		     const dmls_series_clock *ref, const dmls_series_clock *alt)
{
	const dmls_pair *pr = &st->pairs[p];
	size_t f[OV_MAX_CONNS], nf = heavy_flows(st, pr, INT64_MIN, INT64_MAX, f);
	int conns = nf >= 2;
	for (size_t i = 0; conns && i < nf; i++)
		conns = !dmls_series_empty(&st->flows[f[i]].conn);
	dmls_series_clock c[OV_MAX_CONNS];
	const dmls_series *s[OV_MAX_CONNS];
	size_t nc = conns ? nf : 1;
	for (size_t i = 0; i < nc; i++)
		s[i] = conns ? &st->flows[f[i]].conn : &pr->series;
	if (dmls_series_clocks(st, c, s, nc) < 0) {
		for (size_t i = 0; i < nc; i++)
			free(c[i].t);
		return -1;
	}
	if (!conns && c[0].n == 0) {
		/* no byte clock (a pair whose bursts vary in size): the
		 * iterations of the pair alone, as jobs_shared.c clocks a part */
		dmls_iterations it;
		size_t h[2] = {pr->src, pr->dst};
		dmls_error e;
		if (dmls_iterations_find_pairs(&it, st, h, 2, h, 2, &p, 1, &e) != 0)
			return -1;
		if (it.count >= OV_MIN_STEPS && isfinite(it.period_s))
			c[0].n = it.count, c[0].period_s = it.period_s, c[0].cv = 0;
		dmls_iterations_release(&it);
	}
	int who[OV_MAX_CONNS], mine = 0, theirs = 0;
	for (size_t i = 0; i < nc; i++) {
		who[i] = ref ? owner_lock(&c[i], ref) : owner(&c[i], pj, pk);
		mine += who[i] == 1, theirs += who[i] == 2;
	}
	if (!ref && alt && conns && (mine == (int)nc || theirs == (int)nc)) {
		/* two connections at one job's period: the periods, each from
		 * a job's few pairs of its own, too close to tell them (rings
		 * of 3 at 0.074 and 0.079 s, read as 0.072 and 0.082) */
		mine = theirs = 0;
		for (size_t i = 0; i < nc; i++) {
			who[i] = owner_lock(&c[i], alt);
			mine += who[i] == 1, theirs += who[i] == 2;
		}
	}
	size_t one = 0;
	for (size_t i = 0; i < nc; i++) {
		one = who[i] == 1 ? i : one;
		free(c[i].t);
	}
	if (conns && nc == 2 && mine + theirs == 1) {
		/* one connection each way, one told: the other is the other
		 * job's (its clock wavers: it started, or ended, in mid-run,
		 * where its series starts with the pair's second connection) */
		for (size_t i = 0; i < nc; i++)
			if (who[i] == 0)
				who[i] = mine ? 2 : 1, one = mine ? one : i;
		mine = theirs = 1;
	}
	if (mine + theirs < (int)nc || (mine == 0 && theirs == 0) || mine > 1 || (!conns && mine))
		return 0; /* the job's as it is, a clock of neither, or not one
			   * connection of the job's */
	for (size_t i = 0; i < nf; i++) /* the other job's connections */
		if (!conns || who[i] == 2)
			v->hidden[f[i]] = 1;
	if (mine == 1) {
		return take_conn(v, st, p, f, nf, one);
	} else {
		pair_out(v, st, p);
		v->dropped++;
	}
	return 0;
}

/* A shared pair that no clock told, whose data connections are, the other
 * way, connections the other job's clocks told (a TCP connection carries
 * both directions: a Gloo pair's reduce one way, the other job's initial
 * broadcast back, 10.9 MB beside a TinyCNN ring's 33 MB edges, no clock
 * of either job), is the other job's too: out of the view (1; else 0).
 * So is one whose bytes are REVERSE_SHARE the other job's connections'
 * or more, beside this job's acknowledgements on a connection of its own:
 * a ring's 25 kB of them beside the other ring's 549 kB initial broadcast,
 * which shifted the job's byte clock by a third of a step where the
 * other job started (its first 19 steps lost). */
static int reverse_theirs(dmls_job_view *v, const dmls_stats *st, size_t p)
{
	const dmls_pair *pr = &st->pairs[p];
	size_t f[OV_MAX_CONNS], nf = heavy_flows(st, pr, INT64_MIN, INT64_MAX, f), theirs = 0;
	uint64_t theirs_bytes = 0;
	unsigned char is_theirs[OV_MAX_CONNS] = {0};
	for (size_t i = 0; i < nf; i++) {
		const dmls_flow *fl = &st->flows[f[i]];
		for (size_t k = 0; k < st->nflows; k++) { /* its other way */
			const dmls_flow *r = &st->flows[k];
			if (v->hidden[k] && r->src == fl->dst && r->dst == fl->src &&
			    r->sport == fl->dport && r->dport == fl->sport && r->proto == fl->proto) {
				theirs++;
				theirs_bytes += fl->payload_bytes;
				is_theirs[i] = 1;
				break;
			}
		}
	}
	if (nf == 0 || (theirs < nf && (double)theirs_bytes < REVERSE_SHARE * (double)pr->payload_bytes))
		return 0;
	for (size_t i = 0; i < nf; i++)
		if (is_theirs[i])
			v->hidden[f[i]] = 1;
	pair_out(v, st, p);
	v->dropped++;
	return 1;
}

/* A pair of two jobs on the very same hosts that no clock told, over two
 * connections or more (each job's initial parameter broadcast, no steps):
 * whose bytes are whose is unknown, and either job reading them all
 * counted the other's broadcast as a step of its own (a second after its
 * first): out of the view. */
static void ambiguous_out(dmls_job_view *v, const dmls_stats *st, size_t p)
{
	const dmls_pair *pr = &st->pairs[p];
	size_t f[OV_MAX_CONNS];
	if (heavy_flows(st, pr, INT64_MIN, INT64_MAX, f) < 2)
		return;
	pair_out(v, st, p);
	v->ambiguous++;
}

/* The pairs without payload that j shares (both ends hosts of another job
 * too): the acknowledgements of both jobs' connections, the other way,
 * counted on one series (the generator's two rings of 4 on the same
 * hosts, 0.17 and 0.30 s a step: the other's acknowledgements, 2 % of
 * the bytes, made the faster job's steps two at a time).  Out of j's
 * view once some shared pair was told. */
static void acks_out(dmls_job_view *v, const dmls_stats *st, const dmls_job_scope *jobs,
		     size_t njobs, size_t j, unsigned char *shared, unsigned char *in,
		     unsigned char *other)
{
	shared_of(st, jobs, njobs, j, shared, in, other);
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		if (!shared[p] || pr->payload_bytes || !pr->packets || !v->pairs[p].packets)
			continue;
		pair_out(v, st, p);
		v->acks++;
	}
}

void dmls_job_view_release(dmls_job_view *v)
{
	for (size_t i = 0; i < v->nown; i++)
		dmls_series_release(&v->own[i]);
	free(v->own);
	free(v->pairs);
	free(v->hosts);
	free(v->hidden);
	memset(v, 0, sizeof(*v));
}

/* Jobs split by their edges' periods (jobs_shared.c, edge_period_s): shared
 * pair p is j's where its clock (its iterations; of the pair both ways
 * where the pair alone has none, as jobs_shared.c clocks an edge) keeps
 * j's period and not job o's, o's the other way round (out of the view);
 * *told then.  Each way of a pair is told on its own: two jobs' rings may
 * use a pair of their shared hosts in opposite directions (a hierarchical
 * job's 6 -> 5 beside a ring's 5 -> 6).  0, or -1 when out of memory. */
#define EDGE_MIN_STEPS 4 /* jobs_shared.c's DMLS_SHARED_MIN_STEPS */
static int edge_told(dmls_job_view *v, const dmls_stats *st, const dmls_job_scope *jobs,
		     size_t j, size_t o, size_t p, unsigned char *told)
{
	double pj = jobs[j].edge_period_s, po = jobs[o].edge_period_s;
	*told = 0;
	if (!(pj > 0) || !(po > 0) || dmls_periods_agree(pj, po))
		return 0;
	const dmls_pair *pr = &st->pairs[p];
	size_t h[2] = {pr->src, pr->dst}, pp[2] = {p, 0}, np = 1;
	long back = dmls_stats_find_pair(st, pr->dst, pr->src);
	double pe = NAN;
	for (int both = 0; both < 2 && !isfinite(pe); both++) {
		if (both && back < 0)
			break;
		if (both)
			pp[np++] = (size_t)back;
		dmls_iterations it;
		dmls_error e;
		if (dmls_iterations_find_pairs(&it, st, h, 2, h, 2, pp, np, &e))
			return -1;
		pe = it.count >= EDGE_MIN_STEPS ? it.period_s : NAN;
		dmls_iterations_release(&it);
	}
	int mine = isfinite(pe) && dmls_periods_agree(pe, pj);
	int theirs = isfinite(pe) && dmls_periods_agree(pe, po);
	if (theirs && !mine) {
		pair_out(v, st, p);
		v->dropped++;
	}
	*told = mine != theirs;
	return 0;
}

int dmls_job_view_make(dmls_job_view *v, const dmls_stats *st, const dmls_job_scope *jobs,
		       size_t njobs, size_t j)
{
	memset(v, 0, sizeof(*v));
	v->st = st;
	size_t nh = st->nhosts ? st->nhosts : 1, np = st->npairs ? st->npairs : 1;
	unsigned char *shared = malloc(np), *in = malloc(nh), *other = malloc(nh);
	unsigned char *listed = malloc(np);
	dmls_series_clock steps[2] = {{0}}; /* j's heaviest own clock, the other's */
	int rc = -1;
	if (!shared || !in || !other || !listed)
		goto out;
	rc = 0;
	/* the pairs j shares, and with which job (the first that shares each) */
	size_t nsh = 0, with[OV_MAX_SHARED], pidx[OV_MAX_SHARED];
	mark(in, st->nhosts, &jobs[j]);
	memset(listed, 0, st->npairs);
	for (size_t o = 0; o < njobs && nsh < OV_MAX_SHARED; o++) {
		size_t common = 0;
		for (size_t i = 0; o != j && i < jobs[o].n; i++)
			common += in[jobs[o].hosts[i]];
		if (common < 2)
			continue;
		mark(other, st->nhosts, &jobs[o]);
		for (size_t p = 0; p < st->npairs && nsh < OV_MAX_SHARED; p++) {
			const dmls_pair *pr = &st->pairs[p];
			if (listed[p] || pr->src == pr->dst || !in[pr->src] || !in[pr->dst] ||
			    !other[pr->src] || !other[pr->dst] || pr->payload_bytes == 0)
				continue;
			listed[p] = 1;
			with[nsh] = o, pidx[nsh++] = p;
		}
	}
	if (nsh == 0)
		goto out;
	double pj;
	if ((rc = job_period(st, jobs, njobs, j, shared, in, other, &pj, &steps[0])))
		goto out;
	if (!isfinite(pj) && jobs[j].edge_period_s > 0)
		pj = jobs[j].edge_period_s; /* its edges' (jobs_shared.c): its pairs' byte clocks scatter */
	if (!isfinite(pj))
		goto out;
	v->pairs = malloc(np * sizeof(dmls_pair));
	v->hidden = calloc(st->nflows ? st->nflows : 1, 1);
	if (!v->pairs || !v->hidden) {
		rc = -1;
		goto out;
	}
	if (st->flow_hidden) /* a bulk transfer's, out of every job's view */
		memcpy(v->hidden, st->flow_hidden, st->nflows);
	memcpy(v->pairs, st->pairs, st->npairs * sizeof(dmls_pair));
	double pk = NAN;
	unsigned char told[OV_MAX_SHARED] = {0}, by_edge[OV_MAX_SHARED] = {0};
	for (size_t i = 0; i < nsh && rc == 0; i++)
		rc = edge_told(v, st, jobs, j, with[i], pidx[i], &by_edge[i]);
	/* a job on the very hosts of another: its connection and the
	 * other's, whose steps tell the two apart where the periods do not */
	dmls_series_clock ref[2] = {{0}};
	int lock = 0;
	if (jobs[j].conn_ref && jobs[j].conn_other_ref && jobs[j].conn_ref <= st->nflows &&
	    jobs[j].conn_other_ref <= st->nflows) {
		const dmls_series *rs[2] = {&st->flows[jobs[j].conn_ref - 1].conn,
					    &st->flows[jobs[j].conn_other_ref - 1].conn};
		rc = dmls_series_clocks(st, ref, rs, 2);
		lock = rc == 0 && ref[0].n && ref[1].n;
	}
	for (size_t i = 0; i < nsh && rc == 0; i++) {
		if (i == 0 || with[i] != with[i - 1]) {
			rc = job_period(st, jobs, njobs, with[i], shared, in, other, &pk, &steps[1]);
			if (!isfinite(pk) && jobs[with[i]].edge_period_s > 0)
				pk = jobs[with[i]].edge_period_s;
		}
		if (by_edge[i]) {
			told[i] = 1;
			continue;
		}
		size_t before = v->replaced + v->dropped;
		int by_lock = lock && jobs[with[i]].conn_ref == jobs[j].conn_other_ref &&
			      isfinite(pk) && agree(pj, pk);
		/* two jobs of one period on overlapping hosts: by the steps of
		 * each one's heaviest pair of its own */
		int by_steps = !by_lock && isfinite(pk) && agree(pj, pk) && steps[0].t && steps[1].t;
		if (rc == 0 && isfinite(pk) && (!agree(pj, pk) || by_lock || by_steps))
			rc = view_pair(v, st, pidx[i], pj, pk, by_lock ? ref : by_steps ? steps : NULL,
				       steps[0].t && steps[1].t ? steps : NULL);
		told[i] = v->replaced + v->dropped > before;
	}
	free(ref[0].t);
	free(ref[1].t);
	for (size_t i = 0; i < nsh && rc == 0 && v->hidden; i++)
		if (!told[i] && !reverse_theirs(v, st, pidx[i]) && jobs[j].conn_period_s > 0)
			ambiguous_out(v, st, pidx[i]);
	if (rc == 0 && v->replaced + v->dropped > 0)
		acks_out(v, st, jobs, njobs, j, shared, in, other);
	if (rc == 0 && v->replaced + v->dropped > 0) {
		v->view = *st;
		v->view.pairs = v->pairs;
		v->view.flow_hidden = v->hidden;
		v->st = &v->view;
		v->period_s = pj;
	}
out:
	free(steps[0].t);
	free(steps[1].t);
	free(shared);
	free(in);
	free(other);
	free(listed);
	if (rc || v->replaced + v->dropped == 0) {
		dmls_job_view_release(v);
		v->st = st;
	}
	return rc;
}

/*
 * One component, two jobs (dmls_jobs_split_overlap).  Two jobs of similar
 * volume on overlapping hosts are one component with no cut vertex (a
 * host of both is not a cut: the other shared host still joins them), so
 * neither jobs.c nor jobs_shared.c sees two (the testbed's TinyCNN rings
 * on hosts 0-3 and 2-5, 0.110 and 0.156 s a step: one "hierarchical" job
 * of 6, asynchronous).  Their pairs keep two clocks.  A job is looked at
 * when a data pair runs over two connections at once, or its pairs'
 * bursts (the runs of their series: no search) come at two spacings on
 * host sets neither of which holds the other (maybe_overlap).  Then each
 * of its OV_MAX_ELEMS heaviest data pairs gets the byte clock of its
 * series, or where it runs over two connections or more, each connection
 * gets one.  Steady clocks (OV_STEADY_CV) whose periods agree within
 * OV_AGREE (each with the group's shortest) are a group, cut where it holds
 * two jobs of one period (refine_groups: by steps, by hosts).  A group whose
 * heaviest clock locks to another's (OV_LOCK of its step starts within
 * OV_LOCK_PHASE of the other's period from one of the other's starts) is
 * part of it: one job's edges that count k bursts a step, or a split
 * pair's connection whose series starts with the pair's second
 * connection, when the busier hosts slowed its job (0.124 s for 0.105,
 * locked in 75 % of its steps, where two jobs' clocks lock in 17-20 %).
 * Then a group whose hosts are all in another's is part of it (two jobs
 * on the same hosts are connections.c's).  Two groups or more, each of
 * OV_MIN_GROUP clocks on OV_MIN_HOSTS hosts or more, are jobs with the
 * hosts of their pairs (a chain of three jobs, each sharing hosts with the
 * next, has a middle one with no host of its own); an unsteady clock at
 * the period of one group alone adds its pair's hosts to it, and a host in
 * no group goes with the group it moves the most payload with.
 */
#define OV_MAX_ELEMS 16
#define OV_MIN_GROUP 2
#define OV_MIN_HOSTS 3
#define OV_MAX_JOB_HOSTS 64
#define OV_MAX_SPLITS 16 /* splits over all jobs (each a search per clock) */
#define OV_MAX_RUNS 4096 /* a pair's bursts whose spacing is looked at */

typedef struct ov_elem {
	size_t src, dst;  /* job-local hosts */
	const dmls_series *s;
	double payload;
	dmls_series_clock c;
	int steady;       /* robust CV of its steps within OV_STEADY_CV */
	size_t group;
	int conn;         /* a connection's clock (its pair runs over two or more) */
} ov_elem;

/* jobs[0..n) and their hosts (jobs.c's dmls_jobs_free: jobs.c calls in
 * here, not the other way) */
static void free_jobs(dmls_job_scope *jobs, size_t n)
{
	for (size_t i = 0; jobs && i < n; i++)
		free(jobs[i].hosts);
	free(jobs);
}

static int cmp_elem_payload_desc(const void *x, const void *y)
{
	const ov_elem *a = x, *b = y;
	return (a->payload < b->payload) - (a->payload > b->payload);
}

static int cmp_elem_period(const void *x, const void *y)
{
	const ov_elem *a = x, *b = y;
	if (a->steady != b->steady)
		return b->steady - a->steady;
	return (a->c.period_s > b->c.period_s) - (a->c.period_s < b->c.period_s);
}

/* local[h]: host h's index in job, job->n for the others. */
static void job_local(const dmls_stats *st, const dmls_job_scope *job, size_t *local)
{
	for (size_t h = 0; h < st->nhosts; h++)
		local[h] = job->n;
	for (size_t i = 0; i < job->n; i++)
		local[job->hosts[i]] = i;
}

/* The job's clocks into e[0..*ne) (job-local hosts); 0 or -1 (memory). */
static int elements(const dmls_stats *st, const dmls_job_scope *job, const size_t *local,
		    ov_elem **out, size_t *ne)
{
	size_t n = job->n, cap = 64, m = 0;
	ov_elem *e = malloc(cap * sizeof(*e));
	if (!e)
		return -1;
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		size_t a = local[pr->src], b = local[pr->dst];
		if (a >= n || b >= n || a == b || (double)pr->payload_bytes < job->thr ||
		    pr->payload_bytes == 0)
			continue;
		size_t f[OV_MAX_CONNS], nf = 0, nh = 0;
		if (pr->conns >= 2)
			nh = heavy_flows(st, pr, INT64_MIN, INT64_MAX, f);
		for (size_t i = 0; i < nh; i++) /* those with a series */
			if (!dmls_series_empty(&st->flows[f[i]].conn))
				f[nf++] = f[i];
		if (m + OV_MAX_CONNS + 1 > cap) {
			ov_elem *g = realloc(e, 2 * cap * sizeof(*e));
			if (!g) {
				free(e);
				return -1;
			}
			e = g, cap *= 2;
		}
		if (nf < 2)
			e[m++] = (ov_elem){a, b, &pr->series, (double)pr->payload_bytes, {0}, 0, 0, 0};
		for (size_t i = 0; nf >= 2 && i < nf; i++)
			e[m++] = (ov_elem){a, b, &st->flows[f[i]].conn,
					   (double)st->flows[f[i]].payload_bytes, {0}, 0, 0, 1};
	}
	qsort(e, m, sizeof(*e), cmp_elem_payload_desc);
	m = m < OV_MAX_ELEMS ? m : OV_MAX_ELEMS;
	/* one at a time: a second thread would take a heap arena of its own
	 * for the clocks' arrays (+1.5 MiB of RSS on the bench's real runs,
	 * one of whose pairs runs over two connections at once) */
	int rc = 0;
	for (size_t i = 0; i < m; i++)
		rc |= dmls_series_clock_of(&e[i].c, e[i].s, st);
	*out = e, *ne = m;
	return rc ? -1 : 0;
}

#define OV_DRIFT_N 128      /* starts of a clock whose drift is looked at (the middle ones) */
#define OV_DRIFT_RATE 0.15   /* drift rates looked at: up to 15 % of a period a step */
#define OV_DRIFT_APART 0.5   /* periods drifted over the span: two jobs' steps */
#define OV_DRIFT_SIGNIF 2.5  /* the drift's resultant over this many times 1/sqrt(n) */

/* Resultant length of the phases ph[0..m) less w t. */
static double resultant(const double *ph, const double *t, size_t m, double w)
{
	double c = 0, s = 0;
	for (size_t i = 0; i < m; i++) {
		double a = ph[i] - w * (t[i] - t[0]);
		c += cos(a), s += sin(a);
	}
	return sqrt(c * c + s * s) / (double)m;
}

/*
 * How far clock x's steps drift against y's: each of x's starts (the
 * middle OV_DRIFT_N) has a phase in the step of y it falls in; one job's
 * clocks keep their phases (an edge of a tree a fixed part of a step after
 * another: no drift), two jobs' phases turn at the rate their periods
 * differ.  The rate w whose line the phases follow best (the largest
 * resultant of ph - w t, rates up to OV_DRIFT_RATE a step) gives the
 * periods drifted over their span, 0 unless that line is significant:
 * its resultant over OV_DRIFT_SIGNIF / sqrt(n) and twice the resultant at
 * no drift.  NAN when too few starts fall in y's span, or they are far
 * sparser than y's steps.
 */
static double phase_drift(const dmls_series_clock *x, const dmls_series_clock *y)
{
	if (x->n < OV_MIN_STEPS || y->n < 2 || !x->t || !y->t || !(y->period_s > 0))
		return NAN;
	double ph[OV_DRIFT_N], t[OV_DRIFT_N];
	size_t m = 0, j = 0, from = x->n > OV_DRIFT_N ? (x->n - OV_DRIFT_N) / 2 : 0;
	for (size_t i = from; i < x->n && m < OV_DRIFT_N; i++) {
		double at = x->t[i];
		if (at < y->t[0] || at >= y->t[y->n - 1])
			continue;
		while (j + 2 < y->n && y->t[j + 1] <= at)
			j++;
		double len = y->t[j + 1] - y->t[j];
		if (len > 0)
			ph[m] = 2 * M_PI * (at - y->t[j]) / len, t[m++] = at;
	}
	/* x's steps far sparser than y's are no clock of y's period (and a
	 * search of rates as long as their ratio) */
	if (m < OV_MIN_STEPS || !(t[m - 1] > t[0]) || t[m - 1] - t[0] > 4 * m * y->period_s)
		return NAN;
	double span = t[m - 1] - t[0], wmax = 2 * M_PI * OV_DRIFT_RATE / y->period_s;
	double dw = 2 * M_PI / (4 * span), best = 0, bw = 0;
	for (double w = -wmax; w <= wmax; w += dw) {
		double r = resultant(ph, t, m, w);
		if (r > best)
			best = r, bw = w;
	}
	for (double w = bw - dw; w <= bw + dw; w += dw / 8) { /* finer, around it */
		double r = resultant(ph, t, m, w);
		if (r > best)
			best = r, bw = w;
	}
	double r0 = resultant(ph, t, m, 0);
	if (best < OV_DRIFT_SIGNIF / sqrt((double)m) || best < 2 * r0)
		return 0;
	return bw * span / (2 * M_PI);
}

/* 1 when each of two clocks drifts against the other by OV_DRIFT_APART
 * periods or more, the two drifts of opposite signs (phase_drift). */
static int drift_apart(const dmls_series_clock *x, const dmls_series_clock *y)
{
	double a = phase_drift(x, y), b = phase_drift(y, x);
	return fabs(a) >= OV_DRIFT_APART && fabs(b) >= OV_DRIFT_APART && a * b < 0;
}

/* 1 when two clocks' steps are apart: neither locks to the other
 * (OV_LOCK_OTHER of its starts near the other's). */
static int steps_apart(const dmls_series_clock *x, const dmls_series_clock *y)
{
	return lock_share(x, y) < OV_LOCK_OTHER && lock_share(y, x) < OV_LOCK_OTHER;
}

/* 1 when clocks x and y keep one step: OV_LOCK of the slower's starts
 * near the faster's (lock_share). */
static int locked(const dmls_series_clock *x, const dmls_series_clock *y)
{
	const dmls_series_clock *slow = x->period_s > y->period_s ? x : y;
	return lock_share(slow, slow == x ? y : x) >= OV_LOCK;
}

/* 1 when group g's clocks (e[0..nst)) hold two connections of one pair
 * whose steps are apart (steps_apart). */
static int apart_on_a_pair(const ov_elem *e, size_t nst, size_t g)
{
	for (size_t i = 0; i < nst; i++)
		for (size_t k = i + 1; e[i].group == g && k < nst; k++)
			if (e[k].group == g && e[k].src == e[i].src && e[k].dst == e[i].dst &&
			    steps_apart(&e[i].c, &e[k].c))
				return 1;
	return 0;
}

static size_t find_root(size_t *up, size_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* Group g cut by steps (see refine_groups): the parts numbered from *ng
 * on, the first keeping g. */
static void cut_by_steps(ov_elem *e, size_t nst, size_t g, size_t *ng)
{
	const size_t open = SIZE_MAX - 1; /* placed in the part being made */
	size_t parts = 0, part[OV_MAX_ELEMS];
	for (;;) {
		size_t seed = nst;
		for (size_t i = 0; i < nst; i++)
			if (e[i].group == g && (seed == nst || e[i].payload > e[seed].payload))
				seed = i;
		if (seed == nst)
			break;
		size_t to = parts ? *ng + parts - 1 : open, own = 0;
		for (size_t i = 0; i < nst; i++)
			if (e[i].group == g && (i == seed || locked(&e[i].c, &e[seed].c)))
				e[i].group = to, own += !e[i].conn;
		/* a part of connections alone (the other job's, on pairs the
		 * two share: a job's part, tried again) is no job's evidence */
		part[parts++] = own ? to : open;
	}
	size_t kept = 0;
	for (size_t p = 0; p < parts; p++)
		kept += p == 0 || part[p] != open;
	for (size_t i = 0; i < nst; i++) {
		int mine = e[i].group == open;
		for (size_t p = 1; p < parts && !mine; p++)
			mine = e[i].group == *ng + p - 1 && (kept < 2 || part[p] == open);
		if (mine)
			e[i].group = g;
	}
	/* the parts kept, numbered on from *ng (empty numbers stay empty) */
	if (kept >= 2)
		*ng += parts - 1;
}

/* The parts of group g that cut_by_steps made (g and from..ng) join
 * again where their heaviest clocks' steps do not drift apart
 * (drift_apart): one job's levels, a fixed part of a step after each
 * other.  All of them when one is left. */
static void join_without_drift(ov_elem *e, size_t nst, size_t g, size_t from, size_t ng)
{
	size_t np = ng - from + 1, id[OV_MAX_ELEMS], rep[OV_MAX_ELEMS], left = 0;
	for (size_t p = 0; p < np; p++) {
		id[p] = p ? from + p - 1 : g, rep[p] = nst;
		for (size_t i = 0; i < nst; i++)
			if (e[i].group == id[p] && (rep[p] == nst || e[i].payload > e[rep[p]].payload))
				rep[p] = i;
	}
	for (size_t p = 0; p < np; p++) {
		if (rep[p] == nst) /* empty: folded back */
			continue;
		size_t to = p;
		for (size_t q = 0; q < p && to == p; q++)
			if (rep[q] != nst && !drift_apart(&e[rep[p]].c, &e[rep[q]].c))
				to = q;
		if (to == p) {
			left++;
			continue;
		}
		for (size_t i = 0; i < nst; i++)
			e[i].group = e[i].group == id[p] ? id[to] : e[i].group;
		rep[p] = nst;
	}
	for (size_t i = 0; left < 2 && i < nst; i++)
		for (size_t p = 1; p < np; p++)
			e[i].group = e[i].group == id[p] ? g : e[i].group;
}

/* Group numbers of e[0..nst) made 0..k-1 in order of first use (a cut
 * leaves numbers of parts it folded back or joined empty); k returned. */
static size_t compact_groups(ov_elem *e, size_t nst)
{
	const size_t base = SIZE_MAX / 2; /* renamed, during the pass */
	size_t ng = 0;
	for (size_t i = 0; i < nst; i++) {
		if (e[i].group >= base)
			continue;
		size_t old = e[i].group, id = base + ng++;
		for (size_t k = i; k < nst; k++)
			e[k].group = e[k].group == old ? id : e[k].group;
	}
	for (size_t i = 0; i < nst; i++)
		e[i].group -= base;
	return ng;
}

/*
 * Two jobs of one period (their clocks in one group by period): the group
 * of e[0..nst) by period is cut (the groups numbered 0..k-1 after, k
 * returned: never more than the clocks)
 *   - by steps: each clock goes with the heaviest one it locks to, the
 *     heaviest of the rest starting a part of its own; a part of
 *     connections' clocks alone goes back (the testbed's DDP rings on
 *     hosts 0-4 and 3-6, 0.106 and 0.105 s a step: one job of 7,
 *     "unknown").  Unless two connections of one pair keep steps apart
 *     (steps_apart), the parts whose steps do not drift apart join again
 *     (two trees of 5 sharing two hosts and no pair at 0.131 and 0.137 s;
 *     one tree's levels lock to each other at a fixed offset).  A pair's
 *     two connections that keep steps apart in two groups by period (a
 *     chain of periods cut between them) join their groups first;
 *   - by hosts: each group's clocks whose pairs join no host of another
 *     part's are a part (a chain: rings on hosts 1-4 and 5-8 within 3 %
 *     of one period, each sharing two hosts with a ring on 3-6 stepping
 *     slower, were one group of 8 holding the middle ring's hosts, and the
 *     middle ring part of it).
 * The parts of one job are joined again after (its parts' steps lock, or
 * one's hosts are inside another's): a hierarchical job's groups.
 */
static size_t refine_groups(ov_elem *e, size_t nst, size_t n, size_t ng, size_t *up)
{
	for (size_t i = 0; i < nst; i++)
		for (size_t k = i + 1; k < nst; k++) {
			size_t from = e[k].group, to = e[i].group;
			if (from == to || e[k].src != e[i].src || e[k].dst != e[i].dst ||
			    !agree(e[i].c.period_s, e[k].c.period_s) || !steps_apart(&e[i].c, &e[k].c))
				continue;
			for (size_t q = 0; q < nst; q++)
				e[q].group = e[q].group == from ? to : e[q].group;
		}
	for (size_t g = 0, ng0 = ng; g < ng0; g++) {
		size_t from = ng, src = SIZE_MAX;
		int senders = 0; /* two or more */
		for (size_t i = 0; i < nst && !senders; i++)
			if (e[i].group == g)
				senders = src != SIZE_MAX && e[i].src != src, src = e[i].src;
		if (!senders) /* one host's sending (its own capture): its spokes
			       * are the shared-host split's (jobs_shared.c) */
			continue;
		int apart = apart_on_a_pair(e, nst, g);
		cut_by_steps(e, nst, g, &ng);
		if (!apart) /* no pair of both: a tree's levels keep their offsets */
			join_without_drift(e, nst, g, from, ng);
	}
	ng = compact_groups(e, nst); /* at most nst: each group holds a clock */
	for (size_t g = 0, ng1 = ng; g < ng1; g++) {
		for (size_t h = 0; h < n; h++)
			up[h] = h;
		for (size_t i = 0; i < nst; i++)
			if (e[i].group == g)
				up[find_root(up, e[i].src)] = find_root(up, e[i].dst);
		size_t first = SIZE_MAX; /* the root of the part that keeps g */
		for (size_t i = 0; i < nst; i++) {
			if (e[i].group != g)
				continue;
			size_t r = find_root(up, e[i].src);
			if (first == SIZE_MAX)
				first = r;
			if (r == first)
				continue;
			size_t to = ng++; /* a new part: every clock of root r */
			for (size_t k = i; k < nst; k++)
				if (e[k].group == g && find_root(up, e[k].src) == r)
					e[k].group = to;
		}
	}
	return compact_groups(e, nst);
}

/* Split job into its groups (see above): out[0..*parts) when two or more,
 * else *parts 1.  0 or an error status. */
static int split_overlap(const dmls_stats *st, const dmls_job_scope *job, const size_t *local,
			 dmls_job_scope **out, size_t *parts, dmls_error *err)
{
	size_t n = job->n, ne = 0, ng = 0;
	*parts = 1;
	ov_elem *e = NULL;
	unsigned char *hosts = NULL; /* per group: n flags */
	size_t *cnt = NULL, *rep = NULL, *up = NULL;
	int rc = 0;
	if (elements(st, job, local, &e, &ne) < 0) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	size_t m = 0; /* the clocks with steps: the steady ones first, by period */
	for (size_t i = 0; i < ne; i++) {
		if (e[i].c.n && isfinite(e[i].c.period_s)) {
			e[i].steady = e[i].c.cv <= OV_STEADY_CV;
			e[m++] = e[i];
		} else {
			free(e[i].c.t), e[i].c.t = NULL;
		}
	}
	ne = m;
	qsort(e, ne, sizeof(*e), cmp_elem_period);
	size_t nst = 0;
	while (nst < ne && e[nst].steady)
		nst++;
	if (nst < 2 * OV_MIN_GROUP)
		goto out;
	hosts = calloc(ne * n, 1), cnt = calloc(ne, sizeof(size_t)), rep = malloc(ne * sizeof(size_t));
	up = malloc(n * sizeof(size_t));
	if (!hosts || !cnt || !rep || !up) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = ne; i-- > nst;)
		e[i].group = SIZE_MAX;
	for (size_t i = 0, first = 0; i < nst; i++) {
		if (i == 0 || !agree(e[i].c.period_s, e[first].c.period_s))
			first = i, rep[ng++] = i;
		e[i].group = ng - 1;
	}
	ng = refine_groups(e, nst, n, ng, up);
	for (size_t i = 0; i < nst; i++) {
		cnt[e[i].group]++;
		hosts[e[i].group * n + e[i].src] = hosts[e[i].group * n + e[i].dst] = 1;
	}
	/* each group's heaviest clock */
	for (size_t g = 0; g < ng; g++)
		rep[g] = ne;
	for (size_t i = 0; i < nst; i++)
		if (rep[e[i].group] == ne || e[i].payload > e[rep[e[i].group]].payload)
			rep[e[i].group] = i;
	/* a group whose steps lock to another's is part of it (one job's
	 * edges counting k bursts a step, or a split pair's connection whose
	 * clock covers the part of the run after the pair's second connection,
	 * when the busier hosts slowed the job: 0.124 s for 0.105, locked in
	 * 75 % of its steps, where two jobs' lock 17-20 %); then one inside
	 * another's hosts */
	for (int pass = 0, merged = 1; pass < 2; pass += !merged) { /* locks first */
		merged = 0;
		for (size_t g = 0; g < ng && !merged; g++)
			for (size_t h = 0; h < ng && !merged; h++) {
				if (g == h || !cnt[g] || !cnt[h])
					continue;
				int inside = 1;
				for (size_t i = 0; i < n && inside; i++)
					inside = !hosts[g * n + i] || hosts[h * n + i];
				if (pass ? !inside : !locked(&e[rep[g]].c, &e[rep[h]].c))
					continue;
				for (size_t i = 0; i < nst; i++)
					e[i].group = e[i].group == g ? h : e[i].group;
				for (size_t i = 0; i < n; i++)
					hosts[h * n + i] |= hosts[g * n + i];
				cnt[h] += cnt[g], cnt[g] = 0;
				rep[h] = e[rep[g]].payload > e[rep[h]].payload ? rep[g] : rep[h];
				merged = 1;
			}
	}
	/* the groups that are jobs: enough clocks and hosts (none inside
	 * another's, none locked to another's: merged above) */
	size_t keep[OV_MAX_ELEMS], nk = 0;
	for (size_t g = 0; g < ng; g++) {
		size_t nh = 0;
		for (size_t i = 0; i < n; i++)
			nh += hosts[g * n + i];
		if (cnt[g] >= OV_MIN_GROUP && nh >= OV_MIN_HOSTS)
			keep[nk++] = g;
	}
	if (nk < 2)
		goto out;
	/* an unsteady clock (busy hosts: robust CV over OV_STEADY_CV) at the
	 * period of one group alone adds its pair's hosts to that group: a
	 * job's edge whose clock wavers is still its edge */
	for (size_t i = nst; i < ne; i++) {
		size_t at = SIZE_MAX, hits = 0;
		for (size_t k = 0; k < nk; k++)
			if (agree(e[i].c.period_s, e[rep[keep[k]]].c.period_s))
				at = keep[k], hits++;
		if (hits != 1)
			continue;
		e[i].group = at;
		hosts[at * n + e[i].src] = hosts[at * n + e[i].dst] = 1;
	}
	/* the jobs: each group's hosts; a host of none goes with the neighbour
	 * it sends and receives the most payload with that has a job, as many
	 * hops out as it takes (the jobs of pairs without a clock: only the
	 * OV_MAX_ELEMS heaviest vote; the parts are tried again) */
	size_t *to = malloc(n * sizeof(size_t)), *got = malloc(n * sizeof(size_t));
	double *best = malloc(n * sizeof(double));
	dmls_job_scope *jobs = calloc(nk, sizeof(*jobs));
	if (!to || !got || !best || !jobs) {
		free(to), free(got), free(best), free(jobs);
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		to[i] = SIZE_MAX;
		for (size_t a = 0; a < nk; a++)
			if (hosts[keep[a] * n + i])
				to[i] = nk; /* in a group: its hosts' flags say which */
	}
	for (int grew = 1; grew;) {
		grew = 0;
		for (size_t i = 0; i < n; i++)
			best[i] = -1, got[i] = SIZE_MAX;
		for (size_t p = 0; p < st->npairs; p++) {
			const dmls_pair *pr = &st->pairs[p];
			size_t a = local[pr->src], b = local[pr->dst];
			if (a >= n || b >= n || a == b || (to[a] == SIZE_MAX) == (to[b] == SIZE_MAX))
				continue;
			size_t lone = to[a] == SIZE_MAX ? a : b, in = lone == a ? b : a, k = to[in];
			for (size_t g = 0; k == nk && g < nk; g++) /* a member: its first group */
				k = hosts[keep[g] * n + in] ? g : k;
			if ((double)pr->payload_bytes > best[lone])
				best[lone] = (double)pr->payload_bytes, got[lone] = k;
		}
		for (size_t i = 0; i < n; i++)
			if (got[i] != SIZE_MAX)
				to[i] = got[i], grew = 1;
	}
	for (size_t k = 0; k < nk && rc == 0; k++) {
		jobs[k].hosts = malloc(n * sizeof(size_t));
		if (!jobs[k].hosts) {
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
			break;
		}
		jobs[k].thr = job->thr;
		jobs[k].by_clock = DMLS_BY_EDGES;
		for (size_t i = 0; i < n; i++)
			if (hosts[keep[k] * n + i] || to[i] == k)
				jobs[k].hosts[jobs[k].n++] = job->hosts[i];
		for (size_t i = 0; i < ne; i++)
			jobs[k].payload_bytes += e[i].group == keep[k] ? e[i].payload : 0;
	}
	free(to);
	free(got);
	free(best);
	if (rc) {
		free_jobs(jobs, nk);
		goto out;
	}
	*out = jobs, *parts = nk;
out:
	for (size_t i = 0; e && i < ne; i++)
		free(e[i].c.t);
	free(e);
	free(hosts);
	free(cnt);
	free(rep);
	free(up);
	return rc;
}

/* The median spacing of a series' runs (its bursts, as the series joins
 * them: no search), or NAN under OV_MIN_STEPS runs. */
static double run_spacing(const dmls_stats *st, const dmls_series *s, double *tmp)
{
	int64_t lo = s->min_bin, hi = s->max_bin; /* the analysis' window */
	if (!dmls_run_bins(st, s, &lo, &hi))
		return NAN;
	size_t a = 0, b = s->nruns; /* the runs that start in it */
	while (a < b && dmls_series_run_first(s, a) < lo)
		a++;
	while (b > a && dmls_series_run_first(s, b - 1) > hi)
		b--;
	if (b - a < OV_MIN_STEPS + 1)
		return NAN;
	size_t n = b - a - 1 < OV_MAX_RUNS ? b - a - 1 : OV_MAX_RUNS;
	size_t from = a + (b - a - 1 - n) / 2; /* the middle runs */
	for (size_t r = 0; r < n; r++)
		tmp[r] = (double)(dmls_series_run_first(s, from + r + 1) -
				  dmls_series_run_first(s, from + r)) *
			 (double)s->bin_ns * 1e-9;
	return dmls_median(tmp, n);
}

/* 1 when two data connections of pair pr, each with OV_SHARE of its
 * payload, send at once in the analysis' window: half the shorter's life
 * or more together, in the window (of runs back to back, the busiest: a
 * pair's connections one run after another are not two jobs'). */
static int two_at_once(const dmls_stats *st, const dmls_pair *pr)
{
	size_t f[OV_MAX_CONNS];
	int64_t from = st->runs > 1 ? st->run_from_ns : INT64_MIN;
	int64_t to = st->runs > 1 ? st->run_to_ns : INT64_MAX;
	return heavy_flows(st, pr, from, to, f) >= 2 &&
	       dmls_flows_at_once(&st->flows[f[0]], &st->flows[f[1]]);
}

/* 1 when job may hold two jobs on overlapping hosts, before any clock (a
 * search each, too dear for every job): a data pair over two connections
 * at once (both jobs send over the pair between two shared hosts that is
 * an edge of each), or data pairs whose bursts come at two spacings (two
 * pairs or more at each, apart by more than OV_AGREE) on host sets
 * neither of which holds the other (as the split's groups: a star's
 * pushes and pulls, a butterfly's partners or a hierarchical job's
 * leaders have spacings of their own among the same hosts). */
static int maybe_overlap(const dmls_stats *st, const dmls_job_scope *job, const size_t *local,
			 double *tmp, uint64_t *set)
{
	size_t n = job->n, m = 0;
	typedef struct {
		double x;
		uint64_t hosts;
	} spaced;
	spaced sp[OV_MAX_ELEMS];
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		size_t a = local[pr->src], b = local[pr->dst];
		if (a >= n || b >= n || a == b || (double)pr->payload_bytes < job->thr ||
		    pr->payload_bytes == 0)
			continue;
		if (pr->conns >= 2 && two_at_once(st, pr))
			return 1;
		double x = m < OV_MAX_ELEMS ? run_spacing(st, &pr->series, tmp) : NAN;
		if (isfinite(x) && x > 0)
			sp[m++] = (spaced){x, (UINT64_C(1) << a) | (UINT64_C(1) << b)};
	}
	for (size_t i = 1; i < m; i++) /* by spacing (insertion: a few) */
		for (size_t k = i; k > 0 && sp[k].x < sp[k - 1].x; k--) {
			spaced t = sp[k];
			sp[k] = sp[k - 1], sp[k - 1] = t;
		}
	size_t ng = 0, cnt[OV_MAX_ELEMS];
	for (size_t i = 0, first = 0; i < m; i++) {
		if (i == 0 || !agree(sp[i].x, sp[first].x))
			first = i, set[ng] = 0, cnt[ng++] = 0;
		set[ng - 1] |= sp[i].hosts;
		cnt[ng - 1]++;
	}
	for (int merged = 1; merged;) { /* a group inside another's hosts */
		merged = 0;
		for (size_t g = 0; g < ng && !merged; g++)
			for (size_t h = 0; h < ng && !merged; h++)
				if (g != h && cnt[g] && cnt[h] && (set[g] & ~set[h]) == 0) {
					set[h] |= set[g], cnt[h] += cnt[g], cnt[g] = 0;
					merged = 1;
				}
	}
	size_t groups = 0;
	for (size_t g = 0; g < ng; g++)
		groups += cnt[g] >= OV_MIN_GROUP && __builtin_popcountll(set[g]) >= OV_MIN_HOSTS;
	return groups >= 2;
}

/* 1 when a data pair of job (thr: its data threshold) joins a host of
 * one part only to a host of another part only.  Jobs on overlapping
 * hosts share hosts, and a pair between hosts each of one job alone is
 * no job's data; parts so joined are one job whose steps vary across its
 * ranks (a butterfly of 12 on 2 busy cores, cut into 3 ranks and 9 that
 * share no host, its S/4 and S/8 edges between them).  0 as well without
 * memory (the split stands, as before this check). */
static int parts_bridged(const dmls_stats *st, const dmls_job_scope *job,
			 const dmls_job_scope *parts, size_t np)
{
	size_t *only = malloc(st->nhosts * sizeof(size_t));
	if (!only)
		return 0;
	for (size_t i = 0; i < job->n; i++)
		only[job->hosts[i]] = SIZE_MAX; /* in no part yet */
	for (size_t q = 0; q < np; q++)
		for (size_t i = 0; i < parts[q].n; i++) {
			size_t h = parts[q].hosts[i];
			only[h] = only[h] == SIZE_MAX ? q : SIZE_MAX - 1; /* SIZE_MAX - 1: two parts */
		}
	unsigned char *in = calloc(st->nhosts, 1);
	int bridged = 0;
	for (size_t i = 0; in && i < job->n; i++)
		in[job->hosts[i]] = 1;
	for (size_t k = 0; in && k < st->npairs && !bridged; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (!in[pr->src] || !in[pr->dst] || (double)pr->payload_bytes < job->thr)
			continue;
		size_t a = only[pr->src], b = only[pr->dst];
		bridged = a < SIZE_MAX - 1 && b < SIZE_MAX - 1 && a != b;
	}
	free(in);
	free(only);
	return bridged;
}

/* 1 when one host is an end of every data pair of job (a star: a server
 * and its workers).  Its spokes' clocks differ where the workers keep
 * paces of their own (an asynchronous server), and its parts by clock
 * can share a worker as well as the server, where a spoke's two
 * directions fell in two groups: an asynchronous server of 5 workers of
 * one speed was cut into three stars of 3.  A hub is the split at a
 * shared host's to tell (jobs_shared.c). */
static int star_job(const dmls_stats *st, const dmls_job_scope *job, const size_t *local)
{
	size_t hub = SIZE_MAX, other = SIZE_MAX; /* the two ends of the first pair */
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		size_t a = local[pr->src], b = local[pr->dst];
		if (a >= job->n || b >= job->n || a == b || (double)pr->payload_bytes < job->thr)
			continue;
		if (hub == SIZE_MAX) {
			hub = a, other = b;
			continue;
		}
		int h = a == hub || b == hub, o = a == other || b == other;
		if (!h)
			hub = SIZE_MAX;
		if (!o)
			other = SIZE_MAX;
		if (hub == SIZE_MAX && other == SIZE_MAX)
			return 0;
		if (hub == SIZE_MAX)
			hub = other, other = SIZE_MAX;
	}
	return hub != SIZE_MAX;
}

/* 1 when the parts share hosts only at one host: every two of them one
 * host at most, and some two exactly one.  That is not jobs on
 * overlapping hosts but a hub (a server, a shared host), which the split
 * at a shared host tells (jobs_shared.c: the hub's listening port, the
 * parts' steps).  An asynchronous parameter server of 5 workers of one
 * speed (no pace; each worker's pairs with the server at its own period,
 * 0.051-0.060 s) was cut here into a star of 3 and a star of 4 sharing
 * the server. */
static int parts_at_one_host(const dmls_stats *st, const dmls_job_scope *parts, size_t np)
{
	unsigned char *in = calloc(st->nhosts ? st->nhosts : 1, 1);
	if (!in)
		return 0;
	size_t most = 0;
	for (size_t a = 0; a < np && most <= 1; a++) {
		memset(in, 0, st->nhosts);
		for (size_t i = 0; i < parts[a].n; i++)
			in[parts[a].hosts[i]] = 1;
		for (size_t b = a + 1; b < np; b++) {
			size_t common = 0;
			for (size_t i = 0; i < parts[b].n; i++)
				common += in[parts[b].hosts[i]];
			most = common > most ? common : most;
		}
	}
	free(in);
	return most == 1;
}

int dmls_jobs_split_overlap(dmls_job_scope **jobs, size_t *njobs, const dmls_stats *st,
			    dmls_error *err)
{
	size_t *local = malloc((st->nhosts ? st->nhosts : 1) * sizeof(size_t));
	double *tmp = malloc(OV_MAX_RUNS * sizeof(double));
	uint64_t set[OV_MAX_ELEMS];
	if (!local || !tmp) {
		free(local);
		free(tmp);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	/* each part is tried again (a chain of jobs: only the OV_MAX_ELEMS
	 * heaviest clocks vote, so a part may hold two jobs still); every
	 * part has fewer hosts than the job it came from (a group's hosts
	 * never hold another's), so this ends, OV_MAX_SPLITS splits at most */
	for (size_t j = 0, splits = 0; j < *njobs && splits < OV_MAX_SPLITS;) {
		const dmls_job_scope *job = &(*jobs)[j];
		if (job->n < OV_MIN_HOSTS + 1 || job->n > OV_MAX_JOB_HOSTS) {
			j++;
			continue;
		}
		job_local(st, job, local);
		if (star_job(st, job, local) || !maybe_overlap(st, job, local, tmp, set)) {
			j++;
			continue;
		}
		dmls_job_scope *parts = NULL;
		size_t np = 1;
		int rc = split_overlap(st, job, local, &parts, &np, err);
		if (rc) {
			free(local);
			free(tmp);
			return rc;
		}
		if (np >= 2 && (parts_bridged(st, job, parts, np) ||
				parts_at_one_host(st, parts, np))) {
			free_jobs(parts, np);
			np = 1;
		}
		if (np < 2) {
			j++;
			continue;
		}
		splits++;
		dmls_job_scope *grown = realloc(*jobs, (*njobs + np - 1) * sizeof(**jobs));
		if (!grown) {
			free_jobs(parts, np);
			free(local);
			free(tmp);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		*jobs = grown;
		free(grown[j].hosts);
		grown[j] = parts[0];
		for (size_t i = 1; i < np; i++)
			grown[(*njobs)++] = parts[i];
		free(parts);
	}
	free(local);
	free(tmp);
	return 0;
}

/*
 * Steady flows between hosts of jobs (dmls_job_view_background).  A
 * training job's connections idle through its compute phases; a bulk
 * transfer between two of its hosts (a checkpoint copied off, a dataset
 * streamed in, an iperf) does not.  Counted in its pair, such a flow makes
 * an edge the pattern does not have (a DDP ring with 100 Mbit/s between
 * two of its non-neighbours read as a star with two hubs), joins parts
 * the split should not join or cuts a job it should not cut (a parameter
 * server of 6 with 300 Mbit/s between two workers: two jobs), fills the
 * job's pauses (at 500 Mbit/s its clock counted one iteration) and adds
 * to every step's bytes (S).  A data connection (OV_SHARE of its pair's
 * payload, BG_MIN_SHARE of the capture's) busy in BG_BUSY of the
 * BG_WINDOW_NS windows of its span (BG_MIN_WINDOWS of them at least), and
 * in BG_CONTRAST more than the other data pairs (weighted by payload, a
 * data connection beside the stream on its pair counted as one: a rank's
 * own capture of a stream along its job's edge has no other; they move
 * BG_JOB_SHARE of it or BG_JOB_BYTES at least, and are as many as the
 * pairs of such connections at least: a job whose pairs are mostly that busy has no
 * stream to tell; one rank's capture holds one data pair beside the
 * stream) is out of the view (a real stream, paced by its sender and held
 * back by the job's bursts and a busy CPU, was busy in 73-86 % of the
 * windows beside TinyCNN jobs' pairs at 13-39 %): hidden, its pair out
 * where it was the pair's only data connection (but for the rest:
 * set-up, control, which keep its hosts in the view; its acknowledgements
 * the other way, hidden 3, out too), the pair's series its
 * other connection's where that one has a series of its own (a split pair,
 * stats.h), else the pair left as it is (hidden 2: told in the note), and
 * the view's hosts' totals without it; only a connection one of whose
 * hosts has a data pair without one (a rank): a stream between two hosts
 * of no job is a component of its own, other traffic (analysis.c).
 */
#define BG_WINDOW_NS 10000000LL /* 10 ms */
#define BG_MIN_WINDOWS 200
#define BG_BUSY 0.7
#define BG_CONTRAST 0.35
#define BG_JOB_SHARE 0.05
#define BG_JOB_BYTES (64 * DMLS_MIN_DATA_BYTES) /* 16 MiB: or this much */
#define BG_MIN_SHARE 0.01 /* of the capture's payload: a stream worth leaving out */

typedef struct busy_ctx {
	int64_t t0, win;
	int64_t next; /* the first bin past the last busy window */
	uint64_t busy;
} busy_ctx;

/* Bins come in order from t0 on: a division only for a bin past the
 * window of the last. */
static void busy_visit(int64_t bin, uint64_t bytes, void *ctx)
{
	busy_ctx *b = ctx;
	(void)bytes;
	if (bin < b->next)
		return;
	int64_t w = (bin - b->t0) / b->win;
	b->busy++, b->next = b->t0 + (w + 1) * b->win;
}

/* Share of the windows of s's span (BG_WINDOW_NS, or its bins where
 * coarser) that hold bytes; NAN for a span of fewer than BG_MIN_WINDOWS. */
static double busy_share(const dmls_series *s)
{
	if (dmls_series_empty(s) || s->bin_ns <= 0)
		return NAN;
	int64_t per = BG_WINDOW_NS > s->bin_ns ? BG_WINDOW_NS / s->bin_ns : 1;
	int64_t span = s->max_bin - s->min_bin + 1, nwin = (span + per - 1) / per;
	if (nwin < BG_MIN_WINDOWS)
		return NAN;
	busy_ctx b = {.t0 = s->min_bin, .win = per, .next = INT64_MIN};
	dmls_series_foreach(s, busy_visit, &b);
	return (double)b.busy / (double)nwin;
}

/*
 * Share of s's busy windows (as busy_share's) that lie in long dense runs:
 * BG_RUN_NS long at least, no gap over BG_RUN_GAP_NS inside, busy in BG_BUSY
 * of their windows.  A stream that runs on and off (a checkpoint written
 * every half minute for seconds on end) has all of its activity in such
 * runs, as a steady one does; a job's connection exchanges in bursts a
 * step apart, or where its exchanges run into each other (a step shorter
 * than its exchange), so do the job's other pairs.  NAN for a span of fewer
 * than BG_MIN_WINDOWS windows.
 */
#define BG_RUN_NS 400000000LL   /* 0.4 s */
#define BG_RUN_GAP_NS 100000000LL /* 100 ms */
#define BG_LONG 0.8

typedef struct run_ctx {
	const dmls_series *s, *gate;
	int64_t win, min_len, max_gap; /* windows */
	int64_t next;                  /* the first bin past the window seen last */
	int64_t start, last;           /* the open run's first and last window */
	uint64_t in_run, busy, in_long;
} run_ctx;

static void run_close(run_ctx *r)
{
	int64_t len = r->last - r->start + 1;
	if (len >= r->min_len && (double)r->in_run >= BG_BUSY * (double)len)
		r->in_long += r->in_run;
}

/* Whether g holds bytes in [from_ns, to_ns). */
static int holds_bytes(const dmls_series *g, int64_t from_ns, int64_t to_ns)
{
	int64_t a = dmls_floor_div(from_ns - g->t0_ns, g->bin_ns);
	int64_t b = -dmls_floor_div(g->t0_ns - to_ns, g->bin_ns); /* the ceiling */
	return dmls_series_range(g, a, b > a ? b : a + 1, NULL) > 0;
}

/* Whether the gate holds bytes in window w (of s's bins from min_bin). */
static int gate_busy(const run_ctx *r, int64_t w)
{
	const dmls_series *s = r->s;
	int64_t t = s->t0_ns + (s->min_bin + w * r->win) * s->bin_ns;
	return holds_bytes(r->gate, t, t + r->win * s->bin_ns);
}

static void run_visit(int64_t bin, uint64_t bytes, void *ctx)
{
	run_ctx *r = ctx;
	(void)bytes;
	if (bin < r->next) /* in the window seen last (bins come in order) */
		return;
	int64_t w = (bin - r->s->min_bin) / r->win;
	r->next = r->s->min_bin + (w + 1) * r->win;
	if (r->gate && !gate_busy(r, w))
		return;
	if (r->last == INT64_MIN || w - r->last - 1 > r->max_gap) {
		if (r->last != INT64_MIN)
			run_close(r);
		r->start = w, r->in_run = 0;
	}
	r->in_run++, r->busy++, r->last = w;
}

/* gate (may be NULL): only s's windows where it holds bytes too count as
 * busy (a pair's wire bytes where its sender sends payload: not the
 * acknowledgements of a stream the other way). */
static double long_share(const dmls_series *s, const dmls_series *gate)
{
	if (dmls_series_empty(s) || s->bin_ns <= 0 || (gate && gate->bin_ns <= 0))
		return NAN;
	int64_t per = BG_WINDOW_NS > s->bin_ns ? BG_WINDOW_NS / s->bin_ns : 1, win = per * s->bin_ns;
	int64_t span = s->max_bin - s->min_bin + 1, nwin = (span + per - 1) / per;
	if (nwin < BG_MIN_WINDOWS)
		return NAN;
	/* bins coarser than the gap (a capture of hours): runs of two bins
	 * at least, without a gap (a job stepping within a bin is busy in
	 * every one, and so its pairs are as long as any stream) */
	int64_t min_len = (BG_RUN_NS + win - 1) / win;
	run_ctx r = {.s = s, .gate = gate, .win = per, .min_len = min_len > 2 ? min_len : 2,
		     .max_gap = BG_RUN_GAP_NS / win, .next = INT64_MIN, .last = INT64_MIN};
	dmls_series_foreach(s, run_visit, &r);
	if (r.last != INT64_MIN)
		run_close(&r);
	return r.busy ? (double)r.in_long / (double)r.busy : NAN;
}

/* Pair pr's share of busy windows as a data pair: its series' (wire bytes:
 * the acknowledgements of the other way's data too) and its sender's
 * payload's, the lower. */
static double pair_busy(const dmls_stats *st, const dmls_pair *pr)
{
	double a = busy_share(&pr->series), b = busy_share(&st->hosts[pr->src].tx_payload);
	return isfinite(a) && isfinite(b) ? fmin(a, b) : NAN;
}

/* Its share in long runs (long_share) where its sender sends payload. */
static double pair_long(const dmls_stats *st, const dmls_pair *pr)
{
	return long_share(&pr->series, &st->hosts[pr->src].tx_payload);
}

/* The share of busy windows of data connection f[i] of pair pr (of nf,
 * heavy_flows): on its connection's series, or where it is the pair's only
 * data connection, its pair's (pair_busy); NAN where neither tells (a
 * connection without a series of its own). */
static double flow_busy(const dmls_stats *st, const dmls_pair *pr, const size_t *f, size_t nf,
			size_t i)
{
	const dmls_flow *fl = &st->flows[f[i]];
	if (nf > 1)
		return busy_share(&fl->conn);
	return (double)fl->payload_bytes >= 0.9 * (double)pr->payload_bytes ? pair_busy(st, pr)
									  : NAN;
}

/* The same for its share in long runs. */
static double flow_long(const dmls_stats *st, const dmls_pair *pr, const size_t *f, size_t nf,
			size_t i)
{
	const dmls_flow *fl = &st->flows[f[i]];
	if (nf > 1)
		return long_share(&fl->conn, NULL);
	return (double)fl->payload_bytes >= 0.9 * (double)pr->payload_bytes ? pair_long(st, pr)
									  : NAN;
}

/* Whether data connection f[i] is busy as a stream: in min_busy of its
 * windows, or in min_long of them in long runs. */
static int flow_streams(const dmls_stats *st, const dmls_pair *pr, const size_t *f, size_t nf,
			size_t i, double min_busy, double min_long)
{
	double b = flow_busy(st, pr, f, nf, i);
	if (isfinite(b) && b >= min_busy)
		return 1;
	double l = flow_long(st, pr, f, nf, i);
	return isfinite(l) && l >= min_long;
}

/* The candidates (hidden) kept: those busy in min_busy of their windows
 * at least, one of whose hosts has a data pair (DMLS_MIN_DATA_BYTES) that
 * holds none: a stream from a rank to a host of no job (a checkpoint
 * written to a storage server) is left out too, one between two hosts of
 * no job is a component of its own, other traffic (analysis.c,
 * leave_stepless).  mixed[p]: pair p still holds a candidate; *nbg and
 * *bg_pay follow. */
static void keep_candidates(dmls_job_view *v, const dmls_stats *st, unsigned char *mixed,
			    double min_busy, double min_long, size_t *nbg, double *bg_pay)
{
	unsigned char *data = calloc(st->nhosts ? st->nhosts : 1, 1);
	for (size_t p = 0; data && p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		if (!mixed[p] && (double)pr->payload_bytes >= DMLS_MIN_DATA_BYTES)
			data[pr->src] = data[pr->dst] = 1;
		if (!mixed[p])
			continue;
		/* or a data connection beside the stream on its pair (a rank's
		 * own capture of a stream along its job's edge: its one pair) */
		size_t f[OV_MAX_CONNS], nf = heavy_flows(st, pr, INT64_MIN, INT64_MAX, f);
		nf = nf < OV_MAX_CONNS ? nf : OV_MAX_CONNS;
		for (size_t i = 0; i < nf; i++)
			if (!v->hidden[f[i]] &&
			    (double)st->flows[f[i]].payload_bytes >= DMLS_MIN_DATA_BYTES)
				data[pr->src] = data[pr->dst] = 1;
	}
	for (size_t p = 0; p < st->npairs; p++) {
		if (!mixed[p])
			continue;
		const dmls_pair *pr = &st->pairs[p];
		size_t f[OV_MAX_CONNS], nf = heavy_flows(st, pr, INT64_MIN, INT64_MAX, f);
		nf = nf < OV_MAX_CONNS ? nf : OV_MAX_CONNS;
		mixed[p] = 0;
		for (size_t i = 0; i < nf; i++) {
			if (!v->hidden[f[i]])
				continue;
			if (!data || !(data[pr->src] || data[pr->dst]) ||
			    !flow_streams(st, pr, f, nf, i, min_busy, min_long)) {
				v->hidden[f[i]] = 0;
				*bg_pay -= (double)st->flows[f[i]].payload_bytes;
				(*nbg)--;
			}
			mixed[p] |= v->hidden[f[i]];
		}
	}
	free(data);
}

/* Pair pr's series without the bins where its sender sends no payload
 * (gate): a job's data pair that also carries the acknowledgements of a
 * stream the other way, whose pauses they fill (300 Mbit/s, 3 s on and
 * 10 s off, from a rank of a MobileNetV2 ring of 4 to its predecessor:
 * its steps read two by two).  Into v->own (released with the view) and
 * *out; 0, or -1 when out of memory. */
static int gated_series(dmls_job_view *v, dmls_series *out, const dmls_pair *pr,
			const dmls_series *gate)
{
	const dmls_series *pair = &pr->series;
	dmls_series *s = new_own(v, pair);
	if (!s)
		return -1;
	dmls_series_walk w;
	for (dmls_series_walk_start(&w, pair, 1); w.bin != INT64_MAX; dmls_series_walk_next(&w)) {
		int64_t ts = pair->t0_ns + w.bin * pair->bin_ns;
		if (holds_bytes(gate, ts, ts + pair->bin_ns) && dmls_series_add_bin(s, w.bin, w.val) < 0)
			return -1;
	}
	*out = *s;
	return 0;
}

/* The acknowledgements of the streams left out (hidden 1), the other way
 * (a capture of both directions: -i any, a mirror port): hidden 3 and out
 * of their pair, the pair out where nothing with payload is left (a
 * storage host that only acknowledges a rank's stream is no rank), its
 * series out where what is left is no data pair (control: its totals
 * stay), else its series where its sender sends payload (gated_series).
 * 0, or -1 when out of memory. */
static int acks_of_streams(dmls_job_view *v, const dmls_stats *st)
{
	for (size_t k = 0; k < st->nflows; k++) {
		if (v->hidden[k] != 1)
			continue;
		const dmls_flow *fl = &st->flows[k];
		size_t r = st->nflows, p = st->npairs;
		for (size_t i = 0; i < st->nflows && r == st->nflows; i++) {
			const dmls_flow *o = &st->flows[i];
			if (!v->hidden[i] && o->src == fl->dst && o->dst == fl->src &&
			    o->sport == fl->dport && o->dport == fl->sport && o->proto == fl->proto &&
			    o->payload_bytes == 0)
				r = i;
		}
		for (size_t i = 0; r < st->nflows && i < st->npairs && p == st->npairs; i++)
			if (st->pairs[i].src == fl->dst && st->pairs[i].dst == fl->src)
				p = i;
		if (p == st->npairs)
			continue;
		const dmls_flow *ack = &st->flows[r];
		dmls_pair *q = &v->pairs[p];
		v->hidden[r] = 3;
		q->packets -= ack->packets < q->packets ? ack->packets : q->packets;
		q->wire_bytes -= ack->wire_bytes < q->wire_bytes ? ack->wire_bytes : q->wire_bytes;
		if (q->payload_bytes == 0) {
			pair_out(v, st, p);
			v->dropped++;
		} else if ((double)q->payload_bytes < DMLS_MIN_DATA_BYTES) {
			/* a control pair beside them: its totals stay, its series
			 * (the acknowledgements' wire bytes: at 300 Mbit/s a tenth
			 * of a DDP ring edge's step, an edge of a star) goes */
			dmls_pair keep = *q;
			pair_out(v, st, p);
			q->packets = keep.packets, q->wire_bytes = keep.wire_bytes;
			q->payload_bytes = keep.payload_bytes;
			q->first_ns = keep.first_ns, q->last_ns = keep.last_ns;
		} else if (!q->series_payload && v->nown < OV_MAX_SHARED &&
			   st->hosts[st->pairs[p].src].tx_payload.bin_ns > 0 &&
			   gated_series(v, &q->series, &st->pairs[p],
					&st->hosts[st->pairs[p].src].tx_payload)) {
			return -1;
		}
	}
	return 0;
}

/*
 * A rank's own capture (tcpdump src) of a stream into it from a host of
 * no job (a dataset read from a storage server) holds only its
 * acknowledgements: a pair without payload whose reverse the capture does
 * not hold, busy as a stream is (in BG_BUSY of its windows, or BG_LONG of
 * them in long runs) and by BG_CONTRAST more than the data pairs
 * (min_busy, min_long), from a rank (a data pair of its own).  It made
 * the storage host a rank of the view (a tree of 6 read as 7).
 * ack_pairs marks the pairs without payload whose reverse the capture
 * does not hold (ack[p]), ack_streams keeps those busy as streams; each
 * returns how many.
 */
static size_t ack_pairs(const dmls_stats *st, unsigned char *ack)
{
	size_t n = 0;
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		ack[p] = pr->src != pr->dst && pr->payload_bytes == 0 &&
			 pr->packets >= BG_MIN_WINDOWS &&
			 dmls_stats_find_pair(st, pr->dst, pr->src) < 0;
		n += ack[p];
	}
	return n;
}

static size_t ack_streams(const dmls_stats *st, const unsigned char *mixed, double min_busy,
			  double min_long, unsigned char *ack)
{
	size_t n = 0;
	unsigned char *data = calloc(st->nhosts ? st->nhosts : 1, 1);
	for (size_t p = 0; data && p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		if (!mixed[p] && (double)pr->payload_bytes >= DMLS_MIN_DATA_BYTES)
			data[pr->src] = 1;
	}
	for (size_t p = 0; p < st->npairs; p++) {
		if (!ack[p])
			continue;
		const dmls_pair *pr = &st->pairs[p];
		double b = busy_share(&pr->series), l = long_share(&pr->series, NULL);
		ack[p] = data && data[pr->src] && ((isfinite(b) && b >= min_busy) ||
						   (isfinite(l) && l >= min_long));
		n += ack[p];
	}
	free(data);
	return n;
}

/* Acknowledgement pair p (ack_streams) out of the view: its connections
 * of a tenth of its packets or more (the stream's), and those from the
 * same port (the receiver's refusals of the stream's first attempts),
 * hidden 4; the rest (a job's set-up and control connections between two
 * of its ranks) keeps the pair's totals, and its hosts in the view,
 * without a series. */
static void ack_out(dmls_job_view *v, const dmls_stats *st, size_t p)
{
	const dmls_pair *pr = &st->pairs[p];
	uint64_t pk = pr->packets, wb = pr->wire_bytes;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < st->nflows; k++) {
			const dmls_flow *fl = &st->flows[k];
			if (fl->src != pr->src || fl->dst != pr->dst || v->hidden[k])
				continue;
			int out = pass == 0 && 10 * fl->packets >= pr->packets;
			for (size_t i = 0; pass == 1 && !out && i < st->nflows; i++)
				out = v->hidden[i] == 4 && st->flows[i].src == fl->src &&
				      st->flows[i].dst == fl->dst && st->flows[i].sport == fl->sport &&
				      st->flows[i].proto == fl->proto;
			if (!out)
				continue;
			v->hidden[k] = 4;
			pk -= fl->packets < pk ? fl->packets : pk;
			wb -= fl->wire_bytes < wb ? fl->wire_bytes : wb;
		}
	pair_out(v, st, p);
	if (pk > 0) {
		dmls_pair *q = &v->pairs[p];
		q->packets = pk, q->wire_bytes = wb, q->payload_bytes = 0;
		q->first_ns = pr->first_ns, q->last_ns = pr->last_ns;
	} else {
		v->dropped++;
	}
}

/* The data connections (DMLS_MIN_DATA_BYTES) of f[0..nf) that are no
 * stream, beside one on their pair: their payload into *pay and their busy
 * share (or, longs, their share in long runs) weighted by it into *sum;
 * how many. */
static size_t beside_streams(const dmls_job_view *v, const dmls_stats *st, const size_t *f,
			     size_t nf, int longs, double *pay, double *sum)
{
	size_t n = 0;
	for (size_t i = 0; i < nf; i++) {
		const dmls_flow *fl = &st->flows[f[i]];
		if (v->hidden[f[i]] || (double)fl->payload_bytes < DMLS_MIN_DATA_BYTES)
			continue;
		double c = longs ? long_share(&fl->conn, NULL) : busy_share(&fl->conn);
		if (isfinite(c)) {
			*pay += (double)fl->payload_bytes;
			*sum += c * (double)fl->payload_bytes;
			n++;
		}
	}
	return n;
}

int dmls_job_view_background(dmls_job_view *v, const dmls_stats *st, size_t *nflows,
			     double *payload_bytes)
{
	memset(v, 0, sizeof(*v));
	v->st = st;
	*nflows = 0;
	*payload_bytes = 0;
	if (!st->nflows || !st->npairs || st->mergeable)
		return 0;
	unsigned char *mixed = calloc(st->npairs, 1), *ack = NULL;
	v->hidden = calloc(st->nflows, 1);
	int rc = -1;
	if (!mixed || !v->hidden)
		goto out;
	rc = 0;
	/* the steady connections, and how busy the other data pairs are */
	double pay = 0, ref = 0, ref_busy = 0, refl = 0, ref_long = 0, bg_pay = 0;
	size_t nbg = 0, nref = 0;
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		if (pr->src != pr->dst)
			pay += (double)pr->payload_bytes;
	}
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		if (pr->src == pr->dst || pr->payload_bytes == 0)
			continue;
		/* a pair with a stream worth leaving out: a hundred at most, each a
		 * pass over the flows */
		size_t f[OV_MAX_CONNS], nf = 0;
		if ((double)pr->payload_bytes >= BG_MIN_SHARE * pay)
			nf = heavy_flows(st, pr, INT64_MIN, INT64_MAX, f);
		nf = nf < OV_MAX_CONNS ? nf : OV_MAX_CONNS;
		for (size_t i = 0; i < nf; i++) {
			if ((double)st->flows[f[i]].payload_bytes < BG_MIN_SHARE * pay)
				continue; /* too small to matter */
			if (flow_streams(st, pr, f, nf, i, BG_BUSY, BG_LONG)) {
				v->hidden[f[i]] = 1, mixed[p] = 1;
				bg_pay += (double)st->flows[f[i]].payload_bytes, nbg++;
			}
		}
		double b = mixed[p] ? NAN : pair_busy(st, pr);
		if (isfinite(b))
			ref += (double)pr->payload_bytes, ref_busy += b * (double)pr->payload_bytes;
		nref += !mixed[p] && (double)pr->payload_bytes >= DMLS_MIN_DATA_BYTES;
		if (mixed[p]) /* a job's connections beside it */
			nref += beside_streams(v, st, f, nf, 0, &ref, &ref_busy);
	}
	/* streams on a few pairs beside the jobs' data pairs, far busier */
	size_t nmixed = 0;
	for (size_t p = 0; p < st->npairs; p++)
		nmixed += mixed[p];
	if (!(ack = calloc(st->npairs, 1))) {
		rc = -1;
		goto out;
	}
	size_t nacks = ack_pairs(st, ack);
	int job_there = ref >= BG_JOB_SHARE * pay || ref >= BG_JOB_BYTES;
	if ((nbg == 0 && nacks == 0) || !job_there || nmixed > nref)
		goto out;
	for (size_t p = 0; p < st->npairs; p++) {
		const dmls_pair *pr = &st->pairs[p];
		double l = mixed[p] || pr->src == pr->dst || pr->payload_bytes == 0 ? NAN
										 : pair_long(st, pr);
		if (isfinite(l))
			refl += (double)pr->payload_bytes, ref_long += l * (double)pr->payload_bytes;
		size_t f[OV_MAX_CONNS], nf = mixed[p] ? heavy_flows(st, pr, INT64_MIN, INT64_MAX, f) : 0;
		nf = nf < OV_MAX_CONNS ? nf : OV_MAX_CONNS;
		beside_streams(v, st, f, nf, 1, &refl, &ref_long);
	}
	double min_busy = ref_busy / ref + BG_CONTRAST;
	double min_long = refl >= BG_JOB_SHARE * pay || refl >= BG_JOB_BYTES
				  ? ref_long / refl + BG_CONTRAST
				  : INFINITY;
	if (nbg)
		keep_candidates(v, st, mixed, min_busy, min_long, &nbg, &bg_pay);
	size_t nack = ack_streams(st, mixed, fmax(min_busy, BG_BUSY), fmax(min_long, BG_LONG), ack);
	if (nbg == 0 && nack == 0)
		goto out;
	v->pairs = malloc(st->npairs * sizeof(dmls_pair));
	if (!v->pairs) {
		rc = -1;
		goto out;
	}
	memcpy(v->pairs, st->pairs, st->npairs * sizeof(dmls_pair));
	for (size_t p = 0; p < st->npairs && rc == 0; p++) {
		if (!mixed[p])
			continue;
		const dmls_pair *pr = &st->pairs[p];
		size_t f[OV_MAX_CONNS], nf = heavy_flows(st, pr, INT64_MIN, INT64_MAX, f), left = 0;
		nf = nf < OV_MAX_CONNS ? nf : OV_MAX_CONNS;
		size_t one = 0;
		for (size_t i = 0; i < nf; i++)
			if (!v->hidden[f[i]])
				left++, one = i;
		if (left == 0) {
			/* the rest (connections too small for heavy_flows: a job's
			 * set-up, control) keeps the pair, and its hosts, in the
			 * view; not the stream's own attempts on its port (a failed
			 * connect: a storage host read as a rank) */
			uint64_t pk = pr->packets, wb = pr->wire_bytes, pb = pr->payload_bytes;
			for (size_t k = 0; k < st->nflows; k++) {
				const dmls_flow *fl = &st->flows[k];
				int out = fl->src == pr->src && fl->dst == pr->dst && v->hidden[k];
				for (size_t i = 0; !out && i < nf && fl->src == pr->src && fl->dst == pr->dst; i++)
					out = fl->dport == st->flows[f[i]].dport &&
					      fl->proto == st->flows[f[i]].proto;
				if (out) {
					pk -= fl->packets < pk ? fl->packets : pk;
					wb -= fl->wire_bytes < wb ? fl->wire_bytes : wb;
					pb -= fl->payload_bytes < pb ? fl->payload_bytes : pb;
				}
			}
			pair_out(v, st, p);
			dmls_pair *q = &v->pairs[p];
			if (pk > 0) {
				q->packets = pk, q->wire_bytes = wb, q->payload_bytes = pb;
				q->first_ns = pr->first_ns, q->last_ns = pr->last_ns;
			}
			v->dropped++;
		} else if (left == 1 && !dmls_series_empty(&st->flows[f[one]].conn) &&
			   v->nown < OV_MAX_SHARED) {
			rc = take_conn(v, st, p, f, nf, one);
		} else { /* the pair as it is: its connections not told */
			v->ambiguous++;
			for (size_t i = 0; i < nf; i++)
				v->hidden[f[i]] = v->hidden[f[i]] ? 2 : 0;
		}
	}
	if (rc == 0)
		rc = acks_of_streams(v, st);
	for (size_t p = 0; rc == 0 && p < st->npairs; p++)
		if (ack[p])
			ack_out(v, st, p);
	/* the hosts' totals without the streams left out (a server's worker
	 * receiving one sends a share of what it receives no longer: a host
	 * not captured, pattern_view.c); roles are written to the view's */
	if (rc == 0 && !(v->hosts = malloc((st->nhosts ? st->nhosts : 1) * sizeof(dmls_host))))
		rc = -1;
	if (rc == 0)
		memcpy(v->hosts, st->hosts, st->nhosts * sizeof(dmls_host));
	for (size_t k = 0; rc == 0 && k < st->nflows; k++) {
		const dmls_flow *fl = &st->flows[k];
		if (v->hidden[k] != 1 && v->hidden[k] != 3 && v->hidden[k] != 4)
			continue;
		dmls_host *a = &v->hosts[fl->src], *b = &v->hosts[fl->dst];
		a->tx_packets -= fl->packets, b->rx_packets -= fl->packets;
		a->tx_wire_bytes -= fl->wire_bytes, b->rx_wire_bytes -= fl->wire_bytes;
		a->tx_payload_bytes -= fl->payload_bytes, b->rx_payload_bytes -= fl->payload_bytes;
	}
	if (rc == 0) {
		v->view = *st;
		v->view.pairs = v->pairs;
		v->view.hosts = v->hosts;
		v->view.flow_hidden = v->hidden;
		v->view.hosts_mixed = 1;
		v->st = &v->view;
		*nflows = nbg;
		for (size_t k = 0; k < st->nflows; k++)
			*nflows += v->hidden[k] == 4;
		*payload_bytes = bg_pay;
		free(mixed);
		free(ack);
		return 0;
	}
out:
	free(mixed);
	free(ack);
	dmls_job_view_release(v);
	v->st = st;
	return rc;
}
