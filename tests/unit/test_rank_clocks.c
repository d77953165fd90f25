/*
 * test_rank_clocks.c - the ranks' clocks made two at a time
 * (dmls_iterations_find_clocks, st->analysis_threads 2) are the clocks
 * made one by one (dmls_iterations_find_clock): the same count, periods,
 * bytes and every end, for each rank, over its own pairs or its whole
 * sending; and no ranks is no work.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/analysis.h"
#include "synth.h"

#define N 6
#define ITERS 40
#define MS 1000000LL

/* A ring of N ranks (hosts 1..N), 2(N-1) steps of S/N an iteration, its
 * period jittered by 20 % and its ranks by their own compute. */
static void ring_job(dmls_stats *st)
{
	int64_t t = SYNTH_T0;
	for (int i = 0; i < ITERS; i++) {
		int64_t s = t + 20 * MS;
		for (int step = 0; step < 2 * (N - 1); step++) {
			int64_t end = s;
			for (int r = 0; r < N; r++) {
				int64_t e = synth_send(st, s + (int64_t)(r * 30000 * (1 + synth_jitter())),
						       1 + r, 1 + (r + 1) % N, 3000000 / N);
				end = e > end ? e : end;
			}
			s = end + 50000;
		}
		t += (int64_t)(100 * MS * (1 + 0.2 * synth_jitter()));
	}
}

static void same_clock(const dmls_iterations *a, const dmls_iterations *b)
{
	assert_int_equal(a->count, b->count);
	assert_memory_equal(&a->period_s, &b->period_s, sizeof(double));
	assert_memory_equal(&a->bytes_per_worker, &b->bytes_per_worker, sizeof(double));
	if (a->count)
		assert_memory_equal(a->comm_end_s, b->comm_end_s, a->count * sizeof(double));
}

static void check(const size_t *pairs, size_t np)
{
	dmls_stats st;
	dmls_stats_init(&st, 0);
	ring_job(&st);
	assert_int_equal(dmls_stats_finish(&st), 0);
	assert_int_equal(st.nhosts, N);
	size_t h[N];
	for (size_t i = 0; i < N; i++)
		h[i] = N - 1 - i; /* not in host order */
	size_t *own = NULL, all[2 * N];
	if (pairs == NULL && np) { /* the job's pairs */
		np = 0;
		for (size_t k = 0; k < st.npairs; k++)
			if (st.pairs[k].payload_bytes)
				all[np++] = k;
		own = all;
	}
	dmls_iterations two[N], one;
	dmls_error err;
	dmls_error_clear(&err);
	st.analysis_threads = 2;
	assert_int_equal(dmls_iterations_find_clocks(two, &st, h, N, own, np, &err), 0);
	for (size_t i = 0; i < N; i++) {
		size_t mine[2 * N], nm = 0;
		for (size_t k = 0; own && k < np; k++)
			if (st.pairs[own[k]].src == h[i])
				mine[nm++] = own[k];
		assert_int_equal(dmls_iterations_find_clock(&one, &st, h[i], nm ? mine : NULL, nm,
							    &err),
				 0);
		assert_true(one.count >= ITERS - 2); /* a clock, not an empty one */
		same_clock(&one, &two[i]);
		dmls_iterations_release(&one);
		dmls_iterations_release(&two[i]);
	}
	assert_int_equal(dmls_iterations_find_clocks(two, &st, h, 0, NULL, 0, &err), 0);
	dmls_stats_release(&st);
}

static void test_whole_sending(void **state)
{
	(void)state;
	check(NULL, 0);
}

static void test_own_pairs(void **state)
{
	(void)state;
	check(NULL, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_sending),
		cmocka_unit_test(test_own_pairs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
