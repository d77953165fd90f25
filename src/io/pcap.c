/*
 * pcap.c - the pcap half of the reader.
 *
 * pcap (https://www.tcpdump.org/manpages/pcap-savefile.5.txt and
 * draft-ietf-opsawg-pcap): a 24-byte file header (magic, version 2.4,
 * thiszone, sigfigs, snaplen, linktype; the link type's upper 6 bits carry
 * FCS information and are masked off), then records of ts_sec, ts_frac,
 * caplen, origlen and caplen bytes.  Magic numbers, in either byte order:
 *   a1b2c3d4  microsecond timestamps
 *   a1b23c4d  nanosecond timestamps
 *   a1b2cd34  Kuznetzov's modified pcap: 24-byte record headers (ifindex,
 *             protocol, pkt_type after the usual 16), microseconds
 *
 * Lengths are never trusted: a caplen above 256 KiB (libpcap's own limit),
 * or a record running past the end of the file, ends the file with a
 * DMLS_EBAD message naming the record and byte offset; every good record
 * before it has been delivered.
 */
#include "io/capture_int.h"

#include <stdlib.h>
#include <string.h>

#define MAGIC_US 0xa1b2c3d4u
#define MAGIC_NS 0xa1b23c4du
#define MAGIC_KUZ 0xa1b2cd34u
#define LT_MASK 0x03ffffffu

int dmls_pcap_check(uint32_t magic)
{
	return magic == MAGIC_US || magic == MAGIC_NS || magic == MAGIC_KUZ ||
	       magic == __builtin_bswap32(MAGIC_US) || magic == __builtin_bswap32(MAGIC_NS) ||
	       magic == __builtin_bswap32(MAGIC_KUZ);
}

int dmls_pcap_open(dmls_reader *r, uint32_t magic, dmls_error *err)
{
	int64_t have = dmls_rd_fill(r, 24, err);
	if (have < 0)
		return -1;
	if (have < 24)
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated pcap file header%s", r->name,
				 dmls_rd_cut(r));
	const uint8_t *h = r->buf + r->start;
	r->swap = (magic == __builtin_bswap32(MAGIC_US) || magic == __builtin_bswap32(MAGIC_NS) ||
		   magic == __builtin_bswap32(MAGIC_KUZ));
	uint32_t m = r->swap ? __builtin_bswap32(magic) : magic;
	r->frac_mult = m == MAGIC_NS ? 1 : 1000;
	r->rec_hdr = m == MAGIC_KUZ ? 24 : 16;
	uint16_t major = dmls_rd16(h + 4, r->swap);
	if (major != 2)
		return dmls_fail(err, DMLS_EBAD, "'%s': corrupt pcap header (version %u)", r->name,
				 major);
	r->snaplen = dmls_rd32(h + 16, r->swap);
	r->linktype = (int)(dmls_rd32(h + 20, r->swap) & LT_MASK);
	r->start += 24;
	return 0;
}

int dmls_pcap_next(dmls_reader *r, dmls_record *rec, dmls_error *err)
{
	uint64_t pos = dmls_rd_pos(r);
	int64_t have = dmls_rd_fill(r, r->rec_hdr, err);
	if (have < 0)
		return -1;
	if (have == 0)
		return 0;
	unsigned long long recno = (unsigned long long)r->nrec + 1;
	if (have < r->rec_hdr)
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated record %llu at byte %llu%s",
				 r->name, recno, (unsigned long long)pos, dmls_rd_cut(r)), -1;
	const uint8_t *h = r->buf + r->start;
	uint32_t sec = dmls_rd32(h, r->swap), frac = dmls_rd32(h + 4, r->swap);
	uint32_t caplen = dmls_rd32(h + 8, r->swap), origlen = dmls_rd32(h + 12, r->swap);
	if (caplen > DMLS_MAX_CAPLEN)
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': absurd caplen %u in record %llu at byte %llu", r->name,
				 caplen, recno, (unsigned long long)pos), -1;
	have = dmls_rd_fill(r, r->rec_hdr + caplen, err);
	if (have < 0)
		return -1;
	if (have < r->rec_hdr + caplen)
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated record %llu at byte %llu%s",
				 r->name, recno, (unsigned long long)pos, dmls_rd_cut(r)), -1;
	rec->ts_ns = (int64_t)sec * 1000000000 + (int64_t)frac * r->frac_mult;
	rec->caplen = caplen;
	rec->origlen = origlen < caplen ? caplen : origlen;
	rec->linktype = r->linktype;
	rec->iface = 0;
	rec->data = r->buf + r->start + r->rec_hdr;
	r->start += r->rec_hdr + caplen;
	r->nrec++;
	return 1;
}

int dmls_pcap_linktype(const dmls_reader *r)
{
	return r->linktype;
}
