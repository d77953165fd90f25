/*
 * layout.c - laying transfers on the time line (layout.h): the step every
 * layout is made of (its transfers' fair shares of the links, their
 * segments' spacing, the connections they use), a step paced slower, and
 * the counts and spans of an iteration's buckets.  schedule.c (every
 * pattern, buckets, the time line) and star.c (a parameter server's
 * iteration as --like calibrates it) lay their iterations with these.
 */
#include <math.h>
#include <stdlib.h>

#include "gen/gen_int.h"
#include "gen/layout.h"

/* The connection of the pair (a, b), created on first use; UINT32_MAX when
 * out of memory. */
static uint32_t conn_get(layout *L, uint32_t a, uint32_t b)
{
	dmls_gen_schedule *s = L->s;
	if (a > b) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	uint32_t *slot = &L->conn_of[(size_t)a * s->nhosts + b];
	if (*slot != UINT32_MAX)
		return *slot;
	if ((s->nconns & (s->nconns - 1)) == 0) {
		size_t cap = s->nconns ? 2 * s->nconns : 16;
		dmls_gen_conn *c = realloc(s->conns, cap * sizeof(*c));
		if (!c)
			return UINT32_MAX;
		s->conns = c;
	}
	/* b's ephemeral port: Linux's range starts at 32768; distinct per a */
	uint64_t eph = 32768 + gen_hash(s->job.seed, GEN_R_PORT, b, 0) % 20000 + a;
	s->conns[s->nconns] = (dmls_gen_conn){a, b, GEN_LISTEN_PORT, (uint16_t)eph};
	*slot = (uint32_t)s->nconns++;
	return *slot;
}

static int push_msg(dmls_gen_schedule *s, const dmls_gen_msg *m)
{
	if (s->nmsgs == s->msgs_cap) {
		size_t cap = s->msgs_cap ? 2 * s->msgs_cap : 256;
		dmls_gen_msg *x = realloc(s->msgs, cap * sizeof(*x));
		if (!x)
			return -1;
		s->msgs = x;
		s->msgs_cap = cap;
	}
	s->msgs[s->nmsgs++] = *m;
	return 0;
}

/* Lay out the steps x[0..n) of one step from t0; returns when the step is
 * received (last segment plus the ACK delay), or -1 when out of memory.
 * Messages are stored only when store is set. */
int64_t gen_lay_step(layout *L, const gen_xfer *x, size_t n, uint32_t k, int64_t t0, int store)
{
	dmls_gen_schedule *s = L->s;
	for (size_t i = 0; i < n; i++)
		L->fan_out[x[i].src] = L->fan_in[x[i].dst] = 0;
	for (size_t i = 0; i < n; i++)
		L->fan_out[x[i].src]++, L->fan_in[x[i].dst]++;
	int64_t end = t0;
	for (size_t i = 0; i < n; i++) {
		uint32_t share = L->fan_out[x[i].src] > L->fan_in[x[i].dst] ?
			L->fan_out[x[i].src] : L->fan_in[x[i].dst];
		int64_t gap = (int64_t)llround(L->frame_ns * share);
		uint64_t nseg = (x[i].bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS;
		uint64_t tag = ((uint64_t)x[i].step << 40) ^ ((uint64_t)x[i].src << 20) ^ x[i].dst;
		int64_t start = t0 + (int64_t)(gen_u01(s->job.seed, GEN_R_MSG, k, tag) *
					       GEN_MSG_JITTER_NS);
		if (x[i].phase == DMLS_GEN_EXCHANGE) {
			uint64_t pair = x[i].src < x[i].dst ? x[i].src * 4096ULL + x[i].dst
							    : x[i].dst * 4096ULL + x[i].src;
			int64_t pj = s->job.pair_jitter_ns ? s->job.pair_jitter_ns
							    : GEN_PAIR_JITTER_NS;
			start += (int64_t)(gen_u01(s->job.seed, GEN_R_PAIR, k, pair) * (double)pj);
		}
		gap = gap < 1 ? 1 : gap;
		int64_t done = start + (int64_t)nseg * gap + gap + GEN_ACK_DELAY_NS;
		end = done > end ? done : end;
		uint32_t c = conn_get(L, x[i].src, x[i].dst);
		if (c == UINT32_MAX)
			return -1;
		dmls_gen_msg m = {x[i].src, x[i].dst, c, k, x[i].step, x[i].phase,
				  x[i].bytes, start, gap};
		if (store && push_msg(s, &m))
			return -1;
	}
	return end;
}

/* Floor or ceil of x for iteration k, the ceils spread evenly from a
 * drawn phase u (floor((k + 1) f + u) - floor(k f + u), f = x - floor x):
 * any K iterations in a row hold K f ceils to within one, so a short job
 * (the butterfly sample: 6 iterations of 1.67 bursts) keeps the run's
 * count instead of a binomial draw of it (1.17 to 2 on seeds 1-12). */
uint32_t gen_count_of(const dmls_gen_job *job, double x, uint32_t k, uint64_t tag)
{
	double n = floor(x), f = x - n, u = gen_u01(job->seed, GEN_R_ITER, 0, tag);
	return (uint32_t)n + (uint32_t)(floor((k + 1) * f + u) - floor(k * f + u));
}

/* The spans of the B buckets of iteration k (ns, into span[]): lognormal
 * with the job's median and mean, shrunk with the gaps after them (*gap)
 * so that they fit in room ns.  Returns their sum. */
double gen_bucket_spans(const dmls_gen_job *job, uint32_t k, uint32_t B, double room,
			double *span, double *gap)
{
	double med = (double)job->bucket_span_ns, mean = (double)job->bucket_span_mean_ns;
	double sigma = mean > med ? sqrt(2 * log(mean / med)) : 0, sum = 0;
	for (uint32_t b = 0; b < B; b++) {
		double u1 = gen_u01(job->seed, GEN_R_ITER, k, 16 + 2 * b);
		double u2 = gen_u01(job->seed, GEN_R_ITER, k, 17 + 2 * b);
		double z = sqrt(-2 * log1p(-u1)) * cos(2 * M_PI * u2);
		span[b] = med * exp(sigma * z);
		sum += span[b];
	}
	/* an iteration's spans add up to B mean spans: the buckets split a
	 * backward pass that takes about as long every step, so the drawn
	 * spans vary the split, not the iteration's rate (a few short draws
	 * would send an iteration's spread bytes at line rate) */
	for (uint32_t b = 0; b < B && sum > 0 && mean > 0; b++)
		span[b] *= B * mean / sum;
	sum = sum > 0 && mean > 0 ? B * mean : sum;
	double all = sum + B * (double)job->bucket_gap_ns;
	*gap = (double)job->bucket_gap_ns;
	if (B && all > room) {
		for (uint32_t b = 0; b < B; b++)
			span[b] *= room / all;
		sum *= room / all;
		*gap *= room / all;
	}
	return sum;
}

/* Lay the steps x[0..n) of iteration k from t0 as step number step, paced
 * slower to last span ns (0: at line rate); returns the end or -1. */
int64_t gen_lay_paced(layout *L, gen_xfer *x, size_t n, uint32_t k, uint32_t step,
		      int64_t t0, double span, int store)
{
	double frame = L->frame_ns;
	for (size_t i = 0; i < n; i++)
		x[i].step = step;
	int64_t c = gen_lay_step(L, x, n, k, t0, 0);
	if (c < 0)
		return -1;
	if (span > 0 && c - t0 > 0 && span > (double)(c - t0))
		L->frame_ns *= span / (double)(c - t0);
	int64_t e = gen_lay_step(L, x, n, k, t0, store);
	L->frame_ns = frame;
	return e;
}
