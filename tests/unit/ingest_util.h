/*
 * ingest_util.h - hand-built packets and capture files for the ingest tests
 * (test_decode.c, test_reader.c, test_input.c).  A dbuf is a growable byte
 * buffer; the put_* helpers append big-endian (network order) fields and
 * the pcap_* / ng_* helpers lay out capture files byte by byte, so every
 * test states exactly which bytes it feeds the code under test.
 */
#ifndef DMLS_TESTS_INGEST_UTIL_H
#define DMLS_TESTS_INGEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct dbuf {
	uint8_t *b;
	size_t n, cap;
	int be; /* put32/put16 of file headers: big-endian if set */
} dbuf;

static inline void put(dbuf *d, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (d->n + n > d->cap) {
		d->cap = (d->n + n) * 2 + 64;
		d->b = realloc(d->b, d->cap);
	}
	if (p)
		memcpy(d->b + d->n, p, n);
	else
		memset(d->b + d->n, 0, n);
	d->n += n;
}
static inline void put8(dbuf *d, uint8_t v) { put(d, &v, 1); }
static inline void put_be16(dbuf *d, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
	put(d, b, 2);
}
static inline void put_be32(dbuf *d, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
	put(d, b, 4);
}
/* file byte order (d->be) */
static inline void put_f16(dbuf *d, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	if (d->be) { b[0] = (uint8_t)(v >> 8); b[1] = (uint8_t)v; }
	put(d, b, 2);
}
static inline void put_f32(dbuf *d, uint32_t v)
{
	if (d->be)
		put_be32(d, v);
	else {
		uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
		put(d, b, 4);
	}
}
static inline void dbuf_free(dbuf *d) { free(d->b); memset(d, 0, sizeof(*d)); }

/* Ethernet header with the given EtherType. */
static inline void put_eth(dbuf *d, uint16_t et)
{
	static const uint8_t mac[12] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2};
	put(d, mac, 12);
	put_be16(d, et);
}

/* IPv4 header: ihl in 32-bit words (options zero-filled), frag = flags and
 * offset field, addresses as 0xC0A80001 etc. */
static inline void put_ipv4(dbuf *d, unsigned ihl, uint16_t totlen, uint16_t id, uint16_t frag,
			    uint8_t proto, uint32_t src, uint32_t dst)
{
	put8(d, (uint8_t)(0x40 | ihl));
	put8(d, 0);
	put_be16(d, totlen);
	put_be16(d, id);
	put_be16(d, frag);
	put8(d, 64);
	put8(d, proto);
	put_be16(d, 0);
	put_be32(d, src);
	put_be32(d, dst);
	if (ihl > 5)
		put(d, NULL, (ihl - 5) * 4);
}

static inline void put_ipv6(dbuf *d, uint16_t plen, uint8_t nh, uint8_t srclast, uint8_t dstlast)
{
	put_be32(d, 0x60000000);
	put_be16(d, plen);
	put8(d, nh);
	put8(d, 64);
	uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8};
	a[15] = srclast;
	put(d, a, 16);
	a[15] = dstlast;
	put(d, a, 16);
}

/* TCP header of doff 32-bit words (options zero-filled). */
static inline void put_tcp(dbuf *d, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack,
			   unsigned doff, uint8_t flags)
{
	put_be16(d, sport);
	put_be16(d, dport);
	put_be32(d, seq);
	put_be32(d, ack);
	put8(d, (uint8_t)(doff << 4));
	put8(d, flags);
	put_be16(d, 65535);
	put_be32(d, 0);
	if (doff > 5)
		put(d, NULL, (doff - 5) * 4);
}

static inline void put_udp(dbuf *d, uint16_t sport, uint16_t dport, uint16_t len)
{
	put_be16(d, sport);
	put_be16(d, dport);
	put_be16(d, len);
	put_be16(d, 0);
}

/* pcap file header; magic 0xa1b2c3d4 (us) or 0xa1b23c4d (ns). */
static inline void pcap_hdr(dbuf *d, uint32_t magic, uint32_t linktype)
{
	put_f32(d, magic);
	put_f16(d, 2);
	put_f16(d, 4);
	put_f32(d, 0);
	put_f32(d, 0);
	put_f32(d, 262144);
	put_f32(d, linktype);
}

static inline void pcap_rec(dbuf *d, uint32_t sec, uint32_t frac, const uint8_t *data,
			    uint32_t caplen, uint32_t origlen)
{
	put_f32(d, sec);
	put_f32(d, frac);
	put_f32(d, caplen);
	put_f32(d, origlen);
	put(d, data, caplen);
}

/* pcapng blocks (byte order d->be) */
static inline void ng_shb(dbuf *d)
{
	put_f32(d, 0x0a0d0d0a);
	put_f32(d, 28);
	put_f32(d, 0x1a2b3c4d);
	put_f16(d, 1);
	put_f16(d, 0);
	put_f32(d, 0xffffffff);
	put_f32(d, 0xffffffff);
	put_f32(d, 28);
}

/* IDB; tsresol < 0: no option. */
static inline void ng_idb(dbuf *d, uint16_t linktype, uint32_t snaplen, int tsresol)
{
	uint32_t len = 20 + (tsresol >= 0 ? 12 : 0);
	put_f32(d, 1);
	put_f32(d, len);
	put_f16(d, linktype);
	put_f16(d, 0);
	put_f32(d, snaplen);
	if (tsresol >= 0) {
		put_f16(d, 9);
		put_f16(d, 1);
		uint8_t v[4] = {(uint8_t)tsresol};
		put(d, v, 4);
		put_f32(d, 0); /* opt_endofopt */
	}
	put_f32(d, len);
}

static inline void ng_epb(dbuf *d, uint32_t iface, uint64_t ts, const uint8_t *data,
			  uint32_t caplen, uint32_t origlen)
{
	uint32_t pad = (4 - caplen % 4) % 4, len = 32 + caplen + pad;
	put_f32(d, 6);
	put_f32(d, len);
	put_f32(d, iface);
	put_f32(d, (uint32_t)(ts >> 32));
	put_f32(d, (uint32_t)ts);
	put_f32(d, caplen);
	put_f32(d, origlen);
	put(d, data, caplen);
	put(d, NULL, pad);
	put_f32(d, len);
}

/* Write d to a new temp file; returns its path (free it, unlink it). */
static inline char *temp_file(const dbuf *d)
{
	char *path = strdup("/tmp/dmls-test-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (d->n && write(fd, d->b, d->n) != (ssize_t)d->n) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

#endif
