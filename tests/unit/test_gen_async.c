/*
 * test_gen_async.c - generate --like of an asynchronous run (gossip, pair
 * averaging, an asynchronous parameter server): its ranks keep their own
 * clocks, so the job's count and period are the ranks' (calibrate.c,
 * clock_of), the link rate a host's busiest millisecond (link_gbps), and
 * the pairs meet at any phase of a step (pair_jitter_ns, layout.c).
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

enum { R = 4, N = 36 };

/* A 4-rank gossip run as the analysis leaves it: 36 exchanges a rank at
 * periods of 0.107 to 0.199 s, a job-wide count (141) and no period that
 * are not the run's; the capture from 0 to 9 s. */
static void gossip(dmls_analysis *a, dmls_rank_clock *rc, double ends[R][N], dmls_burst *bh)
{
	static const double period[R] = {0.107, 0.144, 0.172, 0.199};
	static const double host_ms[R] = {0.55e6, 0.60e6, 0.58e6, 1.10e6};
	memset(a, 0, sizeof(*a));
	a->pattern.kind = DMLS_PAT_PAIRWISE;
	a->pattern.ranks = R;
	a->gradient_bytes = 548000;
	a->iter.count = 141;
	a->iter.period_s = NAN;
	a->iter.duration_cv = NAN;
	a->iter.end_s = NAN;
	a->capture_start_s = 0;
	a->capture_end_s = 9;
	a->job_start_s = a->job_end_s = NAN;
	a->observed_iter_bytes = NAN;
	for (int i = 0; i < DMLS_NTAU; i++)
		a->burst_total.max_window_bytes[i] = NAN;
	for (int r = 0; r < R; r++) {
		for (int k = 0; k < N; k++)
			ends[r][k] = 1.2 + 0.01 * r + period[r] * k;
		rc[r] = (dmls_rank_clock){.host = (size_t)r, .count = N, .period_s = period[r],
					  .bytes_per_exchange = 548000, .ends = ends[r],
					  .nends = N};
		memset(&bh[r], 0, sizeof(bh[r]));
		for (int i = 0; i < DMLS_NTAU; i++)
			bh[r].max_window_bytes[i] = dmls_burst_tau_s[i] == 1e-3 ? host_ms[r] : NAN;
	}
	a->mode.mode = DMLS_MODE_ASYNC;
	a->mode.nranks = R;
	a->mode.ranks = rc;
	a->nhosts = R;
	a->burst_host = bh;
}

static void test_calibrate_async(void **state)
{
	(void)state;
	dmls_analysis a;
	dmls_rank_clock rc[R];
	dmls_burst bh[R];
	double ends[R][N];
	gossip(&a, rc, ends, bh);
	dmls_gen_job job = {0};
	dmls_error err;
	assert_int_equal(dmls_gen_calibrate(&job, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(job.pattern, DMLS_PAT_PAIRWISE);
	assert_int_equal(job.workers, R);
	assert_int_equal(job.gradient_bytes, 548000);
	assert_int_equal(job.iterations, N);               /* not 141 */
	assert_int_equal(job.iteration_ns, 158000000);     /* the ranks' median period */
	/* their periods' robust spread: 1.4826 x median |p - 0.158| / 0.158 */
	assert_true(fabs(job.jitter - 1.4826 * 0.0275 / 0.158) < 1e-9);
	assert_true(fabs(job.async_periods_s[0] - 0.107) < 1e-12);
	assert_true(fabs(job.async_periods_s[1] - 0.199) < 1e-12);
	assert_int_equal(job.pair_jitter_ns, 79000000);
	/* the first exchange of any rank (1.2 s) after the capture's start, the
	 * capture's end after the last (rank 3's: 1.23 + 35 x 0.199 s) */
	assert_int_equal(job.lead_ns, 1200000000);
	assert_true(llabs(job.tail_ns - (int64_t)llround((9 - (1.23 + 35 * 0.199)) * 1e9)) < 2);
	/* a link: the median host's busiest millisecond on the wire (0.59 MB
	 * of payload in full frames), not the host that sent two messages in
	 * one (1.1 MB) */
	assert_true(fabs(job.link_gbps - 0.59e6 * 1538 / 1448 * 8 / 1e-3 / 1e9) < 1e-9);
	assert_true(job.buckets == 0); /* no shape from job-wide iterations */

	/* what it lays out: 36 steps of 2 pairs, each rank sending S a step,
	 * the pairs' starts spread over half the period, not 500 us */
	dmls_gen_schedule s;
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_OK);
	assert_int_equal(s.nmsgs, (size_t)N * R);
	int64_t widest = 0;
	for (uint32_t k = 0; k < N; k++) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (size_t i = 0; i < s.nmsgs; i++)
			if (s.msgs[i].iteration == k) {
				assert_int_equal(s.msgs[i].bytes, 548000);
				lo = s.msgs[i].start_ns < lo ? s.msgs[i].start_ns : lo;
				hi = s.msgs[i].start_ns > hi ? s.msgs[i].start_ns : hi;
			}
		widest = hi - lo > widest ? hi - lo : widest;
	}
	assert_true(widest > 20000000 && widest < 79000000 + 100000);
	dmls_gen_schedule_release(&s);

	/* the same run read as synchronous keeps the job's own clock */
	a.mode.mode = DMLS_MODE_SYNC;
	a.iter.period_s = 0.05;
	job = (dmls_gen_job){0};
	assert_int_equal(dmls_gen_calibrate(&job, 0, &a, "run", &err), DMLS_OK);
	assert_int_equal(job.iterations, 141);
	assert_int_equal(job.iteration_ns, 50000000);
	assert_true(job.pair_jitter_ns == 0 && job.async_periods_s[1] == 0);
	/* a bad jitter is refused */
	job.pair_jitter_ns = -1;
	assert_int_equal(dmls_gen_schedule_build(&s, &job, &err), DMLS_EUSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_async),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
