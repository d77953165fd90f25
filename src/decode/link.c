/*
 * link.c - link-layer headers: from a record's bytes to its IP header.
 *
 * Link types are the LINKTYPE_ values of https://www.tcpdump.org/linktypes.html
 * (the numbers pcap and pcapng files carry, not the platform's DLT_ values):
 *
 *   0   NULL      BSD loopback: 4-byte address family in the *writer's*
 *                 byte order (AF_INET 2; AF_INET6 is 10, 24, 28 or 30
 *                 depending on the OS); a value above 0xffff is byte-swapped
 *   108 LOOP      OpenBSD loopback: the same family, in network byte order
 *   1   ETHERNET  dst (6), src (6), EtherType (2); 0x8100 (802.1Q),
 *                 0x88a8 (802.1ad) and 0x9100/0x9200 (old QinQ) tags of
 *                 4 bytes each are skipped, any number up to 8; an 802.3
 *                 length (< 0x600) with an LLC/SNAP header (aa aa 03,
 *                 OUI 0) carries an EtherType too
 *   113 LINUX_SLL  packet type, ARPHRD type, address length, address (8),
 *                 protocol (2): 16 bytes
 *   276 LINUX_SLL2 protocol (2), reserved, interface index (4), ARPHRD
 *                 type, packet type, address length, address (8): 20 bytes
 *   242 IPOIB     IP over InfiniBand (RFC 4391) as Linux hands it over: a
 *                 40-byte pseudo header (the address), then the 4-byte
 *                 encapsulation header, EtherType (2) and reserved (2):
 *                 IP at 44 (tcpdump's print-ipoib.c, Wireshark's ipoib)
 *   197 ERF       Endace's Extensible Record Format (DAG capture cards): a
 *                 16-byte record header whose type byte (bit 7: 8-byte
 *                 extension headers follow, chained by their own bit 7)
 *                 says what comes next: Ethernet types (2, 11, 16, 20)
 *                 after 2 bytes of offset and padding, IPv4 (22), IPv6 (23)
 *   239 NFLOG     Linux netfilter's log: family, version, resource id (4),
 *                 then type-length-value attributes (length and type in
 *                 the writer's byte order, little-endian tried first; each
 *                 padded to 4 bytes); the payload (type 9) is the packet
 *   258 PKTAP     Apple's per-packet metadata (struct pktap_header): its
 *                 own length, the record type (1: a packet) and the
 *                 packet's DLT, 4 bytes each, little-endian
 * ERF, NFLOG and PKTAP wrap a packet of another link type; the packet is
 * decoded as that one (once: a wrapper in a wrapper is not opened), and
 * the wrapper's bytes are not wire bytes.
 *   9   PPP       PPP (RFC 1661): address and control (ff 03) when not
 *                 compressed away, then the protocol, 1 byte when odd
 *                 (field compression), else 2: IPv4 0x21, IPv6 0x57, MPLS
 *                 0x281 and 0x283
 *   50  PPP_HDLC  PPP in HDLC-like framing (RFC 1662): the same; a frame
 *                 starting 0f or 8f is Cisco HDLC (as tcpdump reads it)
 *   51  PPP_ETHER PPPoE (RFC 2516): a 6-byte session header, then PPP's
 *                 protocol; EtherType 0x8864 (a PPPoE session) opens the
 *                 same in Ethernet and the cooked headers
 *   104 C_HDLC    Cisco HDLC: address, control, then an EtherType
 *   101 RAW (and 12, 14: DLT_RAW's values on some platforms, seen in files)
 *   228 IPV4, 229 IPV6: the IP header at once
 *
 * The cooked headers' protocol is an EtherType for IP, so SLL and SLL2 go
 * through the same EtherType dispatch (and VLAN skip) as Ethernet.  An MPLS
 * label stack (EtherType 0x8847, 0x8848; RFC 3032) is skipped to its
 * bottom label, and what follows is IP when its first nibble says 4 or 6
 * (an Ethernet pseudowire is not opened).
 *
 * Tunnels, opened up to MAX_NEST deep once the outer packet is decoded:
 *   IP protocol 4, 41   IPv4 / IPv6 in IP (Calico's IPIP, 6in4, ip6tnl)
 *   IP protocol 47      GRE (RFC 2784, key and sequence of RFC 2890;
 *                       version 0, no RFC 1701 routing): IPv4 0x0800,
 *                       IPv6 0x86dd, Ethernet 0x6558 (transparent
 *                       bridging), ERSPAN type I and II 0x88be (II when
 *                       the sequence bit is set: an 8-byte header of
 *                       version 1), type III 0x22eb (12 bytes of version
 *                       2, 8 more when its O bit is set)
 *   UDP to 4789, 8472   VXLAN (RFC 7348; 8472 is the Linux kernel's and
 *                       flannel's port): the I flag set, then Ethernet
 *   UDP to 6081         Geneve (RFC 8926, version 0): Ethernet 0x6558 or IP
 * A tunnel's inner packet replaces the outer one's fields: an overlay's
 * hosts are its pods or containers, the ranks of a job.  wire_bytes stays
 * the outer frame's, what the link carried (ERSPAN: the mirrored frame's,
 * since the outer headers are the mirror's own).  An inner packet that is
 * not IP (ARP over VXLAN) is DMLS_DEC_NON_IP; one that the snap length cut
 * too short to decode leaves the outer packet as it was (its volume still
 * counts, between the tunnel's end points).
 */
#include "decode/decode_int.h"

enum {
	LT_NULL = 0,
	LT_ETHERNET = 1,
	LT_PPP = 9,
	LT_PPP_HDLC = 50,
	LT_PPP_ETHER = 51,
	LT_C_HDLC = 104,
	LT_RAW_12 = 12,
	LT_RAW_14 = 14,
	LT_RAW = 101,
	LT_LOOP = 108,
	LT_SLL = 113,
	LT_IPV4 = 228,
	LT_IPV6 = 229,
	LT_ERF = 197,
	LT_NFLOG = 239,
	LT_IPOIB = 242,
	LT_PKTAP = 258,
	LT_SLL2 = 276,
};

#define ET_IPV4 0x0800
#define ET_IPV6 0x86dd
#define ET_MPLS 0x8847
#define ET_MPLS_MC 0x8848
#define ET_PPPOE 0x8864    /* a PPPoE session */
#define ET_TEB 0x6558      /* transparent Ethernet bridging (GRE, Geneve) */
#define ET_ERSPAN 0x88be   /* ERSPAN type I and II */
#define ET_ERSPAN3 0x22eb  /* ERSPAN type III */
#define ET_ARISTA 0xd28b   /* Arista's vendor header: a tap aggregator's time stamp */
#define MAX_TAGS 8
#define MAX_LABELS 8
#define MAX_NEST 4

/* IP after an MPLS label stack whose first label is at off. */
static int mpls(const dmls_cursor *c, size_t off, uint32_t origlen, dmls_pkt *out, size_t *l4)
{
	for (int n = 0; n < MAX_LABELS; n++, off += 4) {
		uint8_t b2;
		if (!dmls_cur_u8(c, off + 2, &b2))
			return DMLS_DEC_TRUNCATED;
		if (!(b2 & 1))
			continue; /* not the bottom of the stack */
		uint8_t v;
		if (!dmls_cur_u8(c, off + 4, &v))
			return DMLS_DEC_TRUNCATED;
		v >>= 4;
		return v == 4 || v == 6 ? dmls_decode_ip(c, off + 4, v, origlen, out, l4)
					: DMLS_DEC_NON_IP;
	}
	return DMLS_DEC_TRUNCATED;
}

/* PPP at off (RFC 1661): address and control when there, the protocol
 * (1 byte when odd: field compression), then IP or an MPLS stack. */
static int ppp(const dmls_cursor *c, size_t off, uint32_t origlen, dmls_pkt *out, size_t *l4)
{
	uint8_t b0, b1;
	if (!dmls_cur_u8(c, off, &b0) || !dmls_cur_u8(c, off + 1, &b1))
		return DMLS_DEC_TRUNCATED;
	if (b0 == 0xff && b1 == 0x03) {
		off += 2;
		if (!dmls_cur_u8(c, off, &b0) || !dmls_cur_u8(c, off + 1, &b1))
			return DMLS_DEC_TRUNCATED;
	}
	uint16_t proto = b0;
	if (b0 & 1)
		off += 1;
	else
		proto = (uint16_t)(b0 << 8 | b1), off += 2;
	if (proto == 0x21)
		return dmls_decode_ip(c, off, 4, origlen, out, l4);
	if (proto == 0x57)
		return dmls_decode_ip(c, off, 6, origlen, out, l4);
	if (proto == 0x281 || proto == 0x283)
		return mpls(c, off, origlen, out, l4);
	return DMLS_DEC_NON_IP;
}

/* Dispatch on EtherType et, its header at off. */
static int ethertype_at(const dmls_cursor *c, uint16_t et, size_t off, uint32_t origlen,
			dmls_pkt *out, size_t *l4)
{
	if (et == ET_IPV4)
		return dmls_decode_ip(c, off, 4, origlen, out, l4);
	if (et == ET_IPV6)
		return dmls_decode_ip(c, off, 6, origlen, out, l4);
	if (et == ET_MPLS || et == ET_MPLS_MC)
		return mpls(c, off, origlen, out, l4);
	if (et == ET_PPPOE) /* version and type, code, session (2), length (2) */
		return ppp(c, off + 6, origlen, out, l4);
	return DMLS_DEC_NON_IP;
}

/* The bytes from off, just after an Arista EtherType, to the EtherType of
 * the frame it stamped: subtype 1 (a time stamp), a version whose low
 * byte names a 64- or 48-bit stamp, the stamp (tcpdump's print-arista.c).
 * 0 for another subtype or version, -1 when cut. */
static int arista_len(const dmls_cursor *c, size_t off)
{
	uint16_t sub, ver;
	if (!dmls_cur_be16(c, off, &sub) || !dmls_cur_be16(c, off + 2, &ver))
		return -1;
	if (sub != 1 || ((ver & 0xff) != 0x10 && (ver & 0xff) != 0x20))
		return 0;
	return 4 + ((ver & 0xff) == 0x10 ? 8 : 6);
}

/* Dispatch on the EtherType at et_off; the header after it starts at off.
 * VLAN tags (TCI, then the next EtherType) are skipped, and so is an
 * Arista time stamp, which a tap aggregator inserted: its bytes (with its
 * EtherType) are not wire bytes, as a wrapper's are not. */
static int ethertype(const dmls_cursor *c, size_t et_off, size_t off, uint32_t origlen,
		     dmls_pkt *out, size_t *l4)
{
	uint16_t et;
	uint32_t inserted = 0;
	if (!dmls_cur_be16(c, et_off, &et))
		return DMLS_DEC_TRUNCATED;
	for (int tags = 0; et == 0x8100 || et == 0x88a8 || et == 0x9100 || et == 0x9200 ||
			   et == ET_ARISTA;
	     tags++) {
		int arista = et == ET_ARISTA, skip = arista ? arista_len(c, off) : 2;
		if (skip == 0)
			return DMLS_DEC_NON_IP;
		if (tags == MAX_TAGS || skip < 0 || !dmls_cur_be16(c, off + (size_t)skip, &et))
			return DMLS_DEC_TRUNCATED;
		if (arista)
			inserted += (uint32_t)skip + 2;
		off += (size_t)skip + 2;
	}
	int rc = ethertype_at(c, et, off, origlen, out, l4);
	if (rc == DMLS_DEC_OK && inserted) { /* the frame as the link carried it */
		if (out->wire_bytes <= inserted)
			return DMLS_DEC_TRUNCATED;
		out->wire_bytes -= inserted;
	}
	return rc;
}

/* The Ethernet frame starting at offset at. */
static int ethernet(const dmls_cursor *c, size_t at, uint32_t origlen, dmls_pkt *out,
		    size_t *l4)
{
	uint16_t et;
	if (!dmls_cur_be16(c, at + 12, &et))
		return DMLS_DEC_TRUNCATED;
	if (et >= 0x0600)
		return ethertype(c, at + 12, at + 14, origlen, out, l4);
	/* 802.3 length field: only LLC/SNAP with OUI 0 carries IP */
	uint8_t llc[6];
	if (!dmls_cur_copy(c, at + 14, llc, sizeof(llc)))
		return DMLS_DEC_NON_IP;
	if (llc[0] != 0xaa || llc[1] != 0xaa || llc[2] != 0x03 || llc[3] || llc[4] || llc[5])
		return DMLS_DEC_NON_IP;
	return ethertype(c, at + 20, at + 22, origlen, out, l4);
}

static int loopback(const dmls_cursor *c, bool network_order, uint32_t origlen,
		    dmls_pkt *out, size_t *l4)
{
	uint32_t af;
	if (!(network_order ? dmls_cur_be32(c, 0, &af) : dmls_cur_le32(c, 0, &af)))
		return DMLS_DEC_TRUNCATED;
	if (!network_order && af > 0xffff)
		af = __builtin_bswap32(af);
	if (af == 2)
		return dmls_decode_ip(c, 4, 4, origlen, out, l4);
	if (af == 10 || af == 24 || af == 28 || af == 30)
		return dmls_decode_ip(c, 4, 6, origlen, out, l4);
	return DMLS_DEC_NON_IP;
}

/* What a tunnel carries, and where. */
typedef struct inner_at {
	int kind;    /* a dmls_tunnel; DMLS_TUN_NONE: not a tunnel we open */
	size_t off;  /* its first byte */
	int ip;      /* 4 or 6: an IP packet; 0: an Ethernet frame */
} inner_at;

static inner_at by_type(int kind, size_t off, uint16_t type)
{
	if (type == ET_IPV4 || type == ET_IPV6)
		return (inner_at){kind, off, type == ET_IPV4 ? 4 : 6};
	if (type == ET_TEB)
		return (inner_at){kind, off, 0};
	return (inner_at){DMLS_TUN_NONE, 0, 0};
}

/* GRE at off: its payload, or none. */
static inner_at gre(const dmls_cursor *c, size_t off)
{
	static const inner_at none = {DMLS_TUN_NONE, 0, 0};
	uint16_t flags, type;
	if (!dmls_cur_be16(c, off, &flags) || !dmls_cur_be16(c, off + 2, &type))
		return none;
	if ((flags & 0x7) != 0 || (flags & 0x4000))
		return none; /* version 1 (PPTP) or source routing: not opened */
	size_t h = 4 + ((flags & 0x8000) ? 4 : 0) + ((flags & 0x2000) ? 4 : 0) +
		   ((flags & 0x1000) ? 4 : 0);
	uint8_t v;
	if (type == ET_ERSPAN && !(flags & 0x1000))
		return (inner_at){DMLS_TUN_ERSPAN, off + h, 0}; /* type I: no header */
	if (type == ET_ERSPAN) /* type II: version 1 in the top nibble */
		return dmls_cur_u8(c, off + h, &v) && v >> 4 == 1
			       ? (inner_at){DMLS_TUN_ERSPAN, off + h + 8, 0}
			       : none;
	if (type == ET_ERSPAN3) { /* version 2; bytes 10-11: P, FT (5 bits), HW ID, D, Gra, O */
		uint16_t w;
		if (!dmls_cur_u8(c, off + h, &v) || v >> 4 != 2 || !dmls_cur_be16(c, off + h + 10, &w) ||
		    ((w >> 10) & 0x1f) != 0) /* frame type 0: Ethernet */
			return none;
		return (inner_at){DMLS_TUN_ERSPAN, off + h + 12 + ((w & 1) ? 8 : 0), 0};
	}
	return by_type(DMLS_TUN_GRE, off + h, type);
}

/* The tunnel the decoded packet o is, its headers starting at l4. */
static inner_at tunnel_of(const dmls_cursor *c, const dmls_pkt *o, size_t l4)
{
	static const inner_at none = {DMLS_TUN_NONE, 0, 0};
	if (o->is_fragment || l4 == 0)
		return none;
	if (o->proto == 4 || o->proto == 41)
		return (inner_at){DMLS_TUN_IPIP, l4, o->proto == 4 ? 4 : 6};
	if (o->proto == 47)
		return gre(c, l4);
	if (o->proto != 17)
		return none;
	size_t u = l4 + 8;
	uint8_t b0, b7;
	if (o->dport == 4789 || o->dport == 8472) {
		/* the I flag, and the reserved last byte zero */
		if (!dmls_cur_u8(c, u, &b0) || !dmls_cur_u8(c, u + 7, &b7) || !(b0 & 0x08) || b7)
			return none;
		return (inner_at){DMLS_TUN_VXLAN, u + 8, 0};
	}
	if (o->dport == 6081) {
		uint16_t type;
		if (!dmls_cur_u8(c, u, &b0) || b0 >> 6 != 0 || !dmls_cur_be16(c, u + 2, &type))
			return none;
		return by_type(DMLS_TUN_GENEVE, u + 8 + (size_t)(b0 & 0x3f) * 4, type);
	}
	return none;
}

/* Open the tunnels out is in (its headers after IP at l4). */
static int decapsulate(const dmls_cursor *c, uint32_t origlen, dmls_pkt *out, size_t l4)
{
	for (int depth = 0; depth < MAX_NEST; depth++) {
		inner_at t = tunnel_of(c, out, l4);
		if (t.kind == DMLS_TUN_NONE)
			return DMLS_DEC_OK;
		dmls_pkt in;
		size_t il4 = 0;
		int rc = t.ip ? dmls_decode_ip(c, t.off, t.ip, origlen, &in, &il4)
			      : ethernet(c, t.off, origlen, &in, &il4);
		if (rc == DMLS_DEC_NON_IP)
			return rc;
		if (rc != DMLS_DEC_OK)
			return DMLS_DEC_OK; /* cut too short: the outer packet stays */
		/* ERSPAN: the mirrored frame is what its link carried */
		in.wire_bytes = t.kind == DMLS_TUN_ERSPAN && in.wire_bytes > t.off
					? in.wire_bytes - t.off
					: out->wire_bytes;
		in.tunnel = (uint8_t)t.kind;
		*out = in;
		l4 = il4;
	}
	return DMLS_DEC_OK;
}

static int outer(int linktype, const dmls_cursor *c, uint32_t origlen, dmls_pkt *out,
		 size_t *l4)
{
	switch (linktype) {
	case LT_ETHERNET:
		return ethernet(c, 0, origlen, out, l4);
	case LT_SLL:
		if (!dmls_cur_has(c, 0, 16))
			return DMLS_DEC_TRUNCATED;
		return ethertype(c, 14, 16, origlen, out, l4);
	case LT_SLL2:
		if (!dmls_cur_has(c, 0, 20))
			return DMLS_DEC_TRUNCATED;
		return ethertype(c, 0, 20, origlen, out, l4);
	case LT_IPOIB:
		if (!dmls_cur_has(c, 0, 44))
			return DMLS_DEC_TRUNCATED;
		return ethertype(c, 40, 44, origlen, out, l4);
	case LT_RAW:
	case LT_RAW_12:
	case LT_RAW_14:
		return dmls_decode_ip(c, 0, 0, origlen, out, l4);
	case LT_PPP_HDLC: {
		uint8_t b0;
		if (!dmls_cur_u8(c, 0, &b0))
			return DMLS_DEC_TRUNCATED;
		if (b0 == 0x0f || b0 == 0x8f)
			return ethertype(c, 2, 4, origlen, out, l4); /* Cisco HDLC */
		return ppp(c, 0, origlen, out, l4);
	}
	case LT_PPP:
		return ppp(c, 0, origlen, out, l4);
	case LT_PPP_ETHER:
		return ppp(c, 6, origlen, out, l4);
	case LT_C_HDLC:
		return ethertype(c, 2, 4, origlen, out, l4);
	case LT_IPV4:
		return dmls_decode_ip(c, 0, 4, origlen, out, l4);
	case LT_IPV6:
		return dmls_decode_ip(c, 0, 6, origlen, out, l4);
	case LT_NULL:
		return loopback(c, false, origlen, out, l4);
	case LT_LOOP:
		return loopback(c, true, origlen, out, l4);
	default:
		return DMLS_DEC_OTHER;
	}
}

/*
 * Where a wrapper link type's packet starts (*at) and its link type (*lt):
 * 1, or 0 when linktype is no wrapper; a wrapper too short or of a packet
 * type it cannot hold gives DMLS_DEC_TRUNCATED or DMLS_DEC_OTHER in *rc.
 */
static int erf_packet(const dmls_cursor *c, size_t *at, int *lt, int *rc)
{
	uint8_t type, ext;
	if (!dmls_cur_u8(c, 8, &type))
		return *rc = DMLS_DEC_TRUNCATED, 1;
	size_t off = 16;
	for (int more = type & 0x80, n = 0; more; n++, off += 8) { /* extension headers */
		if (n == 16 || !dmls_cur_u8(c, off, &ext))
			return *rc = DMLS_DEC_TRUNCATED, 1;
		more = ext & 0x80;
	}
	switch (type & 0x7f) {
	case 2:  /* ETH */
	case 11: /* COLOR_ETH */
	case 16: /* DSM_COLOR_ETH */
	case 20: /* COLOR_HASH_ETH */
		*at = off + 2, *lt = LT_ETHERNET;
		return 1;
	case 22: /* IPV4 */
		*at = off, *lt = LT_IPV4;
		return 1;
	case 23: /* IPV6 */
		*at = off, *lt = LT_IPV6;
		return 1;
	default:
		return *rc = DMLS_DEC_OTHER, 1;
	}
}

/* NFLOG's payload attribute, its lengths in one byte order. */
static int nflog_payload(const dmls_cursor *c, bool le, size_t *at)
{
	for (size_t off = 4; dmls_cur_has(c, off, 4);) {
		uint16_t len = 0, type = 0;
		if (le)
			dmls_cur_le16(c, off, &len), dmls_cur_le16(c, off + 2, &type);
		else
			dmls_cur_be16(c, off, &len), dmls_cur_be16(c, off + 2, &type);
		if (len < 4)
			return 0;
		if (type == 9) {
			*at = off + 4;
			return 1;
		}
		off += ((size_t)len + 3) & ~(size_t)3;
	}
	return 0;
}

static int wrapper(int linktype, const dmls_cursor *c, size_t *at, int *lt, int *rc)
{
	*rc = DMLS_DEC_OK;
	switch (linktype) {
	case LT_ERF:
		return erf_packet(c, at, lt, rc);
	case LT_NFLOG: {
		uint8_t family;
		if (!dmls_cur_u8(c, 0, &family))
			return *rc = DMLS_DEC_TRUNCATED, 1;
		if (!nflog_payload(c, true, at) && !nflog_payload(c, false, at))
			return *rc = DMLS_DEC_TRUNCATED, 1;
		*lt = family == 2 ? LT_IPV4 : family == 10 ? LT_IPV6 : LT_RAW;
		return 1;
	}
	case LT_PKTAP: {
		uint32_t len, next, dlt;
		if (!dmls_cur_le32(c, 0, &len) || !dmls_cur_le32(c, 4, &next) ||
		    !dmls_cur_le32(c, 8, &dlt) || len < 12)
			return *rc = DMLS_DEC_TRUNCATED, 1;
		if (next != 1) /* PTH_TYPE_PACKET */
			return *rc = DMLS_DEC_NON_IP, 1;
		*at = len;
		*lt = dlt == 12 ? LT_RAW : (int)dlt; /* a DLT_ value: 12 is DLT_RAW on Apple */
		return 1;
	}
	default:
		return 0;
	}
}

/* The packet of link type linktype in c: outer headers, then tunnels. */
static int decode_link(int linktype, const dmls_cursor *c, uint32_t origlen, unsigned flags,
		       dmls_pkt *out)
{
	size_t l4 = 0;
	int rc = outer(linktype, c, origlen, out, &l4);
	if (rc != DMLS_DEC_OK || l4 == 0 || (flags & DMLS_DECODE_OUTER) ||
	    (out->proto != 4 && out->proto != 41 && out->proto != 47 && out->proto != 17))
		return rc;
	return decapsulate(c, origlen, out, l4);
}

int dmls_decode(int linktype, const uint8_t *data, uint32_t caplen, uint32_t origlen,
		dmls_pkt *out)
{
	return dmls_decode_ex(linktype, data, caplen, origlen, 0, out);
}

int dmls_decode_ex(int linktype, const uint8_t *data, uint32_t caplen, uint32_t origlen,
		   unsigned flags, dmls_pkt *out)
{
	dmls_cursor c = {data, caplen};
	size_t at;
	int lt, rc;
	if (!wrapper(linktype, &c, &at, &lt, &rc))
		return decode_link(linktype, &c, origlen, flags, out);
	if (rc != DMLS_DEC_OK)
		return rc;
	if (at > caplen || at > origlen)
		return DMLS_DEC_TRUNCATED;
	if (lt == LT_ERF || lt == LT_NFLOG || lt == LT_PKTAP)
		return DMLS_DEC_OTHER; /* a wrapper in a wrapper */
	dmls_cursor in = {data + at, caplen - at};
	return decode_link(lt, &in, origlen - (uint32_t)at, flags, out);
}
