/*
 * part.c - one job read in parts (part.h): the origin, a part's captures
 * into a mergeable state, which captures must be read together, and the
 * job finished from the merged parts.
 *
 * Why captures that share a flow are read together: a packet captured at
 * both ends is counted once by the duplicate check of one dmls_input
 * (src/io/dedup.c), which needs both copies in one time-ordered merge (TCP
 * ownership moves between files as they start and stop).  Two captures
 * that share no directional flow never hold a copy of each other's
 * packets (the check only ever matches packets of one flow), so reading
 * them apart loses nothing.  The study's captures (`tcpdump src <own ip>`)
 * share none; captures of both ends of a connection do, and are then read
 * together by one process, as one pass would.
 */
#include "dmlscope/part.h"

#include <stdlib.h>
#include <string.h>

#include "dmlscope/itable.h"
#include "util/grow.h"

/* The job's inputs as opts (filter, decode flags; NULL: none) ask. */
static int open_as(dmls_input **in, const char *const *paths, size_t n,
		   const dmls_job_opts *opts, dmls_error *e)
{
	int rc = dmls_input_open(in, paths, n, opts ? opts->filter : NULL, e);
	if (rc == DMLS_OK && opts)
		dmls_input_set_decode(*in, opts->decode_flags);
	return rc;
}

int dmls_part_first_ns(const char *const *paths, size_t n, const dmls_job_opts *opts,
		       int64_t *t0_ns, dmls_error *err)
{
	dmls_input *in;
	dmls_error e;
	int rc = open_as(&in, paths, n, opts, &e);
	if (rc == DMLS_EUSAGE || rc == DMLS_ENOMEM) {
		if (err)
			*err = e;
		return -rc;
	}
	if (rc)
		return 0;
	dmls_pkt p;
	int found = dmls_input_next(in, &p) == 1;
	if (found)
		*t0_ns = p.ts_ns;
	dmls_input_free(in);
	return found;
}

void dmls_part_init(dmls_part *p, const dmls_job_opts *opts, int64_t t0_ns)
{
	memset(p, 0, sizeof(*p));
	dmls_stats_limits lim = opts->limits;
	lim.mergeable = 1;
	dmls_stats_init_limits(&p->stats, opts->bin_ns, &lim);
	dmls_stats_set_origin(&p->stats, t0_ns);
}

void dmls_part_release(dmls_part *p)
{
	dmls_stats_release(&p->stats);
	free(p->keys);
	memset(p, 0, sizeof(*p));
}

void dmls_part_counts_add(dmls_input_counts *d, int *dst_has, const dmls_input_counts *s,
			  int src_has)
{
	d->records += s->records;
	d->packets += s->packets;
	d->wire_bytes += s->wire_bytes;
	d->truncated += s->truncated;
	d->non_ip += s->non_ip;
	d->other += s->other;
	d->filtered += s->filtered;
	d->duplicates += s->duplicates;
	d->decapsulated += s->decapsulated;
	d->tcp_cut += s->tcp_cut;
	if (!src_has)
		return;
	if (!*dst_has || s->first_ns < d->first_ns)
		d->first_ns = s->first_ns;
	if (!*dst_has || s->last_ns > d->last_ns)
		d->last_ns = s->last_ns;
	*dst_has = 1;
}

/* ---- flow keys: a hash set of 64-bit keys ---- */

typedef struct keyset {
	uint64_t *k;
	size_t n, cap;
	dmls_itable idx;
	uint64_t last;
} keyset;

static int key_eq(const void *ctx, uint32_t i, const void *key)
{
	return ((const keyset *)ctx)->k[i] == *(const uint64_t *)key;
}

/* The directional flow of a packet: what dedup.c's matching depends on. */
static uint64_t flow_key_hash(const dmls_pkt *p)
{
	uint64_t h = dmls_mix64(((uint64_t)p->af << 40) | ((uint64_t)p->proto << 32) |
				((uint64_t)p->sport << 16) | p->dport);
	for (int i = 0; i < 16; i += 8) {
		uint64_t a, b;
		memcpy(&a, p->src + i, 8);
		memcpy(&b, p->dst + i, 8);
		h = dmls_mix64(h ^ a) + dmls_mix64(h ^ b ^ 0x9e3779b97f4a7c15ULL);
	}
	return h | 1; /* never 0: 0 is keyset's "none" */
}

static int keyset_add(keyset *s, uint64_t key)
{
	if (key == s->last)
		return 0;
	s->last = key;
	if (dmls_itable_find(&s->idx, key, key_eq, s, &key) >= 0)
		return 0;
	if (dmls_grow((void **)&s->k, &s->cap, s->n, sizeof(*s->k), 64) ||
	    dmls_itable_insert(&s->idx, key, (uint32_t)s->n))
		return -1;
	s->k[s->n++] = key;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* p->keys += the set's keys, sorted and unique. */
static int keys_take(dmls_part *p, keyset *s)
{
	size_t n = p->nkeys + s->n;
	if (n > p->keys_cap) {
		uint64_t *k = realloc(p->keys, (n ? n : 1) * sizeof(*k));
		if (!k)
			return -1;
		p->keys = k;
		p->keys_cap = n;
	}
	if (s->n)
		memcpy(p->keys + p->nkeys, s->k, s->n * sizeof(*s->k));
	qsort(p->keys, n, sizeof(*p->keys), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || p->keys[u - 1] != p->keys[i])
			p->keys[u++] = p->keys[i];
	p->nkeys = u;
	return 0;
}

int dmls_part_probe(const char *path, const dmls_job_opts *opts, size_t npackets,
		    int64_t *t0_ns, uint64_t **keys, size_t *nkeys, dmls_error *err)
{
	*keys = NULL, *nkeys = 0;
	dmls_input *in;
	dmls_error e;
	int rc = open_as(&in, &path, 1, opts, &e);
	if (rc == DMLS_EUSAGE || rc == DMLS_ENOMEM) {
		if (err)
			*err = e;
		return -rc;
	}
	if (rc)
		return 0;
	keyset ks = {0};
	dmls_itable_init(&ks.idx);
	dmls_part tmp = {0};
	dmls_pkt p;
	int found = 0, oom = 0;
	for (size_t k = 0; !oom && k < npackets && dmls_input_next(in, &p) == 1; k++) {
		if (!found)
			*t0_ns = p.ts_ns, found = 1;
		oom = keyset_add(&ks, flow_key_hash(&p));
	}
	if (!oom)
		oom = keys_take(&tmp, &ks);
	free(ks.k);
	dmls_itable_release(&ks.idx);
	dmls_input_free(in);
	if (oom) {
		free(tmp.keys);
		dmls_fail(err, DMLS_ENOMEM, "out of memory");
		return -DMLS_ENOMEM;
	}
	*keys = tmp.keys, *nkeys = tmp.nkeys;
	return found;
}

/* ---- reading a part ---- */

static void copy_files(dmls_input *in, dmls_input_file *files, size_t n, dmls_error *damage)
{
	for (size_t i = 0; files && i < n; i++) {
		files[i] = *dmls_input_get_file(in, i);
		files[i].path = strdup(files[i].path ? files[i].path : "");
	}
	if (damage && damage->status == DMLS_OK)
		*damage = *dmls_input_error(in);
}

/* Captures none of which opens: each file entry says why. */
static int none_open(const char *const *paths, size_t n, const dmls_error *e,
		     dmls_input_file *files, dmls_error *damage)
{
	for (size_t i = 0; files && i < n; i++) {
		memset(&files[i], 0, sizeof(files[i]));
		files[i].path = strdup(paths[i]);
		files[i].linktype = -1;
		files[i].status = e->status;
		/* each file's own message: open it alone */
		dmls_input *in;
		dmls_error fe;
		if (n > 1 && dmls_input_open(&in, paths + i, 1, NULL, &fe) != DMLS_OK)
			snprintf(files[i].error, sizeof(files[i].error), "%s", fe.msg);
		else
			snprintf(files[i].error, sizeof(files[i].error), "%s", e->msg);
	}
	if (damage && damage->status == DMLS_OK)
		*damage = *e;
	return DMLS_OK;
}

static int read_into(dmls_stats *st, dmls_input *in, const uint32_t *order, keyset *ks)
{
	dmls_pkt pk;
	while (dmls_input_next(in, &pk) == 1) {
		st->file_order = order[dmls_input_last_file(in)];
		if (dmls_stats_add(st, &pk))
			return -1;
		if (ks && keyset_add(ks, flow_key_hash(&pk)))
			return -1;
	}
	return 0;
}

int dmls_part_read(dmls_part *p, const char *const *paths, const uint32_t *order, size_t n,
		   const dmls_job_opts *opts, int keys, dmls_input_file *files, dmls_error *damage, dmls_error *err)
{
	dmls_input *in;
	dmls_error e;
	int rc = open_as(&in, paths, n, opts, &e);
	if (rc == DMLS_EUSAGE || rc == DMLS_ENOMEM) {
		if (err)
			*err = e;
		return rc;
	}
	if (rc)
		return none_open(paths, n, &e, files, damage);
	dmls_stats st;
	dmls_stats_limits lim = opts->limits;
	lim.mergeable = 1;
	dmls_stats_init_limits(&st, opts->bin_ns, &lim);
	dmls_stats_set_origin(&st, p->stats.t0_ns);
	keyset ks = {0};
	dmls_itable_init(&ks.idx);
	rc = read_into(&st, in, order, keys ? &ks : NULL);
	if (!rc && keys)
		rc = keys_take(p, &ks);
	if (!rc)
		rc = dmls_stats_merge(&p->stats, &st);
	if (rc == 0) {
		const dmls_input_counts *c = dmls_input_get_counts(in);
		dmls_part_counts_add(&p->counts, &p->has_counts, c, c->packets > 0);
		copy_files(in, files, n, damage);
	}
	free(ks.k);
	dmls_itable_release(&ks.idx);
	dmls_stats_release(&st);
	dmls_input_free(in);
	if (rc == -2)
		return dmls_fail(err, DMLS_EBAD, "'%s': parts on different time origins", paths[0]);
	return rc ? dmls_fail(err, DMLS_ENOMEM, "out of memory") : DMLS_OK;
}

/* ---- which files go together ---- */

static size_t uf_find(size_t *g, size_t i)
{
	while (g[i] != i)
		i = g[i] = g[g[i]];
	return i;
}

typedef struct owned_key {
	uint64_t key;
	size_t file;
} owned_key;

static int cmp_owned(const void *a, const void *b)
{
	const owned_key *x = a, *y = b;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->file > y->file) - (x->file < y->file);
}

long dmls_part_groups(const uint64_t *const *keys, const size_t *nkeys, size_t nfiles,
		      size_t *group)
{
	size_t total = 0;
	for (size_t i = 0; i < nfiles; i++)
		total += nkeys[i];
	owned_key *all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return -1;
	size_t m = 0;
	for (size_t i = 0; i < nfiles; i++) {
		group[i] = i;
		for (size_t j = 0; j < nkeys[i]; j++)
			all[m++] = (owned_key){keys[i][j], i};
	}
	qsort(all, m, sizeof(*all), cmp_owned);
	for (size_t j = 1; j < m; j++)
		if (all[j].key == all[j - 1].key) {
			size_t a = uf_find(group, all[j - 1].file), b = uf_find(group, all[j].file);
			if (a != b)
				group[a > b ? a : b] = a < b ? a : b;
		}
	free(all);
	/* a root's entry counts its group's files (roots are their smallest) */
	size_t *size = calloc(nfiles ? nfiles : 1, sizeof(*size));
	if (!size)
		return -1;
	for (size_t i = 0; i < nfiles; i++)
		size[group[i] = uf_find(group, i)]++;
	long shared = 0;
	for (size_t i = 0; i < nfiles; i++)
		shared += size[group[i]] > 1;
	free(size);
	return shared;
}

/* ---- the job from merged parts ---- */

/* The run of inputs with the parts' captures: a folder is opened (its name,
 * log, truth) on this process, but its captures are the parts' (on
 * node-local disks this process holds only some); captures given by path
 * are named as dmls_run_open names them, without opening them here. */
static int open_run(dmls_run *run, const char *const *inputs, size_t n,
		    const dmls_input_file *files, size_t nfiles, dmls_error *err)
{
	memset(run, 0, sizeof(*run));
	if (n == 1 && dmls_is_run_folder(inputs[0])) {
		int rc = dmls_run_open(run, inputs, n, err);
		if (rc)
			return rc;
	} else if (n) {
		const char *b = strrchr(inputs[0], '/');
		run->name = strdup(b ? b + 1 : inputs[0]);
	}
	for (size_t i = 0; i < run->ncaptures; i++)
		free(run->captures[i]);
	free(run->captures);
	run->ncaptures = 0;
	run->captures = calloc(nfiles ? nfiles : 1, sizeof(*run->captures));
	if (!run->captures || (n && !run->name))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t i = 0; i < nfiles; i++)
		if (!(run->captures[run->ncaptures++] = strdup(files[i].path)))
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return DMLS_OK;
}

int dmls_job_from_parts(dmls_job *job, const char *const *inputs, size_t n, dmls_stats *stats,
			const dmls_input_counts *counts, dmls_input_file *files, size_t nfiles,
			const dmls_error *damage, dmls_error *err)
{
	memset(job, 0, sizeof(*job));
	job->stats = *stats;
	memset(stats, 0, sizeof(*stats));
	job->files = files;
	job->nfiles = nfiles;
	int rc = open_run(&job->run, inputs, n, files, nfiles, err);
	if (rc)
		return rc;
	job->counts = *counts;
	job->damage = *damage;
	if (dmls_stats_finish(&job->stats))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return dmls_job_run_analysis(job, err);
}
