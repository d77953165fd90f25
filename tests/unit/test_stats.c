/* test_stats.c - the one-pass sinks: hosts, matrix, flows, series, retransmissions */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/itable.h"
#include "dmlscope/serial.h"
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
	assert_int_equal(dmls_stats_finish(&st), 0); /* names the hosts */
	assert_string_equal(st.hosts[0].name, "198.18.0.1");
	assert_int_equal(st.hosts[0].tx_payload_bytes, 10000);
	assert_int_equal(st.hosts[0].tx_wire_bytes, 10540);
	assert_int_equal(st.hosts[1].rx_wire_bytes, 10540);
	assert_int_equal(st.hosts[1].tx_wire_bytes, 54);
	long pi = dmls_stats_find_pair(&st, 0, 1);
	assert_true(pi >= 0);
	assert_int_equal(st.pairs[pi].payload_bytes, 10000);
	assert_int_equal(dmls_series_get(&st.pairs[pi].series, 3), 1054);
	assert_int_equal(dmls_series_get(&st.total_wire, 1), 1054); /* --bin: 1 ms */
	assert_int_equal(dmls_series_get(&st.total_wire, 5), 1054 + 54);
	assert_int_equal(dmls_series_get(&st.total_wire, 10), 0);
	assert_int_equal(st.peak_bin_wire_bytes, 1054 + 54);
	assert_int_equal(st.flow_max_bytes, 10540);
	assert_int_equal(st.flow_p50_bytes, 54);
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

/* Segments whose TCP header was cut (decode.h, tcp_cut): their lengths
 * are estimates, up to 28 bytes over (a 60-byte header read as 32), so one
 * starting within 28 bytes below the data sent is not taken for a
 * retransmission; a whole segment sent again is. */
static void test_retransmission_cut_headers(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	uint32_t seq = 5000;
	for (int i = 0; i < 20; i++) { /* 1420 bytes each, estimated 1448 */
		dmls_pkt p = mk(1 + i, 1, 2, 40000, 29500, seq, 1448);
		p.tcp_cut = true, p.tcp_flags = 0;
		seq += 1420;
		assert_int_equal(dmls_stats_add(&st, &p), 0);
	}
	assert_int_equal(st.retransmissions, 0);
	dmls_pkt again = mk(30, 1, 2, 40000, 29500, seq - 3 * 1420, 1448);
	again.tcp_cut = true, again.tcp_flags = 0;
	assert_int_equal(dmls_stats_add(&st, &again), 0);
	assert_int_equal(st.retransmissions, 1);
	assert_int_equal(st.flows[0].retransmissions, 1);
	/* 2 s later the 5-tuple again, its numbers begun anew below (its SYN
	 * unseen): a connection opened, no retransmissions; then one anew
	 * above, the same; a segment sent again in it still counts */
	assert_int_equal(dmls_series_empty(&st.pairs[0].reopens), 1);
	uint32_t isn[2] = {seq - 500000, seq + 3000000};
	for (int c = 0; c < 2; c++)
		for (int i = 0; i < 5; i++) {
			dmls_pkt p = mk(2000000000LL * (c + 1) + i, 1, 2, 40000, 29500,
					isn[c] + 1420 * (uint32_t)i, 1448);
			p.tcp_cut = true, p.tcp_flags = 0;
			assert_int_equal(dmls_stats_add(&st, &p), 0);
		}
	assert_int_equal(st.retransmissions, 1);
	assert_int_equal(st.pairs[0].reopens.total, 2);
	dmls_pkt late = mk(4000000010LL, 1, 2, 40000, 29500, isn[1] + 1420, 1448);
	late.tcp_cut = true, late.tcp_flags = 0;
	assert_int_equal(dmls_stats_add(&st, &late), 0);
	assert_int_equal(st.retransmissions, 2);
	dmls_stats_release(&st);
}

/* Sequence gaps: a segment lost before the capture point leaves a gap its
 * retransmission fills (nothing missed); one the capture dropped leaves it
 * for good (dmls_stats_missed_bytes). */
static void test_sequence_gaps(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	uint32_t seq = 1000;
	for (int i = 0; i < 10; i++) {
		if (i == 3 || i == 6) { /* 3: lost on the path; 6: the capture's */
			seq += 1000;
			continue;
		}
		dmls_pkt p = mk(1 + i, 1, 2, 40000, 29500, seq, 1000);
		seq += 1000;
		assert_int_equal(dmls_stats_add(&st, &p), 0);
	}
	dmls_pkt again = mk(20, 1, 2, 40000, 29500, 1000 + 3 * 1000, 1000);
	assert_int_equal(dmls_stats_add(&st, &again), 0);
	assert_int_equal(st.retransmissions, 1);
	assert_int_equal(st.tcp_gap_bytes, 2000);
	assert_int_equal(st.tcp_resent_bytes, 1000);
	assert_int_equal(dmls_stats_missed_bytes(&st), 1000);
	dmls_stats_release(&st);
}

/* A connection that reuses the 5-tuple of an earlier one starts from its
 * SYN: its data, below the earlier one's numbers, are not retransmissions;
 * its own segments sent again are.  The same SYN twice changes nothing. */
static void test_retransmission_ports_reused(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	uint32_t isn[2] = {2000000000u, 1000000000u}; /* the second below the first */
	int64_t t = 1;
	for (int conn = 0; conn < 2; conn++) {
		for (int k = 0; k < 2; k++) { /* the SYN, and the same SYN sent again */
			dmls_pkt syn = mk(t++, 1, 2, 40000, 29500, isn[conn], 0);
			syn.tcp_flags = DMLS_TCP_SYN;
			assert_int_equal(dmls_stats_add(&st, &syn), 0);
		}
		for (uint32_t i = 0; i < 100; i++) {
			dmls_pkt d = mk(t++, 1, 2, 40000, 29500, isn[conn] + 1 + i * 1000, 1000);
			assert_int_equal(dmls_stats_add(&st, &d), 0);
		}
	}
	assert_int_equal(st.nflows, 1);
	assert_int_equal(st.retransmissions, 0);
	dmls_pkt again = mk(t++, 1, 2, 40000, 29500, isn[1] + 1 + 50 * 1000, 1000);
	assert_int_equal(dmls_stats_add(&st, &again), 0);
	assert_int_equal(st.retransmissions, 1);
	assert_int_equal(st.flows[0].retransmissions, 1);
	dmls_stats_release(&st);
}

/* Connections opened anew: a SYN (no ACK) between hosts that already
 * exchanged payload counts in its pair's reopens, at its time; the first
 * connection's SYN, a SYN-ACK and a data-less pair's SYN do not.  The
 * counts survive a blob and a merge (mpirun). */
static void reopen_run(dmls_stats *st, int mergeable)
{
	dmls_stats_init_limits(st, 0, &(dmls_stats_limits){.mergeable = mergeable});
	int64_t t = 1000000000LL;
	for (int run = 0; run < 3; run++, t += 5000000000LL) {
		dmls_pkt syn = mk(t, 1, 2, (uint16_t)(40000 + run), 29500, 7, 0);
		syn.tcp_flags = DMLS_TCP_SYN;
		dmls_pkt synack = mk(t + 1000, 2, 1, 29500, (uint16_t)(40000 + run), 9, 0);
		synack.tcp_flags = DMLS_TCP_SYN | DMLS_TCP_ACK;
		dmls_pkt scan = mk(t + 2000, 3, 4, 1234, 80, 0, 0); /* never any data */
		scan.tcp_flags = DMLS_TCP_SYN;
		assert_int_equal(dmls_stats_add(st, &syn), 0);
		assert_int_equal(dmls_stats_add(st, &synack), 0);
		assert_int_equal(dmls_stats_add(st, &scan), 0);
		for (int i = 0; i < 10; i++) {
			dmls_pkt d = mk(t + 1000000 * (i + 1), 1, 2, (uint16_t)(40000 + run), 29500,
					(uint32_t)(8 + i * 1000), 1000);
			dmls_pkt r = mk(t + 1000000 * (i + 1) + 500, 2, 1, 29500,
					(uint16_t)(40000 + run), (uint32_t)(10 + i * 1000), 1000);
			assert_int_equal(dmls_stats_add(st, &d), 0);
			assert_int_equal(dmls_stats_add(st, &r), 0);
		}
	}
}

static void test_reopens(void **state)
{
	(void)state;
	dmls_stats st;
	reopen_run(&st, 0);
	assert_int_equal(dmls_stats_finish(&st), 0);
	long p12 = dmls_stats_find_pair(&st, 0, 1), p21 = dmls_stats_find_pair(&st, 1, 0);
	long p34 = dmls_stats_find_pair(&st, 2, 3);
	assert_true(p12 >= 0 && p21 >= 0 && p34 >= 0);
	const dmls_series *r = &st.pairs[p12].reopens;
	assert_int_equal(r->total, 2); /* the second and third runs' SYNs */
	assert_int_equal(dmls_series_get(r, 5000), 1); /* 1 ms bins from the first packet */
	assert_int_equal(dmls_series_get(r, 10000), 1);
	assert_true(dmls_series_empty(&st.pairs[p21].reopens));
	assert_true(dmls_series_empty(&st.pairs[p34].reopens));
	dmls_stats_release(&st);
	/* through a blob, merged into an empty state */
	dmls_stats a, b, c;
	reopen_run(&a, 1);
	uint8_t *buf = NULL;
	size_t len = 0;
	assert_int_equal(dmls_stats_serialize(&a, &buf, &len, NULL), 0);
	assert_int_equal(dmls_stats_deserialize(&b, buf, len, NULL, NULL), 0);
	dmls_stats_init_limits(&c, 0, &(dmls_stats_limits){.mergeable = 1});
	assert_int_equal(dmls_stats_merge(&c, &b), 0);
	assert_int_equal(dmls_stats_finish(&c), 0);
	p12 = dmls_stats_find_pair(&c, 0, 1);
	assert_true(p12 >= 0);
	assert_int_equal(c.pairs[p12].reopens.total, 2);
	assert_int_equal(dmls_series_get(&c.pairs[p12].reopens, 10000), 1);
	free(buf);
	dmls_stats_release(&a);
	dmls_stats_release(&b);
	dmls_stats_release(&c);
}

static void test_series_sparse_far_apart(void **state)
{
	(void)state;
	dmls_series s;
	dmls_series_init(&s, 0, 1000, 0);
	/* years apart: three runs, not years of bins */
	assert_int_equal(dmls_series_add(&s, 5000, 7), 0);
	assert_int_equal(dmls_series_add(&s, 400000000000000000LL, 9), 0);
	assert_int_equal(dmls_series_add(&s, -3000, 1), 0); /* before t0 */
	assert_int_equal(s.nruns, 3);
	assert_int_equal(dmls_series_get(&s, 5), 7);
	assert_int_equal(dmls_series_get(&s, -3), 1);
	assert_int_equal(s.total, 17);
	double out[4];
	dmls_series_dense(&s, 0, 4, 2, out);
	assert_true(out[2] == 7.0 && out[0] == 0.0);
	dmls_series_release(&s);
}

/* Dense sums in 32 bits: the values of the double ones, and -1 where a sum
 * passes UINT32_MAX. */
static void test_series_dense_u32(void **state)
{
	(void)state;
	dmls_series s;
	dmls_series_init(&s, 0, 1000, 0);
	int64_t bins[] = {-5, 0, 1, 7, 8, 9, 40, 41, 1000};
	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++)
		assert_int_equal(dmls_series_add(&s, bins[i] * 1000, 1000000 + i), 0);
	double d[12];
	uint32_t u[12] = {0};
	dmls_series_dense(&s, -6, 12, 4, d);
	assert_int_equal(dmls_series_dense_add_u32(&s, -6, 12, 4, u), 0);
	for (int k = 0; k < 12; k++)
		assert_true((double)u[k] == d[k]);
	assert_true(d[0] == 1000000.0 && d[1] == 2000003.0); /* bin -5 | 0, 1 */
	/* 1.5e9 bytes in bins 2000 and 2001: 3e9 fits 32 bits, 4.5e9 not */
	assert_int_equal(dmls_series_add(&s, 2000 * 1000, 1500000000), 0);
	assert_int_equal(dmls_series_add(&s, 2001 * 1000, 1500000000), 0);
	memset(u, 0, sizeof(u));
	assert_int_equal(dmls_series_dense_add_u32(&s, 2000, 1, 2, u), 0);
	assert_true(u[0] == 3000000000u);
	assert_int_equal(dmls_series_add(&s, 2001 * 1000, 1500000000), 0);
	memset(u, 0, sizeof(u));
	assert_int_equal(dmls_series_dense_add_u32(&s, 2000, 1, 2, u), -1);
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
	/* the bins too: the series widened past 4 GiB */
	assert_true(dmls_series_get(&st.total_wire, 0) == 9000000000ULL);
	assert_true(st.pairs[0].series.total == 9000000000ULL);
	dmls_stats_release(&st);
}

static uint64_t sum_bins_total;
static void sum_bins(int64_t bin, uint64_t bytes, void *ctx)
{
	(void)bin;
	(void)ctx;
	sum_bins_total += bytes;
}

/* Values are 32-bit until a bin passes UINT32_MAX, from the fast path
 * (in the run hit last) or the slow one (a new run, out of order): the
 * buffer then widens once, and every count stays exact through get,
 * foreach, coarsen and merge, both ways between narrow and wide. */
static void test_series_wide(void **state)
{
	(void)state;
	dmls_series s, n, m;
	dmls_series_init(&s, 0, 1000, 0);
	dmls_series_init(&n, 0, 1000, 0);
	for (int64_t k = 0; k < 100; k++) {
		assert_int_equal(dmls_series_add_bin(&s, k, 10), 0);
		assert_int_equal(dmls_series_add_bin(&n, k, 1), 0);
	}
	assert_int_equal(s.wide, 0);
	size_t narrow_mem = dmls_series_mem_bytes(&s);
	assert_int_equal(dmls_series_add_bin(&s, 50, 3000000000ULL), 0);
	assert_int_equal(s.wide, 0);
	assert_int_equal(dmls_series_add_bin(&s, 50, 3000000000ULL), 0); /* fast path: widens */
	assert_int_equal(s.wide, 1);
	assert_true(dmls_series_mem_bytes(&s) > narrow_mem);
	assert_int_equal(dmls_series_add_bin(&s, -7, 5000000000ULL), 0); /* a new run, wide */
	assert_true(dmls_series_get(&s, 50) == 6000000010ULL);
	assert_true(dmls_series_get(&s, -7) == 5000000000ULL);
	assert_true(dmls_series_get(&s, 49) == 10);
	uint64_t total = 100 * 10 + 6000000000ULL + 5000000000ULL;
	assert_true(s.total == total);
	sum_bins_total = 0;
	dmls_series_foreach(&s, sum_bins, NULL);
	assert_true(sum_bins_total == total);
	/* a narrow series widens in a merge of a wide one, and back */
	dmls_series_init(&m, 0, 1000, 0);
	assert_int_equal(dmls_series_merge(&n, &s), 0);
	assert_int_equal(n.wide, 1);
	assert_true(dmls_series_get(&n, 50) == 6000000011ULL);
	assert_int_equal(dmls_series_merge(&m, &n), 0);
	assert_true(m.total == total + 100);
	/* a new bin past 4 GiB in a narrow series: the slow path widens */
	dmls_series t;
	dmls_series_init(&t, 0, 1000, 0);
	assert_int_equal(dmls_series_add_bin(&t, 3, 1), 0);
	assert_int_equal(dmls_series_add_bin(&t, 1000, 4294967296ULL), 0);
	assert_int_equal(t.wide, 1);
	assert_true(dmls_series_get(&t, 1000) == 4294967296ULL && dmls_series_get(&t, 3) == 1);
	/* coarsening sums pairs of bins past 4 GiB too */
	assert_int_equal(dmls_series_coarsen(&s), 0);
	assert_true(dmls_series_get(&s, 25) == 6000000010ULL + 10);
	assert_true(dmls_series_get(&s, -4) == 5000000000ULL);
	assert_true(s.total == total);
	dmls_series_release(&s);
	dmls_series_release(&n);
	dmls_series_release(&m);
	dmls_series_release(&t);
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rng(void) /* xorshift64 (Marsaglia 2003) */
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Bins added in any order (late ones, ones before every run, ones years
 * away, bins of no bytes; at random, or backwards as a capture read from
 * its end) read back as a plain table of them says, through get, range,
 * foreach, merge and coarsen; the run headers take 8 bytes until runs are
 * more than 2^32 bins apart (`far`: then 12). */
#define MODEL_BINS 512
static uint64_t model_bins[MODEL_BINS];
static int64_t model_at(int64_t k) /* the model's slot of bin k, or -1 */
{
	int64_t far = (int64_t)1 << 40;
	if (k >= -64 && k < 384)
		return k + 64;
	return k >= far && k < far + 64 ? k - far + 448 : -1;
}

static void model_check(const dmls_series *s, int64_t ratio)
{
	uint64_t total = 0;
	for (int i = 0; i < MODEL_BINS; i++) {
		int64_t k = i < 448 ? i - 64 : ((int64_t)1 << 40) + i - 448;
		int64_t c = dmls_floor_div(k, ratio);
		uint64_t want = 0;
		for (int64_t j = c * ratio; j < (c + 1) * ratio; j++)
			want += model_at(j) >= 0 ? model_bins[model_at(j)] : 0;
		assert_true(dmls_series_get(s, c) == want);
		assert_true(dmls_series_range(s, c, c + 1, NULL) == (double)want);
		total += model_bins[i];
	}
	assert_true(s->total == total);
	sum_bins_total = 0;
	dmls_series_foreach(s, sum_bins, NULL);
	assert_true(sum_bins_total == total);
	for (size_t r = 0; r + 1 < s->nruns; r++) /* sorted, disjoint, values in order */
		assert_true(dmls_series_run_first(s, r) + (int64_t)dmls_series_run_len(s, r) <=
				    dmls_series_run_first(s, r + 1) &&
			    s->roff[r] < s->roff[r + 1]);
}

static void test_series_any_order(void **state)
{
	(void)state;
	for (int round = 0; round < 20; round++) {
		dmls_series s, a, b;
		dmls_series_init(&s, 0, 1000, 0);
		dmls_series_init(&a, 0, 1000, 0);
		dmls_series_init(&b, 0, 1000, 0);
		memset(model_bins, 0, sizeof(model_bins));
		int backwards = round % 5 == 1, far = round % 4 == 3 && !backwards;
		for (int i = 0; i < 600; i++) {
			int slot = backwards ? 447 - (i * 3 / 4) % 448
					     : (int)(rng() % (far ? MODEL_BINS : 448));
			int64_t k = slot < 448 ? slot - 64 : ((int64_t)1 << 40) + slot - 448;
			uint64_t x = rng() % 4 ? rng() % 1000 : 0;
			model_bins[slot] += x;
			assert_int_equal(dmls_series_add_bin(&s, k, x), 0);
			assert_int_equal(dmls_series_add_bin(i % 2 ? &a : &b, k, x), 0);
		}
		assert_int_equal(s.far, far);
		size_t header = far ? 12 : 8;
		assert_true(dmls_series_mem_bytes(&s) == s.vcap * 4 + s.rcap * header);
		model_check(&s, 1);
		assert_int_equal(dmls_series_merge(&a, &b), 0); /* two halves: the whole */
		model_check(&a, 1);
		assert_int_equal(dmls_series_coarsen(&s), 0);
		model_check(&s, 2);
		dmls_series_release(&s);
		dmls_series_release(&a);
		dmls_series_release(&b);
	}
}

/* Bytes of bin k of the big series below: runs of 3 bins, 10 apart. */
static uint64_t big_bin(int64_t k)
{
	return k >= 0 && k % 13 < 3 ? (uint64_t)(k % 1000) + 1 : 0;
}

static void big_check(const dmls_series *s, int64_t nbins, uint64_t extra_at_7)
{
	uint64_t total = 0;
	for (int64_t k = -2; k < nbins + 2; k++) {
		uint64_t want = big_bin(k) * (k < nbins) + (k == 7 ? extra_at_7 : 0);
		assert_true(dmls_series_get(s, k) == want);
		total += want;
	}
	assert_true(s->total == total);
	sum_bins_total = 0;
	dmls_series_foreach(s, sum_bins, NULL);
	assert_true(sum_bins_total == total);
}

/* Series whose buffers are large (values, run headers: hundreds of KiB,
 * the pages of their own on Linux) read back bin by bin as they were
 * written: in time order, backwards, widened past 4 GiB, with a run years
 * away, coarsened and merged. */
static void test_series_big_buffers(void **state)
{
	(void)state;
	const int64_t n = 400000; /* 30770 runs, 92310 values */
	dmls_series fw, bw, half;
	dmls_series_init(&fw, 0, 1000, 2);
	dmls_series_init(&bw, 0, 1000, 2);
	dmls_series_init(&half, 0, 1000, 2);
	for (int64_t k = 0; k < n; k++)
		if (big_bin(k)) {
			assert_int_equal(dmls_series_add_bin(&fw, k, big_bin(k)), 0);
			assert_int_equal(dmls_series_add_bin(k % 2 ? &half : &bw, k, big_bin(k)), 0);
		}
	for (int64_t k = n - 1; k >= 0; k--) /* the other half, from the end */
		if (big_bin(k) && k % 2)
			assert_int_equal(dmls_series_add_bin(&bw, k, big_bin(k)), 0);
	assert_true(fw.nruns == (size_t)((n + 12) / 13) && fw.nv >= 3 * fw.nruns);
	assert_true(dmls_series_mem_bytes(&fw) > ((size_t)256 << 10));
	big_check(&fw, n, 0);
	big_check(&bw, n, 0);
	assert_int_equal(dmls_series_merge(&half, &bw), 0); /* bw's bins, the odd ones twice */
	for (int64_t k = 0; k < 2000; k++)
		assert_true(dmls_series_get(&half, k) == big_bin(k) * (1 + (k % 2)));
	/* widened past 4 GiB, then a run 2^40 bins away: 64-bit values, headers */
	assert_int_equal(dmls_series_add_bin(&fw, 7, 5000000000ULL), 0);
	assert_int_equal(fw.wide, 1);
	big_check(&fw, n, 5000000000ULL);
	int64_t far = (int64_t)1 << 40;
	assert_int_equal(dmls_series_add_bin(&fw, far, 9), 0);
	assert_int_equal(fw.far, 1);
	assert_true(dmls_series_get(&fw, far) == 9 && dmls_series_get(&fw, 13) == big_bin(13));
	assert_int_equal(dmls_series_coarsen(&fw), 0);
	assert_true(dmls_series_get(&fw, 6) == big_bin(13) + big_bin(12));
	assert_true(dmls_series_get(&fw, 3) == big_bin(7) + 5000000000ULL);
	assert_true(dmls_series_get(&fw, far / 2) == 9);
	dmls_series_release(&fw);
	dmls_series_release(&bw);
	dmls_series_release(&half);
}

/* A scan: every packet a new flow from a new host, with one heavy flow in
 * the middle of it.  The tables stay at their caps, the heavy hitter stays
 * exact, and every total adds up: kept + folded = all. */
static void test_fold_at_caps(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_limits lim = {.max_hosts = 64, .max_flows = 128};
	dmls_stats_init_limits(&st, 0, &lim);
	uint64_t n = 0, heavy = 0, wire = 0;
	for (int i = 0; i < 20000; i++) {
		dmls_pkt p = mk(1000000LL * i, 0, 0, (uint16_t)rng(), 80, (uint32_t)rng(), 0);
		uint64_t r = rng();
		memcpy(p.src + 12, &r, 4);
		p.src[12] = 10;
		if (i % 4 == 0) { /* the heavy flow: 198.18.0.1:5000 -> 198.18.0.2:6000 */
			p = mk(1000000LL * i, 1, 2, 5000, 6000, (uint32_t)i * 1000, 1000);
			heavy++;
		}
		assert_int_equal(dmls_stats_add(&st, &p), 0);
		n++;
		wire += p.wire_bytes;
		assert_true(st.nhosts <= 64 && st.nflows <= 128 && st.npairs <= 256);
	}
	assert_int_equal(dmls_stats_finish(&st), 0);
	assert_int_equal(st.packets, n);
	assert_int_equal(st.wire_bytes, wire);
	uint64_t hp = 0, hb = 0, pp = 0, fp = 0;
	for (size_t i = 0; i < st.nhosts; i++)
		hp += st.hosts[i].tx_packets, hb += st.hosts[i].tx_wire_bytes;
	for (size_t i = 0; i < st.npairs; i++)
		pp += st.pairs[i].packets;
	for (size_t i = 0; i < st.nflows; i++)
		fp += st.flows[i].packets;
	assert_int_equal(hp + st.fold_hosts.packets, n);
	assert_int_equal(hb + st.fold_hosts.wire_bytes, wire);
	assert_int_equal(pp + st.fold_pairs.packets, n);
	assert_int_equal(fp + st.fold_flows.packets, n);
	assert_true(st.fold_hosts.entries > 0 && st.fold_flows.entries > 0);
	/* flows ever made: one per scan packet, plus the heavy flow once */
	assert_int_equal(st.flows_seen, n - heavy + 1);
	uint8_t a1[16] = {[10] = 0xff, [11] = 0xff, [12] = 198, [13] = 18, [15] = 1};
	long h = dmls_stats_find_host(&st, a1);
	assert_true(h >= 0);
	assert_int_equal(st.hosts[h].tx_packets, heavy);
	assert_int_equal(st.flow_max_bytes, heavy * 1054);
	dmls_stats_release(&st);
}

/* A long job: the series classes coarsen past their budget, the counts
 * stay, and memory stays near the budget. */
static void test_series_budget(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	uint64_t wire = 0;
	/* a packet every 2 ms for 4000 s: 2 M bins of 1 ms in each of the
	 * pair and the total wire series, past the class' budget */
	for (int64_t t = 0; t < 4000LL * 1000; t += 2) {
		dmls_pkt p = mk(t * 1000000LL, 1, 2, 1, 2, (uint32_t)t, 100);
		assert_int_equal(dmls_stats_add(&st, &p), 0);
		wire += p.wire_bytes;
	}
	assert_int_equal(dmls_stats_finish(&st), 0);
	const dmls_series_class *k = &st.cls[DMLS_CLASS_PAIR];
	assert_true(k->coarsened >= 1);
	assert_true(k->mem_bytes <= k->budget_bytes);
	assert_int_equal(st.pairs[0].series.bin_ns, k->bin_ns);
	const dmls_series_class *w = &st.cls[DMLS_CLASS_WIRE]; /* a class of its own */
	assert_true(w->coarsened >= 1);
	assert_true(w->mem_bytes <= w->budget_bytes);
	assert_int_equal(st.total_wire.bin_ns, w->bin_ns);
	assert_int_equal(st.total_wire.total, wire);
	assert_int_equal(st.pairs[0].series.total, wire);
	assert_true(st.cls[DMLS_CLASS_HOST].mem_bytes <= st.cls[DMLS_CLASS_HOST].budget_bytes);
	assert_int_equal(st.hosts[0].tx_payload.total, 100ull * 2000 * 1000);
	/* the online 100 us window: one packet per 2 ms */
	assert_true(st.burst_total.max_window_bytes[1] == 154.0);
	assert_true(st.burst_total.max_window_bytes[5] == 154.0 * 500);
	/* the host's online 1 ms stream stays exact past its series' coarsening */
	assert_true(st.cls[DMLS_CLASS_HOST].bin_ns > DMLS_HOST_BIN_NS);
	assert_non_null(st.hosts[0].tx_burst);
	assert_int_equal(st.host_bursts, 1);
	dmls_burst hb, coarse;
	double dur = dmls_stats_duration_s(&st);
	dmls_burst_stream_result(&st.hosts[0].tx_burst->s, dur, &hb);
	assert_true(hb.max_window_bytes[1] == 100.0);
	assert_true(hb.max_window_bytes[2] == 300.0); /* 5 ms: packets at 0, 2, 4 ms */
	assert_true(hb.max_window_bytes[5] == 100.0 * 500);
	assert_true(hb.peak_to_mean[1] > 1.99 && hb.peak_to_mean[1] < 2.01);
	dmls_burst_compute(&coarse, &st.hosts[0].tx_payload, dur);
	assert_true(coarse.max_window_bytes[1] != coarse.max_window_bytes[1]); /* NAN: below a bin */
	dmls_stats_release(&st);
}

/* The busiest bin of the total wire bytes at --bin is found online, so it
 * stays at --bin after the total wire series coarsened (a packet every 2 ms
 * at 100 us bins, a run each: past the class' budget in minutes), and
 * the series answers while it kept --bin (exact for late packets too) or
 * for a merged state. */
static void peak_run(dmls_stats *st, int64_t seconds, int mergeable)
{
	dmls_stats_limits lim = {.mergeable = mergeable};
	lim.mergeable = mergeable > 0;
	dmls_stats_init_limits(st, 100000, &lim);
	int back = mergeable < 0; /* read backwards: the latest packet first */
	for (int64_t i = 0; i < seconds * 1000; i += 2) {
		int64_t t = back ? seconds * 1000 - 2 - i : i;
		dmls_pkt p = mk(t * 1000000LL, 1, 2, 1, 2, (uint32_t)t, 100);
		assert_int_equal(dmls_stats_add(st, &p), 0);
		if (t == 60000) { /* three packets within 100 us */
			p.ts_ns += 40000;
			assert_int_equal(dmls_stats_add(st, &p), 0);
			p.ts_ns += 40000;
			assert_int_equal(dmls_stats_add(st, &p), 0);
		}
	}
}

static void test_peak_online(void **state)
{
	(void)state;
	dmls_stats st;
	peak_run(&st, 1000, 0);
	assert_int_equal(dmls_stats_finish(&st), 0);
	assert_true(st.cls[DMLS_CLASS_WIRE].coarsened >= 1);
	assert_true(st.total_wire.bin_ns > 100000);
	assert_int_equal(st.peak_bin_ns, 100000);
	assert_int_equal(st.peak_bin_wire_bytes, 3 * 154);
	dmls_stats_release(&st);
	/* short: the series kept --bin and answers */
	peak_run(&st, 100, 0);
	assert_int_equal(dmls_stats_finish(&st), 0);
	assert_int_equal(st.cls[DMLS_CLASS_WIRE].coarsened, 0);
	assert_int_equal(st.peak_bin_ns, 100000);
	assert_int_equal(st.peak_bin_wire_bytes, 3 * 154);
	dmls_stats_release(&st);
	/* read backwards: every packet 2 ms before the one before, which the
	 * online peak would pile into one bin (a second of them: 77000 bytes);
	 * the series answer at their bin */
	peak_run(&st, 1000, -1);
	assert_int_equal(dmls_stats_finish(&st), 0);
	/* each 2 ms or more before the open bin, up to the second after which
	 * the stream starts a new time line */
	assert_true(DMLS_STATS_DISORDERED(&st) && st.late_packets > st.packets - 10);
	assert_true(st.late_max_ns > 990000000LL && st.late_max_ns < 1010000000LL);
	assert_true(st.cls[DMLS_CLASS_WIRE].coarsened >= 1);
	assert_int_equal(st.peak_bin_ns, st.total_wire.bin_ns);
	uint64_t most = 3 * 154 + 154 * (uint64_t)(st.total_wire.bin_ns / 2000000 + 1);
	assert_true(st.peak_bin_wire_bytes >= 3 * 154 && st.peak_bin_wire_bytes <= most);
	dmls_stats_release(&st);
	/* merged: the series at its bin (its parts' online peaks do not add) */
	dmls_stats a, b;
	peak_run(&a, 1000, 1);
	dmls_stats_init_limits(&b, 100000, &(dmls_stats_limits){.mergeable = 1});
	dmls_stats_set_origin(&b, a.t0_ns);
	assert_int_equal(dmls_stats_merge(&b, &a), 0);
	assert_int_equal(dmls_stats_finish(&b), 0);
	assert_int_equal(b.peak_bin_ns, b.total_wire.bin_ns);
	assert_true(b.peak_bin_ns > 100000);
	assert_true(b.peak_bin_wire_bytes >= 3 * 154);
	dmls_stats_release(&a);
	dmls_stats_release(&b);
}

/* The host class follows the active span: a burst a second for an hour
 * (2^19 bins of 1 ms passed three times: 8 ms bins), few bytes, far under
 * the budget; the pairs keep 1 ms.  Two sessions a week apart, and a
 * packet a year later, count their silences as 60 s each, so only their
 * own length coarsens the hosts.  Every byte stays either way. */
static void span_run(dmls_stats *st, const int64_t *from_s, const int64_t *len_s, int n)
{
	dmls_stats_init(st, 0);
	for (int i = 0; i < n; i++)
		for (int64_t t = from_s[i]; t < from_s[i] + len_s[i]; t++) {
			dmls_pkt p = mk(t * 1000000000LL, 1, 2, 1, 2, (uint32_t)t, 100);
			assert_int_equal(dmls_stats_add(st, &p), 0);
		}
	assert_int_equal(dmls_stats_finish(st), 0);
}

static void test_series_span(void **state)
{
	(void)state;
	dmls_stats st;
	span_run(&st, (int64_t[]){0}, (int64_t[]){3600}, 1);
	assert_int_equal(st.cls[DMLS_CLASS_HOST].bin_ns, 8 * DMLS_HOST_BIN_NS);
	assert_int_equal(st.hosts[0].tx_payload.bin_ns, 8 * DMLS_HOST_BIN_NS);
	assert_int_equal(st.hosts[0].tx_payload.total, 100ull * 3600);
	assert_int_equal(st.cls[DMLS_CLASS_PAIR].bin_ns, DMLS_HOST_BIN_NS);
	assert_int_equal(st.cls[DMLS_CLASS_TOTAL].bin_ns, DMLS_HOST_BIN_NS);
	dmls_stats_release(&st);
	/* 400 s, a week's pause, 400 s, and a year later one packet: 920 s of
	 * active span, 2 ms */
	int64_t week = 7 * 86400, year = 365 * 86400;
	span_run(&st, (int64_t[]){0, week, year}, (int64_t[]){400, 400, 1}, 3);
	assert_int_equal(st.cls[DMLS_CLASS_HOST].bin_ns, 2 * DMLS_HOST_BIN_NS);
	assert_int_equal(st.hosts[0].tx_payload.total, 100ull * 801);
	dmls_stats_release(&st);
	/* one session under 8.7 minutes: untouched */
	span_run(&st, (int64_t[]){0}, (int64_t[]){500}, 1);
	assert_int_equal(st.cls[DMLS_CLASS_HOST].bin_ns, DMLS_HOST_BIN_NS);
	dmls_stats_release(&st);
}

/* Online host streams: the first DMLS_HOST_BURST_STREAMS hosts to send twice
 * get one, the others none; a fold gives the slots back. */
static void test_host_burst_streams(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_limits lim = {.max_hosts = 128};
	dmls_stats_init_limits(&st, 0, &lim);
	int n = DMLS_HOST_BURST_STREAMS + 6;
	for (int r = 0; r < 2; r++)
		for (int h = 0; h < n; h++) {
			dmls_pkt p = mk(1000000000LL + (r * n + h) * 1000LL, 10 + h, 1, 1, 2, 0, 500);
			assert_int_equal(dmls_stats_add(&st, &p), 0);
		}
	assert_int_equal(st.host_bursts, DMLS_HOST_BURST_STREAMS);
	assert_int_equal(dmls_stats_finish(&st), 0);
	size_t with = 0;
	for (size_t i = 0; i < st.nhosts; i++)
		if (st.hosts[i].tx_burst) {
			dmls_burst b;
			dmls_burst_stream_result(&st.hosts[i].tx_burst->s, 1.0, &b);
			assert_true(b.max_window_bytes[1] == 1000.0); /* both packets, one ms */
			with++;
		}
	assert_int_equal(with, DMLS_HOST_BURST_STREAMS);
	assert_null(st.hosts[st.nhosts - 1].tx_burst); /* the last ones came too late */
	dmls_stats_release(&st);
	/* past the host cap the smaller half folds, and its streams go with it */
	lim.max_hosts = 16;
	dmls_stats_init_limits(&st, 0, &lim);
	for (int r = 0; r < 4; r++)
		for (int h = 0; h < 40; h++) {
			dmls_pkt p = mk(1000000000LL + (r * 40 + h) * 1000LL, 10 + h, 1, 1, 2, 0,
					100 + (uint64_t)h);
			assert_int_equal(dmls_stats_add(&st, &p), 0);
			size_t held = 0;
			for (size_t i = 0; i < st.nhosts; i++)
				held += st.hosts[i].tx_burst != NULL;
			assert_int_equal(st.host_bursts, held);
		}
	assert_true(st.fold_hosts.entries > 0);
	dmls_stats_release(&st);
}

static void test_series_coarsen_merge(void **state)
{
	(void)state;
	dmls_series s, t;
	dmls_series_init(&s, 0, 10, 16);
	dmls_series_init(&t, 0, 40, 16);
	for (int k = -5; k < 100; k++)
		assert_int_equal(dmls_series_add_bin(&s, k, (uint64_t)(k + 10)), 0);
	uint64_t total = s.total;
	assert_int_equal(dmls_series_merge(&t, &s), 0);
	assert_int_equal(dmls_series_coarsen(&s), 0);
	assert_int_equal(s.bin_ns, 20);
	assert_int_equal(s.total, total);
	assert_int_equal(dmls_series_get(&s, -3), 5); /* bins -6 (empty) and -5 */
	assert_int_equal(dmls_series_get(&s, -2), 6 + 7);
	assert_int_equal(dmls_series_get(&s, 0), 10 + 11);
	assert_int_equal(dmls_series_get(&s, 49), 108 + 109);
	assert_int_equal(t.total, total);
	assert_int_equal(dmls_series_get(&t, 0), 10 + 11 + 12 + 13);
	dmls_series_release(&s);
	dmls_series_release(&t);
}

static int key_is(const void *ctx, uint32_t idx, const void *key)
{
	return ((const uint64_t *)ctx)[idx] == *(const uint64_t *)key;
}

/* dmls_itable_reserve: room made once (no growth up to it), entries kept
 * across it, and a smaller reserve changes nothing. */
static void test_itable_reserve(void **state)
{
	(void)state;
	enum { N = 1000 };
	static uint64_t keys[3 * N];
	dmls_itable t;
	dmls_itable_init(&t);
	for (uint32_t i = 0; i < 3 * N; i++)
		keys[i] = dmls_mix64(i + 1);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(dmls_itable_insert(&t, keys[i], i), 0);
	assert_int_equal(dmls_itable_reserve(&t, N), 0);
	const dmls_islot *slots = t.slots;
	size_t cap = t.cap;
	assert_true(cap >= 2 * (N + 1));
	for (uint32_t i = 10; i < N; i++)
		assert_int_equal(dmls_itable_insert(&t, keys[i], i), 0);
	assert_ptr_equal(t.slots, slots); /* no growth up to what was reserved */
	assert_int_equal(t.cap, cap);
	assert_int_equal(dmls_itable_reserve(&t, N / 2), 0);
	assert_int_equal(t.cap, cap);
	assert_int_equal(dmls_itable_reserve(&t, 3 * N), 0); /* grows, keeps the entries */
	assert_true(t.cap >= 2 * (3 * N + 1));
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(dmls_itable_find(&t, keys[i], key_is, keys, &keys[i]), (long)i);
	for (uint32_t i = N; i < 3 * N; i++)
		assert_int_equal(dmls_itable_find(&t, keys[i], key_is, keys, &keys[i]), -1);
	dmls_itable_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_itable_reserve),
		cmocka_unit_test(test_hosts_pairs_flows),
		cmocka_unit_test(test_retransmission),
		cmocka_unit_test(test_retransmission_ports_reused),
		cmocka_unit_test(test_retransmission_cut_headers),
		cmocka_unit_test(test_sequence_gaps),
		cmocka_unit_test(test_reopens),
		cmocka_unit_test(test_series_sparse_far_apart),
		cmocka_unit_test(test_u64_counters),
		cmocka_unit_test(test_fold_at_caps),
		cmocka_unit_test(test_series_budget),
		cmocka_unit_test(test_peak_online),
		cmocka_unit_test(test_series_span),
		cmocka_unit_test(test_host_burst_streams),
		cmocka_unit_test(test_series_coarsen_merge),
		cmocka_unit_test(test_series_wide),
		cmocka_unit_test(test_series_any_order),
		cmocka_unit_test(test_series_big_buffers),
		cmocka_unit_test(test_series_dense_u32),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
