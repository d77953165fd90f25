/*
 * chakra.c - the schedule as Chakra execution traces, one per rank, for
 * ASTRA-sim (Won et al., "ASTRA-sim2.0", ISPASS 2023; Sridharan et al.,
 * "Chakra: Advancing Performance Benchmarking and Co-design using
 * Standardized Execution Traces", 2023).
 *
 * Format.  The schema is Chakra's et_def.proto (package ChakraProtoMsg,
 * Apache-2.0; a copy is in tests/data/chakra/ for the tests).  A file
 * PREFIX.<rank>.et is a sequence of length-delimited protobuf messages, as
 * Chakra's protolib encode_message writes them (the length as a varint,
 * then the message): one GlobalMetadata, then the Nodes.  Protobuf's wire
 * format (protobuf.dev/programming-guides/encoding) is simple enough to
 * write here: a field is a varint key (number << 3 | wire type), then a
 * varint (type 0) or a varint length and the bytes (type 2: strings,
 * nested messages, packed repeated numbers).
 *
 * Nodes of rank r, per iteration k (ids from 0, dependencies in data_deps):
 *   COMP_NODE "compute k", duration_micros = the compute gap before the
 *     collective of iteration k (the planned start of k minus the end of
 *     k - 1; for k = 0 the mean gap T - C), depending on the last nodes of
 *     iteration k - 1;
 *   ring, tree, clique, hierarchical: one COMM_COLL_NODE "all-reduce k",
 *     comm_type ALL_REDUCE, comm_size S, after the compute node: ASTRA-sim
 *     runs its own all-reduce algorithm over its own topology;
 *   star (parameter server) and pairwise: the messages of the schedule as
 *     COMM_SEND_NODE / COMM_RECV_NODE with comm_src, comm_dst, comm_size and
 *     a comm_tag shared by a send and its receive; the nodes of a step
 *     depend on the rank's nodes of its step before (a worker's pull waits
 *     for its push, the server's reply for every push).  Ranks are host
 *     indexes (a star's servers first).
 * Every node has is_cpu_op = false, as ASTRA-sim's workload layer wants for
 * a node it simulates on the accelerator and the network.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"
#include "gen/gen_int.h"

enum { ET_COMP = 4, ET_SEND = 5, ET_RECV = 6, ET_COLL = 7 };
enum { ET_ALL_REDUCE = 0 };

typedef struct pb {
	uint8_t *b;
	size_t n, cap;
	int oom;
} pb;

static void pb_put(pb *p, const void *d, size_t n)
{
	if (p->oom)
		return;
	if (p->n + n > p->cap) {
		size_t cap = p->cap ? p->cap : 256;
		while (cap < p->n + n)
			cap *= 2;
		uint8_t *b = realloc(p->b, cap);
		if (!b) {
			p->oom = 1;
			return;
		}
		p->b = b;
		p->cap = cap;
	}
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void pb_varint(pb *p, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		b[n] |= v ? 0x80 : 0;
		n++;
	} while (v);
	pb_put(p, b, n);
}

static void pb_uint(pb *p, unsigned field, uint64_t v)
{
	pb_varint(p, (uint64_t)field << 3);
	pb_varint(p, v);
}

static void pb_bytes(pb *p, unsigned field, const void *d, size_t n)
{
	pb_varint(p, (uint64_t)field << 3 | 2);
	pb_varint(p, n);
	pb_put(p, d, n);
}

static void pb_str(pb *p, unsigned field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

/* AttributeProto {name = 1; int64_val = 9 | int32_val = 7 | bool_val = 27}
 * as field 10 of a Node (a oneof member is written even when 0). */
static void pb_attr(pb *p, const char *name, unsigned vfield, uint64_t v)
{
	pb a = {0};
	pb_str(&a, 1, name);
	pb_uint(&a, vfield, v);
	p->oom |= a.oom;
	pb_bytes(p, 10, a.b, a.n);
	free(a.b);
}

#define ATTR_INT32 7
#define ATTR_INT64 9
#define ATTR_BOOL 27

/* One trace being written: its file and the node being built. */
typedef struct et {
	FILE *fp;
	pb node;
	uint64_t next_id;
	uint64_t *deps, *cur; /* the nodes of the previous and current step */
	size_t ndeps, ncur, cap;
	int oom;
} et;

/* Write p as one length-delimited record. */
static void et_record(et *e, pb *p)
{
	pb len = {0};
	pb_varint(&len, p->n);
	e->oom |= p->oom | len.oom;
	fwrite(len.b, 1, len.n, e->fp);
	fwrite(p->b, 1, p->n, e->fp);
	free(len.b);
}

/* Start a node of type with name; it depends on e->deps. */
static void et_begin(et *e, int type, const char *name)
{
	e->node.n = 0;
	pb_uint(&e->node, 1, e->next_id);
	pb_str(&e->node, 2, name);
	pb_uint(&e->node, 3, (uint64_t)type);
	if (e->ndeps) {
		pb d = {0};
		for (size_t i = 0; i < e->ndeps; i++)
			pb_varint(&d, e->deps[i]);
		e->node.oom |= d.oom;
		pb_bytes(&e->node, 5, d.b, d.n);
		free(d.b);
	}
}

/* Finish the node: is_cpu_op, write it, count it in the current step. */
static void et_end(et *e)
{
	pb_attr(&e->node, "is_cpu_op", ATTR_BOOL, 0);
	et_record(e, &e->node);
	if (e->ncur == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 16;
		uint64_t *a = realloc(e->deps, cap * sizeof(*a)), *b;
		if (a)
			e->deps = a;
		b = realloc(e->cur, cap * sizeof(*b));
		if (b)
			e->cur = b;
		if (!a || !b) {
			e->oom = 1;
			return;
		}
		e->cap = cap;
	}
	e->cur[e->ncur++] = e->next_id++;
}

/* The nodes written since the last call become the next nodes' deps. */
static void et_step(et *e)
{
	if (!e->ncur)
		return;
	memcpy(e->deps, e->cur, e->ncur * sizeof(*e->cur));
	e->ndeps = e->ncur;
	e->ncur = 0;
}

/* comp[k] = the compute gap before iteration k's collective, in us. */
static int compute_gaps(const dmls_gen_schedule *s, uint64_t *comp)
{
	size_t K = s->job.iterations;
	int64_t *first = gen_iteration_bounds(s);
	if (!first)
		return -1;
	const int64_t *end = first + K;
	for (size_t k = 0; k < K; k++) {
		int64_t g = k ? first[k] - end[k - 1]
			      : s->job.iteration_ns - s->collective_ns - GEN_STEP_GAP_NS;
		comp[k] = g > 0 ? (uint64_t)((g + 500) / 1000) : 0;
	}
	free(first);
	return 0;
}

/* Send and receive nodes of rank r for the messages of iteration k. */
static void p2p_iteration(et *e, const dmls_gen_schedule *s, const size_t *at, uint32_t r,
			  uint32_t k, uint32_t nsteps)
{
	char name[96];
	for (uint32_t st = 0; st < nsteps; st++) {
		for (size_t i = at[k]; i < at[k + 1]; i++) {
			const dmls_gen_msg *m = &s->msgs[i];
			if (m->step != st || (m->src != r && m->dst != r))
				continue;
			int send = m->src == r;
			snprintf(name, sizeof(name), "%s %u %s %u", send ? "send" : "recv", k,
				 send ? "to" : "from", send ? m->dst : m->src);
			et_begin(e, send ? ET_SEND : ET_RECV, name);
			pb_attr(&e->node, "comm_src", ATTR_INT32, m->src);
			pb_attr(&e->node, "comm_dst", ATTR_INT32, m->dst);
			pb_attr(&e->node, "comm_size", ATTR_INT64, m->bytes);
			pb_attr(&e->node, "comm_tag", ATTR_INT32,
				((uint64_t)k * nsteps + st) & 0x7fffffff);
			et_end(e);
		}
		et_step(e);
	}
}

static int by_iteration(const void *a, const void *b)
{
	const dmls_gen_msg *x = a, *y = b;
	if (x->iteration != y->iteration)
		return x->iteration < y->iteration ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int write_rank(const dmls_gen_schedule *s, const dmls_gen_schedule *byk,
		      const size_t *at, const uint64_t *comp, uint32_t r, uint32_t nsteps,
		      FILE *fp)
{
	int p2p = s->job.pattern == DMLS_PAT_STAR || s->job.pattern == DMLS_PAT_PAIRWISE;
	et e = {fp, {0}, 0, NULL, NULL, 0, 0, 0, 0};
	pb meta = {0};
	pb_str(&meta, 1, "0.0.4");
	et_record(&e, &meta);
	free(meta.b);
	char name[64];
	for (uint32_t k = 0; k < s->job.iterations && !e.oom; k++) {
		int server = s->job.pattern == DMLS_PAT_STAR && r < s->job.servers;
		if (!server) { /* a server computes nothing between rounds */
			snprintf(name, sizeof(name), "compute %u", k);
			et_begin(&e, ET_COMP, name);
			pb_uint(&e.node, 7, comp[k]);
			et_end(&e);
			et_step(&e);
		}
		if (p2p) {
			p2p_iteration(&e, byk, at, r, k, nsteps);
			continue;
		}
		snprintf(name, sizeof(name), "all-reduce %u", k);
		et_begin(&e, ET_COLL, name);
		pb_attr(&e.node, "comm_type", ATTR_INT64, ET_ALL_REDUCE);
		pb_attr(&e.node, "comm_size", ATTR_INT64, s->job.gradient_bytes);
		et_end(&e);
		et_step(&e);
	}
	int oom = e.oom || e.node.oom;
	free(e.node.b);
	free(e.deps);
	free(e.cur);
	return oom ? -1 : 0;
}

int dmls_gen_write_chakra(const dmls_gen_schedule *s, const char *prefix, dmls_error *err)
{
	size_t K = s->job.iterations;
	uint64_t *comp = malloc(K * sizeof(*comp));
	size_t *at = calloc(K + 1, sizeof(*at));
	dmls_gen_schedule byk = *s; /* messages by iteration, then time */
	byk.msgs = malloc((s->nmsgs + 1) * sizeof(*byk.msgs));
	int rc = DMLS_OK;
	if (!comp || !at || !byk.msgs || compute_gaps(s, comp)) {
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(byk.msgs, s->msgs, s->nmsgs * sizeof(*s->msgs));
	qsort(byk.msgs, s->nmsgs, sizeof(*byk.msgs), by_iteration);
	uint32_t nsteps = 0;
	for (size_t i = 0; i < s->nmsgs; i++) {
		at[byk.msgs[i].iteration + 1] = i + 1;
		nsteps = byk.msgs[i].step + 1 > nsteps ? byk.msgs[i].step + 1 : nsteps;
	}
	for (size_t k = 1; k <= K; k++)
		at[k] = at[k] > at[k - 1] ? at[k] : at[k - 1];
	for (uint32_t r = 0; r < s->nhosts && !rc; r++) {
		char path[4096];
		if ((size_t)snprintf(path, sizeof(path), "%s.%u.et", prefix, r) >= sizeof(path)) {
			rc = dmls_fail(err, DMLS_EUSAGE, "'%s': name too long", prefix);
			break;
		}
		FILE *fp = fopen(path, "wb");
		if (!fp) {
			rc = dmls_fail(err, DMLS_EIO, "'%s': cannot open for writing", path);
			break;
		}
		if (write_rank(s, &byk, at, comp, r, nsteps, fp))
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		int bad = ferror(fp);
		if ((fclose(fp) || bad) && !rc)
			rc = dmls_fail(err, DMLS_EIO, "'%s': cannot write", path);
	}
out:
	free(comp);
	free(at);
	free(byk.msgs);
	return rc;
}
