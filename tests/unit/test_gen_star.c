/*
 * test_gen_star.c - a parameter server whose workers push one by one
 * (generate --like on a star whose busiest 10 ms hold more than its
 * replies and a push): the layout (schedule.c, lay_star_chain) and the
 * push gap calibrated from a run's analysis (calibrate.c, keep_star_chain).
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

enum { K = 60, W = 4 };

/* When a message's last segment leaves (its start, then a gap per segment). */
static int64_t end_of(const dmls_gen_msg *m)
{
	return m->start_ns + (int64_t)((m->bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS) * m->gap_ns;
}

/* Each worker pushes on its own (one step each, every worker once), then
 * the replies to all together; the quiet before each push after the first
 * and before the replies is the push gap (3 ms) or a bucket gap (12 ms),
 * to the step's ACK and the messages' start jitter; 1.6 of the 4 quiets
 * are bucket gaps on average (a draw per quiet, not floor or ceil: some
 * iterations are one tight burst, others spread), and the mean period
 * is T. */
static void test_star_chain(void **state)
{
	(void)state;
	dmls_gen_job job = {.pattern = DMLS_PAT_STAR, .workers = W, .gradient_bytes = 500000,
			    .iterations = K, .seed = 5, .iteration_ns = 80000000,
			    .link_gbps = 10, .push_groups = 1.6, .bucket_gap_ns = 12000000,
			    .update_ns = 6000000, .push_gap_ns = 3000000, .dense_fraction = 0.9};
	dmls_gen_schedule s;
	dmls_error err = {0};
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	int64_t lo[K][W + 1], hi[K][W + 1];
	uint32_t n[K][W + 1], seen[K] = {0};
	memset(n, 0, sizeof(n));
	for (int k = 0; k < K; k++)
		for (int j = 0; j <= W; j++)
			lo[k][j] = INT64_MAX, hi[k][j] = 0;
	for (size_t i = 0; i < s.nmsgs; i++) {
		const dmls_gen_msg *m = &s.msgs[i];
		uint32_t k = m->iteration, j = m->step;
		assert_true(j <= W);
		assert_int_equal(m->phase, j < W ? DMLS_GEN_PUSH : DMLS_GEN_PULL);
		if (j < W) { /* one worker per step, each once */
			assert_int_equal(m->dst, 0);
			assert_int_equal(seen[k] & (1u << m->src), 0);
			seen[k] |= 1u << m->src;
		}
		n[k][j]++;
		lo[k][j] = m->start_ns < lo[k][j] ? m->start_ns : lo[k][j];
		hi[k][j] = end_of(m) > hi[k][j] ? end_of(m) : hi[k][j];
	}
	uint32_t bigs = 0, tight = 0, spread = 0, order_moves = 0;
	int64_t first_src[K];
	for (int k = 0; k < K; k++) {
		uint32_t big = 0;
		assert_int_equal(seen[k], ((1u << W) - 1) << 1); /* workers 1..W */
		assert_int_equal(n[k][W], W);                     /* the replies, together */
		assert_true(hi[k][W] - lo[k][W] < 2000000);       /* 2 MB at line rate */
		for (int j = 1; j <= W; j++) {
			assert_int_equal(n[k][j - 1], 1);
			int64_t q = lo[k][j] - hi[k][j - 1];
			int is_big = q >= 12000000 && q < 12100000;
			assert_true(is_big || (q >= 3000000 && q < 3100000));
			big += (uint32_t)is_big;
		}
		bigs += big;
		tight += big == 0;
		spread += big >= 2;
		first_src[k] = -1;
	}
	for (size_t i = 0; i < s.nmsgs; i++)
		if (s.msgs[i].step == 0)
			first_src[s.msgs[i].iteration] = s.msgs[i].src;
	for (int k = 1; k < K; k++)
		order_moves += first_src[k] != first_src[k - 1];
	/* 240 quiets, each a bucket gap with probability 0.4: 96 expected */
	assert_true(bigs > 72 && bigs < 120);
	assert_true(tight >= 2 && spread >= 10);
	assert_true(order_moves >= K / 2); /* who pushes first turns */
	double period = (double)(lo[K - 1][0] - lo[0][0]) / (K - 1);
	assert_true(fabs(period / 8e7 - 1) < 1e-3);
	dmls_gen_schedule_release(&s);
	job.push_gap_ns = -1;
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_EUSAGE);
	dmls_gen_schedule_release(&s);
}

/* An analysis of a 3-worker star: 36 iterations of 65 ms, 90 bursts of 4
 * ms on average (the time in bursts: 10 ms an iteration), 1 ms bins, a 5
 * ms gap threshold, 1.25 MB in its busiest ms (10 Gbit/s) and 90 % of an
 * iteration in its busiest 10 ms. */
static void star_run(dmls_analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->pattern.kind = DMLS_PAT_STAR;
	a->pattern.ranks = 4;
	a->pattern.nhubs = 1;
	a->gradient_bytes = 548659;
	a->observed_iter_bytes = 6 * 548659.0;
	a->iter.count = 36;
	a->iter.period_s = 0.065;
	a->iter.duration_cv = NAN;
	a->job_start_s = a->job_end_s = NAN;
	a->iter.end_s = NAN;
	for (int i = 0; i < DMLS_NTAU; i++)
		a->burst_total.max_window_bytes[i] = dmls_burst_tau_s[i] == 1e-2
							     ? 0.9 * 6 * 548659.0 : 1.25e6;
	a->phases.bin_s = 0.001;
	a->phases.gap_threshold_s = 0.005;
	a->phases.bursts = (dmls_dist){.n = 90, .mean_s = 0.004, .p50_s = 0.002};
	a->phases.gaps = (dmls_dist){.n = 89, .mean_s = 0.02, .p50_s = 0.012};
}

/* The push gap: 2.5 bursts of 4 ms an iteration, less a bin each, less 3
 * pushes of 379 segments (0.4663 ms each at 10 Gbit/s, 1538 wire bytes a
 * segment) and the replies (3 x that), over the 1.5 quiets inside bursts:
 * 3.1347 ms.  At most the gap threshold less a bin; none when the busiest
 * 10 ms hold no more than the replies and a push (2/3), or when an
 * iteration of bucket gaps only would not fit in 75 % of the period. */
static void test_calibrate_chain(void **state)
{
	(void)state;
	dmls_analysis a;
	dmls_error err;
	star_run(&a);
	dmls_gen_job job = {0};
	assert_int_equal(dmls_gen_calibrate(&job, 0, &a, "run", &err), DMLS_OK);
	assert_true(fabs(job.link_gbps - 10) < 1e-9);
	assert_true(fabs(job.push_groups - 1.5) < 1e-12);
	assert_int_equal(job.bucket_gap_ns, 12000000);
	assert_int_equal(job.update_ns, 6000000);
	assert_true(llabs(job.push_gap_ns - 3134714) < 10);
	a.phases.gap_threshold_s = 0.0035; /* stays inside a burst */
	job = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&job, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(job.push_gap_ns, 2500000);
	a.phases.gap_threshold_s = 0.005;
	a.iter.period_s = 0.05; /* 3 x (12 + 0.47) + 1.4 ms > 37.5 ms */
	job = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&job, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(job.push_gap_ns, 0);
	a.iter.period_s = 0.065;
	for (int i = 0; i < DMLS_NTAU; i++) /* the replies and a push: not more */
		if (dmls_burst_tau_s[i] == 1e-2)
			a.burst_total.max_window_bytes[i] = 4 * 548659.0;
	job = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&job, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(job.push_gap_ns, 0);
	assert_true(job.push_groups > 0); /* the push groups, as before */
	/* the calibrated star is laid out: K iterations, every byte */
	star_run(&a);
	job = (dmls_gen_job){.iterations = 6};
	assert_int_equal(dmls_gen_calibrate(&job, DMLS_GEN_SET_ITERATIONS, &a, "run", &err),
			 DMLS_OK);
	dmls_gen_schedule s;
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	assert_int_equal(s.nmsgs, 6 * 6);
	dmls_gen_schedule_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_star_chain),
		cmocka_unit_test(test_calibrate_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
