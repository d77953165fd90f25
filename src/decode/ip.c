/*
 * ip.c - IPv4 (RFC 791), IPv6 (RFC 8200) and the TCP (RFC 9293) / UDP
 * (RFC 768) headers dmlscope counts.
 *
 * Volume comes from the headers' length fields, not from the captured
 * bytes: the study cut its captures at 100 bytes (tcpdump -s 100), and
 * tools that count captured bytes report a fraction of the traffic (nfdump
 * issue 287, Zeek issue 2517).  With L3 the link header length and avail
 * the bytes the original frame had from L3 on (origlen - L3):
 *
 *   IP length == 0 (IPv4 total length, IPv6 payload length: TSO, or an
 *       IPv6 jumbogram)           ip_bytes = avail,     wire = origlen
 *   IP length > avail (a segmentation-offload super-packet captured before
 *       the NIC split it)         ip_bytes = IP length, wire = L3 + ip_bytes
 *   otherwise                     ip_bytes = IP length, wire = origlen
 *                                 (Ethernet padding stays in wire)
 *
 * payload_bytes = ip_bytes - IP header(s) - TCP header (data offset) or
 * UDP header (8); other protocols (ICMP, ICMPv6's neighbour discovery,
 * ...) carry no application payload: 0.  The transport header must be long
 * enough to decode but need not be captured whole: a TCP header cut by the
 * snap length inside its options still gives ports, sequence numbers and
 * flags if its first 14 bytes are present.  One cut before its data offset
 * (byte 12: TCP over IPv6 at tcpdump -s 64 keeps 10 bytes of it) gives its
 * ports and sequence number if its first 8 are, and its payload is
 * estimated (tcp_cut).  IPv4 options are skipped by IHL; IPv6 extension
 * headers (hop-by-hop 0, routing 43, fragment 44, destination options 60,
 * AH 51 whose length is in 4-byte units, RFC 4302) are walked up to 16
 * deep.  A non-first fragment (IPv4 offset or IPv6 fragment offset not 0)
 * has no transport header: is_fragment, ports 0, payload = the fragment's
 * data (of a TCP or UDP datagram, else 0).  Every inconsistent length is
 * DMLS_DEC_TRUNCATED.
 */
#include <string.h>

#include "decode/decode_int.h"

#define MAX_EXT 16

/* TCP/UDP at l4; rem is what the IP length leaves after the IP headers. */
static int transport(const dmls_cursor *c, size_t l4, uint64_t rem, dmls_pkt *out,
		     size_t *l4_out)
{
	*l4_out = l4;
	if (out->proto == 6) {
		uint8_t h[14];
		if (!dmls_cur_copy(c, l4, h, sizeof(h))) {
			/* cut before the data offset: ports and sequence number,
			 * the payload estimated (decode.h, tcp_cut) */
			if (rem < 20 || !dmls_cur_copy(c, l4, h, 8))
				return DMLS_DEC_TRUNCATED;
			out->sport = (uint16_t)(h[0] << 8 | h[1]);
			out->dport = (uint16_t)(h[2] << 8 | h[3]);
			out->tcp_seq = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 |
				       (uint32_t)h[6] << 8 | h[7];
			out->tcp_cut = true;
			out->payload_bytes =
				rem > DMLS_TCP_CUT_HDR_BYTES ? rem - DMLS_TCP_CUT_HDR_BYTES : 0;
			return DMLS_DEC_OK;
		}
		unsigned doff = (unsigned)(h[12] >> 4) * 4;
		if (doff < 20 || doff > rem)
			return DMLS_DEC_TRUNCATED;
		out->sport = (uint16_t)(h[0] << 8 | h[1]);
		out->dport = (uint16_t)(h[2] << 8 | h[3]);
		out->tcp_seq = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
		out->tcp_ack = (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
		out->tcp_flags = h[13];
		out->payload_bytes = rem - doff;
	} else if (out->proto == 17) {
		if (!dmls_cur_be16(c, l4, &out->sport) || !dmls_cur_be16(c, l4 + 2, &out->dport) ||
		    rem < 8)
			return DMLS_DEC_TRUNCATED;
		out->payload_bytes = rem - 8;
		uint8_t bth[12]; /* InfiniBand's base transport header (IBTA vol. 1, 9.2) */
		if (out->dport == DMLS_ROCE_PORT && rem >= 8 + sizeof(bth) &&
		    dmls_cur_copy(c, l4 + 8, bth, sizeof(bth))) {
			out->roce = true;
			out->bth_opcode = bth[0];
			out->bth_qp = (uint32_t)bth[5] << 16 | (uint32_t)bth[6] << 8 | bth[7];
			out->bth_psn = (uint32_t)bth[9] << 16 | (uint32_t)bth[10] << 8 | bth[11];
		}
	} else {
		out->payload_bytes = 0; /* ICMP, ICMPv6 (neighbour discovery), ...: no application data */
	}
	return DMLS_DEC_OK;
}

/* Lengths from the IP length field len (0: unknown) and hlen, the fixed
 * header's size (the minimum ip_bytes). */
static int lengths(size_t l3, uint32_t origlen, uint64_t len, unsigned hlen, dmls_pkt *out)
{
	uint64_t avail = origlen > l3 ? origlen - l3 : 0;
	if (len == 0) {
		len = avail;
		out->wire_bytes = origlen;
	} else if (len > avail) {
		out->wire_bytes = l3 + len;
	} else {
		out->wire_bytes = origlen;
	}
	if (len < hlen)
		return DMLS_DEC_TRUNCATED;
	out->ip_bytes = len;
	return DMLS_DEC_OK;
}

static int ipv4(const dmls_cursor *c, size_t l3, uint32_t origlen, dmls_pkt *out, size_t *l4)
{
	uint8_t h[20];
	if (!dmls_cur_copy(c, l3, h, sizeof(h)))
		return DMLS_DEC_TRUNCATED;
	unsigned ihl = (h[0] & 0x0fu) * 4;
	if (ihl < 20 || !dmls_cur_has(c, l3, ihl))
		return DMLS_DEC_TRUNCATED;
	out->af = 4;
	out->proto = h[9];
	out->ip_id = (uint32_t)(h[4] << 8 | h[5]);
	out->src[10] = out->src[11] = out->dst[10] = out->dst[11] = 0xff;
	memcpy(out->src + 12, h + 12, 4);
	memcpy(out->dst + 12, h + 16, 4);
	if (lengths(l3, origlen, (uint64_t)(h[2] << 8 | h[3]), ihl, out))
		return DMLS_DEC_TRUNCATED;
	unsigned frag = (unsigned)((h[6] & 0x1f) << 8 | h[7]);
	if (frag) {
		out->is_fragment = true;
		out->payload_bytes = out->proto == 6 || out->proto == 17 ? out->ip_bytes - ihl : 0;
		return DMLS_DEC_OK;
	}
	return transport(c, l3 + ihl, out->ip_bytes - ihl, out, l4);
}

static int ipv6(const dmls_cursor *c, size_t l3, uint32_t origlen, dmls_pkt *out, size_t *l4)
{
	uint8_t h[40];
	if (!dmls_cur_copy(c, l3, h, sizeof(h)))
		return DMLS_DEC_TRUNCATED;
	out->af = 6;
	memcpy(out->src, h + 8, 16);
	memcpy(out->dst, h + 24, 16);
	uint64_t plen = (uint64_t)(h[4] << 8 | h[5]);
	if (lengths(l3, origlen, plen ? 40 + plen : 0, 40, out))
		return DMLS_DEC_TRUNCATED;
	uint8_t nh = h[6];
	uint64_t hdr = 40;
	for (int i = 0; i < MAX_EXT; i++) {
		uint8_t e[8];
		uint64_t len;
		bool later_fragment = false;
		if (nh != 0 && nh != 43 && nh != 44 && nh != 60 && nh != 51)
			break;
		if (!dmls_cur_copy(c, l3 + hdr, e, nh == 44 ? 8 : 2))
			return DMLS_DEC_TRUNCATED;
		if (nh == 44) {
			len = 8;
			out->ip_id = (uint32_t)e[4] << 24 | (uint32_t)e[5] << 16 |
				     (uint32_t)e[6] << 8 | e[7];
			later_fragment = (e[2] << 8 | e[3]) & 0xfff8;
		} else if (nh == 51) {
			len = ((uint64_t)e[1] + 2) * 4;
		} else {
			len = ((uint64_t)e[1] + 1) * 8;
		}
		hdr += len;
		nh = e[0];
		if (hdr > out->ip_bytes)
			return DMLS_DEC_TRUNCATED;
		if (later_fragment) {
			out->proto = nh;
			out->is_fragment = true;
			out->payload_bytes = nh == 6 || nh == 17 ? out->ip_bytes - hdr : 0;
			return DMLS_DEC_OK;
		}
	}
	out->proto = nh;
	return transport(c, l3 + hdr, out->ip_bytes - hdr, out, l4);
}

int dmls_decode_ip(const dmls_cursor *c, size_t l3, int want, uint32_t origlen,
		   dmls_pkt *out, size_t *l4)
{
	uint8_t v;
	*l4 = 0;
	if (!dmls_cur_u8(c, l3, &v))
		return DMLS_DEC_TRUNCATED;
	v >>= 4;
	if ((v != 4 && v != 6) || (want && v != want))
		return DMLS_DEC_TRUNCATED;
	memset(out, 0, sizeof(*out));
	return v == 4 ? ipv4(c, l3, origlen, out, l4) : ipv6(c, l3, origlen, out, l4);
}
