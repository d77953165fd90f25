/*
 * test_analysis.c - pattern, iterations, gradient size on synthetic jobs
 * built packet by packet with known answers (synth.h), and adversarial
 * captures: one iteration, a long stall, two jobs, control traffic only,
 * nothing at all.
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
#include "analysis_check.h"

#define S_BYTES 4000000ULL   /* gradient size */
#define PERIOD_NS 100000000LL /* 100 ms */
#define MS 1000000LL

typedef void (*iter_fn)(dmls_stats *st, int64_t t, int iter);

static int g_n;     /* ranks */
static int g_base;  /* first host number */

/* Ring all-reduce: 2(N-1) steps of S/N to the next rank (Patarasuk & Yuan). */
static void ring_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	for (int step = 0; step < 2 * (g_n - 1); step++) {
		int64_t end = t;
		for (int r = 0; r < g_n; r++)
			end = synth_send(st, t, g_base + r, g_base + (r + 1) % g_n, S_BYTES / g_n);
		t = end + 50000;
	}
}

/* Parameter server: host 1 is the server; workers push S, then pull S. */
static void star_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	int64_t end = t;
	for (int w = 2; w <= g_n; w++)
		end = synth_send(st, t + (w - 2) * 100000, w, 1, S_BYTES);
	end += 2 * MS;
	for (int w = 2; w <= g_n; w++)
		end = synth_send(st, end, 1, w, S_BYTES);
}

/* Parameter server whose update takes as long as the workers' compute:
 * push and pull are two equal halves, 40 ms apart. */
static void star_slow_update_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	int64_t end = t;
	for (int w = 2; w <= g_n; w++)
		end = synth_send(st, t, w, 1, S_BYTES);
	end += 40 * MS;
	for (int w = 2; w <= g_n; w++)
		end = synth_send(st, end, 1, w, S_BYTES);
}

/* Parameter server in two shards (hosts 1 and 2): each worker pushes half
 * its gradient to each shard and pulls half back from each. */
static void star_shards_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	int64_t end = t;
	for (int w = 3; w <= g_n; w++)
		for (int h = 1; h <= 2; h++)
			end = synth_send(st, t + (w - 3) * 100000, w, h, S_BYTES / 2);
	end += 2 * MS;
	for (int w = 3; w <= g_n; w++)
		for (int h = 1; h <= 2; h++)
			end = synth_send(st, end, h, w, S_BYTES / 2);
}

/* Open MPI's reduce then broadcast of 4 ranks: every rank sends its
 * gradient to rank 0 (host 1), which broadcasts the sum down a chain
 * 1 -> 2 -> 3 -> 4.  Hosts 1 and 3 meet every other host and host 2 and
 * 4 not each other: a star's shape with two hubs, but hubs that move S
 * between them.  With g_n 8 and binomial set, the reduce goes up a
 * binomial tree (8 -> 7, 7 -> 5, 6 -> 5, 5 -> 1, 4 -> 3, 3 -> 1, 2 -> 1)
 * and the broadcast is linear (1 to every rank), as Open MPI does at 8. */
static int g_binomial;
static void reduce_chain_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	int64_t end = t;
	if (g_binomial) {
		static const int up[7][2] = {{8, 7}, {4, 3}, {6, 5}, {2, 1}, {7, 5}, {3, 1}, {5, 1}};
		for (int i = 0; i < 7; i++)
			end = synth_send(st, end, up[i][0], up[i][1], S_BYTES);
		for (int r = 2; r <= g_n; r++)
			end = synth_send(st, end, 1, r, S_BYTES);
		return;
	}
	for (int r = 2; r <= 4; r++)
		end = synth_send(st, end, r, 1, S_BYTES);
	for (int r = 1; r <= 3; r++)
		end = synth_send(st, end, r, r + 1, S_BYTES);
}

/* Open MPI's reduce-scatter then all-gather of 3 ranks, by the volumes of
 * a testbed run (hosts 1-3 = ranks 0-2): a reduce down the chain 3 -> 2
 * -> 1, a scatter from 1, an all-gather; every pair is used, at 1/4 to 1
 * of the heaviest edge (in S/3: 3->2 4, 2->1 4, 1->2 2, 1->3 2, 2->3 1,
 * 3->1 1). */
static void zero3_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	static const int e[6][3] = {{3, 2, 4}, {2, 1, 4}, {1, 2, 2}, {1, 3, 2}, {2, 3, 1}, {3, 1, 1}};
	for (int i = 0; i < 6; i++)
		t = synth_send(st, t, e[i][0], e[i][1], (uint64_t)e[i][2] * (S_BYTES / 3));
}

/* Binary tree of g_n nodes: reduce to the root, then broadcast. */
static void tree_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	for (int c = g_n; c >= 2; c--)
		t = synth_send(st, t, c, c / 2, S_BYTES);
	for (int c = 2; c <= g_n; c++)
		t = synth_send(st, t, c / 2, c, S_BYTES);
}

/* All-to-all: reduce-scatter then all-gather, S/N to every peer each. */
static void clique_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	for (int phase = 0; phase < 2; phase++) {
		int64_t end = t;
		for (int a = 1; a <= g_n; a++)
			for (int b = 1; b <= g_n; b++)
				if (a != b)
					end = synth_send(st, t, a, b, S_BYTES / g_n);
		t = end + 50000;
	}
}

/* Recursive halving (S/2 to distance N/2, S/4 to N/4, ...) then doubling. */
static void butterfly_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	for (int phase = 0; phase < 2; phase++) {
		uint64_t part = S_BYTES / 2;
		for (int dist = g_n / 2; dist >= 1; dist /= 2, part /= 2) {
			int64_t end = t;
			for (int r = 0; r < g_n; r++)
				end = synth_send(st, t, 1 + r, 1 + (r ^ dist), part);
			t = end + 50000;
		}
	}
}

/* N = 6, not a power of two (MPICH): hosts 1 and 3 hand their vector to 2
 * and 4 and get the result back; the core 2, 4, 5, 6 runs the butterfly.
 * Open MPI's Rabenseifner (g_ompi): an extra and its core rank first swap
 * halves (S/2 each way), the extra sends back its half reduced (S/2), and
 * gets the result (S): S one way, 1.5 S the other. */
static int g_ompi;

static void butterfly6_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	static const int core[4] = {2, 4, 5, 6};
	int64_t end;
	if (g_ompi) {
		synth_send(st, t, 1, 2, S_BYTES / 2);
		synth_send(st, t, 2, 1, S_BYTES / 2);
		synth_send(st, t, 3, 4, S_BYTES / 2);
		end = synth_send(st, t, 4, 3, S_BYTES / 2);
		synth_send(st, end + 50000, 1, 2, S_BYTES / 2);
		end = synth_send(st, end + 50000, 3, 4, S_BYTES / 2);
	} else {
		end = synth_send(st, t, 1, 2, S_BYTES);
		end = synth_send(st, t, 3, 4, S_BYTES);
	}
	t = end + 50000;
	for (int phase = 0; phase < 2; phase++) {
		uint64_t part = S_BYTES / 2;
		for (int dist = 2; dist >= 1; dist /= 2, part /= 2) {
			for (int r = 0; r < 4; r++)
				end = synth_send(st, t, core[r], core[r ^ dist], part);
			t = end + 50000;
		}
	}
	synth_send(st, t, 2, 1, S_BYTES);
	synth_send(st, t, 4, 3, S_BYTES);
}

/* Two groups of 4 (hosts 1-4, 5-8): ring inside, leaders 1 and 5 exchange. */
static void hier_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	for (int g = 0; g < 2; g++) {
		int64_t u = t;
		for (int step = 0; step < 6; step++) {
			int64_t end = u;
			for (int r = 0; r < 4; r++)
				end = synth_send(st, u, 1 + 4 * g + r, 1 + 4 * g + (r + 1) % 4,
						 S_BYTES / 4);
			u = end + 50000;
		}
	}
	t += 3 * MS;
	synth_send(st, t, 1, 5, S_BYTES / 2);
	synth_send(st, t, 5, 1, S_BYTES / 2);
}

/* Four groups of 2 (1-2, 3-4, 5-6, 7-8): a member sends S to its leader,
 * the leaders 1, 3, 5, 7 ring all-reduce, then each leader sends S back. */
static void hier2_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	int64_t end = t;
	for (int g = 0; g < 4; g++)
		end = synth_send(st, t, 2 + 2 * g, 1 + 2 * g, S_BYTES);
	t = end + 50000;
	for (int step = 0; step < 6; step++) {
		for (int g = 0; g < 4; g++)
			end = synth_send(st, t, 1 + 2 * g, 1 + 2 * ((g + 1) % 4), S_BYTES / 4);
		t = end + 50000;
	}
	for (int g = 0; g < 4; g++)
		synth_send(st, t, 1 + 2 * g, 2 + 2 * g, S_BYTES);
}

/* Pair averaging: a new random perfect matching of 6 hosts every iteration. */
static void pairwise_iter(dmls_stats *st, int64_t t, int iter)
{
	int perm[6] = {1, 2, 3, 4, 5, 6};
	uint32_t x = (uint32_t)iter * 2654435761u + 7;
	for (int i = 5; i > 0; i--) {
		x = x * 1103515245u + 12345u;
		int j = (int)((x >> 8) % (uint32_t)(i + 1));
		int tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (int i = 0; i < 6; i += 2) {
		synth_send(st, t, perm[i], perm[i + 1], S_BYTES);
		synth_send(st, t, perm[i + 1], perm[i], S_BYTES);
	}
}

/* iters iterations of fn from t, period PERIOD_NS with +-jitter; returns end */
static int64_t run_job(dmls_stats *st, int64_t t, iter_fn fn, int iters, double jitter)
{
	for (int i = 0; i < iters; i++) {
		fn(st, t + 20 * MS, i); /* 20 ms of compute, then the collective */
		t += (int64_t)((double)PERIOD_NS * (1 + jitter * synth_jitter()));
	}
	return t;
}

/* kind, ranks, period within 3 %, S within 3 % (when S >= 0) */
static dmls_analysis *check_job(dmls_stats *st, int kind, size_t ranks, double S)
{
	dmls_analysis *a = analyze(st);
	if (a->pattern.kind != kind)
		fail_msg("kind %s, want %s", dmls_pattern_name(a->pattern.kind),
			 dmls_pattern_name(kind));
	assert_int_equal(a->pattern.ranks, ranks);
	assert_near(a->iter.period_median_s, PERIOD_NS * 1e-9, 0.03);
	assert_near(a->iter.period_s, PERIOD_NS * 1e-9, 0.03);
	if (S >= 0)
		assert_near(a->gradient_bytes, S, 0.03);
	assert_true(a->pattern.confidence > 0 && a->pattern.confidence <= 1);
	return a;
}

static void test_ring(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4, g_base = 1;
	int64_t end = run_job(&st, SYNTH_T0, ring_iter, 30, 0.05);
	for (int64_t t = SYNTH_T0; t < end; t += 50 * MS) /* rendezvous store chatter */
		for (int h = 2; h <= 4; h++)
			synth_ctrl(&st, t + h * 1000, h, 1);
	dmls_analysis *a = check_job(&st, DMLS_PAT_RING, 4, (double)S_BYTES);
	assert_int_equal(a->pattern.norder, 4);
	for (size_t i = 0; i < 4; i++) /* 1 -> 2 -> 3 -> 4 */
		assert_int_equal(st.hosts[a->pattern.order[i]].addr[15], i + 1);
	for (size_t i = 0; i < st.nhosts; i++)
		assert_int_equal(st.hosts[i].role, DMLS_ROLE_WORKER);
	assert_true(a->iter.count >= 29 && a->iter.count <= 31);
	assert_true(a->iter.regularity > 0.6);
	assert_true(a->burst_total.peak_to_mean[1] > 10); /* 1 ms: bursty */
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* A ring whose every segment carries g_scale times 64000 bytes: one segment
 * a rank and step, its ACK after, steps 1 ms apart. */
static uint64_t g_scale = 1;
static void ring_jumbo_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	for (int step = 0; step < 2 * (g_n - 1); step++, t += MS)
		for (int r = 0; r < g_n; r++) {
			int s = g_base + r, d = g_base + (r + 1) % g_n;
			dmls_pkt p = synth_pkt(t + r * 1000, s, d, 64000 * g_scale, synth_seq[s][d]);
			synth_seq[s][d] += (uint32_t)(64000 * g_scale);
			dmls_stats_add(st, &p);
			dmls_pkt a = synth_pkt(t + r * 1000 + 500, d, s, 0, synth_seq[d][s]);
			a.sport = p.dport, a.dport = p.sport;
			dmls_stats_add(st, &a);
		}
}

/* The job series holds its bins in 32 bits, in doubles where one passes
 * 4 GiB (iterations.c): the same job at 10^5 times the bytes (26 GB a
 * 1 ms bin) finds the same iterations, its bytes 10^5 times as many. */
static void test_ring_bins_past_4gib(void **state)
{
	(void)state;
	dmls_analysis *a[2];
	dmls_stats st[2];
	uint64_t scale[2] = {1, 100000};
	g_n = 4, g_base = 1;
	for (int i = 0; i < 2; i++) {
		dmls_stats_init(&st[i], 0);
		memset(synth_seq, 0, sizeof(synth_seq));
		synth_rng = 12345;
		g_scale = scale[i];
		run_job(&st[i], SYNTH_T0, ring_jumbo_iter, 30, 0.05);
		a[i] = analyze(&st[i]);
	}
	g_scale = 1;
	assert_true(st[1].hosts[0].tx_payload.wide); /* 64-bit bins in the series */
	assert_int_equal(a[0]->iter.count, 30);
	assert_int_equal(a[1]->iter.count, a[0]->iter.count);
	assert_true(a[1]->iter.period_s == a[0]->iter.period_s);
	assert_true(a[1]->iter.starts_s[7] == a[0]->iter.starts_s[7]);
	assert_near(a[1]->iter.bytes_per_worker, 1e5 * a[0]->iter.bytes_per_worker, 1e-12);
	for (size_t i = 0; i < 30; i++) /* the job series' bytes of each */
		assert_true(a[1]->iter.bytes[i] == 1e5 * a[0]->iter.bytes[i] && a[0]->iter.bytes[i] > 0);
	assert_near(a[0]->iter.bytes_per_worker, 6 * 64000, 1e-12);
	for (int i = 0; i < 2; i++) {
		dmls_analysis_free(a[i]);
		dmls_stats_release(&st[i]);
	}
}

/* DDP: a parameter broadcast along a tree before the first step weighs
 * more than DMLS_EDGE_FRACTION of a ring edge in a short run; the steady
 * state (median bytes per iteration) still shows the ring. */
static void test_ring_after_broadcast(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4, g_base = 1;
	synth_send(&st, SYNTH_T0, 1, 2, S_BYTES);
	synth_send(&st, SYNTH_T0, 1, 3, S_BYTES);
	synth_send(&st, SYNTH_T0 + 10 * MS, 2, 4, S_BYTES);
	run_job(&st, SYNTH_T0 + 60 * MS, ring_iter, 6, 0.05);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_RING);
	assert_int_equal(a->pattern.ranks, 4);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_ring_two_ranks(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 2, g_base = 1;
	run_job(&st, SYNTH_T0, ring_iter, 20, 0.05);
	dmls_analysis *a = check_job(&st, DMLS_PAT_RING, 2, (double)S_BYTES);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_star(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4;
	run_job(&st, SYNTH_T0, star_iter, 25, 0.05);
	dmls_analysis *a = check_job(&st, DMLS_PAT_STAR, 4, (double)S_BYTES);
	assert_int_equal(a->pattern.nhubs, 1);
	assert_int_equal(st.hosts[a->pattern.hubs[0]].addr[15], 1);
	assert_int_equal(st.hosts[a->pattern.hubs[0]].role, DMLS_ROLE_SERVER);
	assert_near(a->observed_iter_bytes, a->expected_iter_bytes, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_star_halves(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 3;
	run_job(&st, SYNTH_T0, star_slow_update_iter, 25, 0.05);
	dmls_analysis *a = check_job(&st, DMLS_PAT_STAR, 3, (double)S_BYTES);
	assert_true(a->iter.count >= 24 && a->iter.count <= 26);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_star_two_shards(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 6;
	run_job(&st, SYNTH_T0, star_shards_iter, 25, 0.05);
	dmls_analysis *a = check_job(&st, DMLS_PAT_STAR, 6, (double)S_BYTES);
	assert_int_equal(a->pattern.nhubs, 2);
	assert_near(a->observed_iter_bytes, a->expected_iter_bytes, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Hubs that move data between them are no parameter server's: read as a
 * star, S was a worker's 1.5 S.  A reduce up one spanning tree and a
 * broadcast down another: a tree, S = the job's bytes / 2(N-1). */
static void test_reduce_bcast_two_trees(void **state)
{
	(void)state;
	for (g_binomial = 0; g_binomial <= 1; g_binomial++) {
		dmls_stats st;
		dmls_stats_init(&st, 0);
		g_n = g_binomial ? 8 : 4;
		run_job(&st, SYNTH_T0, reduce_chain_iter, 25, 0.05);
		dmls_analysis *a = check_job(&st, DMLS_PAT_TREE, (size_t)g_n, (double)S_BYTES);
		assert_int_equal(a->pattern.nhubs, 1);
		assert_int_equal(st.hosts[a->pattern.hubs[0]].addr[15], 1);
		dmls_analysis_free(a);
		dmls_stats_release(&st);
	}
	g_binomial = 0;
}

/* Every pair used, at volumes 4 to 1 apart: no clique all-reduce (2S/N on
 * every edge) and no bidirectional ring; read as a clique, S was 1.25 S. */
static void test_unbalanced_three_no_clique(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 3;
	run_job(&st, SYNTH_T0, zero3_iter, 25, 0.05);
	dmls_analysis *a = analyze(&st);
	if (a->pattern.kind == DMLS_PAT_CLIQUE || a->pattern.kind == DMLS_PAT_RING)
		fail_msg("%s, S %.0f for %llu", dmls_pattern_name(a->pattern.kind),
			 a->gradient_bytes, (unsigned long long)S_BYTES);
	assert_int_equal(a->pattern.ranks, 3);
	assert_true(isnan(a->gradient_bytes) ||
		    fabs(a->gradient_bytes - (double)S_BYTES) <= 0.03 * (double)S_BYTES);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* One server (host 1), one worker (host 2): two ranks taking turns. */
static void test_star_one_worker(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 2;
	run_job(&st, SYNTH_T0, star_slow_update_iter, 25, 0.05);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_STAR);
	assert_int_equal(a->pattern.ranks, 2);
	assert_int_equal(st.hosts[a->pattern.hubs[0]].addr[15], 1);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_tree(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 7;
	run_job(&st, SYNTH_T0, tree_iter, 20, 0.03);
	/* S on each of the 6 edges each way: S = bytes per iteration / 12 */
	dmls_analysis *a = check_job(&st, DMLS_PAT_TREE, 7, (double)S_BYTES);
	/* the root (host 1, 2 children) by timing, not the busiest node (host
	 * 2 or 3: a parent and 2 children) */
	assert_int_equal(a->pattern.nhubs, 1);
	assert_int_equal(st.hosts[a->pattern.hubs[0]].addr[15], 1);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_clique(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4;
	run_job(&st, SYNTH_T0, clique_iter, 20, 0.03);
	dmls_analysis *a = check_job(&st, DMLS_PAT_CLIQUE, 4, (double)S_BYTES);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_butterfly(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 8;
	run_job(&st, SYNTH_T0, butterfly_iter, 20, 0.03);
	dmls_analysis *a = check_job(&st, DMLS_PAT_BUTTERFLY, 8, (double)S_BYTES);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
	/* 6 steps: too few for its pairs' own clocks (connections.c), whose
	 * grouping once compared clocks without steps (a crash on generate
	 * --like of the bundled butterfly) */
	dmls_stats_init(&st, 0);
	run_job(&st, SYNTH_T0, butterfly_iter, 6, 0.03);
	a = check_job(&st, DMLS_PAT_BUTTERFLY, 8, (double)S_BYTES);
	assert_int_equal(a->pair_groups, 0);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Open MPI's recursive doubling: each rank sends its whole vector, S, to
 * its partner at XOR distance 1, then 2, ...  N = 4 is a 4-cycle of
 * equal edges, which was taken for a ring (S 1.33 times too big); N = 6
 * has extras (hosts 1 and 3 hand their vector to 2 and 4 and get the
 * result back; the core 2, 4, 5, 6 exchanges at distance 1 then 2), which
 * was "unknown" with S withheld. */
static void doubling_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	static const int core6[4] = {2, 4, 5, 6};
	int64_t end = t;
	if (g_n == 6) {
		synth_send(st, t, 1, 2, S_BYTES);
		end = synth_send(st, t, 3, 4, S_BYTES);
		t = end + 50000;
	}
	for (int dist = 1; dist < 4; dist *= 2) {
		for (int r = 0; r < 4; r++)
			end = g_n == 6 ? synth_send(st, t, core6[r], core6[r ^ dist], S_BYTES)
				       : synth_send(st, t, 1 + r, 1 + (r ^ dist), S_BYTES);
		t = end + 50000;
	}
	if (g_n == 6) {
		synth_send(st, t, 2, 1, S_BYTES);
		synth_send(st, t, 4, 3, S_BYTES);
	}
}

static void test_butterfly_doubling(void **state)
{
	(void)state;
	for (g_n = 4; g_n <= 6; g_n += 2) {
		dmls_stats st;
		dmls_stats_init(&st, 0);
		uint32_t rng = synth_rng; /* the tests after this one keep their jitter */
		run_job(&st, SYNTH_T0, doubling_iter, 20, 0.03);
		synth_rng = rng;
		dmls_analysis *a = check_job(&st, DMLS_PAT_BUTTERFLY, (size_t)g_n, (double)S_BYTES);
		assert_true(a->pattern.doubling);
		dmls_analysis_free(a);
		dmls_stats_release(&st);
	}
}

/* S from what an extra rank sends its core rank a step, MPICH's and Open
 * MPI's way; Open MPI's sends the job 11 S a step, not 2(N-1) S, and S
 * from all the job's bytes was 10 % over (the testbed's Open MPI
 * all-reduce of 5 ranks: +6.3 %). */
static void test_butterfly_six(void **state)
{
	(void)state;
	for (g_ompi = 0; g_ompi < 2; g_ompi++) {
		dmls_stats st;
		dmls_stats_init(&st, 0);
		run_job(&st, SYNTH_T0, butterfly6_iter, 20, 0.03);
		dmls_analysis *a = check_job(&st, DMLS_PAT_BUTTERFLY, 6, (double)S_BYTES);
		dmls_analysis_free(a);
		dmls_stats_release(&st);
	}
	g_ompi = 0;
}

static void test_hierarchical(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	run_job(&st, SYNTH_T0, hier_iter, 20, 0.03);
	dmls_analysis *a = check_job(&st, DMLS_PAT_HIERARCHICAL, 8, -1);
	assert_int_equal(a->pattern.ngroups, 2);
	/* S is null, and a note says why (it had none) */
	assert_true(isnan(a->gradient_bytes) && isfinite(a->iter.bytes_per_worker));
	assert_true(has_note(a, "S null: a hierarchical all-reduce's bytes depend"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* 4 groups of 2 with one leader each, not 2 groups of 4 with two */
static void test_hierarchical_pairs(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 8;
	run_job(&st, SYNTH_T0, hier2_iter, 20, 0.03);
	dmls_analysis *a = check_job(&st, DMLS_PAT_HIERARCHICAL, 8, -1);
	assert_int_equal(a->pattern.ngroups, 4);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_pairwise(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	run_job(&st, SYNTH_T0, pairwise_iter, 40, 0.03);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_PAIRWISE);
	assert_int_equal(a->pattern.ranks, 6);
	assert_near(a->iter.period_median_s, PERIOD_NS * 1e-9, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_one_iteration(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4, g_base = 1;
	run_job(&st, SYNTH_T0, ring_iter, 1, 0);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_RING);
	assert_int_equal(a->iter.count, 1);
	assert_true(isnan(a->iter.period_s));
	assert_true(isnan(a->iter.regularity));
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03); /* one is enough for S */
	assert_true(has_note(a, "one iteration"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_stall(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4, g_base = 1;
	int64_t t = run_job(&st, SYNTH_T0, ring_iter, 15, 0.05);
	run_job(&st, t + 5000 * MS, ring_iter, 15, 0.05);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_RING);
	assert_true(a->iter.count >= 29 && a->iter.count <= 31);
	assert_near(a->iter.period_median_s, PERIOD_NS * 1e-9, 0.03);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	assert_true(has_note(a, "stall: "));
	dmls_analysis_free(a);
	dmls_stats_release(&st);

	/* pauses that recur (an evaluation every 15 steps): counted */
	dmls_stats_init(&st, 0);
	t = SYNTH_T0;
	for (int k = 0; k < 3; k++)
		t = run_job(&st, t, ring_iter, 15, 0.05) + 5000 * MS;
	a = analyze(&st);
	assert_true(a->iter.count >= 44 && a->iter.count <= 46);
	assert_true(has_note(a, "stalls: 2 pauses"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Two jobs: a 4-rank ring (hosts 1-4) and a 2-rank ring (hosts 11, 12)
 * with another period.  The one moving more bytes is the top level; both
 * are in jobs[], each analyzed on its own. */
static void test_two_jobs(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4, g_base = 1;
	run_job(&st, SYNTH_T0, ring_iter, 30, 0.03);
	g_n = 2, g_base = 11;
	for (int i = 0; i < 30; i++) {
		synth_send(&st, SYNTH_T0 + 7 * MS + i * 290 * MS, 11, 12, S_BYTES / 2);
		synth_send(&st, SYNTH_T0 + 7 * MS + i * 290 * MS, 12, 11, S_BYTES / 2);
	}
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_RING);
	assert_int_equal(a->pattern.ranks, 4);
	assert_int_equal(a->pattern.components, 2);
	assert_near(a->iter.period_median_s, PERIOD_NS * 1e-9, 0.03);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	assert_true(has_note(a, "2 jobs"));
	assert_int_equal(a->njobs, 2);
	assert_ptr_equal(a->jobs[0], a);
	const dmls_analysis *b = a->jobs[1];
	assert_int_equal(b->pattern.kind, DMLS_PAT_RING);
	assert_int_equal(b->pattern.ranks, 2);
	assert_near(b->iter.period_median_s, 0.290, 0.03);
	assert_true(b->iter.count >= 29 && b->iter.count <= 30);
	for (size_t i = 0; i < st.nhosts; i++)
		assert_int_equal(st.hosts[i].role, DMLS_ROLE_WORKER);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Two 3-rank rings sharing host 1 (hosts 1, 2, 3 and 1, 4, 5), each step
 * 1 -> a -> b -> 1 of S/3 apiece.  The second ring steps about half a
 * period after the first: with walk_ms, an offset that random-walks that
 * many ms a step (held within 20-80 ms), the two lock step for step but
 * drift as two jobs of one period would, and the split says it is
 * unsure (a tree cut at its root looks so on busy hosts: the testbed's
 * 6-rank tree once in 21 runs); with a period of its own (104 ms, 4 %
 * apart) the second ring is split off plainly. */
static void ring3_step(dmls_stats *st, int64_t t, int a, int b)
{
	int64_t end = synth_send(st, t, 1, a, S_BYTES / 3);
	end = synth_send(st, end + 50000, a, b, S_BYTES / 3);
	synth_send(st, end + 50000, b, 1, S_BYTES / 3);
}

static dmls_analysis *two_rings_at_host_1(dmls_stats *st, double walk_ms, int64_t period2_ns)
{
	dmls_stats_init(st, 0);
	synth_rng = 12345;
	int64_t t1[40], t2[40], off = 50 * MS;
	for (int i = 0; i < 40; i++) {
		t1[i] = SYNTH_T0 + i * PERIOD_NS;
		t2[i] = SYNTH_T0 + i * period2_ns + off;
		off += (int64_t)(walk_ms * synth_jitter() * MS);
		off = off < 20 * MS ? 20 * MS : off > 80 * MS ? 80 * MS : off;
	}
	for (int i = 0, j = 0; i < 40 || j < 40;) /* in time order */
		if (j == 40 || (i < 40 && t1[i] <= t2[j]))
			ring3_step(st, t1[i++], 2, 3);
		else
			ring3_step(st, t2[j++], 4, 5);
	return analyze(st);
}

static void test_shared_host_unsure(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_analysis *a = two_rings_at_host_1(&st, 6, PERIOD_NS);
	assert_int_equal(a->njobs, 2);
	assert_true(a->jobs_unsure);
	assert_true(has_note(a, "maybe one job"));
	for (size_t j = 0; j < 2; j++) {
		assert_near(a->jobs[j]->iter.period_median_s, PERIOD_NS * 1e-9, 0.03);
		assert_true(a->jobs[j]->pattern.confidence <= 0.5); /* halved */
	}
	dmls_analysis_free(a);
	dmls_stats_release(&st);
	a = two_rings_at_host_1(&st, 0.5, 104 * MS);
	assert_int_equal(a->njobs, 2);
	assert_false(a->jobs_unsure);
	assert_false(has_note(a, "maybe one job"));
	for (size_t j = 0; j < 2; j++)
		assert_true(a->jobs[j]->pattern.confidence > 0.5);
	assert_false(has_note(a, "out of time order"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* A bulk transfer between two other hosts (a backup, an iperf: one flow
 * at a steady rate, no steps) moving more than a ring job: it was the top
 * level ("unknown, 1 iteration") and the ring a second job.  The ring is
 * the job; the transfer is other traffic, in a note. */
static void test_bulk_beside_job(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4, g_base = 1;
	int64_t end = run_job(&st, SYNTH_T0, ring_iter, 30, 0.03);
	for (int64_t t = SYNTH_T0; t < end; t += 200000) /* 64 kB every 0.2 ms: 2.6 Gbit/s */
		synth_send(&st, t, 30, 31, SYNTH_SEG);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_RING);
	assert_int_equal(a->pattern.ranks, 4);
	assert_near(a->iter.period_median_s, PERIOD_NS * 1e-9, 0.03);
	assert_int_equal(a->njobs, 1);
	assert_int_equal(a->jobs_found, 1);
	assert_int_equal(a->stepless, 1);
	assert_true(has_note(a, "other traffic"));
	assert_false(has_note(a, "jobs in the capture"));
	for (size_t i = 0; i < st.nhosts; i++)
		assert_int_equal(st.hosts[i].role,
				 st.hosts[i].addr[15] >= 30 ? DMLS_ROLE_OTHER : DMLS_ROLE_WORKER);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* A small job beside a large one (its pairs move less than a tenth of the
 * large job's: one cut for the capture would take it for control plane)
 * and a launcher (host 20) talking to the large job's ranks: the small
 * job is found at its own scale, the launcher is nobody's rank. */
static void test_small_job_and_launcher(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4, g_base = 1;
	run_job(&st, SYNTH_T0, ring_iter, 30, 0.03);
	for (int i = 0; i < 30; i++) {
		int64_t t = SYNTH_T0 + 11 * MS + i * 170 * MS;
		synth_send(&st, t, 11, 12, S_BYTES / 40);
		synth_send(&st, t, 12, 13, S_BYTES / 40);
		synth_send(&st, t, 13, 11, S_BYTES / 40);
		for (uint8_t r = 1; r <= 4; r++)
			synth_send(&st, t + 50 * MS, 20, r, 20000);
	}
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_RING);
	assert_int_equal(a->pattern.ranks, 4);
	assert_int_equal(a->njobs, 2);
	const dmls_analysis *b = a->jobs[1];
	assert_int_equal(b->pattern.kind, DMLS_PAT_RING);
	assert_int_equal(b->pattern.ranks, 3);
	assert_near(b->iter.period_median_s, 0.170, 0.03);
	for (size_t i = 0; i < st.nhosts; i++)
		assert_int_equal(st.hosts[i].role, st.hosts[i].addr[15] == 20 ? DMLS_ROLE_OTHER
									      : DMLS_ROLE_WORKER);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* MPICH's all-reduce on 3 ranks: the extra (host 1) hands its vector to
 * core rank 2, the core pair (2, 3) exchanges halves both ways at once,
 * rank 2 hands the result back.  By volume a path (a star on 2); by timing
 * a collective, not a parameter server. */
static void mpich3_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	t = synth_send(st, t, 1, 2, S_BYTES);
	for (int phase = 0; phase < 2; phase++) {
		int64_t a = synth_send(st, t, 2, 3, S_BYTES / 2);
		int64_t b = synth_send(st, t, 3, 2, S_BYTES / 2);
		t = (a > b ? a : b) + 50000;
	}
	synth_send(st, t, 2, 1, S_BYTES);
}

static void test_mpich_three(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 3, g_base = 1;
	run_job(&st, SYNTH_T0, mpich3_iter, 30, 0.05);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_BUTTERFLY);
	assert_int_equal(a->pattern.ranks, 3);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	for (size_t i = 0; i < st.nhosts; i++)
		assert_int_equal(st.hosts[i].role, DMLS_ROLE_WORKER);
	assert_true(has_note(a, "MPICH"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* The same job run again three hours later (a capture left running): its
 * pairs span 10.8 M bins of 1 ms; the spokes' overlap with the hub is read
 * on their bins, not on a dense copy of the span (which was skipped past
 * 8.4 M bins: a star). */
static void test_mpich_three_hours_apart(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 3, g_base = 1;
	run_job(&st, SYNTH_T0, mpich3_iter, 30, 0.05);
	run_job(&st, SYNTH_T0 + 3 * 3600 * 1000000000LL, mpich3_iter, 30, 0.05);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_BUTTERFLY);
	assert_int_equal(a->pattern.ranks, 3);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* One rank's file of Open MPI's Rabenseifner all-reduce among 4: its
 * reduce-scatter sends S/2 to its nearest partner, then S/4 to the next;
 * its allgather the same back in reverse order.  The nearest partner's
 * edge carries two bursts a step (the first and the last, here 40 ms
 * apart in a step of 100), the other edge's two are one: the first edge's
 * clock counts two steps for one.  The
 * rank keeps one clock (its steps counted and timed), not one clock per
 * partner (an asynchronous server's), which withheld every rank's file of
 * the testbed's Rabenseifner runs. */
static void rabenseifner_rank_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	static const int to[4] = {2, 3, 3, 2};
	static const uint64_t part[4] = {S_BYTES / 2, S_BYTES / 4, S_BYTES / 4, S_BYTES / 2};
	for (int k = 0; k < 4; k++) /* the sums between: 8-13 ms on the testbed */
		t = synth_send(st, t, 1, to[k], part[k]) + 13 * MS;
}

static void test_rabenseifner_rank(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	run_job(&st, SYNTH_T0, rabenseifner_rank_iter, 40, 0.03);
	dmls_analysis *a = analyze(&st);
	assert_true(a->pattern.partial);
	assert_false(a->hub_one_at_a_time);
	assert_true(a->iter.count >= 39 && a->iter.count <= 40);
	assert_near(a->iter.period_s, PERIOD_NS * 1e-9, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* One rank's file of a clique of 5 (a direct reduce-scatter, then an
 * all-gather: S/5 to each peer, twice a step) against a parameter
 * server's hub's file (S to each of 4 workers, once a step): both fan out
 * evenly to every peer.  The clique's rank was taken for a hub (star/5,
 * S 40 % of its value); its edges' two like bursts a step tell it. */
static void clique_rank_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	for (int phase = 0; phase < 2; phase++) {
		for (int q = 2; q <= 5; q++)
			t = synth_send(st, t, 1, q, S_BYTES / 5);
		t += 6 * MS; /* the others' chunks arrive, the sum */
	}
}

static void hub_only_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	for (int w = 2; w <= 5; w++)
		t = synth_send(st, t, 1, w, S_BYTES);
}

static void test_clique_rank_or_hub(void **state)
{
	(void)state;
	for (int hub = 0; hub < 2; hub++) {
		dmls_stats st;
		dmls_stats_init(&st, 0);
		run_job(&st, SYNTH_T0, hub ? hub_only_iter : clique_rank_iter, 30, 0.03);
		dmls_analysis *a = analyze(&st);
		assert_true(a->pattern.partial);
		assert_int_equal(a->pattern.kind, hub ? DMLS_PAT_STAR : DMLS_PAT_CLIQUE);
		assert_int_equal(a->pattern.ranks, 5);
		assert_near(a->iter.period_s, PERIOD_NS * 1e-9, 0.03);
		assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
		dmls_analysis_free(a);
		dmls_stats_release(&st);
	}
}

/* One rank's file of a recursive-doubling butterfly of 8 (Open MPI's
 * all-reduce of small vectors): the whole vector, S, to partner 2, then
 * 3, then 5, each stage waiting 6-10 ms for the partner's data.  Seen
 * alone it fans out evenly like a parameter server's hub, which the hub
 * of test_clique_rank_or_hub still is: its sends to its workers come back
 * to back.  The rank was called a star (confidence 0.5), its first step
 * dropped as the workers' initial pull. */
static void doubling_rank_iter(dmls_stats *st, int64_t t, int iter)
{
	(void)iter;
	static const int partner[3] = {2, 3, 5};
	for (int k = 0; k < 3; k++)
		t = synth_send(st, t, 1, partner[k], S_BYTES) +
		    (int64_t)((6 + 4 * synth_jitter()) * (double)MS);
}

static void test_doubling_rank(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	run_job(&st, SYNTH_T0, doubling_rank_iter, 40, 0.03);
	dmls_analysis *a = analyze(&st);
	assert_true(a->pattern.partial);
	assert_int_equal(a->pattern.kind, DMLS_PAT_BUTTERFLY);
	assert_int_equal(a->pattern.partners, 3);
	assert_true(a->pattern.confidence > 0 && a->pattern.confidence < 0.6);
	assert_true(a->iter.count >= 39 && a->iter.count <= 40);
	assert_near(a->iter.period_s, PERIOD_NS * 1e-9, 0.03);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* One worker's capture on every interface (tcpdump -i any) of a parameter
 * server's star: host 2's traffic both ways with the server (1), its
 * control messages with the other workers (3, 4), and the link's
 * neighbour discovery and MLD (fe80:: to ff02::16), no host's traffic.
 * The chatter hid that every other packet is host 2's: the view was taken
 * for whole, a star of 2 ranks. */
/* The link's own chatter: MLD from a link-local address. */
static void link_chatter(dmls_stats *st, int64_t t)
{
	dmls_pkt m = synth_pkt(t, 0, 0, 20, 0);
	static const uint8_t ll[16] = {0xfe, 0x80, [15] = 1}, mld[16] = {0xff, 0x02, [15] = 0x16};
	m.af = 6, m.proto = 58, m.sport = m.dport = 0;
	memcpy(m.src, ll, 16);
	memcpy(m.dst, mld, 16);
	dmls_stats_add(st, &m);
}

static void worker_any_iter(dmls_stats *st, int64_t t, int iter)
{
	synth_send(st, t, 2, 1, S_BYTES);
	synth_send(st, t + 10 * MS, 1, 2, S_BYTES);
	if (iter % 5)
		return;
	for (int q = 3; q <= 4; q++) {
		synth_ctrl(st, t + 50 * MS + q, 2, q);
		synth_ctrl(st, t + 51 * MS + q, q, 2);
	}
	link_chatter(st, t + 60 * MS);
}

static void test_worker_any_interface(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	run_job(&st, SYNTH_T0, worker_any_iter, 30, 0.03);
	dmls_analysis *a = analyze(&st);
	assert_true(a->pattern.partial);
	assert_int_equal(a->pattern.nobserved, 1);
	assert_int_equal(a->pattern.ranks, 4);
	assert_near(a->iter.period_s, PERIOD_NS * 1e-9, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
	/* a ring of 2 with the chatter (a live capture on an interface): both
	 * ends are the capture's, not one host's view (testbed_watch) */
	uint32_t rng = synth_rng; /* the tests after this one keep their jitter */
	dmls_stats_init(&st, 0);
	g_n = 2, g_base = 1;
	run_job(&st, SYNTH_T0, ring_iter, 20, 0.05);
	synth_rng = rng;
	link_chatter(&st, SYNTH_T0 + 30 * MS);
	a = check_job(&st, DMLS_PAT_RING, 2, (double)S_BYTES);
	assert_false(a->pattern.partial);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* A ring whose bursts move S or 3 S in no repeating order (the bits of a
 * constant) at an even pace: no unit tiles the bytes, so the period, count
 * and S are withheld with a note. */
static void uneven_iter(dmls_stats *st, int64_t t, int iter)
{
	uint64_t bytes = (0x9E3779B9u >> (iter % 32)) & 1 ? 3 * S_BYTES : S_BYTES;
	for (int step = 0; step < 2 * (g_n - 1); step++) {
		int64_t end = t;
		for (int r = 0; r < g_n; r++)
			end = synth_send(st, t, g_base + r, g_base + (r + 1) % g_n, bytes / g_n);
		t = end + 50000;
	}
}

static void test_uneven_withheld(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 4, g_base = 1;
	run_job(&st, SYNTH_T0, uneven_iter, 30, 0.02);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_RING);
	assert_true(a->iter_unsure);
	assert_true(a->iter.bytes_outliers > 0.2);
	assert_true(isnan(a->iter.period_s));
	assert_true(isnan(a->gradient_bytes));
	assert_true(has_note(a, "uncertain"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
	/* and over 40 draws of the jitter: stop 30's code withheld 38, a wider
	 * search in short captures only 27 (this stop, taken back) */
	uint32_t rng = synth_rng;
	int withheld = 0;
	for (uint32_t seed = 1; seed <= 40; seed++) {
		dmls_stats_init(&st, 0);
		synth_rng = seed * 7919u;
		run_job(&st, SYNTH_T0, uneven_iter, 30, 0.02);
		a = analyze(&st);
		assert_int_equal(a->pattern.kind, DMLS_PAT_RING);
		withheld += a->iter_unsure;
		dmls_analysis_free(a);
		dmls_stats_release(&st);
	}
	synth_rng = rng;
	assert_true(withheld >= 36);
}

typedef struct ev {
	int64_t t;
	int src, dst;
} ev;

static int cmp_ev(const void *x, const void *y)
{
	const ev *a = x, *b = y;
	return (a->t > b->t) - (a->t < b->t);
}

static int64_t conn_send(dmls_stats *st, int64_t t, int s, int d, uint16_t sport, uint16_t dport,
			 uint64_t bytes);

/* An asynchronous parameter server (host 1): each worker at its own pace
 * (100, 137, 181 ms per step) pushes S and gets S back 2 ms later, over
 * its connection to the server's listening port.  The mode is
 * asynchronous, there is no job-wide period, each rank's own is right, and
 * S comes from a worker's bytes per exchange.  One job: the server's
 * spokes keep paces of their own, but one socket serves them all. */
static void test_async_server(void **state)
{
	(void)state;
	static const int64_t step_ms[] = {100, 137, 181};
	ev e[512];
	size_t n = 0;
	for (int w = 0; w < 3; w++)
		for (int64_t t = SYNTH_T0 + (w + 1) * 13 * MS; t < SYNTH_T0 + 9000 * MS;
		     t += step_ms[w] * MS) {
			e[n++] = (ev){t, 2 + w, 1};
			e[n++] = (ev){t + 2 * MS + 4 * MS, 1, 2 + w};
		}
	qsort(e, n, sizeof(e[0]), cmp_ev);
	dmls_stats st;
	dmls_stats_init(&st, 0);
	for (size_t i = 0; i < n; i++) {
		int w = e[i].src == 1 ? e[i].dst : e[i].src;
		uint16_t listen = 29400, mine = (uint16_t)(40000 + w);
		conn_send(&st, e[i].t, e[i].src, e[i].dst, e[i].src == 1 ? listen : mine,
			  e[i].src == 1 ? mine : listen, S_BYTES / 40);
	}
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->njobs, 1);
	assert_int_equal(a->pattern.kind, DMLS_PAT_STAR);
	assert_int_equal(a->mode.mode, DMLS_MODE_ASYNC);
	assert_true(isnan(a->iter.period_s));
	for (size_t i = 0; i < a->mode.nranks; i++) {
		const dmls_rank_clock *c = &a->mode.ranks[i];
		int w = st.hosts[c->host].addr[15] - 2;
		if (w >= 0)
			assert_near(c->period_s, (double)step_ms[w] * 1e-3, 0.05);
	}
	assert_near(a->gradient_bytes, (double)(S_BYTES / 40), 0.05);
	assert_true(has_note(a, "asynchronous"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* bytes from s to d over the connection (sport -> dport), TSO-sized
 * segments 20 us apart, each acknowledged. */
static int64_t conn_send(dmls_stats *st, int64_t t, int s, int d, uint16_t sport, uint16_t dport,
			 uint64_t bytes)
{
	static uint32_t seq[65536];
	while (bytes > 0) {
		uint64_t n = bytes < SYNTH_SEG ? bytes : SYNTH_SEG;
		dmls_pkt p = synth_pkt(t, s, d, n, seq[sport]);
		p.sport = sport, p.dport = dport;
		seq[sport] += (uint32_t)n;
		dmls_stats_add(st, &p);
		dmls_pkt a = synth_pkt(t + 5000, d, s, 0, seq[dport]);
		a.sport = dport, a.dport = sport;
		dmls_stats_add(st, &a);
		bytes -= n;
		t += 20000;
	}
	return t;
}

/* Requests e[0..n) in time order (a selection of the earliest, in place:
 * equal times keep the order the tests rely on). */
static void sort_requests(ev *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (e[j].t < e[i].t) {
				ev x = e[i];
				e[i] = e[j], e[j] = x;
			}
}

/* The asker's port to the peer, and the peer's listening port. */
static uint16_t asker_port(const ev *e) { return (uint16_t)(41000 + 100 * e->src + e->dst); }
static uint16_t listen_port(const ev *e) { return (uint16_t)(30000 + e->dst); }

/* The answer to request e: the peer's bytes back 3 ms later. */
static void answer(dmls_stats *st, const ev *e, uint64_t bytes)
{
	conn_send(st, e->t + 3 * MS, e->dst, e->src, listen_port(e), asker_port(e), bytes);
}

/* Pair averaging over RPC connections: rank r (host r) listens on port
 * 30000 + r; its request to rank q goes over the connection it opened,
 * 41000 + 100 r + q -> 30000 + q, and q's answer comes back over it 3 ms
 * later.  Each rank at its own pace (100, 123, 149, 171 ms), asking the
 * other ranks in turn (every fifth step of rank 2: rank 1).  Requests that
 * cross (a rank asking one that is asking it) make the bursts alone pair a
 * request with the other's request: each rank's count and period are its
 * own only by its connections. */
/* Rings of 4 on hosts 1-4 over connections of their own (ports by
 * connection c), rank r sending S/4 to r + 1 in each of 2 sub-steps 3 ms
 * apart, every period_ms[c] (the rings past the first S/minor: a smaller
 * model's); with halves, each send split over connections 0 and 1 at
 * once (one job's parallel sockets). */
typedef struct conn_ev {
	int64_t t;
	int src, c;
	uint64_t bytes;
} conn_ev;

static int cmp_conn_ev(const void *x, const void *y)
{
	const conn_ev *a = x, *b = y;
	return (a->t > b->t) - (a->t < b->t);
}

static void rings_on_connections(dmls_stats *st, const int64_t *period_ms, int nconn, int halves,
				 int steps, int minor)
{
	size_t cap = (size_t)(nconn * steps * 2 * 4 * 2), n = 0;
	conn_ev *e = malloc(cap * sizeof(*e));
	assert_non_null(e);
	for (int c = 0; c < nconn; c++)
		for (int i = 0; i < steps; i++)
			for (int k = 0; k < 2; k++)
				for (int r = 1; r <= 4; r++) {
					int64_t t = SYNTH_T0 + (20 + 7 * c) * MS + i * period_ms[c] * MS +
						    k * 3 * MS;
					if (halves) {
						e[n++] = (conn_ev){t, r, 0, S_BYTES / 8};
						e[n++] = (conn_ev){t + 1000, r, 1, S_BYTES / 8};
					} else {
						e[n++] = (conn_ev){t, r, c, S_BYTES / (c ? minor : 4)};
					}
				}
	qsort(e, n, sizeof(*e), cmp_conn_ev);
	for (size_t i = 0; i < n; i++) {
		int d = e[i].src % 4 + 1;
		conn_send(st, e[i].t, e[i].src, d, (uint16_t)(41000 + 1000 * e[i].c + e[i].src),
			  (uint16_t)(51000 + 1000 * e[i].c + d), e[i].bytes);
	}
	free(e);
}

/* The two jobs of hosts 1-4 that a found (two rings of 4 on the same
 * hosts), each with its steps, period (within 2 %) and gradient size
 * (within 3 %), the first the heavier's (ties: the first of period_s
 * the faster's), each noted. */
static void assert_twins(const dmls_analysis *a, const double *period_s, const double *s_bytes,
			 size_t steps)
{
	assert_int_equal(a->njobs, 2);
	int swap = s_bytes[0] == s_bytes[1] &&
		   a->jobs[0]->iter.period_s > a->jobs[1]->iter.period_s;
	for (size_t j = 0; j < 2; j++) {
		const dmls_analysis *x = a->jobs[swap ? !j : j];
		assert_int_equal(x->pattern.kind, DMLS_PAT_RING);
		assert_int_equal(x->pattern.ranks, 4);
		assert_true(x->iter.count + 1 >= steps && x->iter.count <= steps + 1);
		assert_near(x->iter.period_s, period_s[j], 0.02 * period_s[j]);
		assert_near(x->gradient_bytes, s_bytes[j], 0.03 * s_bytes[j]);
		assert_near(x->twin_period_s, period_s[j], 0.1 * period_s[j]);
		assert_near(x->twin_other_s, period_s[!j], 0.1 * period_s[!j]);
		assert_true(has_note(x, "one of two jobs on the same hosts"));
		assert_false(x->two_jobs);
	}
}

/* Two rings on connections of their own (rings_on_connections, the
 * second's sends S / minor) every period_ms[0] and [1]: two jobs of
 * hosts 1-4 (assert_twins), the second's S 4 / minor of the first's. */
static void assert_two_rings(const int64_t *period_ms, int minor)
{
	dmls_stats st;
	dmls_stats_init(&st, 0);
	rings_on_connections(&st, period_ms, 2, 0, 60, minor);
	dmls_analysis *a = analyze(&st);
	double s = 2.0 * S_BYTES / 4 * 4 / 6; /* a rank sends 2 x S/4 a step: W S_ring */
	assert_twins(a, (const double[]){(double)period_ms[0] / 1000, (double)period_ms[1] / 1000},
		     (const double[]){s, s * 4 / minor}, 60);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Two synchronous rings of 4 on the same 4 hosts, stepping every 100 and
 * 117 ms over connections of their own, are one component: without the
 * connections' clocks, one ring whose steps and S mix both.  Their
 * connections keep two steps: two jobs of the same hosts, each reading
 * its own connections (its count, period and S).  At 100 and 105 ms
 * (5 %: too close to tell each pair's connections apart by their
 * periods), by their steps: each connection locks to its ring's, not to
 * the other's.  One ring whose sends go over two
 * parallel connections (both in every step) is one job: its numbers
 * stand, no note; so too one restarted over new connections, one after
 * the other. */
static void test_two_jobs_same_hosts(void **state)
{
	(void)state;
	static const int64_t two[] = {100, 117}, near[] = {100, 105}, one[] = {100};
	assert_two_rings(two, 4);
	assert_two_rings(near, 4);

	dmls_stats st;
	dmls_stats_init(&st, 0);
	rings_on_connections(&st, one, 1, 1, 60, 4);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->split_pairs, 4);
	assert_int_equal(a->conn_tested, 4);
	assert_int_equal(a->conn_apart, 0);
	assert_false(a->two_jobs);
	assert_int_equal(a->mode.mode, DMLS_MODE_SYNC);
	assert_near(a->iter.period_s, 0.100, 0.03);
	assert_false(has_note(a, "data connections"));
	assert_false(has_note(a, "two jobs"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);

	/* a small model's ring (a tenth of the bytes a step: 9 % of each
	 * pair's) every 76 ms beside a large one's every 330 ms, as the
	 * testbed's TinyCNN and MobileNetV2 rings of 3 (17 % and 5 % of their
	 * pairs): counted as one, 64 steps for 60 and 200 */
	static const int64_t minor[] = {330, 76};
	assert_two_rings(minor, 40);
	/* smaller still: 2.4 % of each pair's bytes (the testbed's TinyCNN
	 * clique beside a ResNet-18 ring: 4.8 %, the ring then called
	 * asynchronous and the clique lost) */
	assert_two_rings(minor, 160);

	/* one ring restarted after 30 steps over new connections: one after
	 * the other, not at once; no split, its numbers stand */
	dmls_stats_init(&st, 0);
	for (int i = 0; i < 60; i++)
		for (int k = 0; k < 2; k++)
			for (int r = 1; r <= 4; r++) {
				int c = i >= 30, d = r % 4 + 1;
				int64_t t = SYNTH_T0 + 20 * MS + i * 100 * MS + c * 2000 * MS + k * 3 * MS;
				conn_send(&st, t, r, d, (uint16_t)(41000 + 1000 * c + r),
					  (uint16_t)(51000 + 1000 * c + d), S_BYTES / 4);
			}
	a = analyze(&st);
	assert_int_equal(a->split_pairs, 0);
	assert_false(a->two_jobs);
	assert_int_equal(a->mode.mode, DMLS_MODE_SYNC);
	assert_false(has_note(a, "data connections"));
	assert_false(has_note(a, "two jobs"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* nrings rings of 4 on overlapping hosts, 1 -> 2 -> 3 -> 4 -> 1,
 * 3 -> 4 -> 5 -> 6 -> 3 and 5 -> 6 -> 7 -> 8 -> 5, ring c every
 * period_ms[c]; each rank sends S/4 in 2 sub-steps 3 ms apart over the
 * ring's own connection (ports by ring): neighbours both send over one
 * pair (3 -> 4, 5 -> 6), no host is a cut vertex. */
static dmls_analysis *ring_chain(dmls_stats *st, int nrings, const int64_t *period_ms)
{
	static const int ring[3][4] = {{1, 2, 3, 4}, {3, 4, 5, 6}, {5, 6, 7, 8}};
	size_t n = 0;
	conn_ev *e = malloc((size_t)nrings * 60 * 2 * 4 * sizeof(*e));
	assert_non_null(e);
	for (int c = 0; c < nrings; c++)
		for (int i = 0; i < 60; i++)
			for (int k = 0; k < 2; k++)
				for (int r = 0; r < 4; r++)
					e[n++] = (conn_ev){SYNTH_T0 + (20 + 7 * c) * MS +
								   i * period_ms[c] * MS + k * 3 * MS,
							   ring[c][r], c, S_BYTES / 8};
	qsort(e, n, sizeof(*e), cmp_conn_ev);
	dmls_stats_init(st, 0);
	for (size_t i = 0; i < n; i++) {
		const int *rg = ring[e[i].c];
		int r = 0;
		while (rg[r] != e[i].src)
			r++;
		int d = rg[(r + 1) % 4];
		conn_send(st, e[i].t, e[i].src, d, (uint16_t)(41000 + 1000 * e[i].c + e[i].src),
			  (uint16_t)(51000 + 1000 * e[i].c + d), e[i].bytes);
	}
	free(e);
	return analyze(st);
}

/* Two rings (ring_chain), every 100 and period2 ms.  Apart in period, or
 * of one period with steps that drift apart, they are two jobs, each with
 * its hosts, ring of 4, period and S, the pair 3 -> 4 read as each one's
 * own; at one period and one step they stay one. */
static dmls_analysis *overlapping_rings(dmls_stats *st, int64_t period2_ms)
{
	return ring_chain(st, 2, (const int64_t[]){100, period2_ms});
}

static void assert_overlapping(int64_t period2_ms)
{
	dmls_stats st;
	dmls_analysis *a = overlapping_rings(&st, period2_ms);
	assert_int_equal(a->njobs, 2);
	for (size_t j = 0; j < 2; j++) {
		const dmls_analysis *x = a->jobs[j];
		assert_int_equal(x->pattern.kind, DMLS_PAT_RING);
		assert_int_equal(x->pattern.ranks, 4);
		assert_int_equal(x->pairs_told, 1);
		double want = 0.100;
		for (size_t i = 0; i < x->pattern.ranks; i++)
			if (st.hosts[x->pattern.members[i]].addr[15] == 6)
				want = (double)period2_ms / 1000; /* the second ring's */
		assert_near(x->iter.period_median_s, want, 0.03);
		assert_true(x->iter.count >= 59 && x->iter.count <= 60);
		/* S/4 a step from each rank: 2 (N - 1) / N S' with S' = S/6 */
		assert_near(x->gradient_bytes, (double)S_BYTES / 6, 0.03);
		assert_true(has_note(x, "shared with another job"));
	}
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_overlapping_jobs(void **state)
{
	(void)state;
	assert_overlapping(142);
	/* one period within 3 %: the steps tell them (the two connections
	 * of 3 -> 4 keep two steps; each ring's edges lock to one) */
	assert_overlapping(103);
	dmls_stats st;
	dmls_analysis *a = overlapping_rings(&st, 100);
	assert_int_equal(a->njobs, 1);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
	/* a chain: rings on 1-4 and 5-8 within 3 % of one period, each
	 * sharing two hosts with a ring on 3-6 at 142 ms: three jobs (the
	 * outer two were one group, the middle one inside its hosts) */
	a = ring_chain(&st, 3, (const int64_t[]){100, 142, 103});
	assert_int_equal(a->njobs, 3);
	for (size_t j = 0; j < 3; j++) {
		const dmls_analysis *x = a->jobs[j];
		assert_int_equal(x->pattern.kind, DMLS_PAT_RING);
		assert_int_equal(x->pattern.ranks, 4);
		assert_true(x->iter.count >= 59 && x->iter.count <= 60);
		assert_near(x->gradient_bytes, (double)S_BYTES / 6, 0.03);
	}
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Two trees of 5 sharing hosts 4 and 5 but no pair: 1 -> {2, 3}, 2 -> {4,
 * 5} every 100 ms and 4 -> {5, 6}, 5 -> {7, 8} every period2 ms; each
 * step the leaves send S/4 up, the inner node 8 ms later, the root S/4
 * down 16 ms after the leaves, the inner node 24 ms after (a level's
 * edges a fixed part of a step after another's).  One period within 4 %,
 * no pair carrying both: two jobs, told by their steps' drift (each
 * tree's levels keep their offsets); at one period and phase, one. */
static dmls_analysis *two_trees(dmls_stats *st, int64_t period2_ms)
{
	static const int kid[2][4][2] = {{{1, 2}, {1, 3}, {2, 4}, {2, 5}},
					 {{4, 5}, {4, 6}, {5, 7}, {5, 8}}};
	static const int64_t up_ms[4] = {8, 8, 0, 0}, down_ms[4] = {16, 16, 24, 24};
	const int64_t period_ms[2] = {100, period2_ms};
	size_t n = 0;
	conn_ev e[2 * 60 * 8];
	int dst[2 * 60 * 8];
	for (int c = 0; c < 2; c++)
		for (int i = 0; i < 60; i++)
			for (int k = 0; k < 4; k++) {
				int64_t t = SYNTH_T0 + (20 + 37 * c) * MS + i * period_ms[c] * MS;
				dst[n] = kid[c][k][0];
				e[n++] = (conn_ev){t + up_ms[k] * MS, kid[c][k][1], c, S_BYTES / 4};
				dst[n] = kid[c][k][1];
				e[n++] = (conn_ev){t + down_ms[k] * MS, kid[c][k][0], c, S_BYTES / 4};
			}
	for (size_t i = 0; i < n; i++) /* the destination in the source's top bits */
		e[i].src |= dst[i] << 8;
	qsort(e, n, sizeof(*e), cmp_conn_ev);
	dmls_stats_init(st, 0);
	for (size_t i = 0; i < n; i++) {
		int sh = e[i].src & 0xff, d = e[i].src >> 8;
		int lo = sh < d ? sh : d, hi = sh < d ? d : sh; /* one connection a pair */
		uint16_t a = (uint16_t)(41000 + 100 * lo + hi), b = (uint16_t)(51000 + 100 * lo + hi);
		conn_send(st, e[i].t, sh, d, sh == lo ? a : b, sh == lo ? b : a, e[i].bytes);
	}
	return analyze(st);
}

static void test_two_trees_one_period(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_analysis *a = two_trees(&st, 104);
	assert_int_equal(a->njobs, 2);
	for (size_t j = 0; j < 2; j++) {
		const dmls_analysis *x = a->jobs[j];
		assert_int_equal(x->pattern.kind, DMLS_PAT_TREE);
		assert_int_equal(x->pattern.ranks, 5);
		int second = 0;
		for (size_t i = 0; i < x->pattern.ranks; i++)
			second |= st.hosts[x->pattern.members[i]].addr[15] == 8;
		assert_near(x->iter.period_median_s, second ? 0.104 : 0.100, 0.03);
		assert_true(x->iter.count >= 59 && x->iter.count <= 60);
	}
	dmls_analysis_free(a);
	dmls_stats_release(&st);
	a = two_trees(&st, 100); /* no drift: one job of 8 (not four of levels) */
	assert_int_equal(a->njobs, 1);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_pair_averaging_connections(void **state)
{
	(void)state;
	static const int64_t step_ms[] = {100, 123, 149, 171};
	enum { NR = 4, STEPS = 40 };
	ev q[NR * STEPS + STEPS];
	size_t n = 0;
	for (int r = 0; r < NR; r++) /* peers in turn, as a random choice spreads them */
		for (int k = 0; k < STEPS; k++)
			q[n++] = (ev){SYNTH_T0 + (r + 1) * 7 * MS + k * step_ms[r] * MS, r + 1,
				      (r + 1 + k % (NR - 1)) % NR + 1};
	for (size_t i = 0; i < n; i++) /* every fifth step of rank 1: rank 2 asks it at once */
		if (q[i].src == 2 && (q[i].t - SYNTH_T0) / MS / step_ms[1] % 5 == 0)
			q[i].dst = 1;
	sort_requests(q, n);
	dmls_stats st;
	dmls_stats_init(&st, 0);
	for (size_t i = 0; i < n; i++) {
		uint16_t cp = asker_port(&q[i]), lp = listen_port(&q[i]);
		if (q[i].src == 4 && i % 4 == 0) { /* contention splits a request in two bursts */
			conn_send(&st, q[i].t - 15 * MS, q[i].src, q[i].dst, cp, lp, S_BYTES / 80);
			conn_send(&st, q[i].t, q[i].src, q[i].dst, cp, lp, S_BYTES / 80);
		} else {
			conn_send(&st, q[i].t, q[i].src, q[i].dst, cp, lp, S_BYTES / 40);
		}
		answer(&st, &q[i], S_BYTES / 40);
	}
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->mode.mode, DMLS_MODE_ASYNC);
	assert_int_equal(a->mode.nranks, NR);
	for (size_t i = 0; i < a->mode.nranks; i++) {
		const dmls_rank_clock *c = &a->mode.ranks[i];
		int r = st.hosts[c->host].addr[15] - 1;
		assert_true(r >= 0 && r < NR);
		assert_int_equal(c->count, STEPS); /* the bursts alone: 39 for ranks 1 and 2 */
		assert_near(c->period_s, (double)step_ms[r] * 1e-3, 0.05);
		assert_near(c->bytes_per_exchange, (double)(S_BYTES / 40), 0.03);
	}
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Pair averaging of 3 ranks at their own paces (70, 100, 130 ms), each
 * step with a peer picked at random, where ranks 1 and 3 picked each other
 * rarely: per step the median of the 1-3 pair is 0, so the steady shape
 * is a star around rank 2; over the run 1-3 moves a data edge's worth,
 * which no asynchronous server's workers do: pairwise, asynchronous. */
static void test_pair_averaging_three(void **state)
{
	(void)state;
	static const int64_t step_ms[] = {70, 100, 130};
	enum { STEPS = 40 };
	ev q[3 * STEPS];
	size_t n = 0;
	unsigned r = 11;
	for (int w = 0; w < 3; w++)
		for (int k = 0; k < STEPS; k++) {
			r = r * 1103515245u + 12345u;
			int other = (r >> 16) % 4 == 0; /* 1 and 3 pick each other a quarter of the time */
			int b = w == 1 ? ((r >> 18) & 1 ? 1 : 3) : other ? 4 - (w + 1) : 2;
			q[n++] = (ev){SYNTH_T0 + (w + 1) * 9 * MS + k * step_ms[w] * MS, w + 1, b};
		}
	sort_requests(q, n);
	dmls_stats st;
	dmls_stats_init(&st, 0);
	for (size_t i = 0; i < n; i++) {
		conn_send(&st, q[i].t, q[i].src, q[i].dst, asker_port(&q[i]), listen_port(&q[i]),
			  S_BYTES / 40);
		answer(&st, &q[i], S_BYTES / 40);
	}
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_PAIRWISE);
	assert_int_equal(a->pattern.ranks, 3);
	assert_int_equal(a->mode.mode, DMLS_MODE_ASYNC);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* The synchronous jobs of this file keep one step: mode synchronous. */
static void test_sync_modes(void **state)
{
	(void)state;
	iter_fn fns[] = {ring_iter, star_iter, tree_iter, clique_iter};
	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		dmls_stats st;
		dmls_stats_init(&st, 0);
		g_n = 4, g_base = 1;
		run_job(&st, SYNTH_T0, fns[f], 30, 0.05);
		dmls_analysis *a = analyze(&st);
		assert_int_equal(a->mode.mode, DMLS_MODE_SYNC);
		dmls_analysis_free(a);
		dmls_stats_release(&st);
	}
}

static void test_control_only(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	for (int i = 0; i < 200; i++)
		for (int h = 2; h <= 4; h++)
			synth_ctrl(&st, SYNTH_T0 + i * 50 * MS + h * 1000, h, 1);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_UNKNOWN);
	assert_int_equal(a->pattern.ranks, 0);
	assert_int_equal(a->iter.count, 0);
	assert_true(isnan(a->iter.period_s));
	assert_true(isnan(a->gradient_bytes));
	assert_true(has_note(a, "only control traffic"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

static void test_empty(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->pattern.kind, DMLS_PAT_UNKNOWN);
	assert_int_equal(a->iter.count, 0);
	assert_true(has_note(a, "empty"));
	render_text(&st, a);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* One packet of `bytes` from host s to d every gap_ms during on_ms of each
 * period_ms, for periods periods. */
static void paced(dmls_stats *st, int s, int d, int periods, int64_t period_ms, int64_t on_ms,
		  int64_t gap_ms, uint64_t bytes)
{
	uint32_t seq = 0;
	for (int k = 0; k < periods; k++)
		for (int64_t t = 0; t < on_ms; t += gap_ms) {
			dmls_pkt p = synth_pkt(SYNTH_T0 + (k * period_ms + t) * MS, s, d, bytes, seq);
			seq += (uint32_t)bytes;
			dmls_stats_add(st, &p);
		}
}

/* A fresh state of hosts 1 and 2 sending to each other so (paced). */
static void paced_pair(dmls_stats *st, int periods, int64_t period_ms, int64_t on_ms,
		       int64_t gap_ms, uint64_t bytes)
{
	dmls_stats_init(st, 0);
	paced(st, 1, 2, periods, period_ms, on_ms, gap_ms, bytes);
	paced(st, 2, 1, periods, period_ms, on_ms, gap_ms, bytes);
	assert_int_equal(dmls_stats_finish(st), 0);
}

/* Host series coarsened n times (as their memory budget would) and the
 * total payload's as often (or ntotal times, when >= 0), then the
 * iterations of hosts 1 and 2. */
static void iterations_coarsened_total(dmls_stats *st, int n, int ntotal, dmls_iterations *it)
{
	for (int c = 0; c < (ntotal >= 0 ? ntotal : n); c++)
		assert_int_equal(dmls_series_coarsen(&st->total_payload), 0);
	size_t h[2];
	for (int i = 0; i < 2; i++) {
		uint8_t a[16] = {[10] = 0xff, [11] = 0xff, [12] = 198, [13] = 18, [15] = (uint8_t)(i + 1)};
		long k = dmls_stats_find_host(st, a);
		assert_true(k >= 0);
		h[i] = (size_t)k;
		for (int c = 0; c < n; c++)
			assert_int_equal(dmls_series_coarsen(&st->hosts[k].tx_payload), 0);
	}
	dmls_error err;
	assert_int_equal(dmls_iterations_find(it, st, h, 2, h, 2, &err), 0);
}

static void iterations_coarsened(dmls_stats *st, int n, dmls_iterations *it)
{
	iterations_coarsened_total(st, n, -1, it);
}

/* period_s from DMLS_STEADY_FROM iterations on leaves out the first
 * interval (a start-up 3x a step here); with fewer it is every interval's. */
static void test_iterations_steady_period(void **state)
{
	(void)state;
	double ends[] = {0, 3, 4, 5, 6};
	dmls_iterations it = {.count = 5, .comm_end_s = ends};
	dmls_iterations_period(&it);
	assert_true(fabs(it.period_s - 1.0) < 1e-12);
	assert_true(fabs(it.period_median_s - 1.0) < 1e-12);
	assert_true(fabs(it.duration_cv) < 1e-12);
	it.count = 3; /* 0, 3, 4 */
	dmls_iterations_period(&it);
	assert_true(fabs(it.period_s - 2.0) < 1e-12);
	assert_true(fabs(it.period_median_s - 2.0) < 1e-12);
}

/* Bins longer than the gap between iterations (a long capture's series
 * after coarsening): every bin is busy, the autocorrelation would peak at a
 * beat of period and bin.  No iterations, and why; at the hosts' own 1 ms
 * bins the same job has them all.  Bins that still show gaps but are too
 * coarse for the ranks' pauses (1 ms streams) hide the step too, unless
 * the iterations found keep the pauses' rhythm.  A busy job whose 50 ms
 * pause a second still spans bins of 8 ms keeps its iterations. */
static void test_iterations_unresolved(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_iterations it;
	paced_pair(&st, 300, 1000, 20, 5, 100000); /* a 20 ms burst a second */
	iterations_coarsened(&st, 0, &it);
	assert_true(it.count >= 297 && it.count <= 300);
	assert_true(it.unresolved_bin_s == 0);
	dmls_iterations_release(&it);
	iterations_coarsened(&st, 11, &it); /* 2.048 s bins */
	assert_int_equal(it.count, 0);
	assert_true(fabs(it.unresolved_bin_s - 2.048) < 1e-9);
	assert_true(it.on_share >= 0.98);
	assert_true(isnan(it.acf_period_s) && isnan(it.period_s));
	dmls_iterations_release(&it);
	dmls_stats_release(&st);

	/* a step every 100 ms (20 ms of traffic) in 64 ms bins: the bins show
	 * gaps, but the ranks' own streams pause every 0.1 s */
	paced_pair(&st, 600, 100, 20, 2, 50000);
	iterations_coarsened(&st, 0, &it);
	assert_true(it.count >= 598 && it.count <= 600);
	dmls_iterations_release(&it);
	iterations_coarsened(&st, 6, &it); /* without the check: 37 of 1.6 s */
	assert_int_equal(it.count, 0);
	assert_true(fabs(it.unresolved_bin_s - 0.064) < 1e-9);
	assert_true(fabs(it.pause_every_s - 0.1) < 0.001);
	dmls_iterations_release(&it);
	dmls_stats_release(&st);

	/* the same where the total payload kept 4 ms bins (its budget is its
	 * own, the hosts share theirs): the job's hosts send all of it, so it
	 * stands for the job's series, and each worker's bytes are its share */
	paced_pair(&st, 600, 100, 20, 2, 50000);
	iterations_coarsened(&st, 0, &it);
	double S = it.bytes_per_worker;
	dmls_iterations_release(&it);
	iterations_coarsened_total(&st, 6, 2, &it);
	assert_true(it.unresolved_bin_s == 0);
	assert_true(it.count >= 598 && it.count <= 600);
	assert_true(fabs(it.period_median_s - 0.1) < 0.002);
	assert_true(fabs(it.bytes_per_worker / S - 1) < 0.01);
	dmls_iterations_release(&it);
	dmls_stats_release(&st);

	/* a step every 200 ms in 64 ms bins, found right: kept */
	paced_pair(&st, 300, 200, 20, 2, 50000);
	iterations_coarsened(&st, 6, &it);
	assert_true(it.unresolved_bin_s == 0);
	assert_true(it.count >= 298 && it.count <= 300);
	dmls_iterations_release(&it);
	dmls_stats_release(&st);

	/* a step every 0.98 s in 512 ms bins: one in nine lands in the bin
	 * next to the last one's and the two read as one (266 of 300, the
	 * median 1.024 s, within 25 % of the pauses' spacing, the mean 1.10):
	 * withheld; every 1.05 s, each in a bin of its own, 300: kept */
	paced_pair(&st, 300, 980, 20, 5, 100000);
	iterations_coarsened(&st, 9, &it);
	assert_int_equal(it.count, 0);
	assert_true(fabs(it.unresolved_bin_s - 0.512) < 1e-9);
	assert_true(fabs(it.pause_every_s - 0.98) < 0.01);
	dmls_iterations_release(&it);
	dmls_stats_release(&st);
	paced_pair(&st, 300, 1050, 20, 5, 100000);
	iterations_coarsened(&st, 9, &it);
	assert_true(it.unresolved_bin_s == 0);
	assert_int_equal(it.count, 300);
	dmls_iterations_release(&it);
	dmls_stats_release(&st);

	paced_pair(&st, 100, 1000, 950, 4, 20000); /* 950 ms on, 50 ms off */
	iterations_coarsened(&st, 3, &it); /* 8 ms bins */
	assert_true(it.unresolved_bin_s == 0);
	assert_true(it.count >= 98 && it.count <= 100);
	assert_true(fabs(it.period_median_s - 1.0) < 0.01);
	dmls_iterations_release(&it);
	dmls_stats_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iterations_unresolved),
		cmocka_unit_test(test_iterations_steady_period),
		cmocka_unit_test(test_ring),         cmocka_unit_test(test_ring_two_ranks),
		cmocka_unit_test(test_ring_after_broadcast),
		cmocka_unit_test(test_ring_bins_past_4gib),
		cmocka_unit_test(test_shared_host_unsure),
		cmocka_unit_test(test_star),         cmocka_unit_test(test_star_halves),
		cmocka_unit_test(test_star_two_shards), cmocka_unit_test(test_reduce_bcast_two_trees),
		cmocka_unit_test(test_unbalanced_three_no_clique),
		cmocka_unit_test(test_star_one_worker), cmocka_unit_test(test_tree),
		cmocka_unit_test(test_clique),       cmocka_unit_test(test_butterfly),
		cmocka_unit_test(test_butterfly_six),
		cmocka_unit_test(test_butterfly_doubling),
		cmocka_unit_test(test_hierarchical), cmocka_unit_test(test_hierarchical_pairs),
		cmocka_unit_test(test_pairwise),
		cmocka_unit_test(test_one_iteration), cmocka_unit_test(test_stall),
		cmocka_unit_test(test_two_jobs),
		cmocka_unit_test(test_bulk_beside_job),
		cmocka_unit_test(test_small_job_and_launcher),
		cmocka_unit_test(test_async_server),
		cmocka_unit_test(test_pair_averaging_connections),
		cmocka_unit_test(test_two_jobs_same_hosts),
		cmocka_unit_test(test_overlapping_jobs),
		cmocka_unit_test(test_two_trees_one_period),
		cmocka_unit_test(test_pair_averaging_three),
		cmocka_unit_test(test_mpich_three),
		cmocka_unit_test(test_mpich_three_hours_apart),
		cmocka_unit_test(test_rabenseifner_rank),
		cmocka_unit_test(test_clique_rank_or_hub),
		cmocka_unit_test(test_doubling_rank),
		cmocka_unit_test(test_worker_any_interface),
		cmocka_unit_test(test_uneven_withheld),
		cmocka_unit_test(test_sync_modes),     cmocka_unit_test(test_control_only),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
