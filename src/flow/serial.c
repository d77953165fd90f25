/*
 * serial.c - a mergeable dmls_stats as a blob and back (serial.h).
 *
 * Writing appends fixed-width little-endian fields to a growing buffer.
 * Reading goes through a cursor that never reads past the end (like
 * tcpdump's GET_ macros: a short read sets `bad` and yields 0), checks
 * every count against the bytes left before allocating, and rebuilds the
 * tables through the one pass's own constructors (st_host_get, ...), so a
 * loaded state has its indexes and obeys the same invariants as one made
 * from packets.  A field that does not hold is reported by name.
 */
#include "dmlscope/serial.h"

#include <stdlib.h>
#include <string.h>

#include "flow/stats_int.h"

static const char magic[8] = {'D', 'M', 'L', 'S', 'S', 'T', 'A', 'T'};
#define HEADER_BYTES 24

uint64_t dmls_serial_check(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* ---- writing ---- */

typedef struct wbuf {
	uint8_t *p;
	size_t n, cap;
	int oom;
} wbuf;

static void put(wbuf *w, uint64_t v, int bytes)
{
	if (w->oom)
		return;
	if (w->n + 8 > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		uint8_t *p = realloc(w->p, cap);
		if (!p) {
			w->oom = 1;
			return;
		}
		w->p = p, w->cap = cap;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(w->p + w->n, &v, (size_t)bytes); /* the format's order already */
	w->n += (size_t)bytes;
#else
	for (int i = 0; i < bytes; i++)
		w->p[w->n++] = (uint8_t)(v >> (8 * i));
#endif
}
#define PUT64(w, v) put((w), (uint64_t)(v), 8)
#define PUT32(w, v) put((w), (uint64_t)(v), 4)
#define PUT16(w, v) put((w), (uint64_t)(v), 2)
#define PUT8(w, v) put((w), (uint64_t)(v), 1)

static void put_addr(wbuf *w, const uint8_t a[16])
{
	for (int i = 0; i < 16; i++)
		PUT8(w, a[i]);
}

static void put_born(wbuf *w, dmls_born b)
{
	PUT64(w, b.ts);
	PUT64(w, b.seq);
}

static void put_series(wbuf *w, const dmls_series *s)
{
	PUT64(w, s->bin_ns);
	PUT32(w, s->join);
	PUT32(w, s->wide ? 8 : 4); /* bytes a value, as the series holds them */
	PUT64(w, s->min_bin);
	PUT64(w, s->max_bin);
	PUT64(w, s->total);
	PUT64(w, s->nruns);
	for (size_t r = 0; r < s->nruns; r++) {
		dmls_series_run u = dmls_series_run_get(s, r);
		PUT64(w, u.first);
		PUT32(w, (uint32_t)u.len);
		for (size_t j = 0; j < u.len; j++)
			put(w, dmls_series_val(s, u.off + j), s->wide ? 8 : 4);
	}
}

static void put_fold(wbuf *w, const dmls_fold *f)
{
	PUT64(w, f->entries);
	PUT64(w, f->packets);
	PUT64(w, f->wire_bytes);
	PUT64(w, f->payload_bytes);
}

static void put_head(wbuf *w, const dmls_stats *st)
{
	PUT64(w, st->bin_ns);
	PUT64(w, st->t0_ns);
	PUT64(w, st->first_ns);
	PUT64(w, st->last_ns);
	PUT64(w, st->packets);
	PUT64(w, st->wire_bytes);
	PUT64(w, st->payload_bytes);
	PUT64(w, st->retransmissions);
	PUT64(w, st->tcp_gap_bytes);
	PUT64(w, st->tcp_resent_bytes);
	PUT64(w, st->late_packets);
	PUT64(w, (uint64_t)st->late_max_ns);
	PUT64(w, st->flows_seen);
	PUT64(w, st->max_hosts);
	PUT64(w, st->max_pairs);
	PUT64(w, st->max_flows);
	put_fold(w, &st->fold_hosts);
	put_fold(w, &st->fold_pairs);
	put_fold(w, &st->fold_flows);
	for (int i = 0; i < 3; i++)
		PUT64(w, st->batch_folds[i]);
	PUT32(w, st->merged);
	for (int c = 0; c < DMLS_NCLASS; c++) {
		PUT64(w, st->cls[c].base_bin_ns);
		PUT64(w, st->cls[c].bin_ns);
		PUT32(w, st->cls[c].coarsened);
	}
	put_series(w, &st->total_wire);
	put_series(w, &st->total_payload);
	put_series(w, &st->fine_series);
}

static void put_tables(wbuf *w, const dmls_stats *st)
{
	PUT64(w, st->nhosts);
	for (size_t i = 0; i < st->nhosts; i++) {
		const dmls_host *h = &st->hosts[i];
		put_addr(w, h->addr);
		PUT64(w, h->tx_packets);
		PUT64(w, h->rx_packets);
		PUT64(w, h->tx_wire_bytes);
		PUT64(w, h->tx_payload_bytes);
		PUT64(w, h->rx_wire_bytes);
		PUT64(w, h->rx_payload_bytes);
		PUT64(w, h->tx_retransmissions);
		PUT64(w, h->first_ns);
		PUT64(w, h->last_ns);
		put_born(w, h->born);
		put_series(w, &h->tx_payload);
	}
	PUT64(w, st->npairs);
	for (size_t i = 0; i < st->npairs; i++) {
		const dmls_pair *p = &st->pairs[i];
		PUT32(w, p->src);
		PUT32(w, p->dst);
		PUT64(w, p->packets);
		PUT64(w, p->wire_bytes);
		PUT64(w, p->payload_bytes);
		PUT64(w, p->first_ns);
		PUT64(w, p->last_ns);
		put_born(w, p->born);
		put_series(w, &p->series);
		put_series(w, &p->reopens);
	}
	PUT64(w, st->nflows);
	for (size_t i = 0; i < st->nflows; i++) {
		const dmls_flow *f = &st->flows[i];
		PUT32(w, f->src);
		PUT32(w, f->dst);
		PUT32(w, f->pair);
		PUT16(w, f->sport);
		PUT16(w, f->dport);
		PUT8(w, f->proto);
		PUT8(w, f->seq_valid);
		PUT32(w, f->next_seq);
		PUT32(w, f->qp);
		PUT64(w, f->packets);
		PUT64(w, f->wire_bytes);
		PUT64(w, f->payload_bytes);
		PUT64(w, f->retransmissions);
		PUT64(w, f->first_ns);
		PUT64(w, f->last_ns);
		put_born(w, f->born);
		put_series(w, &f->activity);
	}
}

int dmls_stats_serialize(const dmls_stats *st, uint8_t **buf, size_t *len, dmls_error *err)
{
	*buf = NULL;
	*len = 0;
	if (!st->mergeable || st->finished)
		return dmls_fail(err, DMLS_EUSAGE, "only a mergeable, unfinished state serializes");
	wbuf w = {0};
	for (int i = 0; i < 8; i++)
		PUT8(&w, magic[i]);
	PUT32(&w, DMLS_SERIAL_VERSION);
	PUT32(&w, 0);
	PUT64(&w, 0); /* body_len, below */
	put_head(&w, st);
	put_tables(&w, st);
	if (w.oom) {
		free(w.p);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	uint64_t body = w.n - HEADER_BYTES;
	for (int i = 0; i < 8; i++)
		w.p[16 + i] = (uint8_t)(body >> (8 * i));
	PUT64(&w, dmls_serial_check(w.p + HEADER_BYTES, body));
	if (w.oom) {
		free(w.p);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	*buf = w.p;
	*len = w.n;
	return DMLS_OK;
}

/* ---- reading ---- */

typedef struct rbuf {
	const uint8_t *p;
	size_t n, off;
	const char *bad; /* the first field that did not hold */
} rbuf;

static uint64_t get(rbuf *r, int bytes, const char *what)
{
	if (r->bad)
		return 0;
	if (r->n - r->off < (size_t)bytes) {
		r->bad = what;
		return 0;
	}
	uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, r->p + r->off, (size_t)bytes);
	r->off += (size_t)bytes;
#else
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[r->off++] << (8 * i);
#endif
	return v;
}
#define GET64(r, w) get((r), 8, (w))
#define GETI64(r, w) ((int64_t)get((r), 8, (w)))
#define GET32(r, w) ((uint32_t)get((r), 4, (w)))
#define GET16(r, w) ((uint16_t)get((r), 2, (w)))
#define GET8(r, w) ((uint8_t)get((r), 1, (w)))

/* A condition that must hold, or the field is bad. */
static int need(rbuf *r, int ok, const char *what)
{
	if (!ok && !r->bad)
		r->bad = what;
	return !r->bad;
}

/* A count of items of at least min_bytes each: no more than the bytes left. */
static uint64_t get_count(rbuf *r, size_t min_bytes, const char *what)
{
	uint64_t n = GET64(r, what);
	need(r, n <= (r->n - r->off) / min_bytes, what);
	return r->bad ? 0 : n;
}

static dmls_born get_born(rbuf *r)
{
	dmls_born b;
	b.ts = GETI64(r, "birth");
	b.seq = GET64(r, "birth");
	return b;
}

static void get_addr(rbuf *r, uint8_t a[16])
{
	for (int i = 0; i < 16; i++)
		a[i] = GET8(r, "address");
}

/* Times a capture can hold (nanoseconds, either side of 1970 by ~146
 * years), so that differences of two never overflow. */
#define TIME_LIMIT (1LL << 62)
static int time_ok(int64_t t)
{
	return t > -TIME_LIMIT && t < TIME_LIMIT;
}

/* A time within the state's span (first to last packet), as every entry's
 * first, last and birth are. */
static int in_span(const dmls_stats *st, int64_t t)
{
	return st->packets && t >= st->first_ns && t <= st->last_ns;
}

/* Bin k of a bin_ns grid lies in the span of the packets (a bin either
 * side for coarsened grids): downstream code multiplies k by bin_ns. */
static int bin_in_span(const dmls_stats *st, int64_t bin_ns, int64_t k)
{
	if (!st->packets)
		return 0;
	int64_t lo = (st->first_ns - st->t0_ns) / bin_ns - 2, hi = (st->last_ns - st->t0_ns) / bin_ns + 2;
	return k >= lo && k <= hi;
}

/* A series on st's origin and class c's grid; -1 out of memory. */
static int get_series(rbuf *r, dmls_stats *st, int c, dmls_series *s)
{
	int64_t bin = GETI64(r, "series bin");
	uint32_t join = GET32(r, "series join");
	uint32_t vw = GET32(r, "series value width");
	int64_t lo = GETI64(r, "series range"), hi = GETI64(r, "series range");
	uint64_t total = GET64(r, "series total");
	if (!need(r, vw == 4 || vw == 8, "series value width"))
		return 0;
	uint64_t nruns = get_count(r, 12 + vw, "series runs");
	if (!need(r, bin == st->cls[c].bin_ns && join > 0 && join < (1u << 20), "series bin") ||
	    /* empty, or a range holding traffic (of bins of no bytes alone:
	     * no runs) */
	    !need(r, lo <= hi || (lo == INT64_MAX && hi == INT64_MIN && !nruns), "series range") ||
	    !need(r, lo > hi || (bin_in_span(st, bin, lo) && bin_in_span(st, bin, hi)),
		  "series range (outside the packets' span)"))
		return 0;
	dmls_series_init(s, st->t0_ns, bin, join);
	uint64_t sum = 0;
	int64_t end = INT64_MIN;
	for (uint64_t k = 0; k < nruns && !r->bad; k++) {
		int64_t first = GETI64(r, "series run");
		uint64_t len = GET32(r, "series run");
		if (!need(r, first >= end && len > 0 && len <= (r->n - r->off) / vw &&
				     bin_in_span(st, bin, first) &&
				     bin_in_span(st, bin, first + (int64_t)len - 1) &&
				     s->nv + len < UINT32_MAX,
			  "series run"))
			return 0;
		if (dmls_series_reserve(s, (size_t)len))
			return -1;
		for (uint64_t j = 0; j < len; j++) {
			uint64_t x = get(r, (int)vw, "series value");
			if (dmls_series_add_bin(s, first + (int64_t)j, x))
				return -1;
			sum += x;
		}
		end = first + (int64_t)len;
	}
	s->min_bin = lo, s->max_bin = hi, s->total = total;
	need(r, sum == total, "series total");
	return 0;
}

static void get_fold(rbuf *r, dmls_fold *f)
{
	f->entries = GET64(r, "fold");
	f->packets = GET64(r, "fold");
	f->wire_bytes = GET64(r, "fold");
	f->payload_bytes = GET64(r, "fold");
}

/* Totals, caps, folds, classes: into st, initialized here. */
static int get_head(rbuf *r, dmls_stats *st, const dmls_stats_limits *lim)
{
	int64_t bin = GETI64(r, "bin"), t0 = GETI64(r, "origin");
	dmls_stats_limits l = lim ? *lim : (dmls_stats_limits){0};
	l.mergeable = 1;
	if (!need(r, bin > 0 && bin <= DMLS_MAX_BIN_NS && t0 != INT64_MIN, "bin")) {
		dmls_stats_init_limits(st, 0, &l);
		return 0;
	}
	dmls_stats_init_limits(st, bin, &l);
	dmls_stats_set_origin(st, t0);
	st->first_ns = GETI64(r, "first");
	st->last_ns = GETI64(r, "last");
	st->packets = GET64(r, "packets");
	st->wire_bytes = GET64(r, "wire bytes");
	st->payload_bytes = GET64(r, "payload bytes");
	st->retransmissions = GET64(r, "retransmissions");
	st->tcp_gap_bytes = GET64(r, "sequence gaps");
	st->tcp_resent_bytes = GET64(r, "retransmitted bytes");
	st->late_packets = GET64(r, "late packets");
	st->late_max_ns = GETI64(r, "late packets");
	need(r, st->late_packets <= st->packets && st->late_max_ns >= 0 &&
			(st->late_packets > 0 || st->late_max_ns == 0),
	     "late packets");
	st->flows_seen = GET64(r, "flows seen");
	need(r, time_ok(t0) && (st->packets ? time_ok(st->first_ns) && time_ok(st->last_ns) &&
							st->first_ns <= st->last_ns
					    : st->first_ns == INT64_MAX && st->last_ns == INT64_MIN),
	     "first and last packet times");
	uint64_t mh = GET64(r, "caps"), mp = GET64(r, "caps"), mf = GET64(r, "caps");
	need(r, mh == st->max_hosts && mp == st->max_pairs && mf == st->max_flows,
	     "caps (made with other --max-hosts/--max-flows)");
	get_fold(r, &st->fold_hosts);
	get_fold(r, &st->fold_pairs);
	get_fold(r, &st->fold_flows);
	for (int i = 0; i < 3; i++)
		st->batch_folds[i] = GET64(r, "folds");
	st->merged = GET32(r, "merged");
	st->wire_online = 0; /* the online peak is not in the stream: the series answer */
	for (int c = 0; c < DMLS_NCLASS && !r->bad; c++) {
		dmls_series_class *k = &st->cls[c];
		int64_t base = GETI64(r, "class bin"), now = GETI64(r, "class bin");
		uint32_t co = GET32(r, "class bin");
		/* the shift is tried only where it cannot overflow */
		if (!need(r, base == k->base_bin_ns && base > 0 && co < 40 &&
				     base <= (DMLS_MAX_BIN_NS * 2) >> co && now == (base << co),
			  "class bin (made with another --bin)"))
			return 0;
		k->bin_ns = now, k->coarsened = co;
	}
	if (get_series(r, st, DMLS_CLASS_WIRE, &st->total_wire) ||
	    get_series(r, st, DMLS_CLASS_TOTAL, &st->total_payload) ||
	    get_series(r, st, DMLS_CLASS_FINE, &st->fine_series))
		return -1;
	return 0;
}

static int get_hosts(rbuf *r, dmls_stats *st)
{
	uint64_t n = get_count(r, 16 + 11 * 8 + 44, "hosts");
	need(r, n <= st->max_hosts, "hosts (more than the cap)");
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint8_t a[16];
		get_addr(r, a);
		if (!need(r, dmls_stats_find_host(st, a) < 0, "host (twice)"))
			return 0;
		long h = st_host_get(st, a);
		if (h < 0)
			return -1;
		dmls_host *x = &st->hosts[h];
		x->tx_packets = GET64(r, "host");
		x->rx_packets = GET64(r, "host");
		x->tx_wire_bytes = GET64(r, "host");
		x->tx_payload_bytes = GET64(r, "host");
		x->rx_wire_bytes = GET64(r, "host");
		x->rx_payload_bytes = GET64(r, "host");
		x->tx_retransmissions = GET64(r, "host");
		x->first_ns = GETI64(r, "host");
		x->last_ns = GETI64(r, "host");
		x->born = get_born(r);
		need(r, (x->tx_packets ? in_span(st, x->first_ns) && in_span(st, x->last_ns)
				       : x->first_ns == INT64_MAX && x->last_ns == INT64_MIN) &&
				in_span(st, x->born.ts),
		     "host times");
		if (get_series(r, st, DMLS_CLASS_HOST, &x->tx_payload))
			return -1;
	}
	return 0;
}

static int get_pairs(rbuf *r, dmls_stats *st)
{
	uint64_t n = get_count(r, 8 + 7 * 8 + 2 * 44, "pairs");
	need(r, n <= st->max_pairs, "pairs (more than the cap)");
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint32_t s = GET32(r, "pair"), d = GET32(r, "pair");
		if (!need(r, s < st->nhosts && d < st->nhosts && dmls_stats_find_pair(st, s, d) < 0,
			  "pair (bad host or twice)"))
			return 0;
		long q = st_pair_get(st, s, d);
		if (q < 0)
			return -1;
		dmls_pair *x = &st->pairs[q];
		x->packets = GET64(r, "pair");
		x->wire_bytes = GET64(r, "pair");
		x->payload_bytes = GET64(r, "pair");
		x->first_ns = GETI64(r, "pair");
		x->last_ns = GETI64(r, "pair");
		x->born = get_born(r);
		need(r, in_span(st, x->first_ns) && in_span(st, x->last_ns) && in_span(st, x->born.ts),
		     "pair times");
		if (get_series(r, st, DMLS_CLASS_PAIR, &x->series) ||
		    get_series(r, st, DMLS_CLASS_REOPEN, &x->reopens))
			return -1;
	}
	return 0;
}

static int get_flow(rbuf *r, dmls_stats *st)
{
	uint32_t s = GET32(r, "flow"), d = GET32(r, "flow"), pi = GET32(r, "flow");
	flow_key k = {NULL, NULL, GET16(r, "flow"), GET16(r, "flow"), GET8(r, "flow")};
	uint8_t seq_valid = GET8(r, "flow");
	uint32_t next_seq = GET32(r, "flow");
	uint32_t qp = GET32(r, "flow");
	if (!need(r, s < st->nhosts && d < st->nhosts &&
			     (pi == NO_PAIR || (pi < st->npairs && st->pairs[pi].src == s &&
						st->pairs[pi].dst == d)) &&
			     seq_valid <= 1,
		  "flow (bad host or pair)"))
		return 0;
	k.src = st->hosts[s].addr, k.dst = st->hosts[d].addr;
	uint64_t hv = st_hash_flow(&k);
	if (!need(r, dmls_itable_find(&st->flow_idx, hv, st_eq_flow, st, &k) < 0, "flow (twice)"))
		return 0;
	uint64_t seen = st->flows_seen;
	long f = st_flow_new(st, &k, hv, s, d, pi);
	if (f < 0)
		return -1;
	st->flows_seen = seen; /* the blob's count, not one more */
	dmls_flow *x = &st->flows[f];
	x->seq_valid = seq_valid, x->next_seq = next_seq, x->qp = qp;
	x->packets = GET64(r, "flow");
	x->wire_bytes = GET64(r, "flow");
	x->payload_bytes = GET64(r, "flow");
	x->retransmissions = GET64(r, "flow");
	x->first_ns = GETI64(r, "flow");
	x->last_ns = GETI64(r, "flow");
	x->born = get_born(r);
	need(r, in_span(st, x->first_ns) && in_span(st, x->last_ns) && in_span(st, x->born.ts),
	     "flow times");
	return get_series(r, st, DMLS_CLASS_FLOW, &x->activity);
}

static int get_flows(rbuf *r, dmls_stats *st)
{
	uint64_t n = get_count(r, 20 + 8 * 8 + 44, "flows");
	need(r, n <= st->max_flows, "flows (more than the cap)");
	for (uint64_t i = 0; i < n && !r->bad; i++)
		if (get_flow(r, st))
			return -1;
	return 0;
}

/* The header: magic, version, body length, check. */
static int check_header(const uint8_t *buf, size_t len, dmls_error *err)
{
	if (len < HEADER_BYTES + 8 || memcmp(buf, magic, 8))
		return dmls_fail(err, DMLS_EBAD, "not a dmlscope state (no DMLSSTAT header)");
	rbuf r = {buf, len, 8, NULL};
	uint32_t version = GET32(&r, "version"), flags = GET32(&r, "flags");
	uint64_t body = GET64(&r, "length");
	if (version != DMLS_SERIAL_VERSION || flags)
		return dmls_fail(err, DMLS_EBAD, "state of version %u (this dmlscope reads %u)",
				 version, DMLS_SERIAL_VERSION);
	if (body != len - HEADER_BYTES - 8)
		return dmls_fail(err, DMLS_EBAD, "state of %llu bytes, %zu given",
				 (unsigned long long)body + HEADER_BYTES + 8, len);
	r.off = len - 8;
	if (GET64(&r, "check") != dmls_serial_check(buf + HEADER_BYTES, body))
		return dmls_fail(err, DMLS_EBAD, "state damaged (its check does not match)");
	return DMLS_OK;
}

int dmls_stats_deserialize(dmls_stats *st, const uint8_t *buf, size_t len,
			   const dmls_stats_limits *lim, dmls_error *err)
{
	int rc = check_header(buf, len, err);
	if (rc) {
		dmls_stats_init_limits(st, 0, lim);
		return rc;
	}
	rbuf r = {buf, len - 8, HEADER_BYTES, NULL};
	/* tables within their caps never fold while they load */
	rc = get_head(&r, st, lim);
	if (!rc && !r.bad)
		rc = get_hosts(&r, st);
	if (!rc && !r.bad)
		rc = get_pairs(&r, st);
	if (!rc && !r.bad)
		rc = get_flows(&r, st);
	st_reset_cache(st);
	if (rc)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	need(&r, r.off == r.n, "length (bytes after the flows)");
	if (r.bad)
		return dmls_fail(err, DMLS_EBAD, "invalid state: bad %s at byte %zu", r.bad, r.off);
	for (int c = 0; c < DMLS_NCLASS; c++)
		st->cls[c].mem_bytes = st_class_mem(st, c);
	return DMLS_OK;
}
