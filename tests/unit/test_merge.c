/*
 * test_merge.c - partial states merge exactly (sink.h): each worker's
 * capture of a real sample run read into its own mergeable dmls_stats on
 * the job's time origin, merged, equals the whole run read at once, for
 * every sink; and the analysis of both finds the same job.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/analysis.h"
#include "dmlscope/input.h"
#include "dmlscope/stats.h"

static int read_into(dmls_stats *st, const char *const *paths, size_t n)
{
	dmls_input *in;
	dmls_error err;
	if (dmls_input_open(&in, paths, n, NULL, &err))
		return -1;
	dmls_pkt p;
	int rc = 0;
	while (rc == 0 && dmls_input_next(in, &p) == 1)
		rc = dmls_stats_add(st, &p);
	dmls_input_free(in);
	return rc;
}

typedef struct bins {
	size_t n;
	int64_t k[1 << 16];
	uint64_t v[1 << 16];
} bins;

static void collect(int64_t k, uint64_t v, void *ctx)
{
	bins *b = ctx;
	if (b->n < (1 << 16)) {
		b->k[b->n] = k;
		b->v[b->n++] = v;
	}
}

static void same_series(const dmls_series *a, const dmls_series *b)
{
	static bins x, y;
	x.n = y.n = 0;
	assert_int_equal(a->bin_ns, b->bin_ns);
	assert_true(a->total == b->total);
	dmls_series_foreach(a, collect, &x);
	dmls_series_foreach(b, collect, &y);
	assert_int_equal(x.n, y.n);
	for (size_t i = 0; i < x.n; i++) {
		assert_true(x.k[i] == y.k[i]);
		assert_true(x.v[i] == y.v[i]);
	}
}

static void same_stats(const dmls_stats *w, const dmls_stats *m)
{
	assert_true(w->packets == m->packets && w->wire_bytes == m->wire_bytes);
	assert_true(w->payload_bytes == m->payload_bytes);
	assert_true(w->retransmissions == m->retransmissions);
	assert_true(w->first_ns == m->first_ns && w->last_ns == m->last_ns);
	assert_int_equal(w->nhosts, m->nhosts);
	assert_int_equal(w->npairs, m->npairs);
	assert_int_equal(w->nflows, m->nflows);
	assert_true(w->flows_seen == m->flows_seen);
	for (size_t i = 0; i < w->nhosts; i++) {
		const dmls_host *a = &w->hosts[i];
		long j = dmls_stats_find_host(m, a->addr);
		assert_true(j >= 0);
		const dmls_host *b = &m->hosts[j];
		assert_true(a->tx_packets == b->tx_packets && a->rx_packets == b->rx_packets);
		assert_true(a->tx_wire_bytes == b->tx_wire_bytes);
		assert_true(a->rx_payload_bytes == b->rx_payload_bytes);
		assert_true(a->tx_retransmissions == b->tx_retransmissions);
		same_series(&a->tx_payload, &b->tx_payload);
	}
	for (size_t i = 0; i < w->npairs; i++) {
		const dmls_pair *a = &w->pairs[i];
		long s = dmls_stats_find_host(m, w->hosts[a->src].addr);
		long d = dmls_stats_find_host(m, w->hosts[a->dst].addr);
		long j = dmls_stats_find_pair(m, (uint32_t)s, (uint32_t)d);
		assert_true(j >= 0);
		assert_true(a->packets == m->pairs[j].packets);
		assert_true(a->wire_bytes == m->pairs[j].wire_bytes);
		same_series(&a->series, &m->pairs[j].series);
	}
	same_series(&w->total_wire, &m->total_wire);
	same_series(&w->total_payload, &m->total_payload);
	for (int i = 0; i < DMLS_NTAU; i++)
		assert_true(w->burst_total.max_window_bytes[i] == m->burst_total.max_window_bytes[i] ||
			    (isnan(w->burst_total.max_window_bytes[i]) &&
			     isnan(m->burst_total.max_window_bytes[i])));
	for (int i = 0; i < DMLS_NRATE; i++)
		assert_true(fabs(w->burst_total.max_backlog_bytes[i] -
				 m->burst_total.max_backlog_bytes[i]) < 1e-6);
	assert_true(w->peak_bin_wire_bytes == m->peak_bin_wire_bytes);
	assert_true(w->flow_p50_bytes == m->flow_p50_bytes);
	assert_true(w->flow_max_bytes == m->flow_max_bytes);
}

static void merge_run(const char *run, int nfiles)
{
	char paths[8][512];
	const char *pp[8];
	for (int i = 0; i < nfiles; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/samples/%s/worker-%d-tcpdump.pcap",
			 DMLS_SOURCE_DIR, run, i);
		pp[i] = paths[i];
	}
	dmls_stats_limits lim = {.mergeable = 1};
	dmls_stats whole, merged, part;
	dmls_stats_init_limits(&whole, 0, &lim);
	assert_int_equal(read_into(&whole, pp, (size_t)nfiles), 0);
	dmls_stats_init_limits(&merged, 0, &lim);
	dmls_stats_set_origin(&merged, whole.t0_ns);
	for (int i = 0; i < nfiles; i++) {
		dmls_stats_init_limits(&part, 0, &lim);
		dmls_stats_set_origin(&part, whole.t0_ns);
		assert_int_equal(read_into(&part, pp + i, 1), 0);
		assert_int_equal(dmls_stats_merge(&merged, &part), 0);
		dmls_stats_release(&part);
	}
	assert_int_equal(dmls_stats_finish(&whole), 0);
	assert_int_equal(dmls_stats_finish(&merged), 0);
	same_stats(&whole, &merged);

	dmls_analysis *a, *b;
	dmls_error err;
	assert_int_equal(dmls_analysis_run(&a, &whole, NULL, &err), 0);
	assert_int_equal(dmls_analysis_run(&b, &merged, NULL, &err), 0);
	assert_int_equal(a->pattern.kind, b->pattern.kind);
	assert_int_equal(a->pattern.ranks, b->pattern.ranks);
	assert_int_equal(a->iter.count, b->iter.count);
	assert_true(a->iter.period_s == b->iter.period_s ||
		    (isnan(a->iter.period_s) && isnan(b->iter.period_s)));
	assert_true(a->gradient_bytes == b->gradient_bytes ||
		    (isnan(a->gradient_bytes) && isnan(b->gradient_bytes)));
	dmls_analysis_free(a);
	dmls_analysis_free(b);
	dmls_stats_release(&whole);
	dmls_stats_release(&merged);
}

static void test_merge_ring(void **state)
{
	(void)state;
	merge_run("pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring", 4);
}

static void test_merge_star(void **state)
{
	(void)state;
	merge_run("pytorch_rpc-mobilenetv2-adam-16-tensorpipe-normal-star", 3);
}

static void test_merge_butterfly(void **state)
{
	(void)state;
	merge_run("pytorch_manual-mobilenetv2-adam-16-gloo-normal-butterfly", 4);
}

/* States that cannot merge say so: another origin, not mergeable. */
static void test_merge_refused(void **state)
{
	(void)state;
	dmls_stats_limits lim = {.mergeable = 1};
	dmls_stats a, b, c;
	dmls_stats_init_limits(&a, 0, &lim);
	dmls_stats_init_limits(&b, 0, &lim);
	dmls_stats_init(&c, 0);
	dmls_stats_set_origin(&a, 1000);
	dmls_stats_set_origin(&b, 2000);
	dmls_stats_set_origin(&c, 1000);
	dmls_pkt p;
	memset(&p, 0, sizeof(p));
	p.ts_ns = 5000, p.af = 4, p.proto = 17, p.wire_bytes = 100;
	assert_int_equal(dmls_stats_add(&a, &p), 0);
	assert_int_equal(dmls_stats_add(&b, &p), 0);
	assert_int_equal(dmls_stats_add(&c, &p), 0);
	assert_int_equal(dmls_stats_merge(&a, &b), -2);
	assert_int_equal(dmls_stats_merge(&a, &c), -2);
	dmls_stats_release(&a);
	dmls_stats_release(&b);
	dmls_stats_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_ring),
		cmocka_unit_test(test_merge_star),
		cmocka_unit_test(test_merge_butterfly),
		cmocka_unit_test(test_merge_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
