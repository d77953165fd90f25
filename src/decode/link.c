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
 *   101 RAW (and 12, 14: DLT_RAW's values on some platforms, seen in files)
 *   228 IPV4, 229 IPV6: the IP header at once
 *
 * The cooked headers' protocol is an EtherType for IP, so SLL and SLL2 go
 * through the same EtherType dispatch (and VLAN skip) as Ethernet.
 */
#include "decode/decode_int.h"

enum {
	LT_NULL = 0,
	LT_ETHERNET = 1,
	LT_RAW_12 = 12,
	LT_RAW_14 = 14,
	LT_RAW = 101,
	LT_LOOP = 108,
	LT_SLL = 113,
	LT_IPV4 = 228,
	LT_IPV6 = 229,
	LT_IPOIB = 242,
	LT_SLL2 = 276,
};

#define ET_IPV4 0x0800
#define ET_IPV6 0x86dd
#define MAX_TAGS 8

/* Dispatch on the EtherType at et_off; the header after it starts at off.
 * VLAN tags (TCI, then the next EtherType) are skipped. */
static int ethertype(const dmls_cursor *c, size_t et_off, size_t off, uint32_t origlen,
		     dmls_pkt *out)
{
	uint16_t et;
	if (!dmls_cur_be16(c, et_off, &et))
		return DMLS_DEC_TRUNCATED;
	for (int tags = 0; et == 0x8100 || et == 0x88a8 || et == 0x9100 || et == 0x9200;
	     tags++) {
		if (tags == MAX_TAGS || !dmls_cur_be16(c, off + 2, &et))
			return DMLS_DEC_TRUNCATED;
		off += 4;
	}
	if (et == ET_IPV4)
		return dmls_decode_ip(c, off, 4, origlen, out);
	if (et == ET_IPV6)
		return dmls_decode_ip(c, off, 6, origlen, out);
	return DMLS_DEC_NON_IP;
}

static int ethernet(const dmls_cursor *c, uint32_t origlen, dmls_pkt *out)
{
	uint16_t et;
	if (!dmls_cur_be16(c, 12, &et))
		return DMLS_DEC_TRUNCATED;
	if (et >= 0x0600)
		return ethertype(c, 12, 14, origlen, out);
	/* 802.3 length field: only LLC/SNAP with OUI 0 carries IP */
	uint8_t llc[6];
	if (!dmls_cur_copy(c, 14, llc, sizeof(llc)))
		return DMLS_DEC_NON_IP;
	if (llc[0] != 0xaa || llc[1] != 0xaa || llc[2] != 0x03 || llc[3] || llc[4] || llc[5])
		return DMLS_DEC_NON_IP;
	return ethertype(c, 20, 22, origlen, out);
}

static int loopback(const dmls_cursor *c, bool network_order, uint32_t origlen,
		    dmls_pkt *out)
{
	uint32_t af;
	if (!(network_order ? dmls_cur_be32(c, 0, &af) : dmls_cur_le32(c, 0, &af)))
		return DMLS_DEC_TRUNCATED;
	if (!network_order && af > 0xffff)
		af = __builtin_bswap32(af);
	if (af == 2)
		return dmls_decode_ip(c, 4, 4, origlen, out);
	if (af == 10 || af == 24 || af == 28 || af == 30)
		return dmls_decode_ip(c, 4, 6, origlen, out);
	return DMLS_DEC_NON_IP;
}

int dmls_decode(int linktype, const uint8_t *data, uint32_t caplen, uint32_t origlen,
		dmls_pkt *out)
{
	dmls_cursor c = {data, caplen};
	switch (linktype) {
	case LT_ETHERNET:
		return ethernet(&c, origlen, out);
	case LT_SLL:
		if (!dmls_cur_has(&c, 0, 16))
			return DMLS_DEC_TRUNCATED;
		return ethertype(&c, 14, 16, origlen, out);
	case LT_SLL2:
		if (!dmls_cur_has(&c, 0, 20))
			return DMLS_DEC_TRUNCATED;
		return ethertype(&c, 0, 20, origlen, out);
	case LT_IPOIB:
		if (!dmls_cur_has(&c, 0, 44))
			return DMLS_DEC_TRUNCATED;
		return ethertype(&c, 40, 44, origlen, out);
	case LT_RAW:
	case LT_RAW_12:
	case LT_RAW_14:
		return dmls_decode_ip(&c, 0, 0, origlen, out);
	case LT_IPV4:
		return dmls_decode_ip(&c, 0, 4, origlen, out);
	case LT_IPV6:
		return dmls_decode_ip(&c, 0, 6, origlen, out);
	case LT_NULL:
		return loopback(&c, false, origlen, out);
	case LT_LOOP:
		return loopback(&c, true, origlen, out);
	default:
		return DMLS_DEC_OTHER;
	}
}
