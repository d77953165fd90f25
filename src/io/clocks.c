/*
 * clocks.c - the clock offsets of captures made on different machines.
 *
 * A job's captures are made on its hosts, each stamped by its own clock.
 * Clocks kept by NTP agree within a millisecond or so; unsynchronised
 * ones, or a capture from a machine whose clock was never set, by tens of
 * milliseconds to hours.  Merged as they are, one host's steps then fall
 * beside the others' instead of with them: the testbed's DDP ring of 4
 * with its files 20 to 200 ms apart came out "pairwise" and
 * "asynchronous", an RPC star asynchronous.
 *
 * TCP tells how far apart two clocks are, as NTP does with its four time
 * stamps: an acknowledgement is sent after the data it acknowledges
 * arrived.  When the segment that ends at sequence number E was captured
 * in file i at t_i, and the acknowledgement of exactly E in file j at t_j,
 * then, with c_k the offset of file k's clock (its stamps read true time
 * plus c_k),
 *     c_j - c_i <= t_j - t_i.
 * Every pair of files that sees both ends of a connection so gets bounds,
 * one each way when data flows both ways (or a handshake: SYN, SYN-ACK,
 * ACK), and along every cycle of files (a ring's connections) the bounds
 * of the others close the remaining way.  The tightest bounds are the
 * shortest paths of the difference constraints (Floyd-Warshall); each file
 * in turn is then given the offset nearest 0 that the bounds and the
 * offsets already given allow, the first file keeping its own (0).  Clocks
 * that agree are left alone: zero is then within every bound.  A
 * retransmitted segment is bounded by its first capture (the data was on
 * its way then).  Bounds that contradict each other (a negative cycle: a
 * file's clock stepped, or time stamps made after the fact) leave every
 * offset 0.
 *
 * DMLS_CLOCK_PREFIX_RECORDS records of each capture are read, by a reader
 * of its own, before the merge starts (two windows: dmls_clocks_estimate):
 * a drift over hours is not followed.
 */
#include "io/clocks.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dmlscope/capture.h"
#include "dmlscope/decode.h"
#include "dmlscope/itable.h"
#include "util/grow.h"

typedef struct obs {
	uint64_t key; /* the connection's direction and the sequence number */
	int64_t t;
	uint32_t file;
} obs;

typedef struct obs_list {
	obs *v;
	size_t n, cap;
} obs_list;

#define NO_BOUND INT64_MAX

/* x + y, held within (INT64_MIN, INT64_MAX): a hostile capture's stamps
 * years apart stay bounds; NO_BOUND (none) stays none. */
static int64_t held(int64_t x, int overflow, int up)
{
	if (overflow)
		return up ? INT64_MAX - 1 : INT64_MIN + 1;
	return x == INT64_MAX ? INT64_MAX - 1 : x == INT64_MIN ? INT64_MIN + 1 : x;
}

static int64_t add_bounds(int64_t x, int64_t y)
{
	int64_t s;
	if (x == NO_BOUND || y == NO_BOUND)
		return NO_BOUND;
	int o = __builtin_add_overflow(x, y, &s);
	return held(s, o, y > 0);
}

/* x - y, held the same way (y a bound, not NO_BOUND). */
static int64_t sub_bounds(int64_t x, int64_t y)
{
	int64_t s;
	int o = __builtin_sub_overflow(x, y, &s);
	return held(s, o, y < 0);
}

static uint64_t seq_key(const uint8_t src[16], const uint8_t dst[16], uint16_t sp, uint16_t dp,
			uint32_t seq)
{
	uint64_t w[4];
	memcpy(w, src, 16);
	memcpy(w + 2, dst, 16);
	/* odd multipliers by position: (a, b) and (b, a) differ */
	return dmls_mix64(w[0] * 0x9e3779b97f4a7c15ULL ^ w[1] * 0xc2b2ae3d27d4eb4fULL ^
			  w[2] * 0x165667b19e3779f9ULL ^ w[3] * 0xd6e8feb86659fd93ULL ^
			  ((uint64_t)sp << 48 | (uint64_t)dp << 32 | seq));
}

static int push(obs_list *l, uint64_t key, int64_t t, uint32_t file)
{
	if (dmls_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 4096))
		return -1;
	l->v[l->n++] = (obs){key, t, file};
	return 0;
}

/* Room for n observations in l: 0, or -1 out of memory. */
static int reserve(obs_list *l, size_t n)
{
	if (n <= l->cap)
		return 0;
	obs *v = realloc(l->v, n * sizeof(*v));
	if (!v)
		return -1;
	l->v = v, l->cap = n;
	return 0;
}

/* Source i read again by a reader of its own: NULL for a stream, a path
 * that is not a regular file (a pipe, `<(tcpdump ...)`: what is read here
 * the merge would never see) or a source that does not open (the merge
 * tells why). */
static dmls_reader *open_again(const dmls_source *sc)
{
	dmls_reader *r = NULL;
	dmls_error e;
	dmls_error_clear(&e);
	struct stat sb;
	const char *name = sc->name ? sc->name : "(memory)";
	if (sc->fp || (!sc->buf && (stat(name, &sb) || !S_ISREG(sb.st_mode))) ||
	    (sc->buf ? dmls_reader_open_buffer(&r, sc->buf, sc->len, name, &e)
		     : dmls_reader_open_file(&r, name, &e)))
		return NULL;
	return r;
}

/* The TCP packets of source i from time from on (records before it are
 * skipped, DMLS_CLOCK_MAX_SKIP at most), limit records: the segments'
 * ends (data) and the acknowledgements (acks).  0, or -1 out of memory. */
static int observe(const dmls_source *sc, uint32_t i, int64_t from, size_t limit, obs_list *data,
		   obs_list *acks)
{
	dmls_reader *r = open_again(sc);
	if (!r)
		return 0;
	dmls_record rec;
	dmls_error e;
	dmls_pkt p;
	int rc = 0;
	size_t skipped = 0;
	for (size_t k = 0; k < limit && rc == 0 && dmls_reader_next(r, &rec, &e) == 1;) {
		if (rec.ts_ns < from && skipped < DMLS_CLOCK_MAX_SKIP) {
			skipped++;
			continue;
		}
		k++;
		if (dmls_decode_ex(rec.linktype, rec.data, rec.caplen, rec.origlen, 0, &p) !=
			    DMLS_DEC_OK ||
		    p.proto != 6 || p.is_fragment || p.tcp_cut) /* a cut header's end is a guess */
			continue;
		uint32_t len = (uint32_t)p.payload_bytes +
			       ((p.tcp_flags & DMLS_TCP_SYN) != 0) + ((p.tcp_flags & DMLS_TCP_FIN) != 0);
		if (len && push(data, seq_key(p.src, p.dst, p.sport, p.dport, p.tcp_seq + len),
				rec.ts_ns, i))
			rc = -1;
		if ((p.tcp_flags & DMLS_TCP_ACK) && !(p.tcp_flags & DMLS_TCP_RST) &&
		    push(acks, seq_key(p.dst, p.src, p.dport, p.sport, p.tcp_ack), rec.ts_ns, i))
			rc = -1;
	}
	dmls_reader_free(r);
	return rc;
}

/* The latest first stamp of the sources, less DMLS_CLOCK_ALIGN_NS: where
 * every capture has begun (captures started seconds apart, or one an
 * hour early, still see the same connections). */
static int64_t common_start(const dmls_source *src, size_t n)
{
	int64_t from = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		dmls_reader *r = open_again(&src[i]);
		dmls_record rec;
		dmls_error e;
		if (r && dmls_reader_next(r, &rec, &e) == 1 && rec.ts_ns > from)
			from = rec.ts_ns;
		dmls_reader_free(r);
	}
	return from == INT64_MIN ? from : sub_bounds(from, DMLS_CLOCK_ALIGN_NS);
}

/* Each (key, file)'s first capture: one entry per key and file, found by
 * key through the shared index (itable.h), the other files of a key
 * chained from it (next; UINT32_MAX: none). */
typedef struct first {
	uint64_t key;
	int64_t t;
	uint32_t file, next;
} first;

typedef struct firsts {
	first *v;
	size_t n, cap;
	dmls_itable idx;
} firsts;

static int same_key(const void *ctx, uint32_t idx, const void *key)
{
	return ((const first *)ctx)[idx].key == *(const uint64_t *)key;
}

/* The entry of key, or UINT32_MAX. */
static uint32_t first_of(const firsts *f, uint64_t key)
{
	long h = dmls_itable_find(&f->idx, key, same_key, f->v, &key);
	return h < 0 ? UINT32_MAX : (uint32_t)h;
}

/* f (initialised empty) from the observations l: 0, or -1 out of memory. */
static int firsts_of(const obs_list *l, firsts *f)
{
	/* one entry an observation at most (a key's first in a file): room
	 * made once, not by doubling as they come */
	if (l->n && (dmls_grow((void **)&f->v, &f->cap, f->n, sizeof(*f->v), l->n) ||
		     dmls_itable_reserve(&f->idx, l->n)))
		return -1;
	for (size_t k = 0; k < l->n; k++) {
		const obs *o = &l->v[k];
		uint32_t head = first_of(f, o->key), e = head;
		while (e != UINT32_MAX && f->v[e].file != o->file)
			e = f->v[e].next;
		if (e != UINT32_MAX) {
			if (o->t < f->v[e].t)
				f->v[e].t = o->t;
			continue;
		}
		if (dmls_grow((void **)&f->v, &f->cap, f->n, sizeof(*f->v), 4096))
			return -1;
		uint32_t i = (uint32_t)f->n++;
		f->v[i] = (first){o->key, o->t, o->file, UINT32_MAX};
		if (head == UINT32_MAX) {
			if (dmls_itable_insert(&f->idx, o->key, i))
				return -1;
		} else { /* second in the chain: the index keeps finding the head */
			f->v[i].next = f->v[head].next;
			f->v[head].next = i;
		}
	}
	return 0;
}

static void firsts_release(firsts *f)
{
	free(f->v);
	dmls_itable_release(&f->idx);
}

/*
 * w[i n + j]: the bound t_j - t_i of the segments captured in file i whose
 * acknowledgement was captured in file j (i != j), each at its first
 * capture in its file: the third least over the segments (of fewer, the
 * greatest).  Not the least: a segment retransmitted after its file began,
 * whose first sending was before it, meets the acknowledgement of its
 * first sending, which came before it (by an RTO), and the least would
 * bound the clocks by that much the wrong way.  0, or -1 out of memory.
 */
static int bound(const obs_list *data, const obs_list *acks, size_t n, int64_t *w)
{
	firsts dt = {0}, at = {0};
	dmls_itable_init(&dt.idx);
	dmls_itable_init(&at.idx);
	int64_t *low = malloc(3 * n * n * sizeof(*low));
	int rc = -1;
	if (!low || firsts_of(data, &dt) || firsts_of(acks, &at))
		goto out;
	for (size_t i = 0; i < 3 * n * n; i++)
		low[i] = NO_BOUND;
	for (size_t k = 0; k < at.n; k++) {
		const first *a = &at.v[k];
		for (uint32_t e = first_of(&dt, a->key); e != UINT32_MAX; e = dt.v[e].next) {
			if (dt.v[e].file == a->file)
				continue;
			int64_t d = sub_bounds(a->t, dt.v[e].t);
			int64_t *l = &low[3 * ((size_t)dt.v[e].file * n + a->file)];
			if (d < l[2]) { /* the three least, in order */
				l[2] = d;
				for (int m = 2; m > 0 && l[m] < l[m - 1]; m--) {
					int64_t x = l[m];
					l[m] = l[m - 1], l[m - 1] = x;
				}
			}
		}
	}
	for (size_t c = 0; c < n * n; c++) {
		const int64_t *l = &low[3 * c];
		w[c] = l[2] != NO_BOUND ? l[2] : l[1] != NO_BOUND ? l[1] : l[0];
	}
	rc = 0;
out:
	firsts_release(&dt);
	firsts_release(&at);
	free(low);
	return rc;
}

/* The tightest bounds: shortest paths of w (n x n) in place (Floyd-
 * Warshall).  0, or 1 when they contradict each other (a negative cycle). */
static int close_bounds(int64_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i * n + i] > 0)
			w[i * n + i] = 0;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < n; i++) {
			int64_t ik = w[i * n + k];
			if (ik == NO_BOUND)
				continue;
			for (size_t j = 0; j < n; j++) {
				int64_t d = add_bounds(ik, w[k * n + j]);
				if (d < w[i * n + j])
					w[i * n + j] = d;
			}
		}
	for (size_t i = 0; i < n; i++)
		if (w[i * n + i] < 0)
			return 1;
	return 0;
}

/* Closed bounds of the observations so far into w: 0, 1 contradicting,
 * -1 out of memory. */
static int bounds_of(const obs_list *data, const obs_list *acks, size_t n, int64_t *w)
{
	for (size_t i = 0; i < n * n; i++)
		w[i] = NO_BOUND;
	if (bound(data, acks, n, w))
		return -1;
	return close_bounds(w, n);
}

/* Every file's clock bounded both ways from the first's, but those whose
 * first window held no TCP packet (RoCE, UDP: a later one would not
 * either, and is not worth reading 64 K records for). */
static int all_bounded(const int64_t *w, size_t n, const size_t *tcp)
{
	for (size_t k = 0; k < n; k++)
		if (tcp[k] && (w[k] == NO_BOUND || w[k * n] == NO_BOUND))
			return 0;
	return 1;
}

/* Offsets from the closed bounds w: each file in turn the offset nearest
 * 0 that the bounds from the files before it allow (the first: 0).
 * c_k - c_f <= w[f][k] and c_f - c_k <= w[k][f], for each f given. */
static void solve(const int64_t *w, size_t n, int64_t *off)
{
	for (size_t k = 0; k < n; k++) {
		int64_t lo = INT64_MIN, hi = INT64_MAX;
		for (size_t f = 0; f < k; f++) {
			int64_t up = add_bounds(off[f], w[f * n + k]);
			int64_t down = w[k * n + f] == NO_BOUND ? NO_BOUND : sub_bounds(off[f], w[k * n + f]);
			if (up != NO_BOUND && up < hi)
				hi = up;
			if (down != NO_BOUND && down > lo)
				lo = down;
		}
		off[k] = lo > hi ? lo / 2 + hi / 2 : lo > 0 ? lo : hi < 0 ? hi : 0;
	}
}

/*
 * Two windows: the first records of each file, which see the same
 * connections when the captures began together, whatever their clocks; and
 * when that leaves a file unbounded, the records from where every capture
 * has begun by its own clock (common_start), which see them when the
 * captures began apart but their clocks are within DMLS_CLOCK_ALIGN_NS.
 * Every observation bounds truly, so the second window's add to the first's.
 */
int dmls_clocks_estimate(const dmls_source *src, size_t n, int64_t *off_ns, int *inconsistent)
{
	*inconsistent = 0;
	for (size_t i = 0; i < n; i++)
		off_ns[i] = 0;
	if (n < 2 || n > DMLS_CLOCK_MAX_FILES)
		return 0;
	size_t limit = DMLS_CLOCK_MAX_OBS / (4 * n);
	limit = limit < DMLS_CLOCK_PREFIX_RECORDS ? limit : DMLS_CLOCK_PREFIX_RECORDS;
	obs_list data = {0}, acks = {0};
	int64_t *w = malloc(n * n * sizeof(*w)), *off = calloc(n, sizeof(*off));
	size_t *tcp = calloc(n, sizeof(*tcp));
	int rc = -1, bad = 0;
	if (!w || !off || !tcp)
		goto out;
	/* a data end and an acknowledgement a record at most, limit records
	 * of each file in each of the two windows: room made once (memory is
	 * only backed where it is written) */
	if (reserve(&data, 2 * n * limit) || reserve(&acks, 2 * n * limit))
		goto out;
	for (int pass = 0; pass < 2; pass++) {
		int64_t from = pass ? common_start(src, n) : INT64_MIN;
		if (pass && from == INT64_MIN)
			break;
		for (size_t i = 0; i < n; i++) {
			size_t before = data.n + acks.n;
			if (observe(&src[i], (uint32_t)i, from, limit, &data, &acks))
				goto out;
			tcp[i] += data.n + acks.n - before;
		}
		if ((bad = bounds_of(&data, &acks, n, w)) < 0)
			goto out;
		if (bad || all_bounded(w, n, tcp))
			break;
	}
	rc = 0;
	if ((*inconsistent = bad))
		goto out;
	solve(w, n, off);
	int64_t most = 0;
	for (size_t i = 0; i < n; i++)
		most = llabs(off[i]) > most ? llabs(off[i]) : most;
	if (most >= DMLS_CLOCK_MIN_SHIFT_NS)
		memcpy(off_ns, off, n * sizeof(*off));
out:
	free(data.v);
	free(acks.v);
	free(w);
	free(off);
	free(tcp);
	return rc;
}
