/*
 * capture.h - reading capture files (pcap, pcapng) record by record.
 *
 * Our own reader (not libpcap) for files: it reads from a memory buffer or
 * a FILE * with large buffered reads, handles pcap (micro and nanosecond,
 * both byte orders) and pcapng (several interfaces with different link
 * types, snap lengths and timestamp resolutions in one file), and never
 * trusts a length field.  See field-notes.md for why libpcap falls short.
 *
 * Usage:
 *   dmls_reader *r; dmls_error err;
 *   if (dmls_reader_open_file(&r, path, &err)) ... err.msg ...
 *   dmls_record rec;
 *   while ((rc = dmls_reader_next(r, &rec, &err)) == 1) ... use rec ...
 *   if (rc < 0) ... err.status / err.msg: damage after the good records ...
 *   dmls_reader_free(r);
 *
 * rec.data stays valid until the next call to dmls_reader_next.
 */
#ifndef DMLSCOPE_CAPTURE_H
#define DMLSCOPE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlscope/error.h"

typedef struct dmls_record {
	int64_t ts_ns;       /* capture time, nanoseconds since the Unix epoch */
	uint32_t caplen;     /* bytes present in data */
	uint32_t origlen;    /* bytes the packet had on the wire */
	int linktype;        /* LINKTYPE_* value of the interface */
	uint32_t iface;      /* pcapng interface index, 0 for pcap */
	const uint8_t *data; /* caplen bytes, owned by the reader */
} dmls_record;

typedef struct dmls_reader dmls_reader;

/* Open a capture held in memory; name is used in error messages.  buf must
 * outlive the reader. */
int dmls_reader_open_buffer(dmls_reader **out, const uint8_t *buf, size_t len,
			    const char *name, dmls_error *err);
/* Open a capture from an open stream (not closed by the reader). */
int dmls_reader_open_stream(dmls_reader **out, FILE *fp, const char *name,
			    dmls_error *err);
/* Open a capture file by path (DMLS_EIO if it cannot be opened). */
int dmls_reader_open_file(dmls_reader **out, const char *path, dmls_error *err);

/* Next record: returns 1 and fills rec, 0 at a clean end of file, or -1 with
 * err filled (DMLS_EBAD for a damaged file, DMLS_EIO for a read error). */
int dmls_reader_next(dmls_reader *r, dmls_record *rec, dmls_error *err);

/* "pcap" or "pcapng". */
const char *dmls_reader_format(const dmls_reader *r);
/* "gzip" or "xz" for a compressed capture, else NULL. */
const char *dmls_reader_compression(const dmls_reader *r);
/* Link type of the first interface (pcap: the file's), -1 if none yet. */
int dmls_reader_linktype(const dmls_reader *r);
/* Interfaces described so far (pcapng: its current section's; 1 for pcap). */
uint32_t dmls_reader_interfaces(const dmls_reader *r);
const char *dmls_reader_name(const dmls_reader *r);

/* Bytes of the file (or buffer) consumed so far, compressed bytes for a
 * compressed capture; and its size, 0 when unknown (a pipe). */
uint64_t dmls_reader_pos(const dmls_reader *r);
uint64_t dmls_reader_size(const dmls_reader *r);

void dmls_reader_free(dmls_reader *r);

#endif
