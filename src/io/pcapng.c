/*
 * pcapng.c - the pcapng half of our capture reader.
 *
 * Format: IETF draft-ietf-opsawg-pcapng ("PCAP Now Generic").  A file is a
 * sequence of blocks, each
 *     type (4) | total length (4) | body | total length (4)
 * with the total length a multiple of 4 and at least 12.  A Section Header
 * Block (type 0x0a0d0d0a) starts every section; its byte-order magic
 * 0x1a2b3c4d, read after the length, fixes the byte order of the whole
 * section, so each section may differ (and the SHB's own length is read
 * only once the magic is known).  Interface Description Blocks (type 1)
 * number the interfaces of a section from 0, each with its own link type,
 * snap length and options; we read if_tsresol (9: 10^-n, or 2^-n when the
 * top bit is set; default 10^-6) and if_tsoffset (14: seconds to add).
 * Packets come in
 *     EPB (6)  interface, timestamp high/low, caplen, origlen, data, options
 *     SPB (3)  origlen, data: interface 0, caplen = min(origlen, snaplen,
 *              what the block holds), no timestamp (we use 0)
 *     PB  (2)  obsolete: interface (2), drops (2), timestamp, caplen, len
 * Every other block (name resolution, statistics, custom, DSB, ...) is
 * skipped by its length.  Lengths are checked against the block before use:
 * a caplen above 256 KiB or past the block, an unknown interface, or a
 * block running past the end of the file is an error naming the byte offset.
 */
#include <stdlib.h>
#include <string.h>

#include "dmlscope/error.h"
#include "io/capture_int.h"

#define BT_SHB 0x0a0d0d0au
#define BT_IDB 1u
#define BT_PB 2u
#define BT_SPB 3u
#define BT_EPB 6u
#define BOM 0x1a2b3c4du

/* Timestamps past +-2^62 ns (146 years from 1970: 1824-2116) are corrupt.
 * A classic pcap cannot reach them (32-bit seconds), and within them the
 * difference of any two fits in 64 bits, as the sinks need. */
#define TS_LIMIT ((int64_t)1 << 62)

/* *ns = ts * 1e9 / units + if_tsoffset, computed without overflow for any
 * 64-bit ts: 0, or -1 when it falls outside +-TS_LIMIT. */
static int ts_to_ns(uint64_t ts, const dmls_iface *ifc, int64_t *ns)
{
	unsigned __int128 u;
	if (ifc->units == 1000000)
		u = (unsigned __int128)ts * 1000u;
	else if (ifc->units == 1000000000)
		u = ts;
	else
		u = (unsigned __int128)ts * 1000000000u / ifc->units;
	__int128 v = (__int128)u + ifc->offset_ns; /* u < 2^94, |offset| <= 4e18 */
	if (v > TS_LIMIT || v < -TS_LIMIT)
		return -1;
	*ns = (int64_t)v;
	return 0;
}

/* Read IDB options (if_tsresol, if_tsoffset) from opt[0, len). */
static int idb_options(dmls_reader *r, dmls_iface *ifc, const uint8_t *opt, size_t len,
		       uint64_t pos, dmls_error *err)
{
	size_t off = 0;
	while (off + 4 <= len) {
		uint16_t code = dmls_rd16(opt + off, r->ng_swap);
		uint16_t olen = dmls_rd16(opt + off + 2, r->ng_swap);
		off += 4;
		if (code == 0)
			break;
		if (olen > len - off)
			return dmls_fail(err, DMLS_EBAD,
					 "'%s': corrupt interface option at byte %llu", r->name,
					 (unsigned long long)pos);
		const uint8_t *v = opt + off;
		if (code == 9 && olen >= 1) {
			unsigned e = v[0] & 0x7f;
			bool pow2 = v[0] & 0x80;
			if ((pow2 && e > 63) || (!pow2 && e > 19))
				return dmls_fail(err, DMLS_EBAD,
						 "'%s': unsupported if_tsresol 0x%02x at byte %llu",
						 r->name, v[0], (unsigned long long)pos);
			uint64_t u = 1;
			for (unsigned i = 0; i < e; i++)
				u *= pow2 ? 2 : 10;
			ifc->units = u;
		} else if (code == 14 && olen >= 8) {
			uint64_t lo = dmls_rd32(v, r->ng_swap), hi = dmls_rd32(v + 4, r->ng_swap);
			int64_t s = (int64_t)(r->ng_swap ? (lo << 32 | hi) : (hi << 32 | lo));
			if (s > 4000000000LL || s < -4000000000LL)
				s = 0; /* absurd offset: ignore rather than overflow */
			ifc->offset_ns = s * 1000000000;
		}
		off += ((size_t)olen + 3) & ~(size_t)3;
	}
	return 0;
}

static int add_iface(dmls_reader *r, const uint8_t *b, uint32_t blen, uint64_t pos,
		     dmls_error *err)
{
	if (blen < 20)
		return dmls_fail(err, DMLS_EBAD, "'%s': corrupt interface block at byte %llu",
				 r->name, (unsigned long long)pos);
	if (r->nifaces >= 65536)
		return dmls_fail(err, DMLS_EBAD, "'%s': too many interfaces at byte %llu",
				 r->name, (unsigned long long)pos);
	if (r->nifaces == r->ifcap) {
		uint32_t ncap = r->ifcap ? r->ifcap * 2 : 4;
		dmls_iface *n = realloc(r->ifaces, ncap * sizeof(*n));
		if (!n)
			return dmls_fail(err, DMLS_ENOMEM, "'%s': out of memory", r->name);
		r->ifaces = n;
		r->ifcap = ncap;
	}
	dmls_iface *ifc = &r->ifaces[r->nifaces];
	ifc->linktype = dmls_rd16(b + 8, r->ng_swap);
	ifc->snaplen = dmls_rd32(b + 12, r->ng_swap);
	ifc->units = 1000000;
	ifc->offset_ns = 0;
	if (idb_options(r, ifc, b + 16, blen - 20, pos, err))
		return -1;
	r->nifaces++;
	return 0;
}

/* Read a Section Header Block at the window's start: byte order, then length. */
static int read_shb(dmls_reader *r, uint32_t *blen, dmls_error *err)
{
	uint64_t pos = dmls_rd_pos(r);
	int64_t have = dmls_rd_fill(r, 12, err);
	if (have < 0)
		return -1;
	if (have < 12)
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated section header at byte %llu%s",
				 r->name, (unsigned long long)pos, dmls_rd_cut(r));
	const uint8_t *b = r->buf + r->start;
	uint32_t bom = dmls_rd32(b + 8, false);
	if (bom == BOM)
		r->ng_swap = false;
	else if (bom == __builtin_bswap32(BOM))
		r->ng_swap = true;
	else
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': corrupt section header at byte %llu (byte-order magic)",
				 r->name, (unsigned long long)pos);
	*blen = dmls_rd32(b + 4, r->ng_swap);
	if (*blen < 28 || *blen % 4 || *blen > DMLS_MAX_BLOCK)
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': corrupt section header at byte %llu (length %u)", r->name,
				 (unsigned long long)pos, *blen);
	r->nifaces = 0; /* a new section: interfaces start again from 0 */
	return 0;
}

/* Fill rec from a packet block b[0, blen).  Returns 1, or -1 on damage. */
static int packet_block(dmls_reader *r, uint32_t type, const uint8_t *b, uint32_t blen,
			uint64_t pos, dmls_record *rec, dmls_error *err)
{
	unsigned long long recno = (unsigned long long)r->nrec + 1;
	uint32_t ifidx, caplen, origlen, hdr;
	uint64_t ts = 0;
	bool s = r->ng_swap;
	if (type == BT_EPB || type == BT_PB) {
		hdr = 28;
		if (blen < hdr + 4)
			goto corrupt;
		ifidx = type == BT_EPB ? dmls_rd32(b + 8, s) : dmls_rd16(b + 8, s);
		ts = (uint64_t)dmls_rd32(b + 12, s) << 32 | dmls_rd32(b + 16, s);
		caplen = dmls_rd32(b + 20, s);
		origlen = dmls_rd32(b + 24, s);
	} else { /* SPB */
		hdr = 12;
		if (blen < hdr + 4)
			goto corrupt;
		ifidx = 0;
		origlen = dmls_rd32(b + 8, s);
		caplen = blen - hdr - 4;
		if (caplen > origlen)
			caplen = origlen;
		if (ifidx < r->nifaces && r->ifaces[0].snaplen && caplen > r->ifaces[0].snaplen)
			caplen = r->ifaces[0].snaplen;
	}
	if (ifidx >= r->nifaces)
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': record %llu at byte %llu names unknown interface %u",
				 r->name, recno, (unsigned long long)pos, ifidx), -1;
	if (caplen > DMLS_MAX_CAPLEN)
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': absurd caplen %u in record %llu at byte %llu", r->name,
				 caplen, recno, (unsigned long long)pos), -1;
	if (caplen > blen - hdr - 4)
		goto corrupt;
	const dmls_iface *ifc = &r->ifaces[ifidx];
	if (ts_to_ns(ts, ifc, &rec->ts_ns))
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': timestamp out of range (before 1824 or after 2116) in "
				 "record %llu at byte %llu", r->name, recno, (unsigned long long)pos), -1;
	rec->caplen = caplen;
	rec->origlen = origlen < caplen ? caplen : origlen;
	rec->linktype = ifc->linktype;
	rec->iface = ifidx;
	rec->data = b + hdr;
	r->nrec++;
	return 1;
corrupt:
	return dmls_fail(err, DMLS_EBAD, "'%s': corrupt record %llu at byte %llu", r->name,
			 recno, (unsigned long long)pos), -1;
}

/* One block: returns 1 with rec filled (a packet), 2 for another block
 * consumed, 0 at a clean end of file, -1 on damage. */
static int ng_block(dmls_reader *r, dmls_record *rec, dmls_error *err)
{
	uint64_t pos = dmls_rd_pos(r);
	int64_t have = dmls_rd_fill(r, 8, err);
	if (have < 0)
		return -1;
	if (have == 0)
		return 0;
	if (have < 8)
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated block at byte %llu%s",
				 r->name, (unsigned long long)pos, dmls_rd_cut(r)), -1;
	uint32_t type = dmls_rd32(r->buf + r->start, r->ng_swap);
	uint32_t blen = 0;
	if (dmls_rd32(r->buf + r->start, false) == BT_SHB) {
		type = BT_SHB;
		if (read_shb(r, &blen, err))
			return -1;
	} else {
		blen = dmls_rd32(r->buf + r->start + 4, r->ng_swap);
		if (blen < 12 || blen % 4)
			return dmls_fail(err, DMLS_EBAD,
					 "'%s': corrupt block at byte %llu (length %u)", r->name,
					 (unsigned long long)pos, blen), -1;
	}
	bool wanted = type == BT_EPB || type == BT_SPB || type == BT_PB || type == BT_IDB;
	if (!wanted && type != BT_SHB)
		return dmls_rd_skip(r, blen, err) ? -1 : 2;
	if (blen > DMLS_MAX_BLOCK)
		return dmls_fail(err, DMLS_EBAD, "'%s': absurd block length %u at byte %llu",
				 r->name, blen, (unsigned long long)pos), -1;
	have = dmls_rd_fill(r, blen, err);
	if (have < 0)
		return -1;
	if (have < blen) {
		if (type == BT_EPB || type == BT_SPB || type == BT_PB)
			return dmls_fail(err, DMLS_EBAD, "'%s': truncated record %llu at byte %llu%s",
					 r->name, (unsigned long long)r->nrec + 1,
					 (unsigned long long)pos, dmls_rd_cut(r)), -1;
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated block at byte %llu%s",
				 r->name, (unsigned long long)pos, dmls_rd_cut(r)), -1;
	}
	const uint8_t *b = r->buf + r->start;
	if (dmls_rd32(b + blen - 4, r->ng_swap) != blen)
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': corrupt block at byte %llu (trailing length)", r->name,
				 (unsigned long long)pos), -1;
	int rc = 2;
	if (type == BT_SHB && dmls_rd16(b + 12, r->ng_swap) != 1)
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': unsupported pcapng version %u at byte %llu", r->name,
				 dmls_rd16(b + 12, r->ng_swap), (unsigned long long)pos), -1;
	if (type == BT_IDB)
		rc = add_iface(r, b, blen, pos, err) ? -1 : 2;
	else if (type != BT_SHB)
		rc = packet_block(r, type, b, blen, pos, rec, err);
	if (rc > 0)
		r->start += blen;
	return rc;
}

int dmls_ng_check(uint32_t magic)
{
	return magic == 0x0a0d0d0au; /* Section Header Block */
}

int dmls_ng_linktype(const dmls_reader *r)
{
	return r->nifaces ? r->ifaces[0].linktype : -1;
}

int dmls_ng_open(dmls_reader *r, uint32_t magic, dmls_error *err)
{
	dmls_record rec;
	int rc = ng_block(r, &rec, err); /* the first SHB */
	if (rc < 0)
		return err ? err->status : DMLS_EBAD;
	/* Read the blocks up to the first packet, so the link type is known. */
	while (dmls_rd_fill(r, 8, NULL) >= 8) {
		uint32_t type = dmls_rd32(r->buf + r->start, r->ng_swap);
		if (type == BT_EPB || type == BT_SPB || type == BT_PB || type == BT_SHB)
			break;
		if (ng_block(r, &rec, err) < 0)
			return err ? err->status : DMLS_EBAD;
	}
	return 0;
}

int dmls_ng_next(dmls_reader *r, dmls_record *rec, dmls_error *err)
{
	for (;;) {
		int rc = ng_block(r, rec, err);
		if (rc != 2)
			return rc;
	}
}
