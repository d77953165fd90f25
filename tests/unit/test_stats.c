/* test_stats.c - the one-pass sinks: hosts, matrix, flows, series, retransmissions */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/stats.h"

static dmls_pkt mk(int64_t ts, int s, int d, uint16_t sp, uint16_t dp, uint32_t seq,
		   uint64_t payload)
{
	dmls_pkt p;
	memset(&p, 0, sizeof(p));
	p.ts_ns = ts;
	p.af = 4;
	p.proto = 6;
	p.src[10] = p.src[11] = 0xff;
	p.dst[10] = p.dst[11] = 0xff;
	p.src[12] = 198, p.src[13] = 18, p.src[15] = (uint8_t)s;
	p.dst[12] = 198, p.dst[13] = 18, p.dst[15] = (uint8_t)d;
	p.sport = sp;
	p.dport = dp;
	p.tcp_seq = seq;
	p.tcp_flags = DMLS_TCP_ACK;
	p.payload_bytes = payload;
	p.ip_bytes = payload + 40;
	p.wire_bytes = payload + 54;
	return p;
}

static void test_hosts_pairs_flows(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	uint32_t seq = 1000;
	for (int i = 0; i < 10; i++) {
		dmls_pkt p = mk(1000000000LL + i * 1000000LL, 1, 2, 40000, 5000, seq, 1000);
		seq += 1000;
		assert_int_equal(dmls_stats_add(&st, &p), 0);
	}
	dmls_pkt ack = mk(1005000000LL, 2, 1, 5000, 40000, 1, 0);
	assert_int_equal(dmls_stats_add(&st, &ack), 0);
	assert_int_equal(st.nhosts, 2);
	assert_int_equal(st.npairs, 2);
	assert_int_equal(st.nflows, 2);
	assert_int_equal(st.packets, 11);
	assert_string_equal(st.hosts[0].name, "198.18.0.1");
	assert_int_equal(st.hosts[0].tx_payload_bytes, 10000);
	assert_int_equal(st.hosts[0].tx_wire_bytes, 10540);
	assert_int_equal(st.hosts[1].rx_wire_bytes, 10540);
	assert_int_equal(st.hosts[1].tx_wire_bytes, 54);
	long pi = dmls_stats_find_pair(&st, 0, 1);
	assert_true(pi >= 0);
	assert_int_equal(st.pairs[pi].payload_bytes, 10000);
	assert_int_equal(dmls_series_get(&st.pairs[pi].series, 3), 1054);
	assert_int_equal(dmls_series_get(&st.total_wire, 10), 1054); /* 1 ms = 10 fine bins */
	assert_int_equal(dmls_series_get(&st.total_wire, 11), 0);
	assert_int_equal(st.retransmissions, 0);
	assert_int_equal(dmls_stats_flow_quantile(&st, 1.0), 10540);
	assert_int_equal(dmls_stats_flow_quantile(&st, 0.5), 54);
	dmls_stats_release(&st);
}

static void test_retransmission(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	dmls_pkt a = mk(1, 1, 2, 1, 2, 0xfffffc00u, 1024); /* wraps past 2^32 */
	dmls_pkt b = mk(2, 1, 2, 1, 2, 0, 1024);
	dmls_pkt again = mk(3, 1, 2, 1, 2, 0xfffffc00u, 1024);
	dmls_pkt c = mk(4, 1, 2, 1, 2, 1024, 1024);
	dmls_stats_add(&st, &a);
	dmls_stats_add(&st, &b);
	dmls_stats_add(&st, &again);
	dmls_stats_add(&st, &c);
	assert_int_equal(st.flows[0].retransmissions, 1);
	assert_int_equal(st.hosts[0].tx_retransmissions, 1);
	dmls_stats_release(&st);
}

static void test_series_sparse_far_apart(void **state)
{
	(void)state;
	dmls_series s;
	dmls_series_init(&s, 0, 1000, 0);
	/* years apart: two chunks, not years of bins */
	assert_int_equal(dmls_series_add(&s, 5000, 7), 0);
	assert_int_equal(dmls_series_add(&s, 400000000000000000LL, 9), 0);
	assert_int_equal(dmls_series_add(&s, -3000, 1), 0); /* before t0 */
	assert_int_equal(s.nchunks, 3);
	assert_int_equal(dmls_series_get(&s, 5), 7);
	assert_int_equal(dmls_series_get(&s, -3), 1);
	assert_int_equal(s.total, 17);
	double out[4];
	dmls_series_dense(&s, 0, 4, 2, out);
	assert_true(out[2] == 7.0 && out[0] == 0.0);
	dmls_series_release(&s);
}

static void test_u64_counters(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	for (int i = 0; i < 3; i++) {
		dmls_pkt p = mk(i, 1, 2, 1, 2, 0, 0);
		p.wire_bytes = 3000000000ULL; /* three of these pass 2^32 */
		dmls_stats_add(&st, &p);
	}
	assert_true(st.flows[0].wire_bytes == 9000000000ULL);
	assert_true(st.pairs[0].wire_bytes == 9000000000ULL);
	dmls_stats_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts_pairs_flows),
		cmocka_unit_test(test_retransmission),
		cmocka_unit_test(test_series_sparse_far_apart),
		cmocka_unit_test(test_u64_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
