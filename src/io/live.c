/*
 * live.c - capture from interfaces with libpcap, decode as input.c does.
 *
 * Each interface: pcap_create, then before pcap_activate the options that
 * make a live analysis keep up (libpcap's pcap(3PCAP) "creating a handle"):
 * a large buffer (the kernel ring that absorbs a burst while we analyze),
 * nanosecond timestamps when the kernel gives them, promiscuous mode (as
 * tcpdump), and a packet buffer timeout of DMLS_LIVE_BLOCK_MS instead of
 * immediate mode.  On Linux libpcap uses TPACKET_V3 (the kernel fills
 * blocks of packets, handed over when full or when the timeout retires
 * them) only when immediate mode is off (pcap-linux.c: "if the user has
 * requested immediate mode, we don't use TPACKET_V3"); with immediate mode
 * it falls back to TPACKET_V2, one wake-up per packet.  Measured here
 * (bench/watch.sh, 725 k packets at tcpreplay's top speed into a veth):
 * 0.23 CPU s with TPACKET_V3 against 1.43 s in immediate mode.  A packet
 * then reaches the watch at most DMLS_LIVE_BLOCK_MS late, far under an
 * interval; dmls_live_drain waits for the last block to retire.
 * After activation the BPF program is compiled for the handle's link type
 * and set in the kernel, and the handle made non-blocking: one poll(2) on
 * every handle's selectable descriptor waits for the first of them, then
 * pcap_dispatch reads what each holds (a bounded number of rounds, so a
 * flood cannot keep the caller from its interval).
 *
 * The records are written (pcap_dump) before they are decoded, so the file
 * holds every record the kernel's filter passed, decodable or not, exactly
 * as counted in dmls_input_counts.records.
 *
 * Linux's "any" is asked for Linux cooked v2 records (libpcap gives v1
 * unless asked), whose interface index tells the interfaces apart: a
 * packet `any` sees on several of them (a bridge's ports) counts once, as
 * input.c counts it in the written file (points.c, dedup.c; from the
 * first packet, as there; with v1 records, sent and received are the
 * points).
 */
#include "dmlscope/live.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/dedup.h"
#include "io/pcap_dl.h"
#include "io/points.h"

#define DISPATCH_ROUNDS 64 /* pcap_dispatch calls per handle per poll at most */
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

struct dmls_live {
	size_t n;
	pcap_t *p[DMLS_LIVE_MAX_IFACES];
	int linktype[DMLS_LIVE_MAX_IFACES]; /* LINKTYPE_ values, for the decoder */
	int nano[DMLS_LIVE_MAX_IFACES];     /* timestamps in ns (else us) */
	struct pollfd pfd[DMLS_LIVE_MAX_IFACES];
	int snaplen;
	unsigned decode_flags;             /* dmls_decode_ex's */
	pcap_dumper_t *dump;
	char *write_path;
	bool dedup_on;                     /* a cooked v2 handle: interfaces apart */
	dmls_dedup dedup;
	dmls_points pts;
	dmls_input_counts counts;
	/* the dispatch in progress */
	size_t cur;
	dmls_live_cb cb;
	void *ctx;
	int cb_status;
};

/* libpcap hands out DLT_ values; files and the decoder use LINKTYPE_
 * values (https://www.tcpdump.org/linktypes.html): they differ for raw IP. */
static int dlt_to_linktype(int dlt)
{
#ifdef DLT_RAW
	if (dlt == DLT_RAW)
		return 101;
#endif
	return dlt == 14 || dlt == 12 ? 101 : dlt;
}

static int activate_error(pcap_t *p, const char *iface, int rc, dmls_error *err)
{
	switch (rc) {
	case PCAP_ERROR_NO_SUCH_DEVICE:
		return dmls_fail(err, DMLS_EIO, "no such interface '%s'", iface);
	case PCAP_ERROR_PERM_DENIED:
		return dmls_fail(err, DMLS_EIO,
				 "'%s': no permission to capture (needs root or CAP_NET_RAW)", iface);
	case PCAP_ERROR_IFACE_NOT_UP:
		return dmls_fail(err, DMLS_EIO, "'%s': interface is down", iface);
	default:
		return dmls_fail(err, DMLS_EIO, "'%s': cannot capture: %s", iface, pcap_geterr(p));
	}
}

static int set_filter(pcap_t *p, const char *iface, const char *bpf, dmls_error *err)
{
	struct bpf_program prog;
	if (pcap_compile(p, &prog, bpf, 1, PCAP_NETMASK_UNKNOWN) != 0)
		return dmls_fail(err, DMLS_EUSAGE, "invalid filter '%s': %s", bpf, pcap_geterr(p));
	int rc = pcap_setfilter(p, &prog);
	pcap_freecode(&prog);
	if (rc != 0)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot set the filter: %s", iface,
				 pcap_geterr(p));
	return DMLS_OK;
}

/* Create, configure and activate one interface's handle. */
static int open_one(dmls_live *lv, size_t i, const char *iface, const dmls_live_opts *o,
		    dmls_error *err)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(iface, ebuf);
	if (!p)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot capture: %s", iface, ebuf);
	lv->p[i] = p;
	pcap_set_snaplen(p, lv->snaplen);
	pcap_set_promisc(p, 1);
	pcap_set_timeout(p, DMLS_LIVE_BLOCK_MS);
	pcap_set_buffer_size(p, (int)(o->buffer_bytes ? o->buffer_bytes : DMLS_LIVE_DEFAULT_BUFFER));
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO); /* falls back to us */
	int rc = pcap_activate(p);
	if (rc < 0)
		return activate_error(p, iface, rc, err);
	lv->nano[i] = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	if (strcmp(iface, "any") == 0)
		pcap_set_datalink(p, DLT_LINUX_SLL2); /* else v1 stays: no interfaces */
	lv->linktype[i] = dlt_to_linktype(pcap_datalink(p));
	if (o->filter && (rc = set_filter(p, iface, o->filter, err)))
		return rc;
	if (pcap_setnonblock(p, 1, ebuf) != 0)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot capture: %s", iface, ebuf);
	lv->pfd[i].fd = pcap_get_selectable_fd(p);
	lv->pfd[i].events = POLLIN;
	if (lv->pfd[i].fd < 0)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot wait for packets on it", iface);
	return DMLS_OK;
}

static int open_writer(dmls_live *lv, const dmls_live_opts *o, dmls_error *err)
{
	for (size_t i = 1; i < lv->n; i++)
		if (lv->linktype[i] != lv->linktype[0] || lv->nano[i] != lv->nano[0])
			return dmls_fail(err, DMLS_EUSAGE,
					 "-w: '%s' and '%s' have different link types; one file "
					 "holds one (capture on 'any' instead)",
					 o->ifaces[0], o->ifaces[i]);
	lv->dump = pcap_dump_open(lv->p[0], o->write_path);
	if (!lv->dump)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot write: %s", o->write_path,
				 pcap_geterr(lv->p[0]));
	lv->write_path = strdup(o->write_path);
	return lv->write_path ? DMLS_OK : dmls_fail(err, DMLS_ENOMEM, "out of memory");
}

int dmls_live_open(dmls_live **out, const dmls_live_opts *o, dmls_error *err)
{
	*out = NULL;
	if (o->nifaces == 0)
		return dmls_fail(err, DMLS_EUSAGE, "no interface given");
	if (o->nifaces > DMLS_LIVE_MAX_IFACES)
		return dmls_fail(err, DMLS_EUSAGE, "more than %d interfaces",
				 DMLS_LIVE_MAX_IFACES);
	if (o->snaplen < 0)
		return dmls_fail(err, DMLS_EUSAGE, "invalid snap length %d", o->snaplen);
	dmls_live *lv = calloc(1, sizeof(*lv));
	if (!lv)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	lv->n = o->nifaces;
	lv->snaplen = o->snaplen ? o->snaplen : DMLS_LIVE_DEFAULT_SNAPLEN;
	lv->decode_flags = o->decode_flags;
	dmls_points_init(&lv->pts);
	int rc = DMLS_OK;
	for (size_t i = 0; i < o->nifaces && !rc; i++) {
		rc = open_one(lv, i, o->ifaces[i], o, err);
		bool cooked = lv->linktype[i] == DMLS_LT_SLL2 || lv->linktype[i] == DMLS_LT_SLL;
		if (!rc && cooked && !lv->dedup_on) {
			if (dmls_dedup_init(&lv->dedup, DMLS_DEDUP_WINDOW_NS, DMLS_DEDUP_MAX_ENTRIES,
					    DMLS_DEDUP_MAX_FLOWS, 0))
				rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
			else
				lv->dedup_on = true;
		}
	}
	if (!rc && o->write_path)
		rc = open_writer(lv, o, err);
	if (rc) {
		dmls_live_free(lv);
		return rc;
	}
	*out = lv;
	return DMLS_OK;
}

/* One record: write it, decode it, count it, hand the packet over. */
static void on_record(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	dmls_live *lv = (dmls_live *)user;
	dmls_input_counts *c = &lv->counts;
	if (lv->cb_status)
		return;
	if (lv->dump)
		pcap_dump((u_char *)lv->dump, h, data);
	c->records++;
	dmls_pkt pkt;
	switch (dmls_decode_ex(lv->linktype[lv->cur], data, h->caplen, h->len, lv->decode_flags,
			       &pkt)) {
	case DMLS_DEC_OK: break;
	case DMLS_DEC_NON_IP: c->non_ip++; return;
	case DMLS_DEC_OTHER: c->other++; return;
	default: c->truncated++; return;
	}
	int64_t frac = (int64_t)h->ts.tv_usec * (lv->nano[lv->cur] ? 1 : 1000);
	pkt.ts_ns = (int64_t)h->ts.tv_sec * 1000000000LL + frac;
	int lt = lv->linktype[lv->cur];
	if (lv->dedup_on && (lt == DMLS_LT_SLL2 || lt == DMLS_LT_SLL)) {
		/* the written file's points: one file, the interface */
		uint32_t n = lv->pts.n;
		uint32_t pt = dmls_points_id(&lv->pts, 0, dmls_point_key(lt, 0, data, h->caplen),
					     DMLS_MAX_POINTS);
		if (pt == UINT32_MAX)
			pt = 0; /* past the cap (input.c: the first point), or memory */
		else if (lv->pts.n > n && dmls_dedup_point(&lv->dedup, pt, 0))
			pt = UINT32_MAX;
		if (pt != UINT32_MAX && dmls_dedup_check(&lv->dedup, &pkt, pt)) {
			c->duplicates++;
			return;
		}
	}
	if (c->packets == 0 || pkt.ts_ns < c->first_ns)
		c->first_ns = pkt.ts_ns;
	if (c->packets == 0 || pkt.ts_ns > c->last_ns)
		c->last_ns = pkt.ts_ns;
	c->packets++;
	c->wire_bytes += pkt.wire_bytes;
	c->decapsulated += pkt.tunnel != DMLS_TUN_NONE;
	c->tcp_cut += pkt.tcp_cut;
	int rc = lv->cb(lv->ctx, &pkt);
	if (rc) {
		lv->cb_status = rc;
		pcap_breakloop(lv->p[lv->cur]);
	}
}

/* Read what handle i holds, in at most DISPATCH_ROUNDS calls. */
static int read_handle(dmls_live *lv, size_t i, dmls_error *err)
{
	lv->cur = i;
	for (int round = 0; round < DISPATCH_ROUNDS; round++) {
		int n = pcap_dispatch(lv->p[i], -1, on_record, (u_char *)lv);
		if (lv->cb_status)
			return dmls_fail(err, lv->cb_status, "out of memory after %llu packets",
					 (unsigned long long)lv->counts.packets);
		if (n == PCAP_ERROR)
			return dmls_fail(err, DMLS_EIO, "capture failed: %s", pcap_geterr(lv->p[i]));
		if (n <= 0)
			break;
	}
	return DMLS_OK;
}

static int read_all(dmls_live *lv, dmls_live_cb cb, void *ctx, dmls_error *err)
{
	lv->cb = cb;
	lv->ctx = ctx;
	for (size_t i = 0; i < lv->n; i++) {
		int rc = read_handle(lv, i, err);
		if (rc)
			return rc;
	}
	return DMLS_OK;
}

int dmls_live_poll(dmls_live *lv, int timeout_ms, dmls_live_cb cb, void *ctx, dmls_error *err)
{
	if (timeout_ms > 0 && poll(lv->pfd, lv->n, timeout_ms) < 0 && errno != EINTR)
		return dmls_fail(err, DMLS_EIO, "cannot wait for packets: %s", strerror(errno));
	return read_all(lv, cb, ctx, err);
}

int dmls_live_drain(dmls_live *lv, dmls_live_cb cb, void *ctx, dmls_error *err)
{
	/* until a round that waited for the last block's retirement reads nothing */
	for (int round = 0; round < 1024; round++) {
		uint64_t before = lv->counts.records;
		int rc = dmls_live_poll(lv, 2 * DMLS_LIVE_BLOCK_MS, cb, ctx, err);
		if (rc || lv->counts.records == before)
			return rc;
	}
	return DMLS_OK;
}

const dmls_input_counts *dmls_live_get_counts(const dmls_live *lv)
{
	return &lv->counts;
}

int dmls_live_get_drops(dmls_live *lv, dmls_live_drops *d, dmls_error *err)
{
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < lv->n; i++) {
		struct pcap_stat ps;
		if (pcap_stats(lv->p[i], &ps) != 0)
			return dmls_fail(err, DMLS_EIO, "cannot read the capture's counters: %s",
					 pcap_geterr(lv->p[i]));
		d->received += ps.ps_recv;
		d->dropped += ps.ps_drop;
		d->if_dropped += ps.ps_ifdrop;
	}
	return DMLS_OK;
}

int dmls_live_linktype(const dmls_live *lv)
{
	return lv->linktype[0];
}

int dmls_live_snaplen(const dmls_live *lv)
{
	return lv->snaplen;
}

int dmls_live_close_writer(dmls_live *lv, dmls_error *err)
{
	if (!lv->dump)
		return DMLS_OK;
	FILE *fp = pcap_dump_file(lv->dump);
	int bad = pcap_dump_flush(lv->dump) != 0 || ferror(fp);
	pcap_dump_close(lv->dump);
	lv->dump = NULL;
	if (bad)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot write", lv->write_path);
	return DMLS_OK;
}

void dmls_live_free(dmls_live *lv)
{
	if (!lv)
		return;
	if (lv->dump)
		pcap_dump_close(lv->dump);
	for (size_t i = 0; i < lv->n; i++)
		if (lv->p[i])
			pcap_close(lv->p[i]);
	if (lv->dedup_on)
		dmls_dedup_release(&lv->dedup);
	dmls_points_release(&lv->pts);
	free(lv->write_path);
	free(lv);
}
