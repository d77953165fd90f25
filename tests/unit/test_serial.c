/*
 * test_serial.c - a partial state as bytes and back (serial.h): a real
 * run's state survives the trip exactly (the blob of the copy is the same
 * blob); what cannot serialize says so; every damaged blob (cut at any
 * length, any byte changed with or without its check made right again,
 * another version, other options) is refused with DMLS_EBAD, never read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/input.h"
#include "dmlscope/serial.h"
#include "dmlscope/stats.h"

static void read_sample(dmls_stats *st, const dmls_stats_limits *lim)
{
	const char *path = DMLS_SOURCE_DIR
		"/samples/pytorch_rpc-mobilenetv2-adam-16-tensorpipe-normal-star/worker-1-tcpdump.pcap";
	dmls_input *in;
	dmls_error err;
	dmls_stats_init_limits(st, 0, lim);
	assert_int_equal(dmls_input_open(&in, &path, 1, NULL, &err), 0);
	dmls_pkt p;
	while (dmls_input_next(in, &p) == 1)
		assert_int_equal(dmls_stats_add(st, &p), 0);
	dmls_input_free(in);
}

static const dmls_stats_limits mergeable = {.mergeable = 1};

static void test_roundtrip(void **state)
{
	(void)state;
	dmls_stats st, back;
	read_sample(&st, &mergeable);
	uint8_t *a, *b;
	size_t na, nb;
	dmls_error err;
	assert_int_equal(dmls_stats_serialize(&st, &a, &na, &err), 0);
	assert_int_equal(dmls_stats_deserialize(&back, a, na, &mergeable, &err), 0);
	assert_true(back.packets == st.packets && back.wire_bytes == st.wire_bytes);
	assert_int_equal(back.nhosts, st.nhosts);
	assert_int_equal(back.nflows, st.nflows);
	assert_true(back.nflows > 0 && back.hosts[0].tx_payload.bin_ns == st.hosts[0].tx_payload.bin_ns);
	assert_int_equal(dmls_stats_serialize(&back, &b, &nb, &err), 0);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	/* the copy finds its entries: a merge into it matches them all */
	uint64_t seen = back.flows_seen;
	assert_int_equal(dmls_stats_merge(&back, &st), 0);
	assert_true(back.flows_seen == seen);
	assert_true(back.packets == 2 * st.packets);
	free(a);
	free(b);
	dmls_stats_release(&st);
	dmls_stats_release(&back);
}

/* Bins past 4 GiB (64-bit values in the series) make the trip too. */
static void test_roundtrip_wide(void **state)
{
	(void)state;
	dmls_stats st, back;
	dmls_stats_init_limits(&st, 0, &mergeable);
	for (int i = 0; i < 3; i++) {
		dmls_pkt p = {.ts_ns = 1000 + i, .af = 4, .proto = 6, .sport = 1, .dport = 2,
			      .wire_bytes = 3000000000ULL, .ip_bytes = 3000000000ULL,
			      .payload_bytes = 3000000000ULL, .tcp_seq = (uint32_t)i};
		p.src[10] = p.src[11] = p.dst[10] = p.dst[11] = 0xff;
		p.src[15] = 1, p.dst[15] = 2;
		assert_int_equal(dmls_stats_add(&st, &p), 0);
	}
	uint8_t *a;
	size_t na;
	dmls_error err;
	assert_int_equal(dmls_stats_serialize(&st, &a, &na, &err), 0);
	assert_int_equal(dmls_stats_deserialize(&back, a, na, &mergeable, &err), 0);
	assert_int_equal(st.total_wire.wide, 1);
	assert_true(dmls_series_get(&back.total_wire, 0) == 9000000000ULL);
	assert_true(back.pairs[0].series.total == dmls_series_get(&st.pairs[0].series, 0));
	assert_true(dmls_series_get(&back.pairs[0].series, 0) == 9000000000ULL);
	free(a);
	dmls_stats_release(&st);
	dmls_stats_release(&back);
}

static void test_refused(void **state)
{
	(void)state;
	dmls_stats st;
	uint8_t *buf;
	size_t n;
	dmls_error err;
	read_sample(&st, NULL); /* not mergeable */
	assert_int_equal(dmls_stats_serialize(&st, &buf, &n, &err), DMLS_EUSAGE);
	assert_null(buf);
	dmls_stats_release(&st);
}

static int reads(const uint8_t *buf, size_t n, const dmls_stats_limits *lim, dmls_error *err)
{
	dmls_stats st;
	int rc = dmls_stats_deserialize(&st, buf, n, lim, err);
	dmls_stats_release(&st);
	return rc;
}

static void fix_check(uint8_t *b, size_t n)
{
	uint64_t body = n - 32, c = dmls_serial_check(b + 24, body);
	for (int i = 0; i < 8; i++)
		b[16 + i] = (uint8_t)(body >> (8 * i)), b[n - 8 + i] = (uint8_t)(c >> (8 * i));
}

static void test_damaged(void **state)
{
	(void)state;
	dmls_stats st;
	uint8_t *good, *b;
	size_t n;
	dmls_error err;
	read_sample(&st, &mergeable);
	assert_int_equal(dmls_stats_serialize(&st, &good, &n, &err), 0);
	dmls_stats_release(&st);
	b = malloc(n);
	/* cut short anywhere: refused (the header's length) */
	for (size_t k = 0; k < n; k += 1 + k / 64)
		assert_int_equal(reads(good, k, &mergeable, &err), DMLS_EBAD);
	/* cut short with the length and check made right: the structure says */
	for (size_t k = 32; k < n; k += 1 + k / 16) {
		memcpy(b, good, k - 8);
		memcpy(b + k - 8, good + n - 8, 8);
		fix_check(b, k);
		assert_int_equal(reads(b, k, &mergeable, &err), DMLS_EBAD);
	}
	/* one byte changed: the check refuses it */
	for (size_t k = 24; k < n - 8; k += 7) {
		memcpy(b, good, n);
		b[k] ^= 0x5a;
		assert_int_equal(reads(b, n, &mergeable, &err), DMLS_EBAD);
	}
	/* one byte changed, check made right: refused or read, never a crash
	 * (the ASan build checks the "never") */
	size_t refused = 0, tried = 0;
	for (size_t k = 24; k < n - 8; k += 3, tried++) {
		memcpy(b, good, n);
		b[k] ^= 0xff;
		fix_check(b, n);
		int rc = reads(b, n, &mergeable, &err);
		assert_true(rc == DMLS_OK || rc == DMLS_EBAD);
		refused += rc == DMLS_EBAD;
	}
	assert_true(refused > 0 && refused < tried);
	/* another version, another magic */
	memcpy(b, good, n);
	b[8] = 1; /* the format before 32-bit values */
	assert_int_equal(reads(b, n, &mergeable, &err), DMLS_EBAD);
	assert_non_null(strstr(err.msg, "version 1"));
	b[8] = 2, b[0] = 'X';
	assert_int_equal(reads(b, n, &mergeable, &err), DMLS_EBAD);
	/* made with other options */
	dmls_stats_limits other = {.max_flows = 1000, .mergeable = 1};
	assert_int_equal(reads(good, n, &other, &err), DMLS_EBAD);
	assert_non_null(strstr(err.msg, "caps"));
	free(b);
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_roundtrip_wide),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
