/*
 * test_analysis_lossy.c - a DDP-like ring on a lossy link, built packet by
 * packet: the regression test for the run where 1 % loss made the byte
 * clock lock on two (or three) iterations at once, doubling the period
 * and S (pytorch_ddp-resnet18-adam-32-gloo-loss_1-ring of the testbed's
 * matrix dataset, which `make validate` checks on the real capture).
 *
 * The job, like PyTorch DDP over Gloo on a loaded host: an initial
 * parameter broadcast ((N-1) S along a chain), then 8 steps of +-40 %
 * jittered compute, each ending with two gradient buckets all-reduced by a
 * ring (the first, small one, early in the backward pass).  Loss: a lost
 * segment stalls its sender for a retransmission timeout (a gap inside
 * the iteration as long as a compute phase) and is sent again (the same
 * sequence number, so the bytes per iteration vary by a few percent).
 * Each run must show its 8 steps, S, and the mean step time between the
 * ends of the steps' communication within 3 %.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/analysis.h"
#include "synth.h"

#define S_BYTES 4000000ULL
#define MS 1000000LL
#define RANKS 4
#define STEPS 8

static double g_loss;     /* probability that a segment is lost */
static double g_stall_ms; /* mean retransmission timeout */

static int64_t lossy_send(dmls_stats *st, int64_t t, int s, int d, uint64_t bytes)
{
	while (bytes > 0) {
		uint64_t n = bytes < SYNTH_SEG ? bytes : SYNTH_SEG;
		uint32_t seq = synth_seq[s][d];
		t = synth_send(st, t, s, d, n);
		if ((synth_jitter() + 1) / 2 < g_loss) { /* lost: timeout, send again */
			t += (int64_t)(g_stall_ms * (1 + 0.5 * synth_jitter()) * (double)MS);
			dmls_pkt p = synth_pkt(t, s, d, n, seq);
			dmls_stats_add(st, &p);
			t += 20000;
		}
		bytes -= n;
	}
	return t;
}

/* Ring all-reduce of `bytes` over hosts 1..RANKS; returns its end. */
static int64_t ring_allreduce(dmls_stats *st, int64_t t, uint64_t bytes)
{
	for (int step = 0; step < 2 * (RANKS - 1); step++) {
		int64_t end = t;
		for (int r = 0; r < RANKS; r++) {
			int64_t e = lossy_send(st, t, 1 + r, 1 + (r + 1) % RANKS, bytes / RANKS);
			end = e > end ? e : end;
		}
		t = end + 50000;
	}
	return t;
}

/* Builds the job; returns the mean step time as a log would give it, the
 * first interval left out as period_s leaves it out (DMLS_STEADY_FROM):
 * (last step end - second step end) / (STEPS - 2). */
static double lossy_ddp(dmls_stats *st, unsigned seed)
{
	int64_t t = SYNTH_T0, ends[STEPS];
	synth_rng = seed;
	memset(synth_seq, 0, sizeof(synth_seq));
	for (int r = 1; r < RANKS; r++) /* initial parameter broadcast */
		t = synth_send(st, t, r, r + 1, S_BYTES);
	t += 60 * MS;
	for (int i = 0; i < STEPS; i++) {
		int64_t c = t + (int64_t)(50 * MS * (1 + 0.4 * synth_jitter())); /* forward, backward */
		c = ring_allreduce(st, c, S_BYTES / 5);                            /* first bucket */
		c += (int64_t)((15 + 8 * synth_jitter()) * (double)MS);           /* rest of backward */
		c = ring_allreduce(st, c, S_BYTES - S_BYTES / 5);
		ends[i] = c;
		t = c + (int64_t)((25 + 10 * synth_jitter()) * (double)MS); /* optimizer */
	}
	return (double)(ends[STEPS - 1] - ends[1]) * 1e-9 / (STEPS - 2);
}

static void check_lossy(unsigned seed, double loss, double stall_ms)
{
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_loss = loss, g_stall_ms = stall_ms;
	double mean_step = lossy_ddp(&st, seed);
	dmls_analysis *a = NULL;
	dmls_error err;
	assert_int_equal(dmls_analysis_run(&a, &st, NULL, &err), 0);
	assert_non_null(a);
	if (a->pattern.kind != DMLS_PAT_RING || a->pattern.ranks != RANKS)
		fail_msg("seed %u: %s/%zu, want ring/%d", seed, dmls_pattern_name(a->pattern.kind),
			 a->pattern.ranks, RANKS);
	if (a->iter.count != STEPS)
		fail_msg("seed %u: %zu iterations (%s), want %d", seed, a->iter.count,
			 a->iter.method ? a->iter.method : "none", STEPS);
	if (!(fabs(a->gradient_bytes / (double)S_BYTES - 1) <= 0.03))
		fail_msg("seed %u: S %g, want %llu within 3 %%", seed, a->gradient_bytes,
			 S_BYTES);
	/* the period from the ends of the iterations' communication, like the
	 * log's mean step from its rows written at each step's end */
	if (!(fabs(a->iter.period_s / mean_step - 1) <= 0.03))
		fail_msg("seed %u: period %g s, want %g s within 3 %%", seed, a->iter.period_s,
			 mean_step);
	assert_true(isfinite(a->iter.period_median_s));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Seeds where the byte clock used to lock on 2 or 3 iterations (period
 * and S doubled or tripled) or on retransmission stalls. */
static void test_lossy_ring(void **state)
{
	(void)state;
	static const unsigned seeds[] = {1, 17, 30, 31, 39, 48, 50, 52, 58, 60};
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		check_lossy(seeds[i], 0.02, 40);
}

/* The same job without loss. */
static void test_clean_ring(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 5; seed++)
		check_lossy(seed, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lossy_ring),
		cmocka_unit_test(test_clean_ring),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
