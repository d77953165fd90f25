/*
 * rdbuf.c - the readers' window over a buffer or a stream (capture_int.h).
 *
 * Why not libpcap for files: it reads them in small read() calls and cannot
 * read a pcapng whose interfaces differ in link type or snap length (libpcap
 * issues 1078, 1252, 1321).  The window is the caller's whole buffer, or is
 * refilled from a FILE * by 64 KiB freads; records are handed out as
 * pointers into it.  A gzip-, xz-, zstd- or lz4-compressed stream (by
 * content, not by name) is decompressed into the window as it is read
 * (zlib, RFC 1952; liblzma, the .xz format; libzstd, RFC 8878; liblz4, the
 * LZ4 frame format: the four Wireshark reads), so a .pcap.gz costs no
 * temporary file and no more memory.  The lowest layer of the
 * reader: the format halves (pcap.c, pcapng.c) read through it, and it calls
 * neither.
 */
#include "io/capture_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lz4frame.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

/* A zstd stream's decoder and its input.  The decoder holds one window
 * of the frame (2^21 bytes at zstd's default level, 2^23 at -19). */
#define DMLS_ZSTD_WINDOW_LOG 27
typedef struct zstd_in {
	ZSTD_DStream *ds;
	ZSTD_inBuffer in;  /* over r->zin */
	uint64_t consumed; /* compressed bytes before in's */
	bool mid_frame;    /* the last call left a frame unfinished */
} zstd_in;

/* An lz4 stream's decoder and its input.  The decoder holds one block
 * (up to 4 MiB, 64 KiB at lz4's default) and 64 KiB of history. */
typedef struct lz4_in {
	LZ4F_dctx *dc;
	const uint8_t *next; /* into r->zin */
	size_t avail;
	uint64_t consumed; /* compressed bytes before next */
	bool mid_frame;    /* the last call left a frame unfinished */
} lz4_in;

/* Up to want bytes of the raw stream into dst; sets eof at its end. */
static int64_t raw_read(dmls_reader *r, uint8_t *dst, size_t want, dmls_error *err)
{
	size_t got = fread(dst, 1, want, r->fp);
	if (got < want) {
		if (ferror(r->fp))
			return dmls_fail(err, DMLS_EIO, "'%s': read error: %s", r->name,
					 strerror(errno)), -1;
		r->eof = true;
	}
	return (int64_t)got;
}

/* The next compressed bytes into zin: how many (0 at the end), -1 on error. */
static int64_t refill(dmls_reader *r, dmls_error *err)
{
	size_t got = fread(r->zin, 1, DMLS_READ_CHUNK, r->fp);
	if (got < DMLS_READ_CHUNK) {
		if (ferror(r->fp))
			return dmls_fail(err, DMLS_EIO, "'%s': read error: %s", r->name,
					 strerror(errno)), -1;
		r->zeof = true;
	}
	return (int64_t)got;
}

/* Up to want bytes inflated from the compressed stream into dst. */
static int64_t gz_read(dmls_reader *r, uint8_t *dst, size_t want, dmls_error *err)
{
	z_stream *z = r->z;
	z->next_out = dst;
	z->avail_out = (uInt)want;
	while (z->avail_out > 0) {
		if (z->avail_in == 0 && !r->zeof) {
			int64_t got = refill(r, err);
			if (got < 0)
				return -1;
			z->next_in = r->zin;
			z->avail_in = (uInt)got;
		}
		if (z->avail_in == 0 && r->zeof) {
			r->eof = true; /* a stream cut short ends as a truncated record */
			r->zcut = z->total_in > 0; /* inside a member (reset at each end) */
			break;
		}
		int rc = inflate(z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			inflateReset(z); /* another member may follow */
			continue;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			return dmls_fail(err, DMLS_EBAD, "'%s': corrupt gzip data at byte %llu: %s",
					 r->name, (unsigned long long)z->total_in,
					 z->msg ? z->msg : "inflate failed"), -1;
	}
	return (int64_t)(want - z->avail_out);
}

/* Up to want bytes decoded from the xz stream into dst. */
static int64_t xz_read(dmls_reader *r, uint8_t *dst, size_t want, dmls_error *err)
{
	lzma_stream *x = r->xz;
	x->next_out = dst;
	x->avail_out = want;
	while (x->avail_out > 0) {
		if (x->avail_in == 0 && !r->zeof) {
			int64_t got = refill(r, err);
			if (got < 0)
				return -1;
			x->next_in = r->zin;
			x->avail_in = (size_t)got;
		}
		lzma_action act = r->zeof && x->avail_in == 0 ? LZMA_FINISH : LZMA_RUN;
		lzma_ret rc = lzma_code(x, act);
		if (rc == LZMA_STREAM_END) {
			r->eof = true;
			break;
		}
		if (rc == LZMA_BUF_ERROR || (rc == LZMA_OK && act == LZMA_FINISH && x->avail_out > 0)) {
			r->eof = true; /* cut short: ends as a truncated record */
			r->zcut = true;
			break;
		}
		if (rc != LZMA_OK)
			return dmls_fail(err, rc == LZMA_MEM_ERROR ? DMLS_ENOMEM : DMLS_EBAD,
					 "'%s': corrupt xz data at byte %llu", r->name,
					 (unsigned long long)x->total_in), -1;
	}
	return (int64_t)(want - x->avail_out);
}

/* Up to want bytes decoded from the zstd stream into dst (frames in a row,
 * as `cat a.zst b.zst` makes, are one stream; skippable frames skipped). */
static int64_t zstd_read(dmls_reader *r, uint8_t *dst, size_t want, dmls_error *err)
{
	zstd_in *z = r->zst;
	ZSTD_outBuffer out = {dst, want, 0};
	while (out.pos < out.size) {
		if (z->in.pos == z->in.size && !r->zeof) {
			int64_t got = refill(r, err);
			if (got < 0)
				return -1;
			z->consumed += z->in.size;
			z->in = (ZSTD_inBuffer){r->zin, (size_t)got, 0};
		}
		size_t out0 = out.pos, in0 = z->in.pos;
		size_t rc = ZSTD_decompressStream(z->ds, &out, &z->in);
		if (out.pos != out0 || z->in.pos != in0)
			z->mid_frame = rc != 0; /* 0: a frame ended and was flushed */
		if (ZSTD_isError(rc))
			return dmls_fail(err, DMLS_EBAD, "'%s': corrupt zstd data at byte %llu: %s",
					 r->name, (unsigned long long)(z->consumed + z->in.pos),
					 ZSTD_getErrorName(rc)), -1;
		if (out.pos == out0 && z->in.pos == in0 && z->in.pos == z->in.size && r->zeof) {
			r->eof = true; /* the end, or cut short: a truncated record */
			r->zcut = z->mid_frame;
			break;
		}
		if (out.pos == out0 && z->in.pos == in0 && z->in.pos < z->in.size)
			return dmls_fail(err, DMLS_EBAD, "'%s': corrupt zstd data at byte %llu",
					 r->name, (unsigned long long)(z->consumed + z->in.pos)), -1;
	}
	return (int64_t)out.pos;
}

/* Up to want bytes decoded from the lz4 stream into dst (frames in a row,
 * as `cat a.lz4 b.lz4` makes, are one stream; skippable frames skipped). */
static int64_t lz4_read(dmls_reader *r, uint8_t *dst, size_t want, dmls_error *err)
{
	lz4_in *z = r->lz4;
	size_t done = 0;
	while (done < want) {
		if (z->avail == 0 && !r->zeof) {
			int64_t got = refill(r, err);
			if (got < 0)
				return -1;
			z->next = r->zin;
			z->avail = (size_t)got;
		}
		if (z->avail == 0 && r->zeof) {
			r->eof = true; /* the end, or cut short: a truncated record */
			r->zcut = z->mid_frame;
			break;
		}
		size_t out = want - done, in = z->avail;
		size_t rc = LZ4F_decompress(z->dc, dst + done, &out, z->next, &in, NULL);
		if (out || in)
			z->mid_frame = rc != 0; /* 0: a frame ended and was flushed */
		if (LZ4F_isError(rc))
			return dmls_fail(err, DMLS_EBAD, "'%s': corrupt lz4 data at byte %llu: %s",
					 r->name, (unsigned long long)z->consumed,
					 LZ4F_getErrorName(rc)), -1;
		z->next += in;
		z->avail -= in;
		z->consumed += in;
		done += out;
		if (out == 0 && in == 0 && z->avail > 0)
			return dmls_fail(err, DMLS_EBAD, "'%s': corrupt lz4 data at byte %llu",
					 r->name, (unsigned long long)z->consumed), -1;
	}
	return (int64_t)done;
}

/* The window starts over on the decompressed bytes; the raw ones read so
 * far are the decompressor's first input. */
static int restart(dmls_reader *r)
{
	r->zeof = r->eof;
	r->eof = false;
	r->start = r->end = 0;
	r->base = 0;
	return 0;
}

enum { PACKED_NONE, PACKED_GZIP, PACKED_XZ, PACKED_ZSTD, PACKED_LZ4 };

/* Which compressed stream the first have bytes p open, by magic. */
static int packed_kind(const uint8_t *p, size_t have)
{
	static const uint8_t xz_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
	if (have >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return PACKED_GZIP;
	if (have >= 6 && !memcmp(p, xz_magic, 6))
		return PACKED_XZ;
	if (have >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return PACKED_ZSTD;
	if (have >= 4 && p[0] == 0x04 && p[1] == 0x22 && p[2] == 0x4d && p[3] == 0x18)
		return PACKED_LZ4;
	return PACKED_NONE;
}

bool dmls_rd_is_compressed(const uint8_t *p, size_t len)
{
	return packed_kind(p, len) != PACKED_NONE;
}

int dmls_rd_gzip_start(dmls_reader *r, dmls_error *err)
{
	int64_t have = dmls_rd_fill(r, 6, err);
	if (have < 0)
		return -1;
	const uint8_t *p = r->buf + r->start;
	int kind = packed_kind(p, (size_t)have);
	if (kind == PACKED_NONE)
		return 0;
	r->zin = malloc(DMLS_READ_CHUNK);
	if (!r->zin)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	/* what was read raw is the start of the compressed stream */
	memcpy(r->zin, p, (size_t)have);
	if (kind == PACKED_LZ4) {
		lz4_in *z = calloc(1, sizeof(*z));
		if (!z || LZ4F_isError(LZ4F_createDecompressionContext(&z->dc, LZ4F_VERSION))) {
			free(z);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		z->next = r->zin;
		z->avail = (size_t)have;
		r->lz4 = z;
		return restart(r);
	}
	if (kind == PACKED_ZSTD) {
		zstd_in *z = calloc(1, sizeof(*z));
		if (!z || !(z->ds = ZSTD_createDStream())) {
			free(z);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		/* frames of up to 2^DMLS_ZSTD_WINDOW_LOG bytes of window (zstd
		 * -19 uses 2^23, --ultra -22 2^27, the library's own limit) */
		ZSTD_DCtx_setParameter(z->ds, ZSTD_d_windowLogMax, DMLS_ZSTD_WINDOW_LOG);
		z->in = (ZSTD_inBuffer){r->zin, (size_t)have, 0};
		r->zst = z;
		return restart(r);
	}
	if (kind == PACKED_XZ) {
		lzma_stream *x = calloc(1, sizeof(*x));
		if (!x)
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		*x = (lzma_stream)LZMA_STREAM_INIT;
		if (lzma_stream_decoder(x, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
			free(x);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		r->xz = x;
		x->next_in = r->zin;
		x->avail_in = (size_t)have;
		return restart(r);
	}
	z_stream *z = calloc(1, sizeof(*z));
	if (!z || inflateInit2(z, 15 + 16) != Z_OK) {
		free(z);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	r->z = z;
	z->next_in = r->zin;
	z->avail_in = (uInt)have;
	return restart(r);
}

const char *dmls_rd_cut(const dmls_reader *r)
{
	if (!r->zcut)
		return "";
	return r->z ? " (the gzip data ends inside a member)"
	       : r->xz ? " (the xz data ends inside a stream)"
	       : r->zst ? " (the zstd data ends inside a frame)"
			: " (the lz4 data ends inside a frame)";
}

uint64_t dmls_rd_file_pos(const dmls_reader *r)
{
	if (r->z)
		return (uint64_t)((const z_stream *)r->z)->total_in;
	if (r->xz)
		return (uint64_t)((const lzma_stream *)r->xz)->total_in;
	if (r->zst)
		return ((const zstd_in *)r->zst)->consumed + ((const zstd_in *)r->zst)->in.pos;
	return r->lz4 ? ((const lz4_in *)r->lz4)->consumed : r->base + r->start;
}

void dmls_rd_gzip_free(dmls_reader *r)
{
	if (r->z) {
		inflateEnd(r->z);
		free(r->z);
	}
	if (r->xz) {
		lzma_end(r->xz);
		free(r->xz);
	}
	if (r->zst) {
		ZSTD_freeDStream(((zstd_in *)r->zst)->ds);
		free(r->zst);
	}
	if (r->lz4) {
		LZ4F_freeDecompressionContext(((lz4_in *)r->lz4)->dc);
		free(r->lz4);
	}
	free(r->zin);
	if (r->mem_fp)
		fclose(r->mem_fp);
	r->z = NULL;
	r->xz = NULL;
	r->zst = NULL;
	r->lz4 = NULL;
	r->zin = NULL;
	r->mem_fp = NULL;
}

int64_t dmls_rd_refill(dmls_reader *r, size_t n, dmls_error *err)
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
		int64_t got = r->z    ? gz_read(r, r->own_buf + r->end, want, err)
			      : r->xz ? xz_read(r, r->own_buf + r->end, want, err)
			      : r->zst ? zstd_read(r, r->own_buf + r->end, want, err)
			      : r->lz4 ? lz4_read(r, r->own_buf + r->end, want, err)
				       : raw_read(r, r->own_buf + r->end, want, err);
		if (got < 0)
			return -1;
		r->end += (size_t)got;
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
				return dmls_fail(err, DMLS_EBAD, "'%s': truncated block at byte %llu%s",
						 r->name, (unsigned long long)dmls_rd_pos(r),
						 dmls_rd_cut(r));
			have = (size_t)got;
		}
		size_t k = have < n ? have : (size_t)n;
		r->start += k;
		n -= k;
	}
	return 0;
}
