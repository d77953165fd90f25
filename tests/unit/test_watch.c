/*
 * test_watch.c - the online view and events of dmls_watch (watch.h) on a
 * synthetic ring all-reduce of 4 ranks fed packet by packet with a tick
 * every second, as a live capture would: the pattern and period found,
 * a new period, a rank that stops, a stall and the traffic's return, each
 * reported once with its time; the recent view and its analysis do not
 * accumulate memory over hundreds of intervals; the detached stats are the
 * whole capture's, as analyze would count it.
 */
#include <malloc.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/watch.h"
#include "synth.h"

#define N 4
#define SEG 62500ULL /* S / N / 4: four segments per step */
#define S_BYTES 1000000ULL
#define SEC 1000000000LL
#define MS 1000000LL

static uint32_t seq[N + 1][N + 1];
static uint64_t fed;

static void send_seg(dmls_watch *w, int64_t t, int s, int d)
{
	dmls_pkt p = synth_pkt(t, s, d, SEG, seq[s][d]);
	seq[s][d] += (uint32_t)SEG;
	assert_int_equal(dmls_watch_add(w, &p), 0);
	dmls_pkt a = synth_pkt(t + 5000, d, s, 0, seq[d][s]);
	a.sport = p.dport, a.dport = p.sport;
	assert_int_equal(dmls_watch_add(w, &a), 0);
	fed += 2;
}

/* One ring all-reduce at t: 2(N-1) steps of S/N to the next rank; ranks
 * with alive[r] == 0 send nothing. */
static void ring_iter(dmls_watch *w, int64_t t, const int *alive)
{
	for (int step = 0; step < 2 * (N - 1); step++, t += 300000)
		for (int r = 0; r < N; r++)
			for (int k = 0; alive[r] && k < 4; k++)
				send_seg(w, t + k * 20000, r + 1, (r + 1) % N + 1);
}

/* Run from *t for secs seconds at one iteration per period_ns, a tick at
 * every whole second. */
static void run(dmls_watch *w, int64_t *t, int64_t secs, int64_t period_ns, const int *alive)
{
	int64_t end = *t + secs * SEC, next_tick = (*t / SEC + 1) * SEC;
	dmls_error err;
	for (int64_t it = *t; it < end; it += period_ns) {
		while (next_tick <= it) {
			assert_int_equal(dmls_watch_tick(w, next_tick, &err), DMLS_OK);
			next_tick += SEC;
		}
		if (alive)
			ring_iter(w, it, alive);
	}
	while (next_tick <= end) {
		assert_int_equal(dmls_watch_tick(w, next_tick, &err), DMLS_OK);
		next_tick += SEC;
	}
	*t = end;
}

static size_t count_events(const dmls_watch *w, int kind, const dmls_watch_event **last)
{
	size_t n = 0;
	for (uint64_t k = 0; k < w->nevents; k++) {
		const dmls_watch_event *e = dmls_watch_get_event(w, k);
		if (e && e->kind == kind) {
			n++;
			*last = e;
		}
	}
	return n;
}

static size_t heap_bytes(void)
{
	return mallinfo2().uordblks;
}

static size_t all_series_bytes(const dmls_watch *w)
{
	size_t b = 0;
	for (int c = 0; c < DMLS_NCLASS; c++)
		b += w->all.cls[c].mem_bytes;
	return b;
}

static void test_events(void **state)
{
	(void)state;
	dmls_watch w;
	dmls_watch_opts o = {0};
	o.window_ns = 4 * SEC;
	o.interval_ns = SEC;
	dmls_watch_init(&w, &o);
	const int all4[N] = {1, 1, 1, 1}, three[N] = {1, 1, 1, 0};
	int64_t t = SYNTH_T0 + 123 * MS;
	const dmls_watch_event *e = NULL;

	run(&w, &t, 20, 100 * MS, all4);
	assert_int_equal(count_events(&w, DMLS_EV_PATTERN, &e), 1);
	assert_int_equal(e->pattern, DMLS_PAT_RING);
	assert_int_equal(e->ranks, N);
	assert_int_equal(count_events(&w, DMLS_EV_PERIOD, &e), 1);
	assert_true(fabs(e->period_s - 0.1) < 0.005);
	assert_true(isnan(e->old_period_s));
	assert_int_equal(w.nmembers, N);

	/* steady: the view and its analysis do not accumulate */
	run(&w, &t, 20, 100 * MS, all4);
	size_t h0 = heap_bytes(), s0 = all_series_bytes(&w);
	run(&w, &t, 200, 100 * MS, all4);
	size_t h1 = heap_bytes(), s1 = all_series_bytes(&w);
	assert_true(h1 <= h0 + (s1 - s0) + (1u << 20));
	assert_int_equal(count_events(&w, DMLS_EV_PATTERN, &e), 1);
	assert_int_equal(count_events(&w, DMLS_EV_PERIOD, &e), 1);
	assert_true(fabs(w.trend) < 0.05);

	/* a slower job: one period event, 0.1 s -> 0.25 s, once */
	int64_t t_slow = t;
	run(&w, &t, 30, 250 * MS, all4);
	assert_int_equal(count_events(&w, DMLS_EV_PERIOD, &e), 2);
	assert_true(fabs(e->old_period_s - 0.1) < 0.005 && fabs(e->period_s - 0.25) < 0.01);
	assert_true(e->ts_ns > t_slow && e->ts_ns <= t_slow + 4 * o.window_ns);
	assert_int_equal(count_events(&w, DMLS_EV_STALL, &e), 0);
	assert_int_equal(count_events(&w, DMLS_EV_LOST_RANK, &e), 0);

	/* rank 4 stops: lost_rank at its last packet */
	int64_t t_lost = t;
	run(&w, &t, 10, 250 * MS, three);
	assert_int_equal(count_events(&w, DMLS_EV_LOST_RANK, &e), 1);
	assert_string_equal(e->host, "198.18.0.4");
	assert_true(e->ts_ns < t_lost && e->ts_ns > t_lost - 300 * MS);
	assert_int_equal(count_events(&w, DMLS_EV_STALL, &e), 0);

	/* nobody sends: one stall, at the last packet; then traffic again */
	int64_t t_stop = t;
	run(&w, &t, 10, 250 * MS, NULL);
	assert_int_equal(count_events(&w, DMLS_EV_STALL, &e), 1);
	assert_true(e->ts_ns < t_stop && e->ts_ns > t_stop - 300 * MS);
	assert_int_equal(count_events(&w, DMLS_EV_RESUME, &e), 0);
	run(&w, &t, 5, 250 * MS, all4);
	assert_int_equal(count_events(&w, DMLS_EV_RESUME, &e), 1);
	assert_int_equal(count_events(&w, DMLS_EV_STALL, &e), 1);

	/* the whole capture, as analyze counts it */
	dmls_stats st;
	dmls_watch_detach(&w, &st);
	assert_int_equal(st.packets, fed);
	assert_int_equal(st.nhosts, N);
	dmls_watch_release(&w);
	dmls_stats_release(&st);
}

/* The ring of events keeps the last DMLS_WATCH_EVENTS. */
static void test_event_ring(void **state)
{
	(void)state;
	dmls_watch w;
	dmls_watch_init(&w, NULL);
	const int all4[N] = {1, 1, 1, 1};
	int64_t t = SYNTH_T0;
	for (int i = 0; i < DMLS_WATCH_EVENTS + 5; i++) { /* a stall and a resume each */
		run(&w, &t, 3, 100 * MS, all4);
		run(&w, &t, 4, 100 * MS, NULL);
	}
	assert_true(w.nevents > DMLS_WATCH_EVENTS);
	assert_null(dmls_watch_get_event(&w, 0));
	assert_non_null(dmls_watch_get_event(&w, w.nevents - 1));
	assert_null(dmls_watch_get_event(&w, w.nevents));
	assert_non_null(dmls_watch_get_event(&w, w.nevents - DMLS_WATCH_EVENTS));
	dmls_watch_release(&w);
}

/* A window of packets without ports (IGMP from a bridge, ICMP): hosts and
 * pairs but no flow; its view orders empty tables (a memcpy to NULL once,
 * which UBSan stopped the watch for on a bridge's namespace). */
static void test_no_flows(void **state)
{
	(void)state;
	dmls_watch w;
	dmls_watch_init(&w, NULL);
	dmls_error err;
	for (int k = 0; k < 10; k++) {
		dmls_pkt p = synth_pkt(SYNTH_T0 + k * 100 * MS, 1, 2, 0, 0);
		p.proto = 2; /* IGMP */
		p.sport = p.dport = 0;
		p.payload_bytes = 0;
		assert_int_equal(dmls_watch_add(&w, &p), 0);
	}
	assert_int_equal(dmls_watch_tick(&w, SYNTH_T0 + 2 * SEC, &err), DMLS_OK);
	dmls_watch_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_event_ring),
		cmocka_unit_test(test_no_flows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
