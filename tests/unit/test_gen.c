/*
 * test_gen.c - the generator's schedule obeys the formulas of doc/analysis.md
 * exactly, and its writers are deterministic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "dmlscope/analysis.h"
#include "dmlscope/gen.h"

#define MB 1000000ULL

static dmls_gen_schedule build(int pattern, size_t n, uint64_t S, size_t K, uint64_t seed)
{
	dmls_gen_job job = {.pattern = pattern, .workers = n, .gradient_bytes = S,
			    .iterations = K, .seed = seed, .jitter = DMLS_GEN_JITTER};
	dmls_gen_schedule s;
	dmls_error err = {0};
	int rc = dmls_gen_schedule_build(&s, &job, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, DMLS_OK);
	return s;
}

/* Every host of every iteration sends and receives exactly tx and rx. */
static void expect_all(const dmls_gen_schedule *s, uint32_t h0, uint32_t h1, uint64_t tx,
		       uint64_t rx)
{
	for (uint32_t k = 0; k < s->job.iterations; k++) {
		for (uint32_t h = h0; h < h1; h++) {
			uint64_t t, r;
			dmls_gen_host_bytes(s, h, k, &t, &r);
			assert_int_equal(t, tx);
			assert_int_equal(r, rx);
		}
	}
}

/* Ring (Patarasuk & Yuan 2009): 2(N-1)/N S each way, to the neighbour only,
 * 2(N-1) steps of S/N, one connection per neighbour pair for all K. */
static void test_ring(void **state)
{
	(void)state;
	for (size_t n = 4; n <= 8; n += 4) {
		uint64_t S = 4 * MB;
		dmls_gen_schedule s = build(DMLS_PAT_RING, n, S, 8, 1);
		expect_all(&s, 0, (uint32_t)n, 2 * (n - 1) * S / n, 2 * (n - 1) * S / n);
		assert_int_equal(s.nhosts, n);
		assert_int_equal(s.nconns, n);
		assert_int_equal(s.nmsgs, 8 * n * 2 * (n - 1));
		for (size_t i = 0; i < s.nmsgs; i++) {
			assert_int_equal(s.msgs[i].dst, (s.msgs[i].src + 1) % n);
			assert_int_equal(s.msgs[i].bytes, S / n);
			assert_true(s.msgs[i].step < 2 * (n - 1));
		}
		dmls_gen_schedule_release(&s);
	}
}

/* S not divisible by N: chunks differ by one byte, the total stays 2(N-1) S. */
static void test_ring_uneven(void **state)
{
	(void)state;
	uint64_t S = 1000003, total = 0;
	dmls_gen_schedule s = build(DMLS_PAT_RING, 7, S, 1, 1);
	for (uint32_t h = 0; h < 7; h++) {
		uint64_t t, r;
		dmls_gen_host_bytes(&s, h, 0, &t, &r);
		assert_true(t >= 2 * 6 * (S / 7) && t <= 2 * 6 * (S / 7 + 1));
		total += t;
	}
	assert_int_equal(total, 2 * 6 * S);
	dmls_gen_schedule_release(&s);
}

/* Butterfly: N = 8, log2 N = 3 partners at XOR distance 1, 2, 4, volumes
 * halving (S/2, S/4, S/8, then back up), 2(N-1)/N S each way per rank, in
 * 6 steps.  N = 6: extras 4 and 5 send S to ranks 0 and 1 and get it back;
 * the 4 core ranks add 2(4-1)/4 S. */
static void test_butterfly(void **state)
{
	(void)state;
	uint64_t S = 8 * MB;
	dmls_gen_schedule s = build(DMLS_PAT_BUTTERFLY, 8, S, 2, 1);
	expect_all(&s, 0, 8, 2 * 7 * S / 8, 2 * 7 * S / 8);
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		uint32_t d = m->src ^ m->dst, st = m->step < 3 ? m->step : 5 - m->step;
		assert_int_equal(d, 1u << st);
		assert_int_equal(m->bytes, S >> (st + 1));
	}
	dmls_gen_schedule_release(&s);
	s = build(DMLS_PAT_BUTTERFLY, 6, S, 2, 1);
	expect_all(&s, 4, 6, S, S);
	expect_all(&s, 0, 2, S + 2 * 3 * S / 4, S + 2 * 3 * S / 4);
	expect_all(&s, 2, 4, 2 * 3 * S / 4, 2 * 3 * S / 4);
	dmls_gen_schedule_release(&s);
}

/* The shape of --like: 3 buckets per iteration, the first dense (half of
 * S at line rate), the two others spread; the iteration still moves
 * 2(N-1) S in all, in 3 x 6 ring steps, the spread block ends at the same
 * offset from the iteration's start every time, and the mean period is T. */
static void test_buckets(void **state)
{
	(void)state;
	uint64_t S = 12 * MB;
	dmls_gen_job job = {.pattern = DMLS_PAT_RING, .workers = 4, .gradient_bytes = S,
			    .iterations = 5, .seed = 2, .jitter = 0.1,
			    .iteration_ns = 200000000, .buckets = 3,
			    .bucket_span_ns = 12000000, .bucket_span_mean_ns = 14000000,
			    .bucket_gap_ns = 10000000, .dense_fraction = 0.5,
			    .bucket_room_ns = 60000000};
	dmls_gen_schedule s;
	dmls_error err = {0};
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	int64_t first[5], last[5], spread[5]; /* first start, last planned end */
	uint64_t bytes[5] = {0};
	uint32_t steps[5] = {0};
	for (int k = 0; k < 5; k++)
		first[k] = spread[k] = INT64_MAX, last[k] = 0;
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		bytes[m->iteration] += m->bytes;
		steps[m->iteration] = m->step + 1 > steps[m->iteration] ? m->step + 1 : steps[m->iteration];
		first[m->iteration] = m->start_ns < first[m->iteration] ? m->start_ns : first[m->iteration];
		int64_t end = m->start_ns + (int64_t)((m->bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS + 1) * m->gap_ns;
		last[m->iteration] = end > last[m->iteration] ? end : last[m->iteration];
		if (m->step >= 6) /* the spread buckets' */
			spread[m->iteration] = m->start_ns < spread[m->iteration] ? m->start_ns
										 : spread[m->iteration];
	}
	for (int k = 0; k < 5; k++) {
		assert_int_equal(bytes[k], 2 * 3 * S);
		assert_int_equal(steps[k], 18);
		/* and starts there too: an iteration's spans add up to the same
		 * total (2 mean spans), only their split varies */
		assert_true(llabs((spread[k] - first[k]) - (spread[0] - first[0])) < 1000000);
		/* the spread block ends at the same offset, to 1 ms (step gaps
		 * and start jitter are not stretched; the spans vary by ~10 ms) */
		assert_true(llabs((last[k] - first[k]) - (last[0] - first[0])) < 1000000);
	}
	/* the period as the analysis takes it: from the second start on */
	double period = (double)(first[4] - first[1]) / 3;
	assert_true(fabs(period / 2e8 - 1) < 1e-3);
	dmls_gen_schedule_release(&s);
}

/* Bytes of iteration k's messages inside [a, b): each message's bytes
 * spread evenly over its planned frames. */
static double bytes_in(const dmls_gen_schedule *s, uint32_t k, int64_t a, int64_t b)
{
	double sum = 0;
	for (size_t i = 0; i < s->nmsgs; i++) {
		const dmls_gen_msg *m = &s->msgs[i];
		if (m->iteration != k || !m->bytes)
			continue;
		int64_t frames = (int64_t)((m->bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS);
		int64_t lo = m->start_ns, hi = lo + frames * m->gap_ns;
		int64_t x = lo > a ? lo : a, y = hi < b ? hi : b;
		if (hi == lo)
			sum += lo >= a && lo < b ? (double)m->bytes : 0;
		else if (y > x)
			sum += (double)m->bytes * (double)(y - x) / (double)(hi - lo);
	}
	return sum;
}

/* A heavy bucket (--like on a large model, keep_heavy): 10 % of S dense at
 * line rate, 50 % right after it, ending inside 100 ms of the dense
 * bucket's start, the other 40 % spread over 900 ms: the iteration's
 * busiest 100 ms hold 60 % of its bytes, and no 100 ms of the spread part
 * more than a third of that. */
static void test_heavy_bucket(void **state)
{
	(void)state;
	uint64_t S = 40 * MB;
	dmls_gen_job job = {.pattern = DMLS_PAT_RING, .workers = 4, .gradient_bytes = S,
			    .iterations = 3, .seed = 5, .iteration_ns = 2000000000,
			    .link_gbps = 10, .buckets = 3, .bucket_span_ns = 400000000,
			    .bucket_span_mean_ns = 450000000, .bucket_gap_ns = 20000000,
			    .dense_fraction = 0.1, .heavy_fraction = 0.5,
			    .bucket_room_ns = 900000000};
	dmls_gen_schedule s;
	dmls_error err = {0};
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	for (uint32_t k = 0; k < 3; k++) {
		int64_t t0 = INT64_MAX;
		for (size_t i = 0; i < s.nmsgs; i++)
			if (s.msgs[i].iteration == k && s.msgs[i].start_ns < t0)
				t0 = s.msgs[i].start_ns;
		double all = bytes_in(&s, k, t0, t0 + 2000000000LL);
		assert_true(fabs(all / (2.0 * 3 * (double)S) - 1) < 1e-6);
		double head = bytes_in(&s, k, t0, t0 + 100000000);
		assert_true(fabs(head / all - 0.6) < 0.01);
		for (int64_t w = t0 + 100000000; w < t0 + 1100000000; w += 50000000)
			assert_true(bytes_in(&s, k, w, w + 100000000) < head / 3);
	}
	dmls_gen_schedule_release(&s);
	/* together with the dense bucket, at most all of S */
	job.heavy_fraction = 0.95;
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_EUSAGE);
}

/* The shape of --like on a star: 6 workers push in 2 or 3 groups per
 * iteration (mean 2.5), each group a step of its own, a bucket gap apart;
 * the replies (one step, last) start a gap after the last push; every
 * worker pushes and pulls S, the server W S; the first collective waits
 * for the lead, and the mean period is T. */
static void test_star_groups(void **state)
{
	(void)state;
	uint64_t S = 6 * MB;
	enum { K = 8, W = 6 };
	dmls_gen_job job = {.pattern = DMLS_PAT_STAR, .workers = W, .gradient_bytes = S,
			    .iterations = K, .seed = 4, .jitter = 0.1, .iteration_ns = 300000000,
			    .push_groups = 2.5, .bucket_span_ns = 8000000,
			    .bucket_span_mean_ns = 9000000, .bucket_gap_ns = 40000000,
			    .bucket_room_ns = 150000000, .lead_ns = 1500000000};
	dmls_gen_schedule s;
	dmls_error err = {0};
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	expect_all(&s, 1, 1 + W, S, S);
	expect_all(&s, 0, 1, W * S, W * S);
	uint32_t G[K] = {0}, groups = 0;
	int64_t first[K], push_end[K][8] = {{0}}, push_start[K][8], pull[K];
	for (int k = 0; k < K; k++) {
		first[k] = pull[k] = INT64_MAX;
		for (int g = 0; g < 8; g++)
			push_start[k][g] = INT64_MAX;
	}
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		uint32_t k = m->iteration;
		first[k] = m->start_ns < first[k] ? m->start_ns : first[k];
		if (m->phase == DMLS_GEN_PULL) {
			pull[k] = m->start_ns < pull[k] ? m->start_ns : pull[k];
			G[k] = m->step; /* the replies: the step after the groups */
			continue;
		}
		assert_int_equal(m->phase, DMLS_GEN_PUSH);
		assert_true(m->step < 3);
		int64_t end = m->start_ns + (int64_t)((m->bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS) * m->gap_ns;
		push_end[k][m->step] = end > push_end[k][m->step] ? end : push_end[k][m->step];
		push_start[k][m->step] = m->start_ns < push_start[k][m->step] ? m->start_ns
									 : push_start[k][m->step];
	}
	assert_true(first[0] >= job.lead_ns);
	for (int k = 0; k < K; k++) {
		assert_true(G[k] == 2 || G[k] == 3);
		groups += G[k];
		for (uint32_t g = 0; g < G[k]; g++) {
			assert_true(push_end[k][g] > 0); /* no group empty */
			if (g > 0) /* a gap (shrunk to fit the room, at most x 2/3) */
				assert_true(push_start[k][g] - push_end[k][g - 1] > 20000000);
		}
		assert_true(pull[k] - push_end[k][G[k] - 1] > 20000000);
	}
	/* both drawn, K x 2.5 in all (the ceils spread evenly, not a binomial) */
	assert_int_equal(groups, 20);
	double period = (double)(first[K - 1] - first[1]) / (K - 2); /* from the second */
	assert_true(fabs(period / 3e8 - 1) < 1e-3);
	dmls_gen_schedule_release(&s);
}

/* A star whose busiest 10 ms hold 90 % of an iteration (--like): 80 % of
 * the workers (floor or ceil of 4.8 of 6) push last, then the server's
 * update (6 ms), then the replies, all within 10 ms; the others push
 * first, in their own group, a bucket gap (40 ms) earlier. */
static void test_star_dense(void **state)
{
	(void)state;
	enum { K = 10, W = 6 };
	dmls_gen_job job = {.pattern = DMLS_PAT_STAR, .workers = W, .gradient_bytes = MB / 4,
			    .iterations = K, .seed = 2, .iteration_ns = 200000000,
			    .push_groups = 2, .bucket_span_ns = 3000000, .link_gbps = 10,
			    .bucket_span_mean_ns = 4000000, .bucket_gap_ns = 40000000,
			    .bucket_room_ns = 100000000, .dense_fraction = 0.9,
			    .update_ns = 6000000};
	dmls_gen_schedule s;
	dmls_error err = {0};
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	int64_t lo[K][2], hi[K][2], pull_lo[K], pull_hi[K];
	uint32_t n[K][2] = {{0}}, lasts = 0;
	for (int k = 0; k < K; k++)
		lo[k][0] = lo[k][1] = pull_lo[k] = INT64_MAX, hi[k][0] = hi[k][1] = pull_hi[k] = 0;
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		uint32_t k = m->iteration;
		int64_t end = m->start_ns + (int64_t)((m->bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS) * m->gap_ns;
		if (m->phase == DMLS_GEN_PULL) {
			pull_lo[k] = m->start_ns < pull_lo[k] ? m->start_ns : pull_lo[k];
			pull_hi[k] = end > pull_hi[k] ? end : pull_hi[k];
			continue;
		}
		assert_true(m->step < 2);
		n[k][m->step]++;
		lo[k][m->step] = m->start_ns < lo[k][m->step] ? m->start_ns : lo[k][m->step];
		hi[k][m->step] = end > hi[k][m->step] ? end : hi[k][m->step];
	}
	for (int k = 0; k < K; k++) {
		assert_true(n[k][1] == 4 || n[k][1] == 5);
		assert_int_equal(n[k][0] + n[k][1], W);
		lasts += n[k][1];
		assert_true(pull_lo[k] - hi[k][1] >= 6000000);      /* the update */
		assert_true(pull_hi[k] - lo[k][1] <= 10000000);     /* all in 10 ms */
		assert_true(lo[k][1] - hi[k][0] > 30000000);         /* the first group */
	}
	assert_int_equal(lasts, 48); /* 4.8 x 10 */
	dmls_gen_schedule_release(&s);
	job.update_ns = -1;
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
}

/* Periods drawn from a run's quantiles (0.5 T to 1.5 T, uniform): they
 * spread as the run's, their mean is T, collectives never overlap. */
static void test_period_quantiles(void **state)
{
	(void)state;
	enum { K = 41 };
	dmls_gen_job job = {.pattern = DMLS_PAT_RING, .workers = 4, .gradient_bytes = MB,
			    .iterations = K, .seed = 9, .iteration_ns = 100000000};
	for (int i = 0; i < DMLS_GEN_NQ; i++)
		job.period_q[i] = 0.5 + (double)i / (DMLS_GEN_NQ - 1);
	dmls_gen_schedule s;
	dmls_error err = {0};
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	int64_t first[K], last[K];
	for (int k = 0; k < K; k++)
		first[k] = INT64_MAX, last[k] = 0;
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		first[m->iteration] = m->start_ns < first[m->iteration] ? m->start_ns : first[m->iteration];
		last[m->iteration] = m->start_ns > last[m->iteration] ? m->start_ns : last[m->iteration];
	}
	int64_t lo = INT64_MAX, hi = 0;
	for (int k = 1; k < K; k++) {
		int64_t d = first[k] - first[k - 1];
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		assert_true(first[k] > last[k - 1]);
	}
	/* to the messages' start jitter (2 us), from the second start on */
	assert_true(llabs(first[K - 1] - first[1] - (int64_t)(K - 2) * 100000000) < 5000);
	assert_true(lo < 65000000 && hi > 135000000); /* spread, not a clock */
	dmls_gen_schedule_release(&s);
	job.period_q[3] = 0.1; /* not non-decreasing */
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
}

/* Parameter server: a worker pushes S and pulls S; the server receives and
 * sends W S (incast). */
static void test_star(void **state)
{
	(void)state;
	uint64_t S = 4 * MB;
	dmls_gen_schedule s = build(DMLS_PAT_STAR, 3, S, 8, 1);
	assert_int_equal(s.nhosts, 4);
	expect_all(&s, 1, 4, S, S);
	expect_all(&s, 0, 1, 3 * S, 3 * S);
	assert_int_equal(s.nconns, 3);
	dmls_gen_schedule_release(&s);
}

/* k parameter-server shards: a worker still pushes and pulls S, in k
 * pieces; each server handles W S / k each way. */
static void test_star_shards(void **state)
{
	(void)state;
	uint64_t S = 4 * MB;
	dmls_gen_job job = {.pattern = DMLS_PAT_STAR, .workers = 4, .gradient_bytes = S,
			    .iterations = 3, .servers = 2};
	dmls_gen_schedule s;
	dmls_error err;
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	assert_int_equal(s.nhosts, 6);
	expect_all(&s, 0, 2, 4 * S / 2, 4 * S / 2);
	expect_all(&s, 2, 6, S, S);
	assert_int_equal(s.nconns, 8);
	dmls_gen_schedule_release(&s);
}

/* Clique: the ring's volume, 2(N-1)/N S, over all N-1 partners. */
static void test_clique(void **state)
{
	(void)state;
	uint64_t S = 4 * MB;
	dmls_gen_schedule s = build(DMLS_PAT_CLIQUE, 4, S, 4, 1);
	expect_all(&s, 0, 4, 2 * 3 * S / 4, 2 * 3 * S / 4);
	assert_int_equal(s.nconns, 6);
	dmls_gen_schedule_release(&s);
}

/* Binary tree: S up and S down every edge. */
static void test_tree(void **state)
{
	(void)state;
	uint64_t S = 2 * MB;
	dmls_gen_schedule s = build(DMLS_PAT_TREE, 7, S, 3, 1);
	assert_int_equal(s.nconns, 6);
	for (uint32_t h = 0; h < 7; h++) {
		uint64_t edges = (h > 0) + (2 * h + 1 < 7) + (2 * h + 2 < 7);
		expect_all(&s, h, h + 1, edges * S, edges * S);
	}
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		uint32_t child = m->src > m->dst ? m->src : m->dst;
		assert_int_equal((child - 1) / 2, m->src > m->dst ? m->dst : m->src);
		assert_int_equal(m->phase, m->src == child ? DMLS_GEN_REDUCE : DMLS_GEN_BROADCAST);
	}
	dmls_gen_schedule_release(&s);
}

/* Hierarchical, 2 groups of 4: rings inside the groups, leaders 0 and 4
 * joined; a member sends its ring share 2(G-1)/G S plus the chain's S
 * (except the group's last). */
static void test_hierarchical(void **state)
{
	(void)state;
	uint64_t S = 4 * MB;
	dmls_gen_schedule s = build(DMLS_PAT_HIERARCHICAL, 8, S, 2, 1);
	assert_int_equal(s.job.group_size, 4);
	uint64_t intra = 2 * 3 * S / 4, inter = 2 * 1 * S / 2;
	expect_all(&s, 0, 1, intra + inter + S, intra + inter);
	expect_all(&s, 1, 3, intra + S, intra + S);
	expect_all(&s, 3, 4, intra, intra + S);
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		int same_group = m->src / 4 == m->dst / 4;
		assert_true(same_group || (m->src % 4 == 0 && m->dst % 4 == 0));
	}
	dmls_gen_schedule_release(&s);
}

/* Pairwise: S each way with one partner, a new partner every iteration,
 * every pair once in N-1 iterations (round-robin). */
static void test_pairwise(void **state)
{
	(void)state;
	uint64_t S = 4 * MB;
	dmls_gen_schedule s = build(DMLS_PAT_PAIRWISE, 4, S, 3, 1);
	expect_all(&s, 0, 4, S, S);
	assert_int_equal(s.nconns, 6);
	dmls_gen_schedule_release(&s);
	s = build(DMLS_PAT_PAIRWISE, 5, S, 5, 1);
	for (uint32_t k = 0; k < 5; k++) {
		int idle = 0;
		for (uint32_t h = 0; h < 5; h++) {
			uint64_t t, r;
			dmls_gen_host_bytes(&s, h, k, &t, &r);
			assert_true((t == S && r == S) || (t == 0 && r == 0));
			idle += t == 0;
		}
		assert_int_equal(idle, 1);
	}
	assert_int_equal(s.nconns, 10);
	dmls_gen_schedule_release(&s);
}

/* Collectives never overlap, the compute gaps vary as much as asked
 * (coefficient of variation) and the mean period is exactly T. */
static void test_timing(void **state)
{
	(void)state;
	enum { K = 200 };
	dmls_gen_job job = {.pattern = DMLS_PAT_RING, .workers = 4, .gradient_bytes = 400000,
			    .iterations = K, .iteration_ns = 10000000, .seed = 3, .jitter = 0.5};
	dmls_gen_schedule s;
	dmls_error err;
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	int64_t first[K], last[K], H = 1000000 + 4 * 30000, T = 10000000;
	for (int k = 0; k < K; k++)
		first[k] = INT64_MAX, last[k] = 0;
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		int64_t nseg = (int64_t)((m->bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS);
		int64_t end = m->start_ns + nseg * m->gap_ns;
		first[m->iteration] = m->start_ns < first[m->iteration] ? m->start_ns
									: first[m->iteration];
		last[m->iteration] = end > last[m->iteration] ? end : last[m->iteration];
		if (i)
			assert_true(m->start_ns >= s.msgs[i - 1].start_ns);
		/* 10 Gbit/s, one message per link: 1538 bytes x 8 / 10 ns */
		assert_int_equal(m->gap_ns, 1230);
	}
	assert_true(first[0] >= H);
	double sum = 0, sum2 = 0, G = (double)(T - s.collective_ns);
	for (int k = 1; k < K; k++) {
		assert_true(last[k - 1] < first[k]);
		double gap = (double)(first[k] - last[k - 1]);
		sum += gap;
		sum2 += gap * gap;
	}
	double mean = sum / (K - 1), cv = sqrt(sum2 / (K - 1) - mean * mean) / mean;
	assert_true(llabs((first[K - 1] - first[1]) / (K - 2) - T) < 3000); /* from the second */
	assert_true(fabs(mean / G - 1) < 0.05);
	assert_true(cv > 0.4 && cv < 0.6);
	dmls_gen_schedule_release(&s);
	job.iteration_ns = 100000; /* 0.1 ms: shorter than the collective */
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_EUSAGE);
	assert_non_null(strstr(err.msg, "iteration time"));
	assert_null(strstr(err.msg, "--")); /* the library knows no CLI options */
	dmls_gen_schedule_release(&s);
}

static void test_bad_jobs(void **state)
{
	(void)state;
	dmls_gen_schedule s;
	dmls_error err;
	dmls_gen_job ring1 = {.pattern = DMLS_PAT_RING, .workers = 1, .gradient_bytes = MB,
			      .iterations = 1};
	assert_int_equal(dmls_gen_schedule_build(&s, &ring1, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
	dmls_gen_job hier3 = ring1;
	hier3.pattern = DMLS_PAT_HIERARCHICAL;
	hier3.workers = 3;
	assert_int_equal(dmls_gen_schedule_build(&s, &hier3, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
	dmls_gen_job fly = ring1;
	fly.pattern = DMLS_PAT_BUTTERFLY; /* of one rank */
	assert_int_equal(dmls_gen_schedule_build(&s, &fly, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
	dmls_gen_job zero = ring1;
	zero.pattern = DMLS_PAT_STAR;
	zero.workers = 2;
	zero.gradient_bytes = 0;
	assert_int_equal(dmls_gen_schedule_build(&s, &zero, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
	dmls_gen_job shaky = ring1;
	shaky.workers = 2;
	shaky.jitter = 3;
	assert_int_equal(dmls_gen_schedule_build(&s, &shaky, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
	dmls_gen_job quiet = ring1;
	quiet.workers = 2;
	quiet.lead_ns = -1;
	assert_int_equal(dmls_gen_schedule_build(&s, &quiet, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
	quiet.lead_ns = 0;
	quiet.tail_ns = 86400000000001LL;
	assert_int_equal(dmls_gen_schedule_build(&s, &quiet, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
	dmls_gen_job groups = zero;
	groups.gradient_bytes = MB;
	groups.push_groups = NAN;
	assert_int_equal(dmls_gen_schedule_build(&s, &groups, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
	assert_int_equal(dmls_gen_pattern_parse("ring"), DMLS_PAT_RING);
	assert_int_equal(dmls_gen_pattern_parse("butterfly"), DMLS_PAT_BUTTERFLY);
	assert_int_equal(dmls_gen_pattern_parse("mesh"), -1);
}

/* The capture of a schedule, in memory. */
static char *pcap_bytes(const dmls_gen_schedule *s, int snaplen, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	dmls_error err;
	assert_non_null(fp);
	assert_int_equal(dmls_gen_write_pcap_fp(s, fp, snaplen, NULL, &err), DMLS_OK);
	return buf;
}

/* Same seed, same bytes; another seed, other bytes; snaplen cuts records. */
static void test_pcap_deterministic(void **state)
{
	(void)state;
	dmls_gen_schedule a = build(DMLS_PAT_STAR, 2, 300000, 3, 7);
	dmls_gen_schedule b = build(DMLS_PAT_STAR, 2, 300000, 3, 7);
	dmls_gen_schedule c = build(DMLS_PAT_STAR, 2, 300000, 3, 8);
	size_t la, lb, lc, lcut;
	char *pa = pcap_bytes(&a, 0, &la), *pb = pcap_bytes(&b, 0, &lb);
	char *pc = pcap_bytes(&c, 0, &lc), *cut = pcap_bytes(&a, 100, &lcut);
	assert_int_equal(la, lb);
	assert_memory_equal(pa, pb, la);
	assert_true(la != lc || memcmp(pa, pc, la));
	/* per message ceil(B / MSS) segments and ceil(segments / 2) ACKs */
	uint64_t seg = (300000 + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS, acks = (seg + 1) / 2;
	uint64_t pkts = 3 * a.nconns + a.nmsgs * (seg + acks);
	uint64_t handshakes = (74 + 74 + 66) * a.nconns; /* shorter than 100 */
	assert_int_equal(a.nconns, 2);
	assert_int_equal(lcut, 24 + 16 * pkts + handshakes + a.nmsgs * (100 * seg + 66 * acks));
	/* with a tail: 3 more frames per connection (FIN, FIN, ACK; 66 bytes),
	 * the last tail_ns after the data */
	a.job.tail_ns = 500000000;
	size_t ltail;
	char *tail = pcap_bytes(&a, 100, &ltail);
	assert_int_equal(ltail, lcut + (16 + 66) * 3 * a.nconns);
	uint32_t t_end[2], t_last[2];
	memcpy(t_end, cut + lcut - 16 - 66, 8);    /* the last data frame's time */
	memcpy(t_last, tail + ltail - 16 - 66, 8); /* the last ACK of the close */
	double gap = (t_last[0] - t_end[0]) + ((double)t_last[1] - t_end[1]) * 1e-9;
	assert_true(gap > 0.5 && gap < 0.501);
	free(tail);
	free(pa);
	free(pb);
	free(pc);
	free(cut);
	dmls_gen_schedule_release(&a);
	dmls_gen_schedule_release(&b);
	dmls_gen_schedule_release(&c);
}

static void test_csv(void **state)
{
	(void)state;
	dmls_gen_schedule s = build(DMLS_PAT_RING, 3, 3000, 2, 1);
	char *buf = NULL;
	size_t len;
	FILE *fp = open_memstream(&buf, &len);
	dmls_error err;
	assert_int_equal(dmls_gen_write_csv(&s, fp, &err), DMLS_OK);
	fclose(fp);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	assert_int_equal(lines, s.nmsgs + 1);
	assert_memory_equal(buf, "src,dst,sport,dport,start_s,bytes,iteration,phase\n", 50);
	assert_non_null(strstr(buf, "\n198.18.0.1,198.18.0.2,29400,"));
	assert_non_null(strstr(buf, "\n198.18.0.3,198.18.0.1,"));
	assert_non_null(strstr(buf, ",1000,0,reduce-scatter\n"));
	assert_non_null(strstr(buf, ",1000,1,all-gather\n"));
	free(buf);
	dmls_gen_schedule_release(&s);
}

/* --like: what the run's analysis tells fills what the user did not give. */
static void test_calibrate(void **state)
{
	(void)state;
	dmls_analysis a;
	memset(&a, 0, sizeof(a));
	a.pattern.kind = DMLS_PAT_STAR;
	a.pattern.ranks = 4;
	a.pattern.nhubs = 1;
	a.gradient_bytes = 8995308.4;
	a.iter.count = 10;
	a.iter.period_s = 0.25;
	a.iter.duration_cv = 0.2;
	for (int i = 0; i < DMLS_NTAU; i++)
		a.burst_total.max_window_bytes[i] = 1.25e6 * dmls_burst_tau_s[i] / 1e-3;
	dmls_gen_job job = {.iterations = 3};
	dmls_error err;
	assert_int_equal(dmls_gen_calibrate(&job, DMLS_GEN_SET_ITERATIONS, &a, "run", &err),
			 DMLS_OK);
	assert_int_equal(job.pattern, DMLS_PAT_STAR);
	assert_int_equal(job.workers, 3);
	assert_int_equal(job.gradient_bytes, 8995308);
	assert_int_equal(job.iterations, 3);
	assert_int_equal(job.iteration_ns, 250000000);
	assert_true(fabs(job.jitter - 0.2) < 1e-12);
	assert_true(fabs(job.link_gbps - 10) < 1e-9); /* 1.25 MB in 1 ms, one server link */
	assert_int_equal(job.lead_ns, 0); /* no iteration starts: no lead */
	assert_int_equal(job.tail_ns, 0);
	assert_true(job.push_groups == 0); /* no bursts */
	/* the run's quiet start and end, and a star's push groups: 32 bursts
	 * over 10 iterations are 2.2 groups of pushes, then the replies */
	double starts[10] = {1.5, 1.7, 1.9, 2.1, 2.3, 2.5, 2.7, 2.9, 3.1, 3.3};
	a.iter.starts_s = starts;
	a.iter.end_s = 3.45;
	a.job_start_s = 0.25;
	a.job_end_s = 3.95;
	a.capture_start_s = a.capture_end_s = NAN; /* without the capture's span: the job's */
	dmls_gen_job by_job = {0};
	assert_int_equal(dmls_gen_calibrate(&by_job, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(by_job.lead_ns, 1250000000);
	assert_int_equal(by_job.tail_ns, 500000000);
	/* the capture opened 0.25 s before the job's first packet (a bridge
	 * capture started early) and closed 0.1 s after its last: the quiet
	 * is the capture's, as is the mean rate peak-to-mean divides by */
	a.capture_start_s = 0;
	a.capture_end_s = 4.05;
	a.observed_iter_bytes = 4 * 8995308.4;
	a.phases.bursts = (dmls_dist){.n = 32, .mean_s = 0.009, .p50_s = 0.0075};
	a.phases.gaps = (dmls_dist){.n = 31, .mean_s = 0.064, .p50_s = 0.04};
	dmls_gen_job star = {0};
	assert_int_equal(dmls_gen_calibrate(&star, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(star.lead_ns, 1500000000);
	assert_int_equal(star.tail_ns, 600000000);
	assert_true(fabs(star.push_groups - 2.2) < 1e-12);
	assert_true(star.buckets == 0);
	assert_int_equal(star.bucket_span_ns, 7500000);
	assert_int_equal(star.bucket_gap_ns, 40000000);
	assert_int_equal(star.bucket_room_ns, 3 * (9000000 + 40000000));
	/* its busiest 10 ms (12.5 MB of 36 MB) and the update before the
	 * replies: the analysis's gap threshold and a bin */
	assert_true(fabs(star.dense_fraction - 12.5e6 / (4 * 8995308.4)) < 1e-12);
	assert_int_equal(star.update_ns, 0); /* no threshold known */
	a.phases.gap_threshold_s = 0.005;
	a.phases.bin_s = 0.001;
	star = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&star, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(star.update_ns, 6000000);
	/* a ring's dense bucket: its busiest 10 ms over an iteration's bytes */
	a.pattern.kind = DMLS_PAT_RING;
	a.pattern.ranks = 4;
	dmls_gen_job ring = {0};
	assert_int_equal(dmls_gen_calibrate(&ring, 0, &a, "run", &err), DMLS_OK);
	assert_true(ring.push_groups == 0);
	assert_true(fabs(ring.buckets - 3.2) < 1e-12);
	assert_true(fabs(ring.dense_fraction - 12.5e6 / (4 * 8995308.4)) < 1e-12);
	/* the gap between buckets: inside iterations, not between them (their
	 * spans, 30 ms each from the end of the gap before, minus 16 bursts of
	 * 9 ms, over the 6 gaps inside: 26 ms, not the median 40 ms); with 1.6
	 * buckets an iteration has one spread bucket (never fewer), which takes
	 * the run's time in bursts: 1.6 x the burst, not 2 x */
	double bounds[10], cends[10];
	for (int k = 0; k < 10; k++)
		bounds[k] = starts[k] - 0.01, cends[k] = bounds[k] + 0.03;
	a.iter.bounds_s = bounds;
	a.iter.comm_end_s = cends;
	a.phases.bursts.n = 16;
	dmls_gen_job inner = {0};
	assert_int_equal(dmls_gen_calibrate(&inner, 0, &a, "run", &err), DMLS_OK);
	assert_true(fabs(inner.buckets - 1.6) < 1e-12);
	assert_true(llabs(inner.bucket_gap_ns - 26000000) < 2);
	assert_true(llabs(inner.bucket_span_ns - 12000000) < 2);
	/* the spread block's room: one bucket and its gap (12 + 26 ms), but
	 * no longer than the run's iterations communicate (30 ms) */
	assert_true(llabs(inner.bucket_room_ns - 30000000) < 2);
	a.phases.bursts.n = 32; /* (0.3 - 32 x 0.009) s over 22 gaps inside */
	inner = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&inner, 0, &a, "run", &err), DMLS_OK);
	assert_true(llabs(inner.bucket_gap_ns - 545455) < 10);
	a.phases.bursts.mean_s = 0.02; /* more time in bursts than spans: the median */
	inner = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&inner, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(inner.bucket_gap_ns, 40000000);
	a.phases.bursts.mean_s = 0.009;
	a.iter.bounds_s = a.iter.comm_end_s = NULL;
	/* a large model's heavy bucket (keep_heavy): 2.5 bursts of 0.3 s an
	 * iteration, 10 % of its bytes in its busiest 10 ms and 60 % in its
	 * busiest 100 ms, where its 2 spread buckets at their pace (1 s in
	 * all) would give 19 %: 50 % go right after the dense bucket, which
	 * gives its last 5 % (half of it) to the heavy one, whose pace puts
	 * them beside it */
	dmls_analysis big = a;
	big.phases.bursts = (dmls_dist){.n = 25, .mean_s = 0.3, .p50_s = 0.25};
	big.observed_iter_bytes = 36e6;
	for (int i = 0; i < DMLS_NTAU; i++)
		big.burst_total.max_window_bytes[i] = dmls_burst_tau_s[i] == 0.01 ? 3.6e6
						      : dmls_burst_tau_s[i] == 0.1  ? 21.6e6
										    : NAN;
	dmls_gen_job heavy = {0};
	assert_int_equal(dmls_gen_calibrate(&heavy, 0, &big, "run", &err), DMLS_OK);
	assert_true(fabs(heavy.dense_fraction - 0.05) < 1e-9);
	assert_true(fabs(heavy.heavy_fraction - 0.55) < 1e-9);
	/* 24 % in 100 ms: the spread pace's 19 % is within 30 % of it */
	big.burst_total.max_window_bytes[4] = 8.64e6;
	assert_true(dmls_burst_tau_s[4] == 0.1);
	heavy = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&heavy, 0, &big, "run", &err), DMLS_OK);
	assert_true(heavy.heavy_fraction == 0 && fabs(heavy.dense_fraction - 0.1) < 1e-9);
	/* a butterfly's link: E(1 ms) over the core ranks, the largest power
	 * of two <= N (3 ranks: 2 links busy at once, the extra rank's hand-off
	 * takes one); 4 ranks: 4 */
	a.pattern.kind = DMLS_PAT_BUTTERFLY;
	a.pattern.ranks = 3;
	dmls_gen_job bfly = {0};
	assert_int_equal(dmls_gen_calibrate(&bfly, 0, &a, "run", &err), DMLS_OK);
	assert_true(fabs(bfly.link_gbps - 5) < 1e-9);
	a.pattern.ranks = 4;
	bfly = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&bfly, 0, &a, "run", &err), DMLS_OK);
	assert_true(fabs(bfly.link_gbps - 2.5) < 1e-9);
	a.pattern.ranks = 4;
	a.pattern.kind = DMLS_PAT_RING;
	/* the run's periods as quantiles: comm ends 0.2, 0.3 and 0.1 s apart,
	 * 0.2 s on average; a run of steady periods (robust CV < 5 %) keeps
	 * the lognormal */
	double ends[5] = {1.0, 1.2, 1.5, 1.6, 1.8};
	a.iter.count = 5;
	a.iter.comm_end_s = ends;
	a.iter.period_s = 0.2;
	a.iter.duration_cv = 0.3;
	dmls_gen_job per = {0};
	assert_int_equal(dmls_gen_calibrate(&per, 0, &a, "run", &err), DMLS_OK);
	assert_true(fabs(per.period_q[0] - 0.5) < 1e-9);
	assert_true(fabs(per.period_q[DMLS_GEN_NQ - 1] - 1.5) < 1e-9);
	assert_true(fabs(per.period_q[(DMLS_GEN_NQ - 1) / 2] - 1.0) < 1e-9);
	for (int i = 1; i < DMLS_GEN_NQ; i++)
		assert_true(per.period_q[i] >= per.period_q[i - 1]);
	a.iter.duration_cv = 0.02;
	dmls_gen_job steady = {0};
	assert_int_equal(dmls_gen_calibrate(&steady, 0, &a, "run", &err), DMLS_OK);
	assert_true(steady.period_q[DMLS_GEN_NQ - 1] == 0);
	a.iter.comm_end_s = NULL;
	a.iter.starts_s = NULL;
	a.pattern.kind = DMLS_PAT_UNKNOWN;
	assert_int_equal(dmls_gen_calibrate(&job, 0, &a, "run", &err), DMLS_EBAD);
	assert_non_null(strstr(err.msg, "give the pattern"));
	assert_null(strstr(err.msg, "--"));
	a.pattern.kind = DMLS_PAT_TREE;
	a.gradient_bytes = NAN;
	assert_int_equal(dmls_gen_calibrate(&job, 0, &a, "run", &err), DMLS_EBAD);
	assert_non_null(strstr(err.msg, "give the gradient size"));
	assert_null(strstr(err.msg, "--"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_ring_uneven),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_star_groups),
		cmocka_unit_test(test_star_dense),
		cmocka_unit_test(test_period_quantiles),
		cmocka_unit_test(test_star_shards),
		cmocka_unit_test(test_clique),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_hierarchical),
		cmocka_unit_test(test_pairwise),
		cmocka_unit_test(test_butterfly),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_heavy_bucket),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_bad_jobs),
		cmocka_unit_test(test_pcap_deterministic),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_calibrate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
