/*
 * test_analysis_views.c - the analysis on part of a job: one rank's
 * outgoing file, a subset of the ranks' files, one host's capture of both
 * directions, a parameter server seen from its hub or from one worker.
 *
 * Jobs are built packet by packet as in test_analysis.c, with what a real
 * job adds around its collective: a full mesh of control connections at
 * start (Gloo, TensorPipe: every rank greets every other) and, for the
 * ring, the initial parameter broadcast from rank 0 (host 1) along a tree
 * (1->2, 1->3, 2->4), as PyTorch DDP does.  A view keeps only the packets
 * a capture of it holds: keep(src, dst).
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

#define S_BYTES 4000000ULL    /* gradient size */
#define PERIOD_NS 100000000LL /* 100 ms */
#define MS 1000000LL
#define ITERS 20

typedef int (*keep_fn)(int src, int dst);

static int g_n;        /* ranks, hosts 1..g_n */
static keep_fn g_keep; /* what the capture holds */
static uint16_t g_listen; /* nonzero: host 1's port on every connection (a
			   * server's listening socket), else one per pair */

/* synth_send, but only the packets the view holds reach st */
static int64_t vsend(dmls_stats *st, int64_t t, int s, int d, uint64_t bytes)
{
	while (bytes > 0) {
		uint64_t n = bytes < SYNTH_SEG ? bytes : SYNTH_SEG;
		dmls_pkt p = synth_pkt(t, s, d, n, synth_seq[s][d]);
		if (g_listen && s == 1)
			p.sport = g_listen;
		if (g_listen && d == 1)
			p.dport = g_listen;
		synth_seq[s][d] += (uint32_t)n;
		if (g_keep(s, d))
			dmls_stats_add(st, &p);
		dmls_pkt a = synth_pkt(t + 5000, d, s, 0, synth_seq[d][s]);
		a.sport = p.dport, a.dport = p.sport;
		if (g_keep(d, s))
			dmls_stats_add(st, &a);
		bytes -= n;
		t += 20000;
	}
	return t;
}

static void vctrl(dmls_stats *st, int64_t t, int s, int d)
{
	dmls_pkt p = synth_pkt(t, s, d, 40, synth_seq[s][d]);
	p.sport = 29500, p.dport = (uint16_t)(30000 + s);
	synth_seq[s][d] += 40;
	if (g_keep(s, d))
		dmls_stats_add(st, &p);
}

/* every rank greets every other */
static int64_t mesh(dmls_stats *st, int64_t t)
{
	for (int s = 1; s <= g_n; s++)
		for (int d = 1; d <= g_n; d++)
			if (s != d)
				vctrl(st, t += 100000, s, d);
	return t + MS;
}

static void ring_iter(dmls_stats *st, int64_t t)
{
	for (int step = 0; step < 2 * (g_n - 1); step++) {
		int64_t end = t;
		for (int r = 0; r < g_n; r++)
			end = vsend(st, t, 1 + r, 1 + (r + 1) % g_n, S_BYTES / (uint64_t)g_n);
		t = end + 50000;
	}
}

/* host 1 serves; workers push S, the server answers each with S */
static void star_iter(dmls_stats *st, int64_t t)
{
	int64_t end = t;
	for (int w = 2; w <= g_n; w++)
		end = vsend(st, t + (w - 2) * 100000, w, 1, S_BYTES);
	end += 2 * MS;
	for (int w = 2; w <= g_n; w++)
		end = vsend(st, end, 1, w, S_BYTES);
}

/* the whole job; ring: DDP's initial broadcast, star: the initial pull */
static void run(dmls_stats *st, int star)
{
	static uint32_t rng_seed = 12345;
	synth_rng = rng_seed;
	memset(synth_seq, 0, sizeof(synth_seq));
	dmls_stats_init(st, 0);
	int64_t t = mesh(st, SYNTH_T0);
	if (star) {
		for (int w = 2; w <= g_n; w++)
			t = vsend(st, t, 1, w, S_BYTES);
	} else {
		t = vsend(st, t, 1, 2, S_BYTES);
		t = vsend(st, t, 1, 3, S_BYTES);
		t = vsend(st, t, 2, 4, S_BYTES);
	}
	t += 30 * MS;
	for (int i = 0; i < ITERS; i++) {
		if (star)
			star_iter(st, t + 20 * MS);
		else
			ring_iter(st, t + 20 * MS);
		t += (int64_t)((double)PERIOD_NS * (1 + 0.05 * synth_jitter()));
	}
}

static void check_kind(const dmls_analysis *a, int kind)
{
	if (a->pattern.kind != kind)
		fail_msg("kind %s, want %s", dmls_pattern_name(a->pattern.kind),
			 dmls_pattern_name(kind));
}

/* every iteration, period within 3 % */
static void check_period(const dmls_analysis *a)
{
	assert_int_equal(a->iter.count, ITERS);
	assert_near(a->iter.period_s, PERIOD_NS * 1e-9, 0.03);
}

static void check_partial(const dmls_analysis *a, size_t ranks, size_t observed)
{
	assert_int_equal(a->pattern.ranks, ranks);
	assert_true(a->pattern.partial);
	assert_int_equal(a->pattern.nobserved, observed);
	assert_true(has_note(a, "partial view"));
	assert_true(a->pattern.confidence >= 0 && a->pattern.confidence < 1);
}

static int keep_all(int s, int d) { (void)s, (void)d; return 1; }
static int keep_1(int s, int d) { (void)d; return s == 1; }
static int keep_2(int s, int d) { (void)d; return s == 2; }
static int keep_3(int s, int d) { (void)d; return s == 3; }
static int keep_1_3(int s, int d) { (void)d; return s == 1 || s == 3; }
static int keep_host_1(int s, int d) { return s == 1 || d == 1; }
static int keep_host_1_bfly(int s, int d) { return (s == 1 || d == 1) && s <= 3 && d <= 3; }

/* Butterfly of 4 (recursive halving: 1<->2 carries S/2 each way per
 * phase, 1<->3 S/4) seen on host 1 in both directions: two partners at
 * volumes 2:1, no star. */
static void bfly_iter(dmls_stats *st, int64_t t)
{
	for (int phase = 0; phase < 2; phase++) {
		int64_t end = t;
		for (int r = 0; r < 4; r++)
			end = vsend(st, t, 1 + r, 1 + (r ^ 1), S_BYTES / 2);
		t = end + 50000;
		for (int r = 0; r < 4; r++)
			end = vsend(st, t, 1 + r, 1 + (r ^ 2), S_BYTES / 4);
		t = end + 50000;
	}
}

static void test_butterfly_host_both_directions(void **state)
{
	(void)state;
	dmls_stats st;
	memset(synth_seq, 0, sizeof(synth_seq));
	g_n = 4, g_keep = keep_host_1_bfly;
	dmls_stats_init(&st, 0);
	int64_t t = SYNTH_T0;
	for (int i = 0; i < ITERS; i++, t += PERIOD_NS)
		bfly_iter(&st, t + 20 * MS);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_UNKNOWN);
	assert_true(a->pattern.partial);
	assert_true(isnan(a->gradient_bytes));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* The folder: every rank's sending, nothing partial. */
static void test_complete(void **state)
{
	(void)state;
	dmls_stats st;
	g_n = 4, g_keep = keep_all;
	run(&st, 0);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_RING);
	assert_int_equal(a->pattern.ranks, 4);
	assert_false(a->pattern.partial);
	assert_int_equal(a->pattern.nobserved, 4);
	assert_false(has_note(a, "partial view"));
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Ring of 4 seen from rank 0's outgoing file: one data edge (1->2), the
 * broadcast and the mesh name the other ranks; S with N = 4. */
static void test_ring_one_sender(void **state)
{
	(void)state;
	dmls_stats st;
	g_n = 4, g_keep = keep_1;
	run(&st, 0);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_RING);
	check_partial(a, 4, 1);
	check_period(a);
	assert_near(a->iter.bytes_per_worker, 2.0 * 3 / 4 * (double)S_BYTES, 0.03);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	assert_int_equal(a->pattern.norder, 2);
	assert_true(has_note(a, "ring order partial"));
	assert_true(isnan(a->expected_iter_bytes));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Rank 2's file (host 3): one data peer and no other bulk transfer, what a
 * parameter server's worker shows too: kind and S unknown, not guessed. */
static void test_ring_one_sender_ambiguous(void **state)
{
	(void)state;
	dmls_stats st;
	g_n = 4, g_keep = keep_3;
	run(&st, 0);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_UNKNOWN);
	check_partial(a, 4, 1);
	assert_true(a->pattern.lone_sender);
	check_period(a);
	assert_true(isnan(a->gradient_bytes));
	assert_near(a->iter.bytes_per_worker, 2.0 * 3 / 4 * (double)S_BYTES, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Ring of 4, files of hosts 1 and 3: two disjoint edges, 4 ranks. */
static void test_ring_two_of_four(void **state)
{
	(void)state;
	dmls_stats st;
	g_n = 4, g_keep = keep_1_3;
	run(&st, 0);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_RING);
	check_partial(a, 4, 2);
	check_period(a);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Ring of 4 captured on host 1 in both directions: only host 1 is
 * observed; 1 sends to 2 and 4's edge to 1 is seen whole (a chain of 3:
 * a ring, not a star spoke); 3 is seen only through its greeting. */
static void test_ring_host_both_directions(void **state)
{
	(void)state;
	dmls_stats st;
	g_n = 4, g_keep = keep_host_1;
	run(&st, 0);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_RING);
	check_partial(a, 4, 1);
	check_period(a);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	assert_int_equal(a->pattern.norder, 3);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* Parameter server (host 1, 3 workers) seen from its file alone: a
 * fan-out; S from the hub's bytes per iteration / W, its first burst (the
 * initial pull) is warm-up; no worker observed, bytes per worker null. */
static void test_star_server_only(void **state)
{
	(void)state;
	dmls_stats st;
	g_n = 4, g_keep = keep_1;
	run(&st, 1);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_STAR);
	check_partial(a, 4, 1);
	assert_int_equal(a->pattern.nhubs, 1);
	assert_int_equal(st.hosts[a->pattern.hubs[0]].addr[15], 1);
	assert_int_equal(st.hosts[a->pattern.hubs[0]].role, DMLS_ROLE_SERVER);
	check_period(a);
	assert_true(isnan(a->iter.bytes_per_worker));
	assert_near(a->server_bytes, 3.0 * (double)S_BYTES, 0.03);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* An asynchronous server (host 1) with two workers at their own paces
 * (100 and 123 ms: most iterations of the merged clock hold an answer to
 * both), seen from the server's sending alone: its two edges keep paces
 * of their own, so kind, period and S are withheld, not a merged period.
 * Both edges leave from the server's one listening port: one process, one
 * job (not two jobs sharing host 1). */
static void test_async_server_two_workers_server_only(void **state)
{
	(void)state;
	static const int64_t step_ms[] = {100, 123};
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 3, g_keep = keep_1, g_listen = 29400;
	int64_t next[2] = {SYNTH_T0 + 3 * MS, SYNTH_T0 + 11 * MS};
	for (int k = 0; k < 2 * 40; k++) {
		int w = next[0] <= next[1] ? 0 : 1;
		int64_t t = next[w];
		vsend(&st, t, 2 + w, 1, S_BYTES / 40);
		vsend(&st, t + 4 * MS, 1, 2 + w, S_BYTES / 40);
		next[w] += step_ms[w] * MS;
	}
	dmls_analysis *a = analyze(&st);
	check_partial(a, 3, 1);
	assert_true(a->hub_one_at_a_time);
	assert_true(isnan(a->iter.period_s));
	assert_true(isnan(a->gradient_bytes));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
	g_listen = 0;
}

/* Host 1 with ranks of two jobs, seen from its own sending: to host 2 at
 * one job's step (100 ms), to host 3 at the other's (103 ms: 3 % apart,
 * so the steps drift through each other), each from a socket of its own.
 * Two jobs, each with host 1 and its peer and the period of its own steps;
 * their rank counts, kinds and S are unknown from one sender's edge. */
static void test_host_in_two_jobs_own_file(void **state)
{
	(void)state;
	static const int64_t step_ms[] = {100, 103};
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 3, g_keep = keep_1;
	int64_t next[2] = {SYNTH_T0 + 3 * MS, SYNTH_T0 + 51 * MS};
	for (int k = 0; k < 2 * 40; k++) {
		int j = next[0] <= next[1] ? 0 : 1;
		vsend(&st, next[j], 1, 2 + j, S_BYTES / 20);
		next[j] += step_ms[j] * MS;
	}
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->njobs, 2);
	for (size_t j = 0; j < 2; j++) {
		const dmls_analysis *x = a->jobs[j];
		assert_false(x->hub_one_at_a_time);
		assert_int_equal(x->pattern.ranks, 2);
		assert_int_equal(x->pattern.center_jobs, 2);
		assert_int_equal(x->pattern.kind, DMLS_PAT_UNKNOWN);
		assert_true(isnan(x->gradient_bytes));
		int peer = -1;
		for (size_t i = 0; i < x->pattern.ranks; i++)
			if (st.hosts[x->pattern.members[i]].addr[15] != 1)
				peer = st.hosts[x->pattern.members[i]].addr[15];
		assert_true(peer == 2 || peer == 3);
		assert_near(x->iter.period_s, (double)step_ms[peer - 2] * 1e-3, 0.01);
		assert_true(x->iter.count >= 38 && x->iter.count <= 41);
	}
	assert_true(has_note(a, "a host in 2 jobs"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* A gossiping rank (host 1) seen from its own sending: each 100 ms step
 * it pushes to host 2 or host 3, picked at random, so each edge alone
 * keeps an uneven clock of its own; merged they are its steps: one job,
 * not two. */
static void test_gossip_rank_own_file(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	g_n = 3, g_keep = keep_1;
	unsigned r = 7;
	for (int k = 0; k < 40; k++) {
		r = r * 1103515245u + 12345u;
		vsend(&st, SYNTH_T0 + (3 + 100 * k) * MS, 1, 2 + (int)((r >> 16) & 1), S_BYTES / 20);
	}
	dmls_analysis *a = analyze(&st);
	assert_int_equal(a->njobs, 1);
	assert_int_equal(a->pattern.center_jobs, 0);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* The same star seen from one worker's file: one data peer, no other bulk:
 * a ring neighbour or a server's worker, so kind and S are unknown, the
 * worker's bytes (S per push) and the period are right. */
static void test_star_one_worker(void **state)
{
	(void)state;
	dmls_stats st;
	g_n = 4, g_keep = keep_2;
	run(&st, 1);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_UNKNOWN);
	check_partial(a, 4, 1);
	check_period(a);
	assert_true(isnan(a->gradient_bytes));
	assert_near(a->iter.bytes_per_worker, (double)S_BYTES, 0.03);
	assert_true(has_note(a, "parameter server"));
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

/* The server's host in both directions holds every data packet of a star
 * (the same packets as every rank's file): whole. */
static void test_star_server_both_directions(void **state)
{
	(void)state;
	dmls_stats st;
	g_n = 4, g_keep = keep_host_1;
	run(&st, 1);
	dmls_analysis *a = analyze(&st);
	check_kind(a, DMLS_PAT_STAR);
	assert_int_equal(a->pattern.ranks, 4);
	assert_false(a->pattern.partial);
	assert_int_equal(st.hosts[a->pattern.hubs[0]].addr[15], 1);
	assert_near(a->gradient_bytes, (double)S_BYTES, 0.03);
	check_period(a);
	dmls_analysis_free(a);
	dmls_stats_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_ring_one_sender),
		cmocka_unit_test(test_ring_one_sender_ambiguous),
		cmocka_unit_test(test_ring_two_of_four),
		cmocka_unit_test(test_ring_host_both_directions),
		cmocka_unit_test(test_star_server_only),
		cmocka_unit_test(test_star_one_worker),
		cmocka_unit_test(test_async_server_two_workers_server_only),
		cmocka_unit_test(test_host_in_two_jobs_own_file),
		cmocka_unit_test(test_gossip_rank_own_file),
		cmocka_unit_test(test_star_server_both_directions),
		cmocka_unit_test(test_butterfly_host_both_directions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
