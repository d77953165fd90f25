/*
 * test_decode.c - every decoder path with hand-built packets: link types
 * (Ethernet, 802.1Q, QinQ, SLL, SLL2, IPoIB, raw, IPv4/IPv6 link types, BSD and
 * OpenBSD loopback, PPP, PPPoE, Cisco HDLC), IPv4 options and fragments, IPv6 extension headers,
 * TCP and UDP, segmentation-offload super-packets, snap-length cuts,
 * tunnels (VXLAN, Geneve, GRE, IP in IP, ERSPAN), MPLS, the ERF, NFLOG
 * and PKTAP wrappers, and
 * malformed lengths (which must say TRUNCATED, and under ASan never read
 * out of bounds: each test decodes a heap copy of exactly caplen bytes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "dmlscope/decode.h"
#include "ingest_util.h"

#define A 0xc0a80001u /* 192.168.0.1 */
#define B 0xc0a80002u

/* Decode the first caplen bytes of d (a tight heap copy) as linktype. */
static int dec(int lt, const dbuf *d, uint32_t caplen, uint32_t origlen, dmls_pkt *p)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	memcpy(copy, d->b, caplen);
	int rc = dmls_decode(lt, copy, caplen, origlen, p);
	free(copy);
	return rc;
}

/* The usual TCP segment: A:1000 -> B:80, 100 payload bytes, after a link
 * header already in d. */
static void tcp_pkt(dbuf *d, uint16_t totlen)
{
	put_ipv4(d, 5, totlen, 0x1234, 0x4000, 6, A, B);
	put_tcp(d, 1000, 80, 111, 222, 5, DMLS_TCP_ACK | DMLS_TCP_PSH);
	put(d, NULL, 100);
}

static void check_tcp(const dmls_pkt *p)
{
	assert_int_equal(p->af, 4);
	assert_int_equal(p->proto, 6);
	assert_true(dmls_addr_is_v4(p->src));
	assert_memory_equal(p->src + 12, "\xc0\xa8\x00\x01", 4);
	assert_memory_equal(p->dst + 12, "\xc0\xa8\x00\x02", 4);
	assert_int_equal(p->sport, 1000);
	assert_int_equal(p->dport, 80);
	assert_int_equal(p->tcp_seq, 111);
	assert_int_equal(p->tcp_ack, 222);
	assert_int_equal(p->tcp_flags, DMLS_TCP_ACK | DMLS_TCP_PSH);
	assert_int_equal(p->ip_id, 0x1234);
	assert_false(p->is_fragment);
	assert_int_equal(p->ip_bytes, 140);
	assert_int_equal(p->payload_bytes, 100);
}

/* d (a link header, then tcp_pkt) decodes as link type lt to the usual
 * segment of wire bytes wire; cut short to cut bytes (0: not tried), it is
 * truncated. */
static void check_link_tcp(int lt, const dbuf *d, uint64_t wire, uint32_t cut)
{
	dmls_pkt p;
	assert_int_equal(dec(lt, d, (uint32_t)d->n, (uint32_t)d->n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.wire_bytes, wire);
	if (cut)
		assert_int_equal(dec(lt, d, cut, (uint32_t)wire, &p), DMLS_DEC_TRUNCATED);
}

static void test_ethernet_tcp(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	put_eth(&d, 0x0800);
	tcp_pkt(&d, 140);
	check_link_tcp(1, &d, 154, 0);
	/* Ethernet padding stays in wire bytes, not in IP bytes */
	put(&d, NULL, 6);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.wire_bytes, 160);
	assert_int_equal(p.ip_bytes, 140);
	dbuf_free(&d);
}

static void test_vlan_qinq(void **st)
{
	dbuf d = {0};
	put_eth(&d, 0x8100);
	put_be16(&d, 42);
	put_be16(&d, 0x0800);
	tcp_pkt(&d, 140);
	check_link_tcp(1, &d, 158, 0);
	dbuf_free(&d);

	put_eth(&d, 0x88a8);
	put_be16(&d, 7);
	put_be16(&d, 0x8100);
	put_be16(&d, 42);
	put_be16(&d, 0x0800);
	tcp_pkt(&d, 140);
	check_link_tcp(1, &d, 162, 16); /* cut: the tag */
	dbuf_free(&d);
}

static void test_non_ip_and_unknown(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	put_eth(&d, 0x0806);
	put(&d, NULL, 28);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
	assert_int_equal(dec(147, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OTHER);
	assert_int_equal(dec(1, &d, 10, 60, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);
	/* 802.3 + LLC/SNAP carrying IPv4 */
	put_eth(&d, 0);
	const uint8_t snap[8] = {0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00};
	put(&d, snap, 8);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	dbuf_free(&d);
}

static void test_sll_sll2(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	put_be16(&d, 4); /* outgoing */
	put_be16(&d, 1);
	put_be16(&d, 6);
	put(&d, NULL, 8);
	put_be16(&d, 0x0800);
	tcp_pkt(&d, 140);
	check_link_tcp(113, &d, 156, 15);
	dbuf_free(&d);

	put_be16(&d, 0x0800);
	put_be16(&d, 0);
	put_be32(&d, 3);
	put_be16(&d, 1);
	put8(&d, 4);
	put8(&d, 6);
	put(&d, NULL, 8);
	tcp_pkt(&d, 140);
	check_link_tcp(276, &d, 160, 19);
	d.b[1] = 0x06; /* ARP */
	assert_int_equal(dec(276, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
	dbuf_free(&d);
}

/* IP over InfiniBand (242): a 40-byte pseudo header, EtherType, reserved. */
static void test_ipoib(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	put(&d, NULL, 40);
	put_be16(&d, 0x0800);
	put_be16(&d, 0);
	tcp_pkt(&d, 140);
	check_link_tcp(242, &d, 184, 43);
	d.b[40] = 0x08, d.b[41] = 0x06; /* ARP */
	assert_int_equal(dec(242, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
	dbuf_free(&d);
}

/* PPP (9, 50) with and without address and control, and with the
 * protocol compressed to one byte; PPPoE (51, and in Ethernet); Cisco
 * HDLC (104, and in 50). */
static void test_ppp_hdlc(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	const uint8_t full[4] = {0xff, 0x03, 0x00, 0x21};
	put(&d, full, 4);
	tcp_pkt(&d, 140);
	check_link_tcp(9, &d, 144, 3);
	check_link_tcp(50, &d, 144, 3);
	d.b[3] = 0x57; /* IPv6's protocol on an IPv4 packet: not a packet */
	assert_int_not_equal(dec(9, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	d.b[2] = 0xc0, d.b[3] = 0x21; /* LCP */
	assert_int_equal(dec(9, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
	dbuf_free(&d);

	put8(&d, 0x21); /* address, control and the protocol's high byte compressed */
	tcp_pkt(&d, 140);
	check_link_tcp(9, &d, 141, 0);
	dbuf_free(&d);

	const uint8_t pppoe[8] = {0x11, 0x00, 0x12, 0x34, 0x00, 0x8e, 0x00, 0x21};
	put(&d, pppoe, 8);
	tcp_pkt(&d, 140);
	check_link_tcp(51, &d, 148, 7);
	dbuf_free(&d);
	put_eth(&d, 0x8864);
	put(&d, pppoe, 8);
	tcp_pkt(&d, 140);
	check_link_tcp(1, &d, 162, 21);
	dbuf_free(&d);

	const uint8_t chdlc[4] = {0x0f, 0x00, 0x08, 0x00};
	put(&d, chdlc, 4);
	tcp_pkt(&d, 140);
	check_link_tcp(104, &d, 144, 3);
	check_link_tcp(50, &d, 144, 3);
	d.b[3] = 0x06; /* ARP */
	assert_int_equal(dec(104, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
	dbuf_free(&d);
}

static void test_raw_links(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	tcp_pkt(&d, 140);
	int lts[] = {101, 12, 14, 228};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(dec(lts[i], &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
		check_tcp(&p);
		assert_int_equal(p.wire_bytes, 140);
	}
	assert_int_equal(dec(229, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);

	put_ipv6(&d, 20 + 8, 17, 1, 2);
	put_udp(&d, 5353, 53, 28);
	put(&d, NULL, 20);
	for (int lt = 0; lt < 2; lt++) {
		assert_int_equal(dec(lt ? 229 : 101, &d, (uint32_t)d.n, (uint32_t)d.n, &p),
				 DMLS_DEC_OK);
		assert_int_equal(p.af, 6);
		assert_int_equal(p.proto, 17);
		assert_false(dmls_addr_is_v4(p.src));
		assert_int_equal(p.src[15], 1);
		assert_int_equal(p.dst[15], 2);
		assert_int_equal(p.sport, 5353);
		assert_int_equal(p.dport, 53);
		assert_int_equal(p.ip_bytes, 68);
		assert_int_equal(p.payload_bytes, 20);
	}
	assert_int_equal(dec(228, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	char s[64];
	dmls_addr_format(p.src, s, sizeof(s));
	assert_string_equal(s, "2001:db8::1");
	dbuf_free(&d);
}

static void test_loopback(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	const uint8_t le2[4] = {2, 0, 0, 0}, be2[4] = {0, 0, 0, 2}, le30[4] = {30, 0, 0, 0};
	put(&d, le2, 4);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(0, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.wire_bytes, 144);
	memcpy(d.b, be2, 4); /* written on a big-endian host */
	assert_int_equal(dec(0, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(dec(108, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	memcpy(d.b, le30, 4); /* AF_INET6 on macOS, but the packet is IPv4 */
	assert_int_equal(dec(0, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	d.b[0] = 7;
	assert_int_equal(dec(0, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
	assert_int_equal(dec(0, &d, 3, 3, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);

	put(&d, le30, 4);
	put_ipv6(&d, 20, 6, 1, 2);
	put_tcp(&d, 1, 2, 3, 4, 5, DMLS_TCP_SYN);
	assert_int_equal(dec(0, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.af, 6);
	assert_int_equal(p.tcp_flags, DMLS_TCP_SYN);
	assert_int_equal(p.payload_bytes, 0);
	dbuf_free(&d);
}

static void test_ipv4_options_udp(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	put_eth(&d, 0x0800);
	put_ipv4(&d, 8, 32 + 8 + 50, 9, 0, 17, A, B);
	put_udp(&d, 4000, 4001, 58);
	put(&d, NULL, 50);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.proto, 17);
	assert_int_equal(p.sport, 4000);
	assert_int_equal(p.dport, 4001);
	assert_int_equal(p.ip_bytes, 90);
	assert_int_equal(p.payload_bytes, 50);
	/* options cut by the snap length: cannot find the transport header */
	assert_int_equal(dec(1, &d, 14 + 24, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);

	/* ICMP: no ports, no application payload (payload is TCP/UDP only) */
	put_ipv4(&d, 5, 84, 1, 0, 1, A, B);
	put(&d, NULL, 64);
	assert_int_equal(dec(101, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.proto, 1);
	assert_int_equal(p.sport, 0);
	assert_int_equal(p.ip_bytes, 84);
	assert_int_equal(p.payload_bytes, 0);
	dbuf_free(&d);
}

/* RoCEv2: UDP to 4791 carries InfiniBand's base transport header; its
 * opcode, destination queue pair and PSN are read when captured. */
static void test_roce(void **st)
{
	(void)st;
	static const uint8_t bth[12] = {0x0a, 0x40, 0xff, 0xff, 0, 0x12, 0x34, 0x56,
					0x80, 0xab, 0xcd, 0xef};
	dbuf d = {0};
	dmls_pkt p;
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 20 + 8 + 12 + 64 + 4, 1, 0x4000, 17, A, B);
	put_udp(&d, 49152, DMLS_ROCE_PORT, 8 + 12 + 64 + 4);
	put(&d, bth, sizeof(bth));
	put(&d, NULL, 64 + 4);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_true(p.roce);
	assert_int_equal(p.bth_opcode, 0x0a);
	assert_int_equal(p.bth_qp, 0x123456);
	assert_int_equal(p.bth_psn, 0xabcdef);
	assert_int_equal(p.payload_bytes, 12 + 64 + 4);
	/* the header cut by the snap length: a UDP packet, nothing more */
	assert_int_equal(dec(1, &d, 14 + 20 + 8 + 11, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_false(p.roce);
	assert_int_equal(p.payload_bytes, 12 + 64 + 4);
	dbuf_free(&d);
	/* another port: not RoCE, whatever the bytes */
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 20 + 8 + 12, 1, 0x4000, 17, A, B);
	put_udp(&d, 49152, 4790, 8 + 12);
	put(&d, bth, sizeof(bth));
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_false(p.roce);
	dbuf_free(&d);
}

static void test_ipv4_fragments(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	/* first fragment: MF, offset 0, has the UDP header */
	put_ipv4(&d, 5, 1500, 77, 0x2000, 17, A, B);
	put_udp(&d, 9, 10, 3000);
	put(&d, NULL, 1472);
	assert_int_equal(dec(101, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_false(p.is_fragment);
	assert_int_equal(p.sport, 9);
	assert_int_equal(p.payload_bytes, 1472);
	dbuf_free(&d);
	/* second fragment: offset 185 (1480 bytes), no transport header */
	put_ipv4(&d, 5, 20 + 1536, 77, 185, 17, A, B);
	put(&d, NULL, 1536);
	assert_int_equal(dec(101, &d, 100, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_true(p.is_fragment);
	assert_int_equal(p.sport, 0);
	assert_int_equal(p.dport, 0);
	assert_int_equal(p.ip_id, 77);
	assert_int_equal(p.payload_bytes, 1536);
	dbuf_free(&d);
}

static void test_ipv6_extensions(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	/* hop-by-hop (8) -> routing (24) -> dest opts (16) -> AH (16) -> TCP */
	put_ipv6(&d, 8 + 24 + 16 + 16 + 20 + 10, 0, 1, 2);
	put8(&d, 43), put8(&d, 0), put(&d, NULL, 6);
	put8(&d, 60), put8(&d, 2), put(&d, NULL, 22);
	put8(&d, 51), put8(&d, 1), put(&d, NULL, 14);
	put8(&d, 6), put8(&d, 2), put(&d, NULL, 14);
	put_tcp(&d, 443, 5555, 1, 2, 5, DMLS_TCP_FIN);
	put(&d, NULL, 10);
	assert_int_equal(dec(229, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.proto, 6);
	assert_int_equal(p.sport, 443);
	assert_int_equal(p.dport, 5555);
	assert_int_equal(p.ip_bytes, 40 + 94);
	assert_int_equal(p.payload_bytes, 10);
	/* snap length cuts an extension header */
	assert_int_equal(dec(229, &d, 40 + 8 + 1, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	/* an extension header longer than the packet */
	d.b[40 + 8 + 1] = 200;
	assert_int_equal(dec(229, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);

	/* fragment header: first fragment has ports, later one not */
	for (int later = 0; later < 2; later++) {
		put_ipv6(&d, 8 + 8 + 30, 44, 1, 2);
		put8(&d, 17), put8(&d, 0), put_be16(&d, later ? (uint16_t)(100 << 3) : 1);
		put_be32(&d, 0xabcdef01);
		put_udp(&d, 7, 8, 38);
		put(&d, NULL, 30);
		assert_int_equal(dec(229, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
		assert_int_equal(p.ip_id, 0xabcdef01);
		assert_int_equal(p.proto, 17);
		assert_int_equal(p.is_fragment, later);
		assert_int_equal(p.sport, later ? 0 : 7);
		assert_int_equal(p.payload_bytes, later ? 38 : 30);
		dbuf_free(&d);
	}
}

static void test_tso_super_packets(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	/* IPv4 total length 0 (TSO): derive from origlen */
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 0, 1, 0x4000, 6, A, B);
	put_tcp(&d, 1000, 80, 1, 1, 8, DMLS_TCP_ACK);
	put(&d, NULL, 34);
	assert_int_equal(d.n, 100);
	assert_int_equal(dec(1, &d, 100, 65014, &p), DMLS_DEC_OK);
	assert_int_equal(p.wire_bytes, 65014);
	assert_int_equal(p.ip_bytes, 65000);
	assert_int_equal(p.payload_bytes, 65000 - 20 - 32);
	dbuf_free(&d);
	/* IP length larger than the frame: link header + IP length */
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 30000, 1, 0x4000, 6, A, B);
	put_tcp(&d, 1000, 80, 1, 1, 5, DMLS_TCP_ACK);
	put(&d, NULL, 46);
	assert_int_equal(dec(1, &d, 100, 1514, &p), DMLS_DEC_OK);
	assert_int_equal(p.wire_bytes, 30014);
	assert_int_equal(p.ip_bytes, 30000);
	assert_int_equal(p.payload_bytes, 29960);
	dbuf_free(&d);
	/* IPv6 payload length 0 */
	put_ipv6(&d, 0, 6, 1, 2);
	put_tcp(&d, 1, 2, 3, 4, 5, 0);
	assert_int_equal(dec(229, &d, (uint32_t)d.n, 9060, &p), DMLS_DEC_OK);
	assert_int_equal(p.ip_bytes, 9060);
	assert_int_equal(p.wire_bytes, 9060);
	assert_int_equal(p.payload_bytes, 9000);
	dbuf_free(&d);
}

static void test_snaplen_cut(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	/* TCP header with 40 bytes of options, capture cut at 100 */
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 1500, 1, 0x4000, 6, A, B);
	put_tcp(&d, 1000, 80, 5, 6, 15, DMLS_TCP_ACK);
	put(&d, NULL, 1500 - 80);
	assert_int_equal(dec(1, &d, 100, 1514, &p), DMLS_DEC_OK);
	assert_int_equal(p.payload_bytes, 1500 - 20 - 60);
	assert_int_equal(p.wire_bytes, 1514);
	/* cut inside the TCP header, but its first 14 bytes are there */
	assert_int_equal(dec(1, &d, 14 + 20 + 14, 1514, &p), DMLS_DEC_OK);
	assert_int_equal(p.sport, 1000);
	assert_int_equal(p.tcp_ack, 6);
	assert_int_equal(p.payload_bytes, 1420);
	assert_false(p.tcp_cut);
	/* cut before the data offset (byte 12), its first 8 bytes there:
	 * ports and sequence number, the payload estimated with a 32-byte
	 * header (this one's 60: 28 above), flags and acknowledgement 0 */
	for (uint32_t cap = 14 + 20 + 8; cap <= 14 + 20 + 13; cap++) {
		assert_int_equal(dec(1, &d, cap, 1514, &p), DMLS_DEC_OK);
		assert_true(p.tcp_cut);
		assert_int_equal(p.sport, 1000);
		assert_int_equal(p.dport, 80);
		assert_int_equal(p.tcp_seq, 5);
		assert_int_equal(p.tcp_ack, 0);
		assert_int_equal(p.tcp_flags, 0);
		assert_int_equal(p.payload_bytes, 1480 - DMLS_TCP_CUT_HDR_BYTES);
		assert_int_equal(p.wire_bytes, 1514);
	}
	/* fewer than 8: truncated */
	assert_int_equal(dec(1, &d, 14 + 20 + 7, 1514, &p), DMLS_DEC_TRUNCATED);
	assert_int_equal(dec(1, &d, 14 + 19, 1514, &p), DMLS_DEC_TRUNCATED);
	assert_int_equal(dec(1, &d, 0, 1514, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);
	/* a pure acknowledgement cut so: no payload; an IP length that
	 * leaves less than a TCP header: truncated */
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 20 + 32, 1, 0x4000, 6, A, B);
	put_tcp(&d, 1000, 80, 5, 6, 8, DMLS_TCP_ACK);
	put(&d, NULL, 12);
	assert_int_equal(dec(1, &d, 14 + 20 + 10, 66, &p), DMLS_DEC_OK);
	assert_true(p.tcp_cut);
	assert_int_equal(p.payload_bytes, 0);
	d.b[14 + 3] = 20 + 19;
	assert_int_equal(dec(1, &d, 14 + 20 + 10, 66, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);
}

/* A tap aggregator's Arista time stamp after the source address (64- and
 * 48-bit): skipped, its bytes not wire bytes; another version is not
 * read as IP; one cut is truncated. */
static void test_arista_stamp(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	for (int bits = 64; bits >= 48; bits -= 16) {
		put_eth(&d, 0xd28b);
		put_be16(&d, 1), put_be16(&d, bits == 64 ? 0x0110 : 0x0020);
		put_be32(&d, 1559162199);
		if (bits == 64)
			put_be32(&d, 944724424);
		else
			put_be16(&d, 7);
		put_be16(&d, 0x0800);
		tcp_pkt(&d, 140);
		size_t stamp = bits == 64 ? 14 : 12;
		assert_int_equal(d.n, 14 + stamp + 140);
		assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
		check_tcp(&p);
		assert_int_equal(p.wire_bytes, 14 + 140);
		assert_int_equal(dec(1, &d, 14 + (uint32_t)stamp - 1, (uint32_t)d.n, &p),
				 DMLS_DEC_TRUNCATED);
		d.b[14 + 3] = 0x30; /* a version of no known stamp */
		assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
		dbuf_free(&d);
	}
}

static void test_malformed(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	tcp_pkt(&d, 140);
	uint32_t n = (uint32_t)d.n;
	d.b[0] = 0x44; /* IHL 4 */
	assert_int_equal(dec(101, &d, n, n, &p), DMLS_DEC_TRUNCATED);
	d.b[0] = 0x4f; /* IHL 60 > caplen of header... total length 140 ok, header present */
	assert_int_equal(dec(101, &d, 40, 40, &p), DMLS_DEC_TRUNCATED);
	d.b[0] = 0x45;
	d.b[2] = 0, d.b[3] = 19; /* total length below the header */
	assert_int_equal(dec(101, &d, n, n, &p), DMLS_DEC_TRUNCATED);
	d.b[3] = 30; /* room for IP, not for the TCP header */
	assert_int_equal(dec(101, &d, n, n, &p), DMLS_DEC_TRUNCATED);
	d.b[3] = 140;
	d.b[20 + 12] = 0x40; /* data offset 16 bytes */
	assert_int_equal(dec(101, &d, n, n, &p), DMLS_DEC_TRUNCATED);
	d.b[20 + 12] = 0xf0; /* 60, fine */
	assert_int_equal(dec(101, &d, n, n, &p), DMLS_DEC_OK);
	assert_int_equal(p.payload_bytes, 60);
	d.b[0] = 0x75; /* version 7 */
	assert_int_equal(dec(101, &d, n, n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);
	/* UDP length field ignored, but IP must hold the UDP header */
	put_ipv4(&d, 5, 24, 1, 0, 17, A, B);
	put_udp(&d, 1, 2, 8);
	assert_int_equal(dec(101, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);
	/* nine VLAN tags */
	put_eth(&d, 0x8100);
	for (int i = 0; i < 9; i++)
		put_be16(&d, 1), put_be16(&d, 0x8100);
	put(&d, NULL, 40);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);
	/* every prefix of a valid packet decodes or says truncated */
	put_eth(&d, 0x86dd);
	put_ipv6(&d, 8 + 20, 0, 1, 2);
	put8(&d, 6), put8(&d, 0), put(&d, NULL, 6);
	put_tcp(&d, 1, 2, 3, 4, 5, 0);
	for (uint32_t cut = 0; cut <= d.n; cut++) {
		int rc = dec(1, &d, cut, (uint32_t)d.n, &p);
		assert_int_equal(rc, cut >= 14 + 40 + 8 + 8 ? DMLS_DEC_OK : DMLS_DEC_TRUNCATED);
	}
	dbuf_free(&d);
}

#define N1 0xc6130001u /* 198.19.0.1: a node, a tunnel's end point */
#define N2 0xc6130002u

/* The usual segment in an Ethernet frame, inside VXLAN over IPv4 to port. */
static void vxlan_pkt(dbuf *d, uint16_t port, uint8_t flags)
{
	put_eth(d, 0x0800);
	put_ipv4(d, 5, 20 + 8 + 8 + 154, 1, 0x4000, 17, N1, N2);
	put_udp(d, 40000, port, 8 + 8 + 154);
	put8(d, flags);
	put(d, NULL, 3);
	put_be32(d, 42u << 8);
	put_eth(d, 0x0800);
	tcp_pkt(d, 140);
}

static void test_tunnels(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	/* VXLAN: the inner segment, the outer frame's wire bytes */
	vxlan_pkt(&d, 4789, 0x08);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.tunnel, DMLS_TUN_VXLAN);
	assert_int_equal(p.wire_bytes, 14 + 20 + 8 + 8 + 154);
	/* cut inside the inner TCP header after its sequence number: the
	 * inner segment, its payload estimated */
	assert_int_equal(dec(1, &d, (uint32_t)d.n - 100 - 12, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.tunnel, DMLS_TUN_VXLAN);
	assert_true(p.tcp_cut);
	assert_int_equal(p.payload_bytes, 120 - DMLS_TCP_CUT_HDR_BYTES);
	/* before it: the outer UDP packet stays */
	assert_int_equal(dec(1, &d, (uint32_t)d.n - 100 - 13, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.tunnel, DMLS_TUN_NONE);
	assert_int_equal(p.proto, 17);
	assert_int_equal(p.dport, 4789);
	assert_int_equal(p.wire_bytes, d.n);
	/* every cut decodes (UDP needs its ports only), to the outer or the
	 * inner packet, never beyond */
	for (uint32_t cut = 0; cut <= d.n; cut++) {
		int rc = dec(1, &d, cut, (uint32_t)d.n, &p);
		assert_int_equal(rc, cut >= 14 + 20 + 4 ? DMLS_DEC_OK : DMLS_DEC_TRUNCATED);
		if (rc == DMLS_DEC_OK)
			assert_int_equal(p.tunnel != DMLS_TUN_NONE, cut >= 14 + 20 + 8 + 8 + 14 + 20 + 8);
	}
	dbuf_free(&d);
	/* Linux's port; without the I flag it is not VXLAN */
	vxlan_pkt(&d, 8472, 0x08);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.tunnel, DMLS_TUN_VXLAN);
	dbuf_free(&d);
	vxlan_pkt(&d, 4789, 0x00);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.tunnel, DMLS_TUN_NONE);
	assert_int_equal(p.dport, 4789);
	dbuf_free(&d);

	/* ARP over VXLAN is not IP */
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 20 + 8 + 8 + 42, 1, 0x4000, 17, N1, N2);
	put_udp(&d, 40000, 4789, 8 + 8 + 42);
	put_be32(&d, 0x08000000);
	put_be32(&d, 0);
	put_eth(&d, 0x0806);
	put(&d, NULL, 28);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
	dbuf_free(&d);

	/* GRE with checksum, key and sequence, carrying IPv4 */
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 20 + 16 + 140, 1, 0x4000, 47, N1, N2);
	put_be16(&d, 0xb000);
	put_be16(&d, 0x0800);
	put(&d, NULL, 12);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.tunnel, DMLS_TUN_GRE);
	assert_int_equal(p.wire_bytes, 14 + 20 + 16 + 140);
	/* GRE version 1 (PPTP) is not opened */
	d.b[14 + 20 + 1] |= 1;
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.tunnel, DMLS_TUN_NONE);
	assert_int_equal(p.proto, 47);
	dbuf_free(&d);

	/* ERSPAN type II: the mirrored frame's own wire bytes */
	put_eth(&d, 0x0800);
	put_ipv4(&d, 5, 20 + 8 + 8 + 154, 1, 0x4000, 47, N1, N2);
	put_be16(&d, 0x1000);
	put_be16(&d, 0x88be);
	put_be32(&d, 7);
	put_be32(&d, 0x1000000a);
	put_be32(&d, 0);
	put_eth(&d, 0x0800);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.tunnel, DMLS_TUN_ERSPAN);
	assert_int_equal(p.wire_bytes, 154);
	/* another version in the ERSPAN header: the outer GRE packet */
	d.b[14 + 20 + 8] = 0x30;
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.tunnel, DMLS_TUN_NONE);
	dbuf_free(&d);

	/* IP in IP nested deeper than MAX_NEST (4): opened 4 deep, no further */
	put_eth(&d, 0x0800);
	for (int k = 0; k < 6; k++)
		put_ipv4(&d, 5, (uint16_t)(20 * (6 - k) + 140), 1, 0x4000, 4, N1 + (uint32_t)k, N2);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	assert_int_equal(p.tunnel, DMLS_TUN_IPIP);
	assert_int_equal(p.proto, 4);
	assert_memory_equal(p.src + 12, "\xc6\x13\x00\x05", 4);
	assert_int_equal(p.wire_bytes, d.n);
	dbuf_free(&d);

	/* Geneve over IPv6 with 8 bytes of options, carrying IPv4 directly */
	put_eth(&d, 0x86dd);
	put_ipv6(&d, 8 + 16 + 140, 17, 1, 2);
	put_udp(&d, 40001, 6081, 8 + 16 + 140);
	put8(&d, 2);
	put8(&d, 0);
	put_be16(&d, 0x0800);
	put_be32(&d, 7u << 8);
	put(&d, NULL, 8);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.tunnel, DMLS_TUN_GENEVE);
	dbuf_free(&d);
}

static void test_mpls(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	put_eth(&d, 0x8847);
	put_be32(&d, 100u << 12 | 64);
	put_be32(&d, 200u << 12 | 1u << 8 | 64);
	tcp_pkt(&d, 140);
	check_link_tcp(1, &d, 14 + 8 + 140, 14 + 6);
	/* an Ethernet pseudowire (first nibble 0) is not IP */
	d.b[14 + 8] = 0x00;
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_NON_IP);
	dbuf_free(&d);
	/* no bottom of the stack within 8 labels */
	put_eth(&d, 0x8847);
	for (int k = 0; k < 9; k++)
		put_be32(&d, 100u << 12 | 64);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(1, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);
}

/* ERF, NFLOG and PKTAP records around the usual segment. */
static void test_wrappers(void **st)
{
	dbuf d = {0};
	dmls_pkt p;
	/* ERF: an extension header, then Ethernet after 2 bytes */
	put(&d, NULL, 8);
	put8(&d, 0x80 | 2);
	put8(&d, 0);
	put_be16(&d, 16 + 8 + 2 + 154);
	put_be16(&d, 0);
	put_be16(&d, 154);
	put8(&d, 3);
	put(&d, NULL, 7);
	put(&d, NULL, 2);
	put_eth(&d, 0x0800);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(197, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.wire_bytes, 154); /* the frame, not the ERF header */
	assert_int_equal(dec(197, &d, 20, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	d.b[8] = 0x80 | 3; /* ATM: not read */
	assert_int_equal(dec(197, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OTHER);
	d.b[16] = 0x83; /* an extension chain running off the record */
	d.b[8] = 0x80 | 2;
	assert_int_equal(dec(197, &d, 30, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);

	/* NFLOG with big-endian attributes: a prefix, then the payload */
	put8(&d, 2);
	put8(&d, 0);
	put_be16(&d, 0);
	put_be16(&d, 9);
	put_be16(&d, 10);
	put(&d, "dmls", 5);
	put(&d, NULL, 3);
	put_be16(&d, 4 + 140);
	put_be16(&d, 9);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(239, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.wire_bytes, 140);
	assert_int_equal(dec(239, &d, 16, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);

	/* PKTAP of an Ethernet frame (put_f32: little-endian); of a PKTAP
	 * record: not opened */
	put_f32(&d, 108);
	put_f32(&d, 1);
	put_f32(&d, 1);
	put(&d, NULL, 96);
	put_eth(&d, 0x0800);
	tcp_pkt(&d, 140);
	assert_int_equal(dec(258, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OK);
	check_tcp(&p);
	assert_int_equal(p.wire_bytes, 154);
	d.b[8] = 0x02, d.b[9] = 0x01; /* DLT 258 */
	assert_int_equal(dec(258, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_OTHER);
	d.b[8] = 1, d.b[9] = 0;
	d.b[0] = 0xff, d.b[1] = 0xff; /* a header longer than the record */
	assert_int_equal(dec(258, &d, (uint32_t)d.n, (uint32_t)d.n, &p), DMLS_DEC_TRUNCATED);
	dbuf_free(&d);
}

static void test_addr_format(void **st)
{
	uint8_t a[16] = {0};
	char s[64];
	a[10] = a[11] = 0xff;
	a[12] = 198, a[13] = 18, a[14] = 0, a[15] = 1;
	dmls_addr_format(a, s, sizeof(s));
	assert_string_equal(s, "198.18.0.1");
	dmls_addr_format(a, s, 5);
	assert_string_equal(s, "198.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ethernet_tcp),
		cmocka_unit_test(test_roce),
		cmocka_unit_test(test_vlan_qinq),
		cmocka_unit_test(test_non_ip_and_unknown),
		cmocka_unit_test(test_sll_sll2),
		cmocka_unit_test(test_ipoib),
		cmocka_unit_test(test_ppp_hdlc),
		cmocka_unit_test(test_raw_links),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_ipv4_options_udp),
		cmocka_unit_test(test_ipv4_fragments),
		cmocka_unit_test(test_ipv6_extensions),
		cmocka_unit_test(test_tso_super_packets),
		cmocka_unit_test(test_snaplen_cut),
		cmocka_unit_test(test_arista_stamp),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_tunnels),
		cmocka_unit_test(test_mpls),
		cmocka_unit_test(test_wrappers),
		cmocka_unit_test(test_addr_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
