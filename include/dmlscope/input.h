/*
 * input.h - one job's packets from one or several captures, in time order.
 *
 * Opens every capture of a job (the study's one file per worker), merges
 * them on capture time with a streaming k-way merge, decodes each record,
 * applies an optional BPF filter (libpcap: pcap_open_dead + pcap_compile +
 * pcap_offline_filter on the raw record), and drops a packet captured at
 * both ends: for TCP, each directional flow is owned by the file that
 * delivered it first and another file's packets of it are duplicates
 * unless they bring sequence space the owner never delivered after it
 * stopped (so GSO/GRO super-packets of other sizes at the two ends count
 * once); for other protocols, the same 5-tuple, IP id, IP length from
 * another file within a small time window (see src/io/dedup.c).  Records
 * that are not usable IP are counted, never dropped silently.
 *
 * A damaged file (truncated record, corrupt block) ends that file only: the
 * packets before the damage are delivered, the other files go on, and the
 * first error is kept for the caller to report (dmls_input_error).
 */
#ifndef DMLSCOPE_INPUT_H
#define DMLSCOPE_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlscope/decode.h"
#include "dmlscope/error.h"

typedef struct dmls_input_file {
	char *path;
	const char *format;  /* "pcap", "pcapng", or NULL if not opened */
	const char *compression; /* "gzip", "xz", or NULL */
	int linktype;        /* first interface's link type, -1 unknown */
	uint64_t records;    /* records read from this file */
	uint64_t packets;    /* IP packets delivered from this file */
	int64_t clock_offset_ns; /* taken from its time stamps: its clock's
				  * offset from the first file's (clocks.c) */
	int status;          /* DMLS_OK, or the error that ended the file */
	char error[512];
} dmls_input_file;

typedef struct dmls_input_counts {
	uint64_t records;    /* all records read */
	uint64_t packets;    /* IP packets delivered */
	uint64_t wire_bytes; /* wire bytes of the packets delivered */
	uint64_t truncated;  /* records too short or malformed to decode */
	uint64_t non_ip;     /* ARP, STP, ... */
	uint64_t other;      /* unknown link type */
	uint64_t filtered;   /* rejected by the BPF filter */
	uint64_t duplicates; /* captured at both ends, counted once */
	uint64_t decapsulated; /* packets delivered on a tunnel's inner headers */
	uint64_t tcp_cut;    /* packets delivered whose TCP header the snap length
			      * cut before its data offset (decode.h, tcp_cut) */
	int64_t first_ns, last_ns; /* of the packets delivered */
	int clocks_contradict; /* the captures' clocks left as they were: their
				* bounds contradict each other (clocks.c) */
} dmls_input_counts;

typedef struct dmls_input dmls_input;

/* Where one capture comes from: a path (fp and buf NULL), an open stream
 * (read to its end, not closed) or a buffer (which must outlive the input).
 * name is the path, or what messages call the capture. */
typedef struct dmls_source {
	const char *name;
	FILE *fp;
	const uint8_t *buf;
	size_t len;
} dmls_source;

/* Open n captures by path ("-" is standard input).  bpf may be NULL.  Fails (DMLS_EIO/DMLS_EBAD) only when no
 * file can be read at all or the filter does not compile (DMLS_EUSAGE);
 * a file that cannot be opened among readable ones is recorded in its
 * dmls_input_file and reported by dmls_input_error. */
int dmls_input_open(dmls_input **out, const char *const *paths, size_t n,
		    const char *bpf, dmls_error *err);
/* The same from sources (a fuzzer's buffers, a stream). */
int dmls_input_open_sources(dmls_input **out, const dmls_source *sources, size_t n,
			    const char *bpf, dmls_error *err);
/* Decode with these flags (dmls_decode_ex: DMLS_DECODE_OUTER), from the
 * next packet on; 0 by default. */
void dmls_input_set_decode(dmls_input *in, unsigned flags);

/* Next IP packet in time order: 1 and *pkt filled, 0 at the end. */
int dmls_input_next(dmls_input *in, dmls_pkt *pkt);

/* Index of the file the last packet came from. */
size_t dmls_input_last_file(const dmls_input *in);

const dmls_input_counts *dmls_input_get_counts(const dmls_input *in);
size_t dmls_input_nfiles(const dmls_input *in);
const dmls_input_file *dmls_input_get_file(const dmls_input *in, size_t i);

/* How far the reading is: bytes consumed from all captures (compressed
 * bytes for compressed ones) and their total size (0 when some size is
 * unknown: a pipe). */
void dmls_input_progress(const dmls_input *in, uint64_t *done_bytes, uint64_t *total_bytes);

/* Why captures with these counts gave no IP packet, as the end of a line
 * (": link type 127 is not one dmlscope reads (...)"), into buf; "" when no
 * one reason covers it.  Returns buf. */
const char *dmls_input_why_empty(const dmls_input_counts *c, const dmls_input_file *files,
				 size_t nfiles, char *buf, size_t len);

/* The first error met by any file (status DMLS_OK if none). */
const dmls_error *dmls_input_error(const dmls_input *in);

void dmls_input_free(dmls_input *in);

#endif
