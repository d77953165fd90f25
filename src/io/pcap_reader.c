/*
 * pcap_reader.c - our own capture reader: buffering, format probe, pcap.
 *
 * Why not libpcap: it reads files in small read() calls and cannot read a
 * pcapng whose interfaces differ in link type or snap length (libpcap
 * issues 1078, 1252, 1321).  This reader takes a memory buffer or a FILE *,
 * refills a window with 1 MiB freads, and hands out pointers into it.
 *
 * Format probe (after libpcap's savefile.c): the first four bytes are
 *   a1b2c3d4  pcap, microsecond timestamps     (either byte order)
 *   a1b23c4d  pcap, nanosecond timestamps      (either byte order)
 *   a1b2cd34  Kuznetzov's modified pcap: 24-byte record headers (ifindex,
 *             protocol, pkt_type after the usual 16), microseconds
 *   0a0d0d0a  pcapng Section Header Block      (src/io/pcapng.c)
 *
 * pcap (https://www.tcpdump.org/manpages/pcap-savefile.5.txt and
 * draft-ietf-opsawg-pcap): a 24-byte file header (magic, version 2.4,
 * thiszone, sigfigs, snaplen, linktype; the link type's upper 6 bits carry
 * FCS information and are masked off), then records of ts_sec, ts_frac,
 * caplen, origlen and caplen bytes.
 *
 * Lengths are never trusted: a caplen above 256 KiB (libpcap's own limit),
 * or a record running past the end of the file, ends the file with a
 * DMLS_EBAD message naming the record and byte offset; every good record
 * before it has been delivered.  A reader that failed stays failed.
 */
#include "io/capture_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dmlscope/error.h"

#define MAGIC_US 0xa1b2c3d4u
#define MAGIC_NS 0xa1b23c4du
#define MAGIC_KUZ 0xa1b2cd34u
#define MAGIC_NG 0x0a0d0d0au
#define LT_MASK 0x03ffffffu

int64_t dmls_rd_fill(dmls_reader *r, size_t n, dmls_error *err)
{
	size_t have = r->end - r->start;
	if (have >= n || !r->fp || r->eof)
		return (int64_t)have;
	if (n > r->cap) {
		size_t ncap = r->cap;
		while (ncap < n)
			ncap *= 2;
		uint8_t *nb = malloc(ncap);
		if (!nb)
			return dmls_fail(err, DMLS_ENOMEM, "'%s': out of memory", r->name), -1;
		memcpy(nb, r->buf + r->start, have);
		free(r->own_buf);
		r->own_buf = nb;
		r->cap = ncap;
	} else if (r->start > 0) {
		memmove(r->own_buf, r->own_buf + r->start, have);
	}
	r->buf = r->own_buf;
	r->base += r->start;
	r->start = 0;
	r->end = have;
	while (r->end < n && !r->eof) {
		size_t want = r->cap - r->end;
		size_t got = fread(r->own_buf + r->end, 1, want, r->fp);
		r->end += got;
		if (got < want) {
			if (ferror(r->fp))
				return dmls_fail(err, DMLS_EIO, "'%s': read error: %s", r->name,
						 strerror(errno)), -1;
			r->eof = true;
		}
	}
	return (int64_t)(r->end - r->start);
}

int dmls_rd_skip(dmls_reader *r, uint64_t n, dmls_error *err)
{
	while (n > 0) {
		size_t have = r->end - r->start;
		if (have == 0) {
			int64_t got = dmls_rd_fill(r, n < r->cap ? (size_t)n : r->cap, err);
			if (got < 0)
				return -1;
			if (got == 0)
				return dmls_fail(err, DMLS_EBAD, "'%s': truncated block at byte %llu",
						 r->name, (unsigned long long)dmls_rd_pos(r));
			have = (size_t)got;
		}
		size_t k = have < n ? have : (size_t)n;
		r->start += k;
		n -= k;
	}
	return 0;
}

static int pcap_open_header(dmls_reader *r, uint32_t magic, dmls_error *err)
{
	int64_t have = dmls_rd_fill(r, 24, err);
	if (have < 0)
		return -1;
	if (have < 24)
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated pcap file header", r->name);
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

static int pcap_next(dmls_reader *r, dmls_record *rec, dmls_error *err)
{
	uint64_t pos = dmls_rd_pos(r);
	int64_t have = dmls_rd_fill(r, r->rec_hdr, err);
	if (have < 0)
		return -1;
	if (have == 0)
		return 0;
	unsigned long long recno = (unsigned long long)r->nrec + 1;
	if (have < r->rec_hdr)
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated record %llu at byte %llu",
				 r->name, recno, (unsigned long long)pos), -1;
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
		return dmls_fail(err, DMLS_EBAD, "'%s': truncated record %llu at byte %llu",
				 r->name, recno, (unsigned long long)pos), -1;
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

static int probe(dmls_reader *r, dmls_error *err)
{
	int64_t have = dmls_rd_fill(r, 4, err);
	if (have < 0)
		return -1;
	if (have == 0)
		return dmls_fail(err, DMLS_EBAD, "'%s': empty file", r->name);
	if (have < 4)
		return dmls_fail(err, DMLS_EBAD, "'%s': not a capture file (too short)", r->name);
	const uint8_t *p = r->buf + r->start;
	uint32_t magic = dmls_rd32(p, false);
	if (magic == MAGIC_NG) {
		r->is_ng = true;
		return dmls_ng_open(r, err);
	}
	if (magic == MAGIC_US || magic == MAGIC_NS || magic == MAGIC_KUZ ||
	    magic == __builtin_bswap32(MAGIC_US) || magic == __builtin_bswap32(MAGIC_NS) ||
	    magic == __builtin_bswap32(MAGIC_KUZ))
		return pcap_open_header(r, magic, err);
	return dmls_fail(err, DMLS_EBAD,
			 "'%s': not a pcap or pcapng capture (magic %02x%02x%02x%02x)", r->name,
			 p[0], p[1], p[2], p[3]);
}

static dmls_reader *reader_new(const char *name, dmls_error *err)
{
	dmls_reader *r = calloc(1, sizeof(*r));
	if (r)
		r->name = strdup(name ? name : "(buffer)");
	if (!r || !r->name) {
		free(r);
		dmls_fail(err, DMLS_ENOMEM, "out of memory");
		return NULL;
	}
	r->linktype = -1;
	return r;
}

static int finish_open(dmls_reader **out, dmls_reader *r, dmls_error *err)
{
	if (probe(r, err)) {
		dmls_reader_free(r);
		*out = NULL;
		return err ? err->status : DMLS_EBAD;
	}
	*out = r;
	return DMLS_OK;
}

int dmls_reader_open_buffer(dmls_reader **out, const uint8_t *buf, size_t len,
			    const char *name, dmls_error *err)
{
	dmls_reader *r = reader_new(name, err);
	if (!r)
		return DMLS_EIO;
	r->buf = buf;
	r->end = len;
	r->eof = true;
	return finish_open(out, r, err);
}

int dmls_reader_open_stream(dmls_reader **out, FILE *fp, const char *name,
			    dmls_error *err)
{
	dmls_reader *r = reader_new(name, err);
	if (!r)
		return DMLS_EIO;
	r->fp = fp;
	r->cap = DMLS_READ_CHUNK;
	r->own_buf = malloc(r->cap);
	if (!r->own_buf) {
		dmls_reader_free(r);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	r->buf = r->own_buf;
	return finish_open(out, r, err);
}

int dmls_reader_open_file(dmls_reader **out, const char *path, dmls_error *err)
{
	*out = NULL;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot open: %s", path, strerror(errno));
	struct stat stb;
	if (fstat(fileno(fp), &stb) == 0 && S_ISDIR(stb.st_mode)) {
		fclose(fp);
		return dmls_fail(err, DMLS_EIO, "'%s': is a directory", path);
	}
	setvbuf(fp, NULL, _IONBF, 0); /* our own 1 MiB reads: no second copy */
	int rc = dmls_reader_open_stream(out, fp, path, err);
	if (rc) {
		fclose(fp);
		return rc;
	}
	(*out)->own_fp = true;
	return DMLS_OK;
}

int dmls_reader_next(dmls_reader *r, dmls_record *rec, dmls_error *err)
{
	if (r->failed)
		return dmls_fail(err, DMLS_EBAD, "'%s': read after an error", r->name), -1;
	int rc = r->is_ng ? dmls_ng_next(r, rec, err) : pcap_next(r, rec, err);
	if (rc < 0)
		r->failed = true;
	return rc;
}

const char *dmls_reader_format(const dmls_reader *r)
{
	return r->is_ng ? "pcapng" : "pcap";
}

int dmls_reader_linktype(const dmls_reader *r)
{
	if (r->is_ng)
		return r->nifaces ? r->ifaces[0].linktype : -1;
	return r->linktype;
}

const char *dmls_reader_name(const dmls_reader *r)
{
	return r->name;
}

void dmls_reader_free(dmls_reader *r)
{
	if (!r)
		return;
	if (r->own_fp && r->fp)
		fclose(r->fp);
	free(r->own_buf);
	free(r->ifaces);
	free(r->name);
	free(r);
}
