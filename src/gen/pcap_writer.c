/*
 * pcap_writer.c - the schedule as a packet capture (libpcap, nanosecond).
 *
 * Every connection opens with a three-way handshake at the start of the
 * capture (and, for a job with a tail, closes at its end).  A message of B bytes becomes ceil(B / 1448) segments; segment
 * i leaves at start + i gap + u gap / 4 (u uniform in [0, 1) from the seed,
 * so the spacing never goes below 3/4 gap and the segments keep their
 * order).  The receiver ACKs every second segment (delayed ACK, RFC 1122
 * 4.2.3.2 / RFC 9293) and the last one, 5 us after it plus up to gap / 2.
 * Sequence numbers run on per direction of a connection from a random
 * initial one; a data segment acknowledges what its sender has acknowledged
 * of the other direction so far.  TCP timestamps (RFC 7323) tick in
 * milliseconds from a random offset per host.
 *
 * Packets leave in time order without sorting the capture: every message
 * is two streams already in time order (its segments, its ACKs), merged
 * with a binary heap that holds only the messages in flight.  Memory is
 * the schedule plus that heap, whatever the size of the capture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_int.h"
#include "gen/tcp_seg.h"
#include "io/pcap_dl.h"

#define WINDOW 0x01f5 /* 501 x 128 (window scale 7) = 64 KB */
#define REC_HDR 16    /* a pcap record header: seconds, nanoseconds, caplen, len */

typedef struct stream {
	int64_t t;
	uint32_t msg;
	uint32_t ack;   /* 0 data segments, 1 ACKs */
	uint64_t i;     /* next segment or ACK */
} stream;

typedef struct writer {
	const dmls_gen_schedule *s;
	pcap_dumper_t *d;
	int snaplen;
	uint32_t (*nxt)[2];   /* per connection and direction: next sequence */
	uint32_t (*acked)[2]; /* ... and what the receiver has acknowledged */
	uint16_t *ip_id;      /* per host */
	uint32_t *base;       /* per message: sequence of its first byte */
	stream *heap;         /* streams in flight, earliest first */
	size_t nheap, heap_cap;
	uint64_t packets;     /* frames written */
	int64_t last_t;       /* of the last frame written */
	FILE *fp;             /* the dumper's stream: records written as one fwrite */
	uint8_t rec[REC_HDR + GEN_FRAME_MAX]; /* record header, then the frame */
} writer;

static uint32_t tsval(const writer *w, uint32_t host, int64_t t)
{
	return (uint32_t)(t / 1000000) + (uint32_t)gen_hash(w->s->job.seed, GEN_R_ISN, host, 7);
}

static void emit(writer *w, int64_t t, gen_tcp_pkt *pk)
{
	pk->ip_id = w->ip_id[pk->src]++;
	pk->tsval = tsval(w, pk->src, t);
	pk->tsecr = pk->flags & GEN_TCP_ACK ? tsval(w, pk->dst, t - 50000) : 0;
	pk->window = pk->flags & GEN_TCP_SYN ? 64240 : WINDOW; /* SYN: unscaled */
	size_t len = gen_tcp_frame(w->rec + REC_HDR, pk, (size_t)w->snaplen);
	size_t cap = (size_t)w->snaplen < len ? (size_t)w->snaplen : len;
	int64_t ts = GEN_EPOCH_S * 1000000000LL + t;
	/* the record header of a nanosecond pcap, host byte order (as
	 * pcap_dump writes it), then the frame: one fwrite */
	uint32_t h[4] = {(uint32_t)(ts / 1000000000LL), (uint32_t)(ts % 1000000000LL),
			 (uint32_t)cap, (uint32_t)len};
	memcpy(w->rec, h, REC_HDR);
	fwrite(w->rec, 1, REC_HDR + cap, w->fp);
	w->packets++;
	w->last_t = t > w->last_t ? t : w->last_t;
}

/* b connects to a (a worker to its server, rank r + 1 to rank r). */
static void handshakes(writer *w)
{
	const dmls_gen_schedule *s = w->s;
	for (size_t c = 0; c < s->nconns; c++) {
		const dmls_gen_conn *cn = &s->conns[c];
		uint32_t ia = (uint32_t)gen_hash(s->job.seed, GEN_R_ISN, c, 0);
		uint32_t ib = (uint32_t)gen_hash(s->job.seed, GEN_R_ISN, c, 1);
		int64_t t = (int64_t)c * GEN_HANDSHAKE_NS;
		gen_tcp_pkt syn = {cn->b, cn->a, cn->bport, cn->aport, ib, 0, 0, 0, 0, 0, 0,
				   GEN_TCP_SYN};
		gen_tcp_pkt synack = {cn->a, cn->b, cn->aport, cn->bport, ia, ib + 1, 0, 0, 0, 0,
				      0, GEN_TCP_SYN | GEN_TCP_ACK};
		gen_tcp_pkt ack = {cn->b, cn->a, cn->bport, cn->aport, ib + 1, ia + 1, 0, 0, 0,
				   0, 0, GEN_TCP_ACK};
		emit(w, t, &syn);
		emit(w, t + 10000, &synack);
		emit(w, t + 20000, &ack);
		w->nxt[c][0] = w->acked[c][0] = ia + 1;
		w->nxt[c][1] = w->acked[c][1] = ib + 1;
	}
}

/* A job with a tail (a run's capture that ends after its last iteration):
 * tail_ns after the last frame every connection closes, b first (FIN, FIN,
 * ACK, RFC 9293 3.6), 30 us apart. */
static void closes(writer *w)
{
	const dmls_gen_schedule *s = w->s;
	int64_t t0 = w->last_t + s->job.tail_ns;
	for (size_t c = 0; c < s->nconns; c++) {
		const dmls_gen_conn *cn = &s->conns[c];
		uint32_t sa = w->nxt[c][0], sb = w->nxt[c][1];
		int64_t t = t0 + (int64_t)c * GEN_HANDSHAKE_NS;
		gen_tcp_pkt fb = {cn->b, cn->a, cn->bport, cn->aport, sb, sa, 0, 0, 0, 0, 0,
				  GEN_TCP_FIN | GEN_TCP_ACK};
		gen_tcp_pkt fa = {cn->a, cn->b, cn->aport, cn->bport, sa, sb + 1, 0, 0, 0, 0, 0,
				  GEN_TCP_FIN | GEN_TCP_ACK};
		gen_tcp_pkt ack = {cn->b, cn->a, cn->bport, cn->aport, sb + 1, sa + 1, 0, 0, 0,
				   0, 0, GEN_TCP_ACK};
		emit(w, t, &fb);
		emit(w, t + 10000, &fa);
		emit(w, t + 20000, &ack);
	}
}

static uint64_t nseg_of(const dmls_gen_msg *m)
{
	return (m->bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS;
}

static int64_t seg_time(const writer *w, uint32_t mi, uint64_t i)
{
	const dmls_gen_msg *m = &w->s->msgs[mi];
	double u = gen_u01(w->s->job.seed, GEN_R_SEG, mi, i);
	return m->start_ns + (int64_t)i * m->gap_ns + (int64_t)(u * (double)m->gap_ns / 4);
}

/* ACK j acknowledges segment min(2j + 1, nseg - 1). */
static uint64_t acked_seg(const dmls_gen_msg *m, uint64_t j)
{
	uint64_t n = nseg_of(m);
	return 2 * j + 1 < n ? 2 * j + 1 : n - 1;
}

static int64_t ack_time(const writer *w, uint32_t mi, uint64_t j)
{
	const dmls_gen_msg *m = &w->s->msgs[mi];
	double u = gen_u01(w->s->job.seed, GEN_R_ACK, mi, j);
	return seg_time(w, mi, acked_seg(m, j)) + GEN_ACK_DELAY_NS +
	       (int64_t)(u * (double)m->gap_ns / 2);
}

/* Emit the stream's next packet; returns 0 when the stream is done. */
static int step_stream(writer *w, stream *st)
{
	const dmls_gen_msg *m = &w->s->msgs[st->msg];
	const dmls_gen_conn *cn = &w->s->conns[m->conn];
	int dir = m->src == cn->a ? 0 : 1;
	uint16_t sport = dir ? cn->bport : cn->aport, dport = dir ? cn->aport : cn->bport;
	uint64_t n = nseg_of(m);
	if (!st->ack) {
		uint64_t off = st->i * DMLS_GEN_MSS;
		uint32_t len = (uint32_t)(m->bytes - off < DMLS_GEN_MSS ? m->bytes - off
									 : DMLS_GEN_MSS);
		if (st->i == 0)
			w->base[st->msg] = w->nxt[m->conn][dir];
		gen_tcp_pkt pk = {m->src, m->dst, sport, dport, w->nxt[m->conn][dir],
				  w->acked[m->conn][!dir], 0, 0, len, 0, 0,
				  (uint8_t)(GEN_TCP_ACK | (st->i + 1 == n ? GEN_TCP_PSH : 0))};
		w->nxt[m->conn][dir] += len;
		emit(w, st->t, &pk);
		if (++st->i == n)
			return 0;
		st->t = seg_time(w, st->msg, st->i);
		return 1;
	}
	uint64_t seg = acked_seg(m, st->i);
	uint64_t upto = (seg + 1) * DMLS_GEN_MSS < m->bytes ? (seg + 1) * DMLS_GEN_MSS : m->bytes;
	uint32_t ackno = w->base[st->msg] + (uint32_t)upto;
	gen_tcp_pkt pk = {m->dst, m->src, dport, sport, w->nxt[m->conn][!dir], ackno, 0, 0, 0,
			  0, 0, GEN_TCP_ACK};
	w->acked[m->conn][dir] = ackno;
	emit(w, st->t, &pk);
	if (seg + 1 == n)
		return 0;
	st->i++;
	st->t = ack_time(w, st->msg, st->i);
	return 1;
}

static int before(const stream *a, const stream *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->msg != b->msg)
		return a->msg < b->msg;
	return a->ack < b->ack;
}

static void sift_down(stream *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && before(&h[l], &h[m]))
			m = l;
		if (r < n && before(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		stream t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int heap_push(writer *w, stream st)
{
	if (w->nheap == w->heap_cap) {
		size_t cap = w->heap_cap ? 2 * w->heap_cap : 64;
		stream *h = realloc(w->heap, cap * sizeof(*h));
		if (!h)
			return -1;
		w->heap = h;
		w->heap_cap = cap;
	}
	size_t i = w->nheap++;
	w->heap[i] = st;
	while (i > 0 && before(&w->heap[i], &w->heap[(i - 1) / 2])) {
		stream t = w->heap[i];
		w->heap[i] = w->heap[(i - 1) / 2];
		w->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static int run(writer *w)
{
	const dmls_gen_schedule *s = w->s;
	size_t mi = 0;
	handshakes(w);
	while (mi < s->nmsgs || w->nheap) {
		if (mi < s->nmsgs && (!w->nheap || s->msgs[mi].start_ns <= w->heap[0].t)) {
			if (heap_push(w, (stream){seg_time(w, (uint32_t)mi, 0), (uint32_t)mi, 0,
						  0}) ||
			    heap_push(w, (stream){ack_time(w, (uint32_t)mi, 0), (uint32_t)mi, 1,
						  0}))
				return -1;
			mi++;
			continue;
		}
		if (step_stream(w, &w->heap[0]))
			sift_down(w->heap, w->nheap, 0);
		else {
			w->heap[0] = w->heap[--w->nheap];
			sift_down(w->heap, w->nheap, 0);
		}
	}
	if (s->job.tail_ns > 0)
		closes(w);
	return 0;
}

int dmls_gen_write_pcap_fp(const dmls_gen_schedule *s, FILE *fp, int snaplen,
			   uint64_t *packets, dmls_error *err)
{
	writer w = {.s = s, .snaplen = snaplen > 0 ? snaplen : 65535};
	int rc = dmls_pcap_load(err);
	if (rc) {
		fclose(fp);
		return rc;
	}
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, w.snaplen,
							  PCAP_TSTAMP_PRECISION_NANO);
	if (!pd) {
		fclose(fp);
		return dmls_fail(err, DMLS_EIO, "cannot start a capture");
	}
	w.d = pcap_dump_fopen(pd, fp);
	if (!w.d) {
		fclose(fp);
		pcap_close(pd);
		return dmls_fail(err, DMLS_EIO, "cannot write the capture header");
	}
	w.fp = pcap_dump_file(w.d);
	w.nxt = calloc(s->nconns + 1, sizeof(*w.nxt));
	w.acked = calloc(s->nconns + 1, sizeof(*w.acked));
	w.ip_id = calloc(s->nhosts + 1, sizeof(*w.ip_id));
	w.base = calloc(s->nmsgs + 1, sizeof(*w.base));
	rc = DMLS_OK;
	if (!w.nxt || !w.acked || !w.ip_id || !w.base || run(&w))
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (!rc && (pcap_dump_flush(w.d) || ferror(pcap_dump_file(w.d))))
		rc = dmls_fail(err, DMLS_EIO, "cannot write the capture");
	pcap_dump_close(w.d);
	pcap_close(pd);
	if (packets)
		*packets = w.packets;
	free(w.nxt);
	free(w.acked);
	free(w.ip_id);
	free(w.base);
	free(w.heap);
	return rc;
}

int dmls_gen_write_pcap(const dmls_gen_schedule *s, const char *path, int snaplen,
			uint64_t *packets, dmls_error *err)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot open for writing", path);
	/* stdio's default buffer (4 KiB) made generation one write(2) per 4
	 * KiB, most of its system time: 1 MiB writes instead.  setvbuf before
	 * any I/O; glibc ignores the size unless given the buffer, which must
	 * outlive the fclose (pcap_dump_close in dmls_gen_write_pcap_fp). */
	char *iobuf = malloc(1 << 20);
	if (iobuf)
		setvbuf(fp, iobuf, _IOFBF, 1 << 20);
	int rc = dmls_gen_write_pcap_fp(s, fp, snaplen, packets, err);
	free(iobuf);
	if (rc == DMLS_EIO && err) { /* the path, then what went wrong */
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		return dmls_fail(err, DMLS_EIO, "'%s': %s", path, why);
	}
	return rc;
}
