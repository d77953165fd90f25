/*
 * capture_int.h - the reader's private state, shared by the reader
 * (src/io/reader.c), its window (rdbuf.c) and its format halves (pcap.c,
 * pcapng.c).  Not a public API.
 *
 * Bytes come through one window, buf[start, end), over either the caller's
 * memory buffer (the window is the whole buffer and never refills) or a
 * FILE * read in large chunks (DMLS_READ_CHUNK) into a buffer we own.  A
 * record's bytes are handed out as a pointer into that window, valid until
 * the next call, so the hot path copies and allocates nothing.
 */
#ifndef DMLS_IO_CAPTURE_INT_H
#define DMLS_IO_CAPTURE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlscope/capture.h"

#define DMLS_READ_CHUNK (64u << 10)     /* one fread: 64 KiB */
#define DMLS_MAX_CAPLEN (256u * 1024u)  /* larger is corrupt (libpcap: 262144) */
#define DMLS_MAX_BLOCK (16u << 20)      /* largest pcapng block we parse */

typedef struct dmls_iface {
	int linktype;
	uint32_t snaplen;
	uint64_t units;      /* timestamp units per second (if_tsresol) */
	int64_t offset_ns;   /* if_tsoffset, in nanoseconds */
} dmls_iface;

struct dmls_reader {
	char *name;
	FILE *fp;            /* NULL for a memory buffer */
	bool own_fp;
	bool eof;            /* the stream has no more bytes */
	bool failed;         /* an error was returned: stay failed */
	uint8_t *own_buf;    /* our buffer (stream mode) */
	size_t cap;
	const uint8_t *buf;  /* the window */
	size_t start, end;
	uint64_t base;       /* file offset of buf[0] */
	uint64_t nrec;       /* packet records delivered so far */
	const struct dmls_format *fmt; /* the format the probe found */

	/* gzip: a compressed capture (found by its magic, 1f 8b) is inflated
	 * into the window as it is read (zlib; several members in a row, as
	 * `cat a.gz b.gz` makes, are one stream) */
	void *z;             /* z_stream, NULL when not gzip */
	void *xz;            /* lzma_stream, NULL when not xz */
	void *zst;           /* rdbuf.c's zstd_in, NULL when not zstd */
	void *lz4;           /* rdbuf.c's lz4_in, NULL when not lz4 */
	uint8_t *zin;        /* compressed bytes read from fp */
	bool zeof;           /* fp has no more compressed bytes */
	bool zcut;           /* they ended inside a member or frame */
	FILE *mem_fp;        /* fmemopen of a compressed buffer (ours) */
	uint64_t size;       /* of the file or buffer, 0 unknown */

	/* pcap */
	bool swap;
	uint32_t frac_mult;  /* 1000 for microseconds, 1 for nanoseconds */
	uint32_t rec_hdr;    /* 16, or 24 for Kuznetzov's modified pcap */
	int linktype;
	uint32_t snaplen;

	/* pcapng: the current section */
	bool ng_swap;
	dmls_iface *ifaces;
	uint32_t nifaces, ifcap;
};

/* Make n bytes available at buf + start.  Returns the bytes available
 * (>= n, or fewer at the end of the file), or -1 on a read error (err set).
 * Bytes already buffered (nearly every call) are answered inline. */
int64_t dmls_rd_refill(dmls_reader *r, size_t n, dmls_error *err);
static inline int64_t dmls_rd_fill(dmls_reader *r, size_t n, dmls_error *err)
{
	size_t have = r->end - r->start;
	return have >= n ? (int64_t)have : dmls_rd_refill(r, n, err);
}
/* At the start of a stream: when its first bytes are gzip's, xz's, zstd's
 * or lz4's magic, read it through the decompressor from now on.  0, or -1
 * with err. */
int dmls_rd_gzip_start(dmls_reader *r, dmls_error *err);
void dmls_rd_gzip_free(dmls_reader *r);
/* What a truncated record or block owes to its compressed stream: " (the
 * gzip data ends inside a member)" and the like, or "". */
const char *dmls_rd_cut(const dmls_reader *r);
/* The position in the file: compressed bytes consumed of a compressed
 * stream, else the window's. */
uint64_t dmls_rd_file_pos(const dmls_reader *r);
/* Do the first len bytes at p open a gzip, xz, zstd or lz4 stream? */
bool dmls_rd_is_compressed(const uint8_t *p, size_t len);
/* Drop n bytes (possibly more than are buffered: skips in the stream). */
int dmls_rd_skip(dmls_reader *r, uint64_t n, dmls_error *err);
static inline uint64_t dmls_rd_pos(const dmls_reader *r)
{
	return r->base + r->start;
}

static inline uint16_t dmls_rd16(const uint8_t *p, bool swap)
{
	uint16_t v = (uint16_t)(p[0] | p[1] << 8);
	return swap ? (uint16_t)(v >> 8 | v << 8) : v;
}
static inline uint32_t dmls_rd32(const uint8_t *p, bool swap)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;
	return swap ? __builtin_bswap32(v) : v;
}

/* A capture format: does this magic number (the first four bytes, read
 * little-endian) open it, open (the window at the file's start), next
 * record (1, 0 at the end, -1 with err), first interface's link type. */
typedef struct dmls_format {
	const char *name;
	int (*check)(uint32_t magic);
	int (*open)(dmls_reader *r, uint32_t magic, dmls_error *err);
	int (*next)(dmls_reader *r, dmls_record *rec, dmls_error *err);
	int (*linktype)(const dmls_reader *r);
} dmls_format;

/* pcap half (src/io/pcap.c) */
int dmls_pcap_check(uint32_t magic);
int dmls_pcap_open(dmls_reader *r, uint32_t magic, dmls_error *err);
int dmls_pcap_next(dmls_reader *r, dmls_record *rec, dmls_error *err);
int dmls_pcap_linktype(const dmls_reader *r);

/* pcapng half (src/io/pcapng.c) */
int dmls_ng_check(uint32_t magic);
int dmls_ng_open(dmls_reader *r, uint32_t magic, dmls_error *err);
int dmls_ng_next(dmls_reader *r, dmls_record *rec, dmls_error *err);
int dmls_ng_linktype(const dmls_reader *r);

#endif
