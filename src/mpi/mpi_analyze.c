/*
 * mpi_analyze.c - `mpirun -np P dmlscope analyze RUN_OR_CAPTURES`: one job's
 * captures spread over P ranks, their states merged along a binomial tree,
 * the job finished on rank 0 (doc/mpi.md).
 *
 *   1. the captures: a run folder is listed by every rank that has it (a
 *      node-local disk holds its own workers' files) and the lists are
 *      united by path; captures given by path are the job as given.  Each
 *      rank says which it can read; each capture goes to the least loaded
 *      rank that can, the largest first (mpi_assign);
 *   2. the origin: every rank reads the first packets of its captures, and
 *      MPI_Allreduce(MIN) of the first gives the job's (what one pass
 *      takes); rank 0 gathers their flow keys: captures that share a flow
 *      (both ends of a connection captured) must go through one duplicate
 *      check, so they are grouped, each group to one rank;
 *   3. each rank reads its groups, each together, into one mergeable part
 *      (part.h), noting the flow keys; rank 0 gathers them: when groups
 *      share a flow seen only later, the parts are made again with the
 *      joined groups (exact, and as parallel as the groups are);
 *   4. the parts merge up a binomial tree (rank r sends to r - lowbit(r)),
 *      serialized (serial.h): log2(P) rounds, no rank receives more than
 *      log2(P) states;
 *   5. rank 0 gathers each capture's counts and errors and finishes the
 *      job (dmls_job_from_parts): the same result as one process.
 * A capture no rank can read is reported in its files entry (the job's
 * damage: exit 1, the file named) and the others are analyzed.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_mpi.h"
#include "dmlscope/part.h"
#include "dmlscope/serial.h"
#include "mpi/mpi_int.h"

enum { TAG_KEYS = 11, TAG_STATE, TAG_FILES, TAG_NAMES };

typedef struct ajob {
	char **paths;
	size_t nf;
	int *owner;        /* rank reading capture i (pass 2: its group) */
	size_t *group;     /* smallest capture of its group */
	uint64_t *size;
	uint8_t *can;      /* can[i * P + r] */
	dmls_input_file *files; /* this rank's captures (rank 0: all) */
	dmls_part part;
	uint64_t **keys;
	size_t *nkeys;
} ajob;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each rank's listing of the run folder to rank 0, united by path. */
static int unite_listings(ajob *a, char **mine, size_t nmine)
{
	if (mpi_rank) {
		size_t bytes = 0;
		for (size_t i = 0; i < nmine; i++)
			bytes += strlen(mine[i]) + 1;
		uint8_t *buf = malloc(bytes ? bytes : 1);
		for (size_t i = 0, off = 0; buf && i < nmine; i++) {
			memcpy(buf + off, mine[i], strlen(mine[i]) + 1);
			off += strlen(mine[i]) + 1;
		}
		mpi_send_blob(buf, buf ? bytes : 0, 0, TAG_NAMES);
		free(buf);
		return buf ? 0 : -1;
	}
	size_t cap = nmine + 16, n = 0;
	char **all = malloc(cap * sizeof(*all));
	for (size_t i = 0; all && i < nmine; i++)
		all[n++] = strdup(mine[i]);
	for (int r = 1; r < mpi_size; r++) {
		uint8_t *buf;
		size_t len;
		mpi_recv_blob(&buf, &len, r, TAG_NAMES);
		for (size_t off = 0; all && buf && off < len; off += strlen((char *)buf + off) + 1) {
			char **more = n < cap ? all : realloc(all, (cap *= 2) * sizeof(*all));
			if (!more) { /* out of memory: the names so far go, and the list */
				while (n)
					free(all[--n]);
				free(all);
				all = NULL;
				break;
			}
			all = more;
			all[n++] = strndup((char *)buf + off, len - off);
		}
		free(buf);
	}
	if (!all)
		return -1;
	qsort(all, n, sizeof(*all), cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u && !strcmp(all[u - 1], all[i]))
			free(all[i]);
		else
			all[u++] = all[i];
	a->paths = all;
	a->nf = u;
	return 0;
}

/* Step 1: the job's captures, the same list on every rank. */
static int job_captures(ajob *a, const char *const *inputs, size_t n, dmls_error *err)
{
	int rc = DMLS_OK;
	int folder = n == 1 && dmls_is_run_folder(inputs[0]), any_folder = folder;
	MPI_Allreduce(&folder, &any_folder, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any_folder) {
		dmls_run run = {0};
		if (folder && (rc = dmls_run_open(&run, inputs, n, err)))
			folder = 0;
		if (!mpi_rank && !folder && !rc)
			rc = dmls_fail(err, DMLS_EIO, "'%s': not a run folder on rank 0", inputs[0]);
		if (unite_listings(a, run.captures, run.ncaptures) && !rc)
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		dmls_run_release(&run);
	} else {
		for (size_t i = 0; i < n && !rc; i++) {
			struct stat sb;
			if (!strcmp(inputs[i], "-"))
				rc = dmls_fail(err, DMLS_EUSAGE,
					       "standard input cannot be spread over ranks");
			else if (!stat(inputs[i], &sb) && S_ISDIR(sb.st_mode))
				rc = dmls_fail(err, DMLS_EUSAGE,
					       "'%s': a run folder must be the only input", inputs[i]);
		}
		if (!mpi_rank) {
			a->paths = calloc(n, sizeof(*a->paths));
			for (size_t i = 0; a->paths && i < n; i++)
				a->paths[i] = strdup(inputs[i]);
			a->nf = n;
		}
	}
	if ((rc = mpi_agree(rc, err)))
		return rc;
	return mpi_agree(mpi_bcast_strings(&a->paths, &a->nf, 0) ? DMLS_ENOMEM : DMLS_OK, err);
}

/* Step 1 still: who can read what, and the owners. */
static int spread(ajob *a)
{
	size_t nf = a->nf, P = (size_t)mpi_size;
	uint64_t *mysize = calloc(nf ? nf : 1, sizeof(*mysize));
	uint8_t *mine = calloc(nf ? nf : 1, 1), *byrank = malloc(nf * P + 1);
	a->size = calloc(nf ? nf : 1, sizeof(*a->size));
	a->can = malloc(nf * P + 1);
	a->owner = calloc(nf ? nf : 1, sizeof(*a->owner));
	a->group = calloc(nf ? nf : 1, sizeof(*a->group));
	a->files = calloc(nf ? nf : 1, sizeof(*a->files));
	a->keys = calloc(nf ? nf : 1, sizeof(*a->keys));
	a->nkeys = calloc(nf ? nf : 1, sizeof(*a->nkeys));
	int ok = mysize && mine && byrank && a->size && a->can && a->owner && a->group &&
		 a->files && a->keys && a->nkeys, allok;
	MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (allok) {
		for (size_t i = 0; i < nf; i++) {
			struct stat sb;
			mine[i] = !stat(a->paths[i], &sb) && !S_ISDIR(sb.st_mode) &&
				  !access(a->paths[i], R_OK);
			mysize[i] = mine[i] ? (uint64_t)sb.st_size : 0;
			a->group[i] = i;
		}
		MPI_Allgather(mine, (int)nf, MPI_BYTE, byrank, (int)nf, MPI_BYTE, MPI_COMM_WORLD);
		MPI_Allreduce(mysize, a->size, (int)nf, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
		for (size_t i = 0; i < nf; i++)
			for (size_t r = 0; r < P; r++)
				a->can[i * P + r] = byrank[r * nf + i];
		mpi_assign(a->size, a->can, nf, a->owner);
	}
	free(mysize);
	free(mine);
	free(byrank);
	return allok ? DMLS_OK : DMLS_ENOMEM;
}

/* Step 2: the job's origin, and a first look at each capture's flows
 * (its first DMLS_MPI_PROBE_PACKETS packets, 4096 by default: connections
 * open at the start of a job, so captures of both ends show it there);
 * 0 found, NO_PACKETS when no packet anywhere. */
#define NO_PACKETS 100
static int origin(ajob *a, const dmls_job_opts *o, int64_t *t0, dmls_error *err)
{
	int64_t mine = INT64_MAX, t;
	int rc = DMLS_OK;
	const char *env = getenv("DMLS_MPI_PROBE_PACKETS");
	size_t probe = env && atol(env) > 0 ? (size_t)atol(env) : 4096;
	for (size_t i = 0; i < a->nf && !rc; i++) {
		if (a->owner[i] != mpi_rank)
			continue;
		int f = dmls_part_probe(a->paths[i], o, probe, &t, &a->keys[i], &a->nkeys[i],
					err);
		if (f < 0)
			rc = -f;
		else if (f && t < mine)
			mine = t;
	}
	if ((rc = mpi_agree(rc, err)))
		return rc;
	MPI_Allreduce(&mine, t0, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
	return *t0 == INT64_MAX ? NO_PACKETS : 0;
}

/* Step 3: read this rank's groups of captures (a capture sharing no flow
 * is a group of one), each together; with keys, each group's flow keys
 * go to its first capture (the others' are dropped). */
static int read_mine(ajob *a, const dmls_job_opts *o, int64_t t0, int keys, dmls_error *err)
{
	dmls_part_init(&a->part, o, t0);
	dmls_error damage;
	int rc = DMLS_OK;
	for (size_t g = 0; g < a->nf && !rc; g++) {
		if (a->owner[g] != mpi_rank || a->group[g] != g)
			continue;
		size_t m = 0;
		for (size_t i = g; i < a->nf; i++)
			m += a->group[i] == g;
		const char **pp = malloc(m * sizeof(*pp));
		uint32_t *ord = malloc(m * sizeof(*ord));
		dmls_input_file *ff = calloc(m, sizeof(*ff));
		if (!pp || !ord || !ff)
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		for (size_t i = g, k = 0; !rc && i < a->nf; i++)
			if (a->group[i] == g)
				pp[k] = a->paths[i], ord[k++] = (uint32_t)i;
		dmls_error_clear(&damage);
		if (!rc)
			rc = dmls_part_read(&a->part, pp, ord, m, o, keys, ff, &damage, err);
		for (size_t k = 0; !rc && k < m; k++) {
			free(a->files[ord[k]].path);
			a->files[ord[k]] = ff[k];
		}
		if (!rc && keys) { /* the group's keys, at its first capture */
			for (size_t k = 0; k < m; k++) {
				free(a->keys[ord[k]]);
				a->keys[ord[k]] = NULL, a->nkeys[ord[k]] = 0;
			}
			a->keys[g] = a->part.keys, a->nkeys[g] = a->part.nkeys;
			a->part.keys = NULL, a->part.nkeys = a->part.keys_cap = 0;
		}
		free(pp);
		free(ord);
		free(ff);
	}
	return mpi_agree(rc, err);
}

/* Step 3 still: rank 0 finds the captures that share flows (keys are at
 * each group's first capture) and joins the groups they are in; the
 * groups on every rank.  Returns 1 when they changed, 0 if not, -1. */
static int find_groups(ajob *a)
{
	uint64_t nf = a->nf;
	int changed = 0;
	if (mpi_rank) {
		size_t words = 0;
		for (size_t i = 0; i < nf; i++)
			if (a->owner[i] == mpi_rank)
				words += 2 + a->nkeys[i];
		uint64_t *buf = malloc((words ? words : 1) * 8), *w = buf;
		for (size_t i = 0; buf && i < nf; i++)
			if (a->owner[i] == mpi_rank) {
				*w++ = i, *w++ = a->nkeys[i];
				if (a->nkeys[i]) /* a capture that did not open has none */
					memcpy(w, a->keys[i], a->nkeys[i] * 8);
				w += a->nkeys[i];
			}
		mpi_send_blob((uint8_t *)buf, buf ? words * 8 : 0, 0, TAG_KEYS);
		free(buf);
	} else {
		for (int r = 1; r < mpi_size; r++) {
			uint8_t *buf;
			size_t len;
			mpi_recv_blob(&buf, &len, r, TAG_KEYS);
			const uint64_t *w = (const uint64_t *)buf, *end = w + (buf ? len / 8 : 0);
			while (w + 2 <= end && w[0] < nf && w[1] <= (uint64_t)(end - w - 2)) {
				size_t i = w[0];
				free(a->keys[i]);
				a->keys[i] = malloc((w[1] ? w[1] : 1) * 8);
				a->nkeys[i] = a->keys[i] ? w[1] : 0;
				if (a->keys[i])
					memcpy(a->keys[i], w + 2, w[1] * 8);
				w += 2 + w[1];
			}
			free(buf);
		}
		size_t *joined = malloc((nf ? nf : 1) * sizeof(*joined));
		if (!joined ||
		    dmls_part_groups((const uint64_t *const *)a->keys, a->nkeys, nf, joined) < 0)
			changed = -1;
		for (size_t i = 0; changed >= 0 && i < nf; i++) { /* i's group joins others */
			size_t g = joined[a->group[i]];
			changed |= g != a->group[i];
			a->group[i] = g;
		}
		free(joined);
	}
	MPI_Bcast(&changed, 1, MPI_INT, 0, MPI_COMM_WORLD);
	uint64_t *g = malloc((nf ? nf : 1) * 8);
	for (size_t i = 0; g && !mpi_rank && i < nf; i++)
		g[i] = a->group[i];
	if (g)
		MPI_Bcast(g, (int)nf, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	for (size_t i = 0; g && i < nf; i++)
		a->group[i] = (size_t)g[i];
	free(g);
	return g ? changed : -1;
}

/* Pass 2: groups to ranks that can read all their captures. */
static void assign_groups(ajob *a)
{
	size_t nf = a->nf, P = (size_t)mpi_size;
	uint64_t *gs = calloc(nf ? nf : 1, sizeof(*gs));
	uint8_t *gc = malloc(nf * P + 1);
	if (!gs || !gc) {
		free(gs);
		free(gc);
		for (size_t i = 0; i < nf; i++) /* the group with the rank of its first */
			a->owner[i] = a->owner[a->group[i]];
		return;
	}
	memset(gc, 1, nf * P);
	for (size_t i = 0; i < nf; i++) {
		size_t g = a->group[i];
		gs[g] += a->size[i];
		for (size_t r = 0; r < P; r++)
			gc[g * P + r] &= a->can[i * P + r];
	}
	for (size_t i = 0; i < nf; i++)
		if (a->group[i] != i) /* not a group's first: nothing to place */
			memset(gc + i * P, 0, P), gs[i] = 0;
	mpi_assign(gs, gc, nf, a->owner);
	for (size_t i = 0; i < nf; i++)
		a->owner[i] = a->owner[a->group[i]];
	free(gs);
	free(gc);
}

/* ---- step 4: the parts up a binomial tree; step 5: files to rank 0 ---- */

typedef struct part_msg {
	int32_t status, has_counts;
	dmls_input_counts counts;
} part_msg;

/* Rank r's part (blob) merged into this rank's. */
static int take_part(ajob *a, int r, const dmls_job_opts *o, int rc, dmls_error *err)
{
	part_msg m;
	uint8_t *buf;
	size_t len;
	MPI_Recv(&m, (int)sizeof(m), MPI_BYTE, r, TAG_STATE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	int got = mpi_recv_blob(&buf, &len, r, TAG_STATE);
	if (!rc && m.status) /* r reports its own error (mpi_agree) */
		rc = m.status;
	if (!rc && got)
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (!rc) {
		dmls_stats tmp;
		dmls_error e;
		int d = dmls_stats_deserialize(&tmp, buf, len, &o->limits, &e);
		int mr = d ? 0 : dmls_stats_merge(&a->part.stats, &tmp);
		if (d)
			rc = dmls_fail(err, d, "the state of rank %d: %s", r, e.msg);
		else if (mr == -1)
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		else if (mr)
			rc = dmls_fail(err, DMLS_EBAD, "the state of rank %d: made on another origin", r);
		else
			dmls_part_counts_add(&a->part.counts, &a->part.has_counts, &m.counts,
					     m.has_counts);
		dmls_stats_release(&tmp);
	}
	free(buf);
	return rc;
}

static int send_part(ajob *a, int dest, int rc, dmls_error *err)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	if (!rc)
		rc = dmls_stats_serialize(&a->part.stats, &buf, &len, err);
	part_msg m = {rc, a->part.has_counts, a->part.counts};
	MPI_Send(&m, (int)sizeof(m), MPI_BYTE, dest, TAG_STATE, MPI_COMM_WORLD);
	mpi_send_blob(buf, len, dest, TAG_STATE);
	free(buf);
	return rc;
}

typedef struct file_msg {
	uint64_t index, records, packets;
	int32_t linktype, status;
	char format[16];
	char compression[8];
	char error[512];
} file_msg;

static const char *format_name(const char *s)
{
	static const char *known[] = {"pcap", "pcapng"};
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(s, known[i]))
			return known[i];
	return s[0] ? "pcap" : NULL;
}

static const char *compression_name(const char *s)
{
	static const char *known[] = {"gzip", "xz", "zstd"};
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(s, known[i]))
			return known[i];
	return NULL;
}

/* Each capture's counts and error to rank 0, into its files[]. */
static int gather_files(ajob *a)
{
	if (mpi_rank) {
		size_t m = 0, k = 0;
		for (size_t i = 0; i < a->nf; i++)
			m += a->owner[i] == mpi_rank;
		file_msg *fm = calloc(m ? m : 1, sizeof(*fm));
		for (size_t i = 0; fm && i < a->nf; i++) {
			const dmls_input_file *f = &a->files[i];
			if (a->owner[i] != mpi_rank)
				continue;
			fm[k] = (file_msg){i, f->records, f->packets, f->linktype, f->status, "", "", ""};
			snprintf(fm[k].format, sizeof(fm[k].format), "%s", f->format ? f->format : "");
			snprintf(fm[k].compression, sizeof(fm[k].compression), "%s",
				 f->compression ? f->compression : "");
			snprintf(fm[k++].error, sizeof(fm[k].error), "%s", f->error);
		}
		mpi_send_blob((uint8_t *)fm, k * sizeof(*fm), 0, TAG_FILES);
		free(fm);
		return fm ? 0 : -1;
	}
	int rc = 0;
	for (int r = 1; r < mpi_size; r++) {
		uint8_t *buf;
		size_t len;
		rc |= mpi_recv_blob(&buf, &len, r, TAG_FILES);
		for (size_t off = 0; buf && off + sizeof(file_msg) <= len; off += sizeof(file_msg)) {
			file_msg fm;
			memcpy(&fm, buf + off, sizeof(fm));
			if (fm.index >= a->nf)
				continue;
			dmls_input_file *f = &a->files[fm.index];
			free(f->path);
			*f = (dmls_input_file){.path = strdup(a->paths[fm.index]),
					       .linktype = fm.linktype, .records = fm.records,
					       .packets = fm.packets, .status = fm.status};
			fm.format[sizeof(fm.format) - 1] = fm.error[sizeof(fm.error) - 1] = '\0';
			fm.compression[sizeof(fm.compression) - 1] = '\0';
			f->format = format_name(fm.format);
			f->compression = compression_name(fm.compression);
			snprintf(f->error, sizeof(f->error), "%s", fm.error);
		}
		free(buf);
	}
	return rc;
}

static int reduce_parts(ajob *a, const dmls_job_opts *o, dmls_error *err)
{
	int rc = DMLS_OK;
	for (int step = 1; step < mpi_size; step <<= 1) {
		if (mpi_rank & step) { /* the lowest bit: send, done */
			rc = send_part(a, mpi_rank - step, rc, err);
			break;
		}
		if (mpi_rank + step < mpi_size)
			rc = take_part(a, mpi_rank + step, o, rc, err);
	}
	if (gather_files(a) && !rc)
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return mpi_agree(rc, err);
}

static void ajob_release(ajob *a)
{
	for (size_t i = 0; i < a->nf; i++) {
		free(a->paths ? a->paths[i] : NULL);
		if (a->files)
			free(a->files[i].path);
		if (a->keys)
			free(a->keys[i]);
	}
	free(a->paths);
	free(a->owner);
	free(a->group);
	free(a->size);
	free(a->can);
	free(a->files);
	free(a->keys);
	free(a->nkeys);
	dmls_part_release(&a->part);
}

/* Wall and CPU seconds of this process now. */
static void clocks(double t[2])
{
	struct timespec w, c;
	clock_gettime(CLOCK_MONOTONIC, &w);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
	t[0] = (double)w.tv_sec + (double)w.tv_nsec * 1e-9;
	t[1] = (double)c.tv_sec + (double)c.tv_nsec * 1e-9;
}

/* With DMLS_MPI_VERBOSE: each rank's reading and merging times, on rank 0
 * (what doc/mpi.md's model takes its costs from). */
static void report_times(const double t[4][2], uint64_t packets)
{
	if (!getenv("DMLS_MPI_VERBOSE"))
		return;
	double mine[6] = {t[1][0] - t[0][0], t[1][1] - t[0][1], t[3][0] - t[2][0],
			  t[3][1] - t[2][1], (double)packets, 0};
	double *all = mpi_rank ? NULL : malloc((size_t)mpi_size * sizeof(mine));
	MPI_Gather(mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int r = 0; all && r < mpi_size; r++) {
		const double *m = all + 6 * r;
		fprintf(stderr, "dmlscope analyze: rank %d: read %.0f packets in %.3f s (cpu %.3f s, "
			"%.0f ns/packet), merged up the tree in %.3f s (cpu %.3f s)\n", r, m[4], m[0],
			m[1], m[4] > 0 ? m[1] / m[4] * 1e9 : 0.0, m[2], m[3]);
	}
	free(all);
}

/* Steps 2 to 4 once the captures are known; the merged part on rank 0. */
static int build_parts(ajob *a, const dmls_job_opts *o, dmls_error *err)
{
	int64_t t0;
	double t[4][2];
	clocks(t[0]);
	int rc = origin(a, o, &t0, err);
	if (rc)
		return rc;
	int changed = find_groups(a); /* from the first packets */
	if ((rc = mpi_agree(changed < 0 ? DMLS_ENOMEM : DMLS_OK, err)))
		return rc;
	if (changed) /* both ends captured: groups read together */
		assign_groups(a);
	mpi_report("analyze", "captures", a->owner, a->size, a->nf);
	if ((rc = read_mine(a, o, t0, 1, err)))
		return rc;
	changed = find_groups(a); /* from every packet */
	if ((rc = mpi_agree(changed < 0 ? DMLS_ENOMEM : DMLS_OK, err)))
		return rc;
	if (changed) { /* flows shared later on: read the joined groups again */
		dmls_part_release(&a->part);
		assign_groups(a);
		mpi_report("analyze", "captures (read again: captures sharing flows together)",
			   a->owner, a->size, a->nf);
		if ((rc = read_mine(a, o, t0, 0, err)))
			return rc;
	}
	uint64_t packets = a->part.counts.packets; /* before the tree adds others' */
	clocks(t[1]);
	MPI_Barrier(MPI_COMM_WORLD); /* the tree's time, not waiting for the slowest reader */
	clocks(t[2]);
	rc = reduce_parts(a, o, err);
	clocks(t[3]);
	report_times((const double(*)[2])t, packets);
	return rc;
}

int cli_mpi_job_analyze(dmls_job *job, const char *const *inputs, size_t n,
			const dmls_job_opts *opts, dmls_error *err)
{
	static const dmls_job_opts defaults = {0};
	memset(job, 0, sizeof(*job));
	if (!mpi_started) /* not under a launcher: one pass */
		return dmls_job_analyze(job, inputs, n, opts, err);
	dmls_job_opts o = opts ? *opts : defaults;
	o.progress = NULL; /* ranks read in parts: no one total to show */
	ajob a = {0};
	int rc = job_captures(&a, inputs, n, err);
	if (!rc)
		rc = mpi_agree(spread(&a) ? DMLS_ENOMEM : DMLS_OK, err);
	if (!rc)
		rc = build_parts(&a, &o, err);
	if (rc == NO_PACKETS) { /* nothing to spread: rank 0 says what one pass says */
		rc = mpi_rank ? DMLS_OK : dmls_job_analyze(job, inputs, n, &o, err);
		rc = mpi_agree(rc, err);
		ajob_release(&a);
		return rc;
	}
	if (rc == 0 && !mpi_rank) {
		/* one pass meets the captures that do not open first, in order,
		 * then damage in time order (here: in order of the captures) */
		dmls_error damage;
		dmls_error_clear(&damage);
		for (int opened = 0; opened < 2; opened++)
			for (size_t i = 0; i < a.nf && damage.status == DMLS_OK; i++)
				if (a.files[i].status && !a.files[i].format == !opened)
					dmls_fail(&damage, a.files[i].status, "%s", a.files[i].error);
		rc = dmls_job_from_parts(job, inputs, n, &a.part.stats, &a.part.counts, a.files, a.nf,
					 &damage, err);
		a.files = NULL; /* the job's now */
	}
	ajob_release(&a);
	return rc;
}
