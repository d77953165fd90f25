/*
 * test_input.c - the k-way merge, duplicate removal, BPF filter and error
 * handling of dmls_input, on capture files written to temp files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "dmlscope/input.h"
#include "ingest_util.h"
#include "io/dedup.h"

/* One Ethernet/IPv4 packet: TCP (or UDP if udp) from host a to host b. */
static void eth_tcp(dbuf *p, uint8_t a, uint8_t b, uint16_t dport, uint16_t id, uint32_t seq,
		    uint8_t flags, size_t payload)
{
	put_eth(p, 0x0800);
	put_ipv4(p, 5, (uint16_t)(40 + payload), id, 0x4000, 6, 0x0a000000u | a, 0x0a000000u | b);
	put_tcp(p, 5000, dport, seq, 0, 5, flags);
	put(p, NULL, payload);
}

static void eth_pkt(dbuf *p, uint8_t a, uint8_t b, uint16_t dport, uint16_t id, uint32_t seq,
		    bool udp)
{
	if (!udp) {
		eth_tcp(p, a, b, dport, id, seq, DMLS_TCP_ACK, 10);
		return;
	}
	put_eth(p, 0x0800);
	put_ipv4(p, 5, 28 + 10, id, 0x4000, 17, 0x0a000000u | a, 0x0a000000u | b);
	put_udp(p, 5000, dport, 18);
	put(p, NULL, 10);
}

typedef struct cap {
	dbuf d;
	char *path;
} cap;

static void cap_begin(cap *c)
{
	memset(c, 0, sizeof(*c));
	pcap_hdr(&c->d, 0xa1b23c4d, 1);
}

/* Append a packet at time ms (milliseconds). */
static void cap_add(cap *c, int64_t ms, uint8_t a, uint8_t b, uint16_t dport, uint16_t id,
		    uint32_t seq, bool udp)
{
	dbuf p = {0};
	eth_pkt(&p, a, b, dport, id, seq, udp);
	pcap_rec(&c->d, (uint32_t)(ms / 1000), (uint32_t)(ms % 1000) * 1000000, p.b,
		 (uint32_t)p.n, (uint32_t)p.n);
	dbuf_free(&p);
}

/* The same, a TCP segment with flags and payload bytes. */
static void cap_tcp(cap *c, int64_t ms, uint8_t a, uint8_t b, uint32_t seq, uint8_t flags,
		    size_t payload)
{
	dbuf p = {0};
	eth_tcp(&p, a, b, 29500, 1, seq, flags, payload);
	pcap_rec(&c->d, (uint32_t)(ms / 1000), (uint32_t)(ms % 1000) * 1000000, p.b,
		 (uint32_t)p.n, (uint32_t)p.n);
	dbuf_free(&p);
}

static const char *cap_end(cap *c)
{
	c->path = temp_file(&c->d);
	assert_non_null(c->path);
	return c->path;
}

static void cap_free(cap *c)
{
	if (c->path)
		unlink(c->path);
	free(c->path);
	dbuf_free(&c->d);
}

static void test_merge_order(void **st)
{
	cap c[3];
	const char *paths[3];
	for (int f = 0; f < 3; f++) {
		cap_begin(&c[f]);
		for (int k = 0; k < 50; k++) /* file f has times 3k+f ms */
			cap_add(&c[f], 3 * k + f, (uint8_t)(f + 1), 9, 80, (uint16_t)k, (uint32_t)k, false);
		paths[f] = cap_end(&c[f]);
	}
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 3, NULL, &err), 0);
	dmls_pkt p;
	int64_t want = 0;
	while (dmls_input_next(in, &p) == 1) {
		assert_int_equal(p.ts_ns, want * 1000000);
		assert_int_equal(dmls_input_last_file(in), want % 3);
		assert_int_equal(p.src[15], want % 3 + 1);
		want++;
	}
	assert_int_equal(want, 150);
	const dmls_input_counts *n = dmls_input_get_counts(in);
	assert_int_equal(n->packets, 150);
	assert_int_equal(n->records, 150);
	assert_int_equal(n->duplicates, 0);
	assert_int_equal(n->wire_bytes, 150 * 64);
	assert_int_equal(n->first_ns, 0);
	assert_int_equal(n->last_ns, 149 * 1000000);
	assert_int_equal(dmls_input_nfiles(in), 3);
	assert_int_equal(dmls_input_get_file(in, 1)->packets, 50);
	assert_string_equal(dmls_input_get_file(in, 1)->format, "pcap");
	assert_int_equal(dmls_input_get_file(in, 1)->linktype, 1);
	assert_int_equal(dmls_input_error(in)->status, DMLS_OK);
	dmls_input_free(in);
	for (int f = 0; f < 3; f++)
		cap_free(&c[f]);
}

/* Exact match (UDP here): a copy from another file within 100 ms. */
static void test_dedup(void **st)
{
	cap a, b;
	cap_begin(&a);
	cap_begin(&b);
	/* sender's capture: 1 -> 2 */
	cap_add(&a, 1000, 1, 2, 80, 7, 0, true);
	cap_add(&a, 1001, 1, 2, 80, 7, 0, true); /* same again in the same file: kept */
	cap_add(&a, 1002, 1, 2, 80, 8, 0, true);
	cap_add(&a, 1003, 1, 2, 80, 9, 0, true);
	/* receiver's capture: the same packets 5 ms later, one 300 ms later */
	cap_add(&b, 1005, 1, 2, 80, 7, 0, true);
	cap_add(&b, 1007, 1, 2, 80, 8, 0, true);
	cap_add(&b, 1303, 1, 2, 80, 9, 0, true);  /* outside 100 ms: kept */
	cap_add(&b, 1400, 2, 1, 5000, 1, 0, true); /* its own packet */
	const char *paths[2] = {cap_end(&a), cap_end(&b)};
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 2, NULL, &err), 0);
	dmls_pkt p;
	int n = 0;
	while (dmls_input_next(in, &p) == 1)
		n++;
	const dmls_input_counts *c = dmls_input_get_counts(in);
	assert_int_equal(c->records, 8);
	assert_int_equal(c->duplicates, 2);
	assert_int_equal(n, 6);
	assert_int_equal(c->packets, 6);
	dmls_input_free(in);
	/* one file alone never deduplicates */
	assert_int_equal(dmls_input_open(&in, paths, 1, NULL, &err), 0);
	n = 0;
	while (dmls_input_next(in, &p) == 1)
		n++;
	assert_int_equal(n, 4);
	dmls_input_free(in);
	cap_free(&a);
	cap_free(&b);
}

/* The same packets over TCP: the flow belongs to the sender's file, so the
 * receiver's copies are duplicates, even the late one (its bytes were
 * counted); a retransmission in the owner's file is kept. */
static void test_dedup_tcp_same_packets(void **st)
{
	cap a, b;
	cap_begin(&a);
	cap_begin(&b);
	cap_add(&a, 1000, 1, 2, 80, 7, 100, false);
	cap_add(&a, 1001, 1, 2, 80, 7, 100, false); /* retransmission: kept */
	cap_add(&a, 1002, 1, 2, 80, 8, 110, false);
	cap_add(&a, 1003, 1, 2, 80, 9, 120, false);
	cap_add(&b, 1005, 1, 2, 80, 7, 100, false);
	cap_add(&b, 1007, 1, 2, 80, 8, 110, false);
	cap_add(&b, 1303, 1, 2, 80, 9, 120, false);  /* late copy */
	cap_add(&b, 1400, 2, 1, 5000, 1, 1, false); /* its own flow */
	const char *paths[2] = {cap_end(&a), cap_end(&b)};
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 2, NULL, &err), 0);
	dmls_pkt p;
	while (dmls_input_next(in, &p) == 1)
		;
	const dmls_input_counts *c = dmls_input_get_counts(in);
	assert_int_equal(c->duplicates, 3);
	assert_int_equal(c->packets, 5);
	assert_int_equal(dmls_input_get_file(in, 0)->packets, 4);
	dmls_input_free(in);
	cap_free(&a);
	cap_free(&b);
}

/* A connection opened anew on the same 5-tuple in another file (a run
 * after another, replayed or restarted on the same ports), its initial
 * number below the first connection's: its own bytes, no duplicates.  The
 * other end's copy of a SYN while its owner is alive stays a duplicate. */
static void test_dedup_tcp_reopened(void **st)
{
	cap a, b;
	cap_begin(&a);
	cap_begin(&b);
	cap_tcp(&a, 1000, 1, 2, 5000, DMLS_TCP_SYN, 0);
	for (uint32_t i = 0; i < 3; i++)
		cap_tcp(&a, 1010 + i, 1, 2, 5001 + 100 * i, DMLS_TCP_ACK, 100);
	cap_tcp(&b, 1002, 1, 2, 5000, DMLS_TCP_SYN, 0); /* the other end's copy */
	cap_tcp(&b, 9000, 1, 2, 700, DMLS_TCP_SYN, 0); /* 8 s later, anew */
	for (uint32_t i = 0; i < 3; i++)
		cap_tcp(&b, 9010 + i, 1, 2, 701 + 100 * i, DMLS_TCP_ACK, 100);
	const char *paths[2] = {cap_end(&a), cap_end(&b)};
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 2, NULL, &err), 0);
	dmls_pkt p;
	uint64_t pay = 0;
	while (dmls_input_next(in, &p) == 1)
		pay += p.payload_bytes;
	const dmls_input_counts *c = dmls_input_get_counts(in);
	assert_int_equal(c->duplicates, 1);
	assert_int_equal(c->packets, 8);
	assert_int_equal(pay, 600);
	dmls_input_free(in);
	cap_free(&a);
	cap_free(&b);
}

/* Many packets in flight: the dedup ring (UDP) or flow table (TCP) must
 * still match. */
static void dedup_many(bool udp)
{
	cap a, b;
	cap_begin(&a);
	cap_begin(&b);
	for (int k = 0; k < 20000; k++) {
		/* 20000 packets within 40 ms in each file */
		int64_t us = k * 2;
		dbuf p = {0};
		eth_pkt(&p, 1, 2, 80, (uint16_t)k, (uint32_t)k * 10, udp);
		pcap_rec(&a.d, 5, (uint32_t)us * 1000, p.b, (uint32_t)p.n, (uint32_t)p.n);
		pcap_rec(&b.d, 5, (uint32_t)(us + 30000) * 1000, p.b, (uint32_t)p.n, (uint32_t)p.n);
		dbuf_free(&p);
	}
	const char *paths[2] = {cap_end(&a), cap_end(&b)};
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 2, NULL, &err), 0);
	dmls_pkt p;
	while (dmls_input_next(in, &p) == 1)
		;
	assert_int_equal(dmls_input_get_counts(in)->duplicates, 20000);
	assert_int_equal(dmls_input_get_counts(in)->packets, 20000);
	dmls_input_free(in);
	cap_free(&a);
	cap_free(&b);
}

static void test_dedup_many(void **st)
{
	dedup_many(true);
	dedup_many(false);
}

/* A TCP segment of payload bytes, ACK set, from 10.0.0.a:sport to
 * 10.0.0.b:dport at us microseconds, cut after the TCP header like a
 * snap-length capture (an offload super-packet when payload is large). */
static void tcp_rec(cap *c, int64_t us, uint8_t a, uint8_t b, uint16_t sport, uint16_t dport,
		    uint32_t seq, uint32_t ack, uint32_t payload)
{
	dbuf p = {0};
	put_eth(&p, 0x0800);
	put_ipv4(&p, 5, (uint16_t)(40 + payload), 0, 0x4000, 6, 0x0a000000u | a,
		 0x0a000000u | b);
	put_tcp(&p, sport, dport, seq, ack, 5, DMLS_TCP_ACK);
	pcap_rec(&c->d, (uint32_t)(us / 1000000), (uint32_t)(us % 1000000) * 1000, p.b,
		 (uint32_t)p.n, (uint32_t)p.n + payload);
	dbuf_free(&p);
}

/* Read everything; returns the payload bytes delivered. */
static uint64_t drain(dmls_input *in)
{
	dmls_pkt p;
	uint64_t pay = 0;
	while (dmls_input_next(in, &p) == 1)
		pay += p.payload_bytes;
	return pay;
}

/* Both ends captured, with segmentation offload: the sender's file holds 3
 * GSO super-packets of 30000 bytes, the receiver's 10 GRO packets of 9000
 * bytes over the same sequence range (other lengths, other starts), and
 * both hold the receiver's ACKs.  Each byte and each ACK counts once. */
static void test_dedup_offload(void **st)
{
	cap a, b;
	cap_begin(&a);
	cap_begin(&b);
	const uint32_t isn = 4294900000u; /* wraps inside the transfer */
	for (uint32_t k = 0; k < 3; k++)
		tcp_rec(&a, 1000000 + k * 10, 1, 2, 40000, 80, isn + k * 30000, 7, 30000);
	for (uint32_t k = 0; k < 10; k++) {
		int64_t t = 1000100 + k * 20;
		uint32_t end = isn + (k + 1) * 9000;
		tcp_rec(&b, t, 1, 2, 40000, 80, isn + k * 9000, 7, 9000);
		tcp_rec(&b, t + 5, 2, 1, 80, 40000, 7, end, 0);  /* ACK, sent by b */
		tcp_rec(&a, t + 55, 2, 1, 80, 40000, 7, end, 0); /* and received by a */
	}
	const char *paths[2] = {cap_end(&a), cap_end(&b)};
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 2, NULL, &err), 0);
	assert_int_equal(drain(in), 90000);
	const dmls_input_counts *c = dmls_input_get_counts(in);
	assert_int_equal(c->records, 33);
	assert_int_equal(c->duplicates, 20);
	assert_int_equal(c->packets, 13);
	assert_int_equal(dmls_input_get_file(in, 0)->packets, 3);  /* the data */
	assert_int_equal(dmls_input_get_file(in, 1)->packets, 10); /* the ACKs */
	dmls_input_free(in);
	/* each file alone has all the data */
	assert_int_equal(dmls_input_open(&in, paths + 1, 1, NULL, &err), 0);
	assert_int_equal(drain(in), 90000);
	dmls_input_free(in);
	cap_free(&a);
	cap_free(&b);
}

/* The owner's capture stops early while the other file goes on: the tail
 * is counted.  At its end of file (a), or when it falls silent on the flow
 * for longer than the window while its file goes on (c). */
static void test_dedup_owner_stops(void **st)
{
	cap a, b, c;
	cap_begin(&a);
	cap_begin(&b);
	cap_begin(&c);
	for (uint32_t k = 0; k < 20; k++) {
		int64_t t = 1000000 + k * 1000;
		if (k < 10) { /* a: the sender's capture, stopped after 10 ms */
			tcp_rec(&a, t, 1, 2, 40000, 80, 1 + k * 1000, 1, 1000);
			tcp_rec(&a, t + 300, 2, 1, 80, 40000, 1, 1 + (k + 1) * 1000, 0);
		}
		tcp_rec(&b, t + 200, 1, 2, 40000, 80, 1 + k * 1000, 1, 1000);
		tcp_rec(&b, t + 250, 2, 1, 80, 40000, 1, 1 + (k + 1) * 1000, 0);
	}
	const char *paths[2] = {cap_end(&a), cap_end(&b)};
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 2, NULL, &err), 0);
	assert_int_equal(drain(in), 20000);
	const dmls_input_counts *n = dmls_input_get_counts(in);
	assert_int_equal(n->duplicates, 20);
	assert_int_equal(n->packets, 40);
	dmls_input_free(in);

	/* c: the sender again, its flow silent after 10 ms while another flow
	 * goes on; the receiver's file resumes the flow 500 ms later */
	for (uint32_t k = 0; k < 10; k++)
		tcp_rec(&c, 1000000 + k * 1000, 1, 2, 40000, 80, 1 + k * 1000, 1, 1000);
	for (uint32_t k = 0; k < 100; k++)
		tcp_rec(&c, 1000000 + k * 10000, 1, 3, 40001, 80, 1 + k * 100, 1, 100);
	cap_free(&b);
	cap_begin(&b);
	for (uint32_t k = 0; k < 20; k++)
		tcp_rec(&b, (k < 10 ? 1000200 : 1500000) + k * 1000, 1, 2, 40000, 80,
			1 + k * 1000, 1, 1000);
	const char *paths2[2] = {cap_end(&c), cap_end(&b)};
	assert_int_equal(dmls_input_open(&in, paths2, 2, NULL, &err), 0);
	assert_int_equal(drain(in), 20000 + 10000);
	n = dmls_input_get_counts(in);
	assert_int_equal(n->duplicates, 10);
	assert_int_equal(n->packets, 120);
	dmls_input_free(in);
	cap_free(&a);
	cap_free(&b);
	cap_free(&c);
}

/* The TCP flow table stays within its cap: at the cap, the flows least
 * recently seen are forgotten and the recent ones still match. */
static void test_dedup_flow_table(void **st)
{
	dmls_dedup d;
	assert_int_equal(dmls_dedup_init(&d, 100000000, 4096, 1024, 2), 0);
	dmls_pkt p;
	memset(&p, 0, sizeof(p));
	p.af = 4;
	p.proto = 6;
	p.dport = 80;
	p.payload_bytes = 100;
	p.tcp_flags = DMLS_TCP_ACK;
	for (uint32_t k = 0; k < 5000; k++) {
		p.ts_ns = (int64_t)k * 1000;
		p.sport = (uint16_t)(k + 1);
		p.src[15] = (uint8_t)(k >> 16);
		assert_false(dmls_dedup_check(&d, &p, 0));
		assert_true(d.nflows <= 1024 / 4 * 3); /* the cap: 3/4 of max_flows */
		assert_true(d.flow_cap <= 1024);
	}
	p.ts_ns += 1000;
	assert_true(dmls_dedup_check(&d, &p, 1)); /* the last flow's copy */
	assert_false(dmls_dedup_check(&d, &p, 0)); /* a retransmission */
	p.sport = 1; /* the first flow: forgotten, so it counts again */
	assert_false(dmls_dedup_check(&d, &p, 1));
	dmls_dedup_release(&d);
}

static void test_filter(void **st)
{
	cap a;
	cap_begin(&a);
	cap_add(&a, 1, 1, 2, 80, 1, 1, false);
	cap_add(&a, 2, 1, 2, 53, 2, 0, true);
	cap_add(&a, 3, 1, 2, 443, 3, 3, false);
	cap_add(&a, 4, 1, 2, 80, 4, 4, false);
	const char *paths[1] = {cap_end(&a)};
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 1, "tcp port 80", &err), 0);
	dmls_pkt p;
	int n = 0;
	while (dmls_input_next(in, &p) == 1) {
		assert_int_equal(p.dport, 80);
		n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(dmls_input_get_counts(in)->filtered, 2);
	dmls_input_free(in);

	assert_int_equal(dmls_input_open(&in, paths, 1, "tcp port", &err), DMLS_EUSAGE);
	assert_null(in);
	assert_non_null(strstr(err.msg, "invalid filter 'tcp port': "));

	/* a filter that compiles for Ethernet but not for raw IP (2nd file) */
	dbuf r = {0}, raw = {0};
	pcap_hdr(&r, 0xa1b2c3d4, 101);
	put_ipv4(&raw, 5, 20, 1, 0, 17, 1, 2);
	pcap_rec(&r, 0, 0, raw.b, (uint32_t)raw.n, (uint32_t)raw.n);
	char *rpath = temp_file(&r);
	const char *two[2] = {paths[0], rpath};
	assert_int_equal(dmls_input_open(&in, two, 2, "ether host 02:00:00:00:00:01", &err), 0);
	int n2 = 0;
	while (dmls_input_next(in, &p) == 1)
		n2++;
	assert_int_equal(n2, 4);
	assert_int_equal(dmls_input_get_counts(in)->filtered, 1);
	assert_int_equal(dmls_input_error(in)->status, DMLS_EBAD);
	dmls_input_free(in);
	unlink(rpath);
	free(rpath);
	dbuf_free(&r);
	dbuf_free(&raw);
	cap_free(&a);
}

/* A TCP segment a -> b (10.0.0.a, port 40000 + a) of len payload bytes
 * at time us (microseconds, ns pcap), into a capture buffer. */
static void tcp_at(dbuf *d, int64_t us, uint8_t a, uint8_t b, uint32_t seq, uint32_t ack,
		   uint8_t flags, uint16_t len)
{
	dbuf p = {0};
	put_eth(&p, 0x0800);
	put_ipv4(&p, 5, (uint16_t)(40 + len), 1, 0x4000, 6, 0x0a000000u | a, 0x0a000000u | b);
	put_tcp(&p, (uint16_t)(40000 + a), (uint16_t)(40000 + b), seq, ack, 5, flags);
	put(&p, NULL, len);
	pcap_rec(d, (uint32_t)(us / 1000000), (uint32_t)(us % 1000000) * 1000, p.b, (uint32_t)p.n,
		 (uint32_t)p.n);
	dbuf_free(&p);
}

/* Host 1's capture and host 2's, host 2's clock skew_us ahead: a
 * handshake from 1 and 20 segments of 1000 bytes each acknowledged. */
static void two_clocks(dbuf *one, dbuf *two, int64_t skew_us)
{
	const int64_t t0 = 1000000000LL;
	pcap_hdr(one, 0xa1b23c4d, 1);
	pcap_hdr(two, 0xa1b23c4d, 1);
	tcp_at(one, t0, 1, 2, 100, 0, DMLS_TCP_SYN, 0);
	tcp_at(two, t0 + 200 + skew_us, 2, 1, 900, 101, DMLS_TCP_SYN | DMLS_TCP_ACK, 0);
	tcp_at(one, t0 + 400, 1, 2, 101, 901, DMLS_TCP_ACK, 0);
	for (uint32_t k = 0; k < 20; k++) {
		int64_t t = t0 + 10000 + 5000 * k;
		tcp_at(one, t, 1, 2, 101 + 1000 * k, 901, DMLS_TCP_ACK, 1000);
		tcp_at(two, t + 150 + skew_us, 2, 1, 901, 101 + 1000 * (k + 1), DMLS_TCP_ACK, 0);
	}
}

/* Two hosts' captures whose clocks are 50 ms apart: host 2's offset is
 * bounded by the handshake both ways and taken from its stamps, so the
 * merge delivers every packet in true order; one clock's captures keep
 * offset 0; a contradiction (an acknowledgement "before" the data both
 * ways) leaves both at 0; one segment retransmitted after its first
 * acknowledgement does not make one (with the least bound, it did). */
static void test_clock_offsets(void **st)
{
	(void)st;
	static const int64_t skews[] = {50000, 0, 0, 0};
	for (size_t c = 0; c < 4; c++) {
		dbuf one = {0}, two = {0};
		two_clocks(&one, &two, skews[c]);
		if (c == 2) /* host 1 acknowledges the SYN-ACK before its own SYN */
			tcp_at(&one, 1000000000LL - 300, 1, 2, 101, 901, DMLS_TCP_ACK, 0);
		if (c == 3) { /* a segment sent before host 1's capture began, its
			       * acknowledgement seen, then sent again: one bound of
			       * -250 ms among many of +150 us, not a contradiction */
			tcp_at(&two, 1000000000LL + 1000, 2, 1, 901, 77777, DMLS_TCP_ACK, 0);
			tcp_at(&one, 1000000000LL + 251000, 1, 2, 76777, 901, DMLS_TCP_ACK, 1000);
		}
		dmls_source src[2] = {{"one", NULL, one.b, one.n}, {"two", NULL, two.b, two.n}};
		dmls_input *in;
		dmls_error err;
		dmls_error_clear(&err);
		assert_int_equal(dmls_input_open_sources(&in, src, 2, NULL, &err), DMLS_OK);
		assert_int_equal(dmls_input_get_file(in, 0)->clock_offset_ns, 0);
		int64_t off = dmls_input_get_file(in, 1)->clock_offset_ns;
		assert_int_equal(dmls_input_get_counts(in)->clocks_contradict, c == 2);
		if (c == 0)
			assert_true(off >= 49800000 && off <= 50000000);
		else
			assert_int_equal(off, 0);
		dmls_pkt p;
		int64_t last = INT64_MIN;
		size_t n = 0, back = 0;
		while (dmls_input_next(in, &p) == 1) {
			back += p.ts_ns < last;
			last = p.ts_ns;
			n++;
		}
		assert_int_equal(n, c == 2 ? 44 : c == 3 ? 45 : 43);
		if (c == 0)
			assert_int_equal(back, 0);
		dmls_input_free(in);
		dbuf_free(&one);
		dbuf_free(&two);
	}
}

static void test_bad_files(void **st)
{
	cap a, t;
	cap_begin(&a);
	cap_begin(&t);
	cap_add(&a, 1, 1, 2, 80, 1, 1, false);
	cap_add(&a, 5, 1, 2, 80, 2, 2, false);
	cap_add(&t, 2, 3, 2, 80, 1, 1, false);
	cap_add(&t, 3, 3, 2, 80, 2, 2, false);
	t.d.n -= 3; /* truncated last record */
	/* and one ARP frame to count as non-IP */
	dbuf arp = {0};
	put_eth(&arp, 0x0806);
	put(&arp, NULL, 28);
	pcap_rec(&a.d, 0, 6000000, arp.b, (uint32_t)arp.n, (uint32_t)arp.n);
	dbuf_free(&arp);
	const char *paths[3] = {cap_end(&a), "/nonexistent/w.pcap", cap_end(&t)};
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, paths, 3, NULL, &err), 0);
	dmls_pkt p;
	int n = 0;
	while (dmls_input_next(in, &p) == 1)
		n++;
	assert_int_equal(n, 3);
	const dmls_input_counts *c = dmls_input_get_counts(in);
	assert_int_equal(c->records, 4);
	assert_int_equal(c->non_ip, 1);
	assert_int_equal(dmls_input_get_file(in, 1)->status, DMLS_EIO);
	assert_null(dmls_input_get_file(in, 1)->format);
	assert_int_equal(dmls_input_get_file(in, 2)->status, DMLS_EBAD);
	assert_non_null(strstr(dmls_input_get_file(in, 2)->error, "truncated record 2"));
	const dmls_error *e = dmls_input_error(in);
	assert_int_equal(e->status, DMLS_EIO);
	assert_non_null(strstr(e->msg, "'/nonexistent/w.pcap': cannot open"));
	dmls_input_free(in);

	const char *none[2] = {"/nonexistent/a", "/nonexistent/b"};
	assert_int_equal(dmls_input_open(&in, none, 2, NULL, &err), DMLS_EIO);
	assert_non_null(strstr(err.msg, "/nonexistent/a"));
	cap_free(&a);
	cap_free(&t);
}

/* A TCP data segment (or a UDP datagram) from 10.0.0.1 to 10.0.0.2 as a
 * Linux cooked v2 record on interface ifindex. */
static void sll2_pkt(dbuf *p, uint32_t ifindex, uint32_t seq, bool udp)
{
	put_be16(p, 0x0800);
	put_be16(p, 0);
	put_be32(p, ifindex);
	put_be16(p, 1);
	put8(p, 0);
	put8(p, 6);
	put(p, NULL, 8);
	put_ipv4(p, 5, udp ? 28 + 100 : 40 + 100, (uint16_t)seq, 0x4000, udp ? 17 : 6,
		 0x0a000001u, 0x0a000002u);
	if (udp)
		put_udp(p, 5000, 6000, 108);
	else
		put_tcp(p, 5000, 6000, seq, 1, 5, DMLS_TCP_ACK);
	put(p, NULL, 100);
}

/* `tcpdump -i any` on a host whose two ranks talk through a bridge: each
 * packet on the sender's veth (3), the bridge (2) and the receiver's veth
 * (4), a few microseconds apart, in one file.  Each counts once; on one
 * interface alone nothing is a duplicate; a bond's slaves each see part of
 * a flow, all of it counts; a pcapng's two interfaces are two points too,
 * and a plain pcap's repeats are retransmissions. */
static void test_dedup_interfaces(void **st)
{
	cap c;
	memset(&c, 0, sizeof(c));
	pcap_hdr(&c.d, 0xa1b23c4d, 276);
	const uint32_t ifs[3] = {3, 2, 4};
	for (uint32_t k = 0; k < 20; k++)
		for (int j = 0; j < 3; j++) {
			dbuf p = {0};
			sll2_pkt(&p, ifs[j], 1000 + 100 * k, k % 5 == 4);
			pcap_rec(&c.d, 1, k * 1000000 + (uint32_t)j * 3000, p.b, (uint32_t)p.n,
				 (uint32_t)p.n);
			dbuf_free(&p);
		}
	const char *path = cap_end(&c);
	dmls_input *in;
	dmls_error err;
	assert_int_equal(dmls_input_open(&in, &path, 1, NULL, &err), DMLS_OK);
	assert_int_equal(drain(in), 20 * 100);
	assert_int_equal(dmls_input_get_counts(in)->packets, 20);
	assert_int_equal(dmls_input_get_counts(in)->duplicates, 40);
	dmls_input_free(in);
	cap_free(&c);

	/* one interface: 20 packets, no duplicate */
	memset(&c, 0, sizeof(c));
	pcap_hdr(&c.d, 0xa1b23c4d, 276);
	for (uint32_t k = 0; k < 20; k++) {
		dbuf p = {0};
		sll2_pkt(&p, 7, 1000 + 100 * k, false);
		pcap_rec(&c.d, 1, k * 1000000, p.b, (uint32_t)p.n, (uint32_t)p.n);
		dbuf_free(&p);
	}
	path = cap_end(&c);
	assert_int_equal(dmls_input_open(&in, &path, 1, NULL, &err), DMLS_OK);
	assert_int_equal(drain(in), 20 * 100);
	assert_int_equal(dmls_input_get_counts(in)->duplicates, 0);
	dmls_input_free(in);
	cap_free(&c);

	/* pcapng, two Ethernet interfaces: the second starts with the fifth
	 * packet, its copies are duplicates */
	memset(&c, 0, sizeof(c));
	ng_shb(&c.d);
	ng_idb(&c.d, 1, 65535, -1);
	ng_idb(&c.d, 1, 65535, -1);
	for (uint32_t k = 0; k < 20; k++)
		for (uint32_t j = 0; j < (k < 4 ? 1u : 2u); j++) {
			dbuf p = {0};
			eth_pkt(&p, 1, 2, 6000, (uint16_t)k, 1000 + 100 * k, false);
			ng_epb(&c.d, j, 1000000ull * k + 3 * j, p.b, (uint32_t)p.n, (uint32_t)p.n);
			dbuf_free(&p);
		}
	path = cap_end(&c);
	assert_int_equal(dmls_input_open(&in, &path, 1, NULL, &err), DMLS_OK);
	assert_int_equal(drain(in), 20 * 10);
	assert_int_equal(dmls_input_get_counts(in)->duplicates, 16);
	dmls_input_free(in);
	cap_free(&c);

	/* a bond of two slaves (5, 6) taking turns, each packet also on the
	 * bond (7) after its slave: every byte once, though no point sees
	 * them all */
	memset(&c, 0, sizeof(c));
	pcap_hdr(&c.d, 0xa1b23c4d, 276);
	for (uint32_t k = 0; k < 20; k++)
		for (int j = 0; j < 2; j++) {
			dbuf p = {0};
			sll2_pkt(&p, j ? 7 : 5 + k % 2, 1000 + 100 * k, false);
			pcap_rec(&c.d, 1, k * 1000 + (uint32_t)j * 3000, p.b, (uint32_t)p.n,
				 (uint32_t)p.n);
			dbuf_free(&p);
		}
	path = cap_end(&c);
	assert_int_equal(dmls_input_open(&in, &path, 1, NULL, &err), DMLS_OK);
	assert_int_equal(drain(in), 20 * 100);
	assert_int_equal(dmls_input_get_counts(in)->duplicates, 20);
	dmls_input_free(in);
	cap_free(&c);

	/* Ethernet pcap: one point; the same segment again is counted */
	cap_begin(&c);
	cap_add(&c, 0, 1, 2, 80, 7, 1000, false);
	cap_add(&c, 1, 1, 2, 80, 7, 1000, false);
	path = cap_end(&c);
	assert_int_equal(dmls_input_open(&in, &path, 1, NULL, &err), DMLS_OK);
	drain(in);
	assert_int_equal(dmls_input_get_counts(in)->packets, 2);
	assert_int_equal(dmls_input_get_counts(in)->duplicates, 0);
	dmls_input_free(in);
	cap_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_dedup),
		cmocka_unit_test(test_dedup_tcp_same_packets),
		cmocka_unit_test(test_dedup_tcp_reopened),
		cmocka_unit_test(test_dedup_many),
		cmocka_unit_test(test_dedup_offload),
		cmocka_unit_test(test_dedup_owner_stops),
		cmocka_unit_test(test_dedup_flow_table),
		cmocka_unit_test(test_dedup_interfaces),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_clock_offsets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
