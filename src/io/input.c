/*
 * input.c - one job's packets from N captures, in time order.
 *
 * Streaming k-way merge (Knuth, TAOCP vol. 3, 5.4.1): each file keeps one
 * record buffered (copied, since the reader reuses its window), and a
 * binary min-heap of files ordered by (timestamp, file index) yields the
 * earliest record; the file it came from then reads its next record and
 * sinks back into the heap.  Memory is one record per file, whatever the
 * files' lengths; O(log N) per packet.
 *
 * Each record then goes through
 *   1. the BPF filter, if any: libpcap compiles it once per link type
 *      (lazily, on pcap_open_dead) and pcap_offline_filter runs it on the
 *      raw record; rejected records count as filtered;
 *   2. the decoder (src/decode): truncated / non-IP / unknown link type
 *      records are counted, never dropped silently;
 *   3. with more than one capture point, the duplicate check of
 *      src/io/dedup.c (a packet captured at both ends: TCP by ownership of
 *      each flow's sequence space, other protocols by exact match within
 *      100 ms); a file that ends is told to it, so its TCP flows can pass
 *      to another point.
 *
 * A capture point is a file's interface (points.c): pcapng interfaces, the
 * interface index of Linux cooked v2 records (`tcpdump -i any`), and sent
 * or received in v1 records are told apart, up to DMLS_MAX_POINTS (past it a
 * file's new interfaces share its first point).  Dedup runs from the
 * start with more than one file, a cooked file or a pcapng file whose
 * interfaces before its first packet are two or more; else from the
 * second point on (an interface described after the first packet: a copy
 * of a packet the first point delivered in the window before it is
 * counted twice).
 *
 * Captures made on different machines are stamped by different clocks:
 * before the merge, each file's offset from the first file's clock is
 * estimated from the TCP packets at its start (clocks.c) and taken from
 * its time stamps, so that the merge and everything after it see one
 * clock (files[i].clock_offset_ns).
 *
 * A file that cannot be opened, or breaks mid-way, is recorded in its
 * dmls_input_file (the first error also in in->first_err) and the merge
 * goes on with the others.
 */
#include "dmlscope/input.h"

#include <stdlib.h>
#include <string.h>

#include "dmlscope/capture.h"
#include "io/clocks.h"
#include "io/dedup.h"
#include "io/pcap_dl.h"
#include "io/points.h"


typedef struct src {
	dmls_reader *r;
	bool live;
	int64_t ts;          /* rec's time on the first file's clock */
	dmls_record rec;     /* the record buffered: its data are in its reader's
			      * window, valid until that reader is called again
			      * (advance); the reader writes it in place */
} src;

typedef struct filter {
	int linktype;
	bool ok;
	struct bpf_program prog;
} filter;

struct dmls_input {
	size_t n;
	dmls_input_file *files;
	src *srcs;
	size_t *heap, hn;
	size_t last;
	char *bpf;
	filter *filters;
	size_t nfilters, last_filter;
	bool dedup_on;
	dmls_points pts;
	uint32_t *first_pt; /* per file: its first point, UINT32_MAX before */
	unsigned decode_flags;
	dmls_dedup dedup;
	dmls_input_counts counts;
	dmls_error first_err;
};

static void note_error(dmls_input *in, size_t i, const dmls_error *e)
{
	in->files[i].status = e->status;
	snprintf(in->files[i].error, sizeof(in->files[i].error), "%s", e->msg);
	if (in->first_err.status == DMLS_OK)
		in->first_err = *e;
}

static bool heap_less(const dmls_input *in, size_t a, size_t b)
{
	const src *x = &in->srcs[a], *y = &in->srcs[b];
	return x->ts < y->ts || (x->ts == y->ts && a < b);
}

static void sift_down(dmls_input *in, size_t k)
{
	size_t *h = in->heap;
	for (;;) {
		size_t l = 2 * k + 1, m = k;
		if (l < in->hn && heap_less(in, h[l], h[m]))
			m = l;
		if (l + 1 < in->hn && heap_less(in, h[l + 1], h[m]))
			m = l + 1;
		if (m == k)
			return;
		size_t t = h[k];
		h[k] = h[m];
		h[m] = t;
		k = m;
	}
}

/* Buffer file i's next record; false at its end (or damage, noted). */
static bool advance(dmls_input *in, size_t i)
{
	src *s = &in->srcs[i];
	dmls_error e;
	e.status = DMLS_OK, e.msg[0] = '\0'; /* dmls_error_clear, once per record */
	int rc = dmls_reader_next(s->r, &s->rec, &e);
	if (rc != 1) {
		if (rc < 0)
			note_error(in, i, &e);
		s->live = false;
		return false;
	}
	s->ts = s->rec.ts_ns;
	int64_t off = in->files[i].clock_offset_ns;
	if (off && __builtin_sub_overflow(s->rec.ts_ns, off, &s->ts))
		s->ts = off > 0 ? INT64_MIN : INT64_MAX;
	if (in->files[i].linktype < 0)
		in->files[i].linktype = s->rec.linktype;
	return true;
}

/* libpcap's compiler wants DLT_ values; files carry LINKTYPE_ values. */
static int linktype_to_dlt(int lt)
{
	switch (lt) {
	case 101:
	case 12:
	case 14:
		return DLT_RAW;
	case 108:
		return DLT_LOOP;
	default:
		return lt;
	}
}

/* The compiled filter for a link type (compiled on first use). */
static filter *get_filter(dmls_input *in, int linktype, dmls_error *err)
{
	if (in->nfilters && in->filters[in->last_filter].linktype == linktype)
		return &in->filters[in->last_filter];
	for (size_t i = 0; i < in->nfilters; i++)
		if (in->filters[i].linktype == linktype)
			return &in->filters[in->last_filter = i];
	filter *nf = realloc(in->filters, (in->nfilters + 1) * sizeof(*nf));
	if (!nf) {
		dmls_fail(err, DMLS_ENOMEM, "out of memory");
		return NULL;
	}
	in->filters = nf;
	filter *f = &nf[in->nfilters];
	memset(f, 0, sizeof(*f));
	f->linktype = linktype;
	if (dmls_pcap_load(err))
		return NULL;
	pcap_t *p = pcap_open_dead(linktype_to_dlt(linktype), 262144);
	if (!p) {
		dmls_fail(err, DMLS_ENOMEM, "out of memory");
		return NULL;
	}
	if (pcap_compile(p, &f->prog, in->bpf, 1, PCAP_NETMASK_UNKNOWN) == 0)
		f->ok = true;
	else
		dmls_fail(err, DMLS_EUSAGE, "invalid filter '%s': %s", in->bpf, pcap_geterr(p));
	pcap_close(p);
	in->last_filter = in->nfilters++;
	return f;
}

static int start_dedup(dmls_input *in)
{
	if (dmls_dedup_init(&in->dedup, DMLS_DEDUP_WINDOW_NS, DMLS_DEDUP_MAX_ENTRIES,
			    DMLS_DEDUP_MAX_FLOWS, 0))
		return -1;
	in->dedup_on = true;
	for (uint32_t p = 0; p < in->pts.n; p++)
		if (dmls_dedup_point(&in->dedup, p, in->pts.v[p].file))
			return -1;
	return 0;
}

/* The capture point of the record buffered in file i; dedup starts with
 * the second point.  UINT32_MAX when out of memory. */
static uint32_t point_of(dmls_input *in, size_t i, const src *s)
{
	uint32_t n = in->pts.n, first = in->first_pt[i];
	uint32_t id = dmls_points_id(&in->pts, i,
				     dmls_point_key(s->rec.linktype, s->rec.iface, s->rec.data, s->rec.caplen),
				     first == UINT32_MAX ? UINT32_MAX : DMLS_MAX_POINTS);
	if (id == UINT32_MAX)
		return in->pts.n < DMLS_MAX_POINTS ? UINT32_MAX : first; /* memory; past the cap */
	if (in->pts.n == n)
		return id;
	if (first == UINT32_MAX)
		in->first_pt[i] = id;
	if (in->dedup_on ? dmls_dedup_point(&in->dedup, id, i)
			 : in->pts.n >= 2 && start_dedup(in))
		return UINT32_MAX;
	return id;
}

/* Filter, decode and dedup the record buffered in file i. */
static bool take_record(dmls_input *in, size_t i, dmls_pkt *pkt)
{
	src *s = &in->srcs[i];
	if (in->bpf) {
		dmls_error e;
		dmls_error_clear(&e);
		filter *f = get_filter(in, s->rec.linktype, &e);
		if (f && f->ok) {
			struct pcap_pkthdr h = {.caplen = s->rec.caplen, .len = s->rec.origlen};
			if (!pcap_offline_filter(&f->prog, &h, s->rec.data)) {
				in->counts.filtered++;
				return false;
			}
		} else {
			/* the filter does not apply to this link type */
			e.status = e.status == DMLS_EUSAGE ? DMLS_EBAD : e.status;
			if (e.status != DMLS_OK && in->first_err.status == DMLS_OK)
				in->first_err = e;
			in->counts.filtered++;
			return false;
		}
	}
	switch (dmls_decode_ex(s->rec.linktype, s->rec.data, s->rec.caplen, s->rec.origlen, in->decode_flags,
			      pkt)) {
	case DMLS_DEC_OK:
		break;
	case DMLS_DEC_NON_IP:
		in->counts.non_ip++;
		return false;
	case DMLS_DEC_OTHER:
		in->counts.other++;
		return false;
	default:
		in->counts.truncated++;
		return false;
	}
	pkt->ts_ns = s->ts;
	uint32_t pt = point_of(in, i, s);
	if (pt == UINT32_MAX) {
		if (in->first_err.status == DMLS_OK)
			dmls_fail(&in->first_err, DMLS_ENOMEM, "out of memory");
		pt = in->first_pt[i]; /* counted, not checked */
	}
	if (in->dedup_on && pt != UINT32_MAX && dmls_dedup_check(&in->dedup, pkt, pt)) {
		in->counts.duplicates++;
		return false;
	}
	return true;
}

int dmls_input_next(dmls_input *in, dmls_pkt *pkt)
{
	while (in->hn > 0) {
		size_t i = in->heap[0];
		in->counts.records++;
		in->files[i].records++;
		bool ok = take_record(in, i, pkt);
		if (!advance(in, i)) {
			in->heap[0] = in->heap[--in->hn];
			if (in->dedup_on)
				for (uint32_t p = 0; p < in->pts.n; p++)
					if (in->pts.v[p].file == i)
						dmls_dedup_file_end(&in->dedup, p);
		}
		if (in->hn > 1) /* one capture (the common case) needs no merge */
			sift_down(in, 0);
		if (ok) {
			dmls_input_counts *c = &in->counts;
			if (c->packets == 0 || pkt->ts_ns < c->first_ns)
				c->first_ns = pkt->ts_ns;
			if (c->packets == 0 || pkt->ts_ns > c->last_ns)
				c->last_ns = pkt->ts_ns;
			c->packets++;
			c->wire_bytes += pkt->wire_bytes;
			c->decapsulated += pkt->tunnel != DMLS_TUN_NONE;
			c->tcp_cut += pkt->tcp_cut;
			in->files[i].packets++;
			in->last = i;
			return 1;
		}
	}
	return 0;
}

void dmls_input_set_decode(dmls_input *in, unsigned flags)
{
	in->decode_flags = flags;
}

static void input_free_all(dmls_input *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n; i++) {
		dmls_reader_free(in->srcs[i].r);
		free(in->files[i].path);
	}
	for (size_t i = 0; i < in->nfilters; i++)
		if (in->filters[i].ok)
			pcap_freecode(&in->filters[i].prog);
	if (in->dedup_on)
		dmls_dedup_release(&in->dedup);
	dmls_points_release(&in->pts);
	free(in->first_pt);
	free(in->filters);
	free(in->bpf);
	free(in->files);
	free(in->srcs);
	free(in->heap);
	free(in);
}

/* Open source i and buffer its first record; returns true if it opened. */
static bool open_one(dmls_input *in, size_t i, const dmls_source *sc)
{
	dmls_input_file *f = &in->files[i];
	dmls_error e;
	dmls_error_clear(&e);
	int rc = sc->buf  ? dmls_reader_open_buffer(&in->srcs[i].r, sc->buf, sc->len, f->path, &e)
		 : sc->fp ? dmls_reader_open_stream(&in->srcs[i].r, sc->fp, f->path, &e)
			  : dmls_reader_open_file(&in->srcs[i].r, f->path, &e);
	if (rc) {
		note_error(in, i, &e);
		return false;
	}
	f->format = dmls_reader_format(in->srcs[i].r);
	f->compression = dmls_reader_compression(in->srcs[i].r);
	f->linktype = dmls_reader_linktype(in->srcs[i].r);
	in->srcs[i].live = true;
	if (advance(in, i))
		in->heap[in->hn++] = i;
	return true;
}

static int setup_filter(dmls_input *in, const char *bpf, dmls_error *err)
{
	int lt = 1; /* Ethernet when no file tells */
	for (size_t i = 0; i < in->n; i++)
		if (in->files[i].linktype >= 0) {
			lt = in->files[i].linktype;
			break;
		}
	in->bpf = strdup(bpf);
	if (!in->bpf)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	filter *f = get_filter(in, lt, err);
	if (!f)
		return err ? err->status : DMLS_EIO;
	return f->ok ? DMLS_OK : DMLS_EUSAGE;
}

int dmls_input_open(dmls_input **out, const char *const *paths, size_t n,
		    const char *bpf, dmls_error *err)
{
	*out = NULL;
	dmls_source *sc = calloc(n ? n : 1, sizeof(*sc));
	if (!sc)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		sc[i].name = paths[i];
		sc[i].fp = strcmp(paths[i], "-") ? NULL : stdin;
	}
	int rc = dmls_input_open_sources(out, sc, n, bpf, err);
	free(sc);
	return rc;
}

int dmls_input_open_sources(dmls_input **out, const dmls_source *sources, size_t n,
			    const char *bpf, dmls_error *err)
{
	*out = NULL;
	if (n == 0)
		return dmls_fail(err, DMLS_EUSAGE, "no input files");
	dmls_input *in = calloc(1, sizeof(*in));
	if (!in)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	in->files = calloc(n, sizeof(*in->files));
	in->srcs = calloc(n, sizeof(*in->srcs));
	in->heap = calloc(n, sizeof(*in->heap));
	in->first_pt = malloc(n * sizeof(*in->first_pt));
	dmls_points_init(&in->pts);
	if (!in->files || !in->srcs || !in->heap || !in->first_pt) {
		input_free_all(in);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	in->n = n;
	for (size_t i = 0; i < n; i++)
		in->first_pt[i] = UINT32_MAX;
	dmls_error_clear(&in->first_err);
	int64_t *off = calloc(n, sizeof(*off));
	if (!off || dmls_clocks_estimate(sources, n, off, &in->counts.clocks_contradict)) {
		free(off);
		input_free_all(in);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		in->files[i].clock_offset_ns = off[i];
	free(off);
	size_t nopen = 0;
	for (size_t i = 0; i < n; i++) {
		in->files[i].linktype = -1;
		in->files[i].path = strdup(sources[i].name ? sources[i].name : "(memory)");
		if (!in->files[i].path) {
			input_free_all(in);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		nopen += open_one(in, i, &sources[i]);
	}
	if (nopen == 0) {
		if (err)
			*err = in->first_err;
		int st = in->first_err.status;
		input_free_all(in);
		return st;
	}
	for (size_t k = in->hn / 2; k-- > 0;)
		sift_down(in, k);
	if (bpf) {
		int rc = setup_filter(in, bpf, err);
		if (rc) {
			input_free_all(in);
			return rc;
		}
	}
	bool points = nopen > 1; /* a file with interfaces to tell apart? */
	for (size_t i = 0; i < n; i++)
		points |= in->files[i].linktype == DMLS_LT_SLL2 ||
			  in->files[i].linktype == DMLS_LT_SLL ||
			  (in->srcs[i].r && dmls_reader_interfaces(in->srcs[i].r) > 1);
	if (points && start_dedup(in)) {
		input_free_all(in);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	*out = in;
	return DMLS_OK;
}

size_t dmls_input_last_file(const dmls_input *in)
{
	return in->last;
}

const dmls_input_counts *dmls_input_get_counts(const dmls_input *in)
{
	return &in->counts;
}

size_t dmls_input_nfiles(const dmls_input *in)
{
	return in->n;
}

const dmls_input_file *dmls_input_get_file(const dmls_input *in, size_t i)
{
	return i < in->n ? &in->files[i] : NULL;
}

const dmls_error *dmls_input_error(const dmls_input *in)
{
	return &in->first_err;
}

void dmls_input_progress(const dmls_input *in, uint64_t *done_bytes, uint64_t *total_bytes)
{
	uint64_t done = 0, total = 0;
	int known = 1;
	for (size_t i = 0; i < in->n; i++) {
		const dmls_reader *r = in->srcs[i].r;
		if (!r)
			continue;
		uint64_t size = dmls_reader_size(r);
		done += in->srcs[i].live ? dmls_reader_pos(r) : size;
		total += size;
		known &= size > 0;
	}
	*done_bytes = done;
	*total_bytes = known ? total : 0;
}

void dmls_input_free(dmls_input *in)
{
	input_free_all(in);
}

const char *dmls_input_why_empty(const dmls_input_counts *c, const dmls_input_file *files,
				 size_t nfiles, char *buf, size_t len)
{
	const char *why = "";
	int lt = -1;
	if (c->records == 0)
		why = ": the captures hold no records";
	else if (c->filtered == c->records)
		why = ": the filter rejected every record";
	else if (c->non_ip == c->records)
		why = ": every record is ARP or another non-IP protocol";
	else if (c->truncated == c->records)
		why = ": every record is too short or malformed to decode (a snap length "
		      "shorter than their headers? each TCP header's first 8 bytes are needed)";
	else if (c->truncated > 0 && 2 * c->truncated >= c->records) {
		/* the rest ARP and the like: a snap length shorter than the
		 * headers cuts every IP packet and leaves the small others */
		snprintf(buf, len,
			 ": %llu of %llu records too short or malformed to decode (a snap length "
			 "shorter than their headers?)",
			 (unsigned long long)c->truncated, (unsigned long long)c->records);
		return buf;
	}
	else if (c->other == c->records)
		for (size_t i = 0; i < nfiles && lt < 0; i++)
			if (files[i].records)
				lt = files[i].linktype;
	if (lt >= 0)
		snprintf(buf, len,
			 ": link type %d is not one dmlscope reads (Ethernet, Linux cooked, raw IP, "
			 "loopback, IP over InfiniBand, PPP, PPPoE, Cisco HDLC, ERF, NFLOG, PKTAP)",
			 lt);
	else
		snprintf(buf, len, "%s", why);
	return buf;
}
