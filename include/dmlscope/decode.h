/*
 * decode.h - from link-layer bytes to the fields dmlscope counts.
 *
 * Decodes Ethernet (802.1Q, QinQ, MPLS), Linux cooked SLL and SLL2, raw
 * IP, BSD loopback/null, IP over InfiniBand, then IPv4 (options,
 * fragments) / IPv6 (extension headers) and TCP / UDP, only through
 * bounds-checked accessors (src/decode/cursor.h).  Packet bytes are
 * untrusted.
 *
 * Tunnels are opened (src/decode/link.c): a packet in VXLAN, Geneve, GRE,
 * IP in IP or an ERSPAN mirror is described by its inner headers (hosts,
 * ports, payload), since those are the ranks of a job on an overlay
 * network.  wire_bytes stays the outer frame's (the bytes the link
 * carried), except for ERSPAN, whose outer headers exist only on the way
 * to the analyzer: there it is the mirrored frame's.
 *
 * Volume comes from lengths, not from captured bytes, so snap-length cut
 * captures (the study used -s 100) count right:
 *   wire_bytes    = the record's original length, or, for a segmentation-
 *                   offload super-packet whose IP total length exceeds the
 *                   frame (or is 0), link header + IP length (IPv4 total
 *                   length 0 with TSO: derived from origlen).
 *   ip_bytes      = IP total length (IPv6: 40 + payload length)
 *   payload_bytes = ip_bytes - IP headers - TCP/UDP header (application bytes)
 */
#ifndef DMLSCOPE_DECODE_H
#define DMLSCOPE_DECODE_H

#include <stdbool.h>
#include <stdint.h>

enum dmls_decode_status {
	DMLS_DEC_OK = 0,        /* IP packet decoded (transport may be other) */
	DMLS_DEC_TRUNCATED = 1, /* too short or malformed to decode */
	DMLS_DEC_NON_IP = 2,    /* ARP, STP, ... : not IP */
	DMLS_DEC_OTHER = 3,     /* unknown link type */
};

/* TCP flag bits as on the wire */
#define DMLS_TCP_FIN 0x01
#define DMLS_TCP_SYN 0x02
#define DMLS_TCP_RST 0x04
#define DMLS_TCP_PSH 0x08
#define DMLS_TCP_ACK 0x10

typedef struct dmls_pkt {
	int64_t ts_ns;
	uint8_t af;       /* 4 or 6 */
	uint8_t proto;    /* IP protocol: 6 TCP, 17 UDP, others */
	uint8_t src[16];  /* IPv4 as ::ffff:a.b.c.d (v4-mapped), IPv6 as is */
	uint8_t dst[16];
	uint16_t sport;   /* 0 unless TCP/UDP */
	uint16_t dport;
	bool is_fragment; /* non-first fragment: no ports */
	uint64_t wire_bytes;
	uint64_t ip_bytes;
	uint64_t payload_bytes;
	uint32_t ip_id;   /* IPv4 id; IPv6 fragment id or 0 */
	uint32_t tcp_seq;
	uint32_t tcp_ack;
	uint8_t tcp_flags;
	bool tcp_cut;     /* TCP header cut by the snap length before its data
			   * offset: ports and tcp_seq read; tcp_ack and
			   * tcp_flags unknown (0); payload_bytes estimated as
			   * what the IP length leaves less a TCP header of
			   * DMLS_TCP_CUT_HDR_BYTES */
	uint8_t tunnel;   /* the fields above are the inner packet's: a dmls_tunnel */
	/* RoCEv2 (UDP to 4791) with its base transport header captured: */
	bool roce;
	uint8_t bth_opcode; /* transport class (bits 7-5) and operation */
	uint32_t bth_qp;    /* destination queue pair (24 bits) */
	uint32_t bth_psn;   /* packet sequence number (24 bits) */
} dmls_pkt;

/* The TCP header a cut one is taken to have: Linux's on an established
 * connection (20 bytes and the 12 of the timestamp option, on by default).
 * Headers run from 20 to 60 bytes, so an estimate is at most
 * DMLS_TCP_CUT_SLACK_BYTES above the truth (12 below: no timestamps). */
#define DMLS_TCP_CUT_HDR_BYTES 32
#define DMLS_TCP_CUT_SLACK_BYTES (60 - DMLS_TCP_CUT_HDR_BYTES)
#define DMLS_TCP_CUT_UNDER_BYTES (DMLS_TCP_CUT_HDR_BYTES - 20)

#define DMLS_ROCE_PORT 4791 /* RoCEv2's UDP destination port (IANA) */

/* The encapsulation a packet was found in (the innermost one opened). */
enum dmls_tunnel {
	DMLS_TUN_NONE = 0,
	DMLS_TUN_IPIP,   /* IPv4/IPv6 in IPv4/IPv6 (IP protocols 4, 41) */
	DMLS_TUN_GRE,    /* GRE (RFC 2784, 2890) carrying IP or Ethernet */
	DMLS_TUN_VXLAN,  /* VXLAN (RFC 7348), UDP 4789 or Linux's 8472 */
	DMLS_TUN_GENEVE, /* Geneve (RFC 8926), UDP 6081 */
	DMLS_TUN_ERSPAN, /* ERSPAN types I-III: a switch's port mirror */
};

/* Decode one record.  Returns a dmls_decode_status; out is filled when it
 * returns DMLS_DEC_OK (out->ts_ns is left for the caller to set). */
int dmls_decode(int linktype, const uint8_t *data, uint32_t caplen,
		uint32_t origlen, dmls_pkt *out);
/* The same with flags: DMLS_DECODE_OUTER leaves tunnels closed (a packet
 * is its outermost IP header's: the underlay's view of an overlay). */
#define DMLS_DECODE_OUTER 1u
int dmls_decode_ex(int linktype, const uint8_t *data, uint32_t caplen, uint32_t origlen,
		   unsigned flags, dmls_pkt *out);

/* Format an address as text ("198.18.0.1" for v4-mapped, else RFC 5952). */
void dmls_addr_format(const uint8_t addr[16], char *buf, unsigned len);
/* True if addr is IPv4-mapped. */
bool dmls_addr_is_v4(const uint8_t addr[16]);
/* An address of the link only, not of a host's routed traffic: IPv4
 * multicast, broadcast and class E (224/3), link-local (169.254/16) and
 * 0.0.0.0; IPv6 unspecified (::), link-local (fe80::/10) and multicast
 * (ff00::/8): neighbour discovery, MLD, DHCP, mDNS. */
bool dmls_addr_is_local(const uint8_t addr[16]);

#endif
