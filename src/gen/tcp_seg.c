/*
 * tcp_seg.c - one Ethernet/IPv4/TCP frame of the generated traffic.
 *
 * Headers as Linux sends them on a 1500-byte MTU link with TCP timestamps
 * (RFC 7323): Ethernet II (14) + IPv4 without options (20, DF set, TTL 64)
 * + TCP with NOP NOP TS (32), so a full segment carries MSS 1448 bytes in
 * a 1514-byte frame.  SYN and SYN-ACK carry MSS, SACK-permitted, TS and
 * window scale (RFC 9293, RFC 2018).  Checksums are real (RFC 1071); the
 * payload is zeros, so it adds nothing to the TCP checksum.
 * MAC addresses are locally administered: 02:00:c6:12:<host + 1>.
 */
#include <string.h>

#include "gen/tcp_seg.h"

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t acc)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	return acc;
}

static uint16_t fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

static void put_addr(uint8_t *p, uint32_t host)
{
	p[0] = 198;
	p[1] = 18;
	p[2] = (uint8_t)((host + 1) >> 8);
	p[3] = (uint8_t)(host + 1);
}

static void put_mac(uint8_t *p, uint32_t host)
{
	p[0] = 0x02;
	p[1] = 0x00;
	put_addr(p + 2, host);
}

/* TCP options: returns their length (a multiple of 4). */
static size_t put_options(uint8_t *o, const gen_tcp_pkt *pk)
{
	if (pk->flags & GEN_TCP_SYN) {
		static const uint8_t syn[20] = {2, 4, DMLS_GEN_MSS >> 8, DMLS_GEN_MSS & 0xff,
						4, 2, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 3, 7};
		memcpy(o, syn, sizeof(syn));
		put32(o + 8, pk->tsval);
		put32(o + 12, pk->tsecr);
		return sizeof(syn);
	}
	o[0] = 1, o[1] = 1, o[2] = 8, o[3] = 10;
	put32(o + 4, pk->tsval);
	put32(o + 8, pk->tsecr);
	return 12;
}

size_t gen_tcp_frame(uint8_t *buf, const gen_tcp_pkt *pk, size_t keep)
{
	uint8_t *eth = buf, *ip = buf + 14, *tcp = buf + 34;
	put_mac(eth, pk->dst);
	put_mac(eth + 6, pk->src);
	put16(eth + 12, 0x0800);

	size_t thl = 20 + put_options(tcp + 20, pk);
	size_t tcp_len = thl + pk->payload;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint32_t)(20 + tcp_len));
	put16(ip + 4, pk->ip_id);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 6;
	put_addr(ip + 12, pk->src);
	put_addr(ip + 16, pk->dst);
	put16(ip + 10, fold(sum16(ip, 20, 0)));

	put16(tcp, pk->sport);
	put16(tcp + 2, pk->dport);
	put32(tcp + 4, pk->seq);
	put32(tcp + 8, pk->ack);
	tcp[12] = (uint8_t)((thl / 4) << 4);
	tcp[13] = pk->flags;
	put16(tcp + 14, pk->window);
	put16(tcp + 16, 0);
	put16(tcp + 18, 0);
	/* pseudo header (RFC 9293 3.1): addresses, protocol, TCP length */
	uint32_t acc = sum16(ip + 12, 8, 0) + 6 + (uint32_t)tcp_len;
	put16(tcp + 16, fold(sum16(tcp, thl, acc)));
	size_t end = 34 + tcp_len, from = 34 + thl;
	keep = keep < end ? keep : end;
	if (keep > from) /* zeros do not change the checksum: only what is kept */
		memset(tcp + thl, 0, keep - from);
	return end;
}
