/*
 * live.h - packets captured from network interfaces as they pass.
 *
 * The live twin of input.h: libpcap opens each interface with
 * pcap_create + pcap_activate (a large kernel buffer, nanosecond
 * timestamps, a DMLS_LIVE_BLOCK_MS buffer timeout rather than immediate
 * mode, so that on Linux libpcap uses TPACKET_V3 memory-mapped blocks: see
 * live.c), the BPF filter runs in the kernel (pcap_setfilter), every record
 * the filter passes can be written to a pcap file as it comes (pcap_dump,
 * the snap length as given), and each record goes through the same decoder
 * as a capture file's (src/decode), counted in the same dmls_input_counts.
 * So analyzing the written file later reads the same records in the same
 * order and gives the same numbers.
 *
 * Several interfaces are polled together (poll(2) on their selectable
 * descriptors); their packets come in the order they are read, interface
 * by interface, which is also the order of the written file.  A packet seen
 * on two of them (a bridge and its port) is counted twice, as analyzing
 * one file holding both would.  On Linux's "any" (Linux cooked v2 records,
 * with the interface index) it is counted once, as analyzing the file
 * does.
 *
 * Kernel and interface drops come from pcap_stats, summed over the
 * interfaces (dmls_live_drops): never hidden.
 *
 * Errors: a missing interface or no right to capture is DMLS_EIO, a filter
 * that does not compile DMLS_EUSAGE (as for analyze --filter), a bad value
 * DMLS_EUSAGE.  Nothing here prints, nothing installs signal handlers: a
 * signal interrupts dmls_live_poll's wait and the caller decides.
 */
#ifndef DMLSCOPE_LIVE_H
#define DMLSCOPE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/decode.h"
#include "dmlscope/error.h"
#include "dmlscope/input.h"

#define DMLS_LIVE_MAX_IFACES 16
#define DMLS_LIVE_DEFAULT_SNAPLEN 262144
#define DMLS_LIVE_DEFAULT_BUFFER (64u << 20) /* bytes of kernel ring per interface */
#define DMLS_LIVE_BLOCK_MS 50 /* packet buffer timeout: a block waits at most this */

typedef struct dmls_live_opts {
	const char *const *ifaces; /* interface names ("any" is Linux's every interface) */
	size_t nifaces;
	const char *filter;        /* BPF expression or NULL */
	int snaplen;               /* 0: DMLS_LIVE_DEFAULT_SNAPLEN */
	unsigned buffer_bytes;     /* 0: DMLS_LIVE_DEFAULT_BUFFER */
	const char *write_path;    /* pcap file of every record the filter
				    * passed, or NULL */
	unsigned decode_flags;     /* dmls_decode_ex's: DMLS_DECODE_OUTER, or 0 */
} dmls_live_opts;

typedef struct dmls_live_drops {
	uint64_t received;         /* packets the kernel's filter passed (ps_recv) */
	uint64_t dropped;          /* dropped by the kernel: no room in the buffer (ps_drop) */
	uint64_t if_dropped;       /* dropped by the interface or its driver (ps_ifdrop) */
} dmls_live_drops;

typedef struct dmls_live dmls_live;

/* Called with every decoded IP packet; a non-zero return stops the poll
 * and is returned by it (e.g. out of memory). */
typedef int (*dmls_live_cb)(void *ctx, const dmls_pkt *p);

/* Open every interface and start capturing.  On failure nothing is left
 * open and *out is NULL. */
int dmls_live_open(dmls_live **out, const dmls_live_opts *o, dmls_error *err);

/* Wait up to timeout_ms (0: do not wait) for packets, then read what the
 * interfaces hold, calling cb for each IP packet.  A signal ends the wait
 * early.  Returns DMLS_OK, or an error (a capture or write error, DMLS_EIO;
 * the callback's status). */
int dmls_live_poll(dmls_live *lv, int timeout_ms, dmls_live_cb cb, void *ctx, dmls_error *err);

/* Read whatever is left in the kernel's buffers, the last partly filled
 * block included (it waits for its retirement, about DMLS_LIVE_BLOCK_MS):
 * at the end, before the last dmls_live_get_drops. */
int dmls_live_drain(dmls_live *lv, dmls_live_cb cb, void *ctx, dmls_error *err);

/* Records read, IP packets delivered, undecodable records (as input.h). */
const dmls_input_counts *dmls_live_get_counts(const dmls_live *lv);
/* Kernel and interface drops so far, summed over the interfaces. */
int dmls_live_get_drops(dmls_live *lv, dmls_live_drops *d, dmls_error *err);
/* The capture's link type (LINKTYPE_ value) and snap length. */
int dmls_live_linktype(const dmls_live *lv);
int dmls_live_snaplen(const dmls_live *lv);

/* Flush and close the written file (if any).  Returns DMLS_OK or DMLS_EIO
 * when the file could not be written; the capture may still be polled. */
int dmls_live_close_writer(dmls_live *lv, dmls_error *err);

/* Close the interfaces and the written file. */
void dmls_live_free(dmls_live *lv);

#endif
