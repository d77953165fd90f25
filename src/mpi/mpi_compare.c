/*
 * mpi_compare.c - `mpirun -np P dmlscope compare DATASET...`: the runs
 * spread over the ranks, the largest first (LPT, mpi_comm.c), each run
 * analyzed whole by one rank, its row and figures sent to rank 0, which
 * renders them in the plain build's order (doc/mpi.md).
 *
 * Every rank lists the runs itself (dmls_compare_plan: the dataset must be
 * on a file system every rank sees) and checks that all found the same
 * number.  A run's entry travels as a packed blob between two processes of
 * the same binary on the same kind of machine (MPI's homogeneous case), so
 * fixed structs go as their bytes; only the strings and arrays are framed.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_mpi.h"
#include "dmlscope/runfolder.h"
#include "mpi/mpi_int.h"

enum { TAG_RUNS = 21 };

/* ---- packing ---- */

typedef struct pack {
	uint8_t *p;
	size_t n, cap;
	int oom;
} pack;

static void put(pack *k, const void *src, size_t len)
{
	if (k->oom)
		return;
	if (k->n + len > k->cap) {
		size_t cap = k->cap ? k->cap : 4096;
		while (cap < k->n + len)
			cap *= 2;
		uint8_t *p = realloc(k->p, cap);
		if (!p) {
			k->oom = 1;
			return;
		}
		k->p = p, k->cap = cap;
	}
	if (len)
		memcpy(k->p + k->n, src, len);
	k->n += len;
}

/* an array: its element count, then its bytes */
static void put_arr(pack *k, const void *a, uint64_t count, size_t elem)
{
	put(k, &count, 8);
	put(k, a, a ? count * elem : 0);
}

static void put_str(pack *k, const char *s)
{
	uint64_t len = s ? strlen(s) + 1 : 0;
	put(k, &len, 8);
	put(k, s, len);
}

typedef struct unpack {
	const uint8_t *p;
	size_t n, off;
	int bad;
} unpack;

static void get(unpack *u, void *dst, size_t len)
{
	if (u->bad || u->n - u->off < len) {
		u->bad = 1;
		memset(dst, 0, len);
		return;
	}
	memcpy(dst, u->p + u->off, len);
	u->off += len;
}

/* a malloc'd copy of an array of elem-byte elements; *count its length */
static void *get_arr(unpack *u, size_t *count, size_t elem)
{
	uint64_t c;
	get(u, &c, 8);
	if (u->bad || c > (u->n - u->off) / (elem ? elem : 1)) {
		u->bad = 1;
		*count = 0;
		return NULL;
	}
	void *a = malloc(c ? c * elem : 1);
	if (!a) {
		u->bad = 1;
		return NULL;
	}
	get(u, a, c * elem);
	*count = (size_t)c;
	return a;
}

static char *get_str(unpack *u)
{
	size_t n;
	char *s = get_arr(u, &n, 1);
	if (!n || s[n - 1]) { /* NULL, or not a string */
		free(s);
		return NULL;
	}
	return s;
}

/* the static role names a figure points to */
static const char *role_name(const char *s)
{
	static const char *names[] = {"worker", "server", "other"};
	for (size_t i = 0; s && i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(s, names[i]))
			return names[i];
	return "other";
}

static void put_run(pack *k, const dmls_compare_run *r)
{
	put(k, &r->error, sizeof(r->error));
	uint8_t has_row = r->row != NULL;
	put(k, &has_row, 1);
	for (size_t j = 0; has_row && j < dmls_compare_ncolumns; j++) {
		put(k, &r->row[j], sizeof(r->row[j]));
		if (r->row[j].type == DMLS_T_STR)
			put_str(k, r->row[j].s);
	}
	const dmls_compare_figures *f = &r->fig;
	put(k, f, sizeof(*f)); /* the scalars; pointers are replaced */
	put_arr(k, f->hosts, f->nhosts, sizeof(*f->hosts));
	put_arr(k, f->wire_bytes, f->wire_bytes ? f->nhosts * f->nhosts : 0, 8);
	for (size_t i = 0; f->roles && i < f->nhosts; i++)
		put_str(k, f->roles[i]);
	put_arr(k, f->rank, f->rank ? f->nhosts : 0, sizeof(*f->rank));
	put_arr(k, f->loss_hosts, f->nloss_hosts, sizeof(*f->loss_hosts));
	put_arr(k, f->loss_flows, f->nloss_flows, sizeof(*f->loss_flows));
	put_arr(k, f->cdf_bytes, f->cdf_bytes ? f->ncdf : 0, 8);
	put_arr(k, f->cdf_frac, f->cdf_frac ? f->ncdf : 0, 8);
	put_arr(k, f->tp_wire_bytes, f->tp_wire_bytes ? f->ntp : 0, 8);
	put_arr(k, f->starts_s, f->starts_s ? f->niter : 0, 8);
	put_arr(k, f->iter_bytes, f->iter_bytes ? f->niter : 0, 8);
	put_arr(k, f->acc, f->acc ? f->nacc : 0, sizeof(*f->acc));
}

/* r's row and figures from the blob (r's path and name stay). */
static int get_run(unpack *u, dmls_compare_run *r)
{
	get(u, &r->error, sizeof(r->error));
	uint8_t has_row;
	get(u, &has_row, 1);
	if (has_row && !u->bad && (r->row = calloc(dmls_compare_ncolumns, sizeof(*r->row))))
		for (size_t j = 0; j < dmls_compare_ncolumns && !u->bad; j++) {
			get(u, &r->row[j], sizeof(r->row[j]));
			if (r->row[j].type == DMLS_T_STR && !(r->row[j].s = get_str(u)))
				r->row[j].type = DMLS_T_NULL, u->bad = 1;
		}
	dmls_compare_figures *f = &r->fig;
	get(u, f, sizeof(*f));
	size_t n, nh = f->nhosts;
	f->hosts = get_arr(u, &n, sizeof(*f->hosts));
	f->wire_bytes = get_arr(u, &n, 8);
	f->roles = calloc(nh ? nh : 1, sizeof(*f->roles));
	for (size_t i = 0; f->roles && f->hosts && i < nh && !u->bad; i++) {
		char *s = get_str(u);
		f->roles[i] = role_name(s);
		free(s);
	}
	f->rank = get_arr(u, &n, sizeof(*f->rank));
	f->loss_hosts = get_arr(u, &f->nloss_hosts, sizeof(*f->loss_hosts));
	f->loss_flows = get_arr(u, &f->nloss_flows, sizeof(*f->loss_flows));
	f->cdf_bytes = get_arr(u, &n, 8);
	f->cdf_frac = get_arr(u, &n, 8);
	f->tp_wire_bytes = get_arr(u, &n, 8);
	f->starts_s = get_arr(u, &n, 8);
	f->iter_bytes = get_arr(u, &n, 8);
	f->acc = get_arr(u, &n, sizeof(*f->acc));
	return u->bad || !f->roles ? -1 : 0;
}

/* ---- the spread ---- */

/* Bytes of a run's captures (what reading it costs). */
static uint64_t run_bytes(const char *path)
{
	dmls_run run;
	dmls_error e;
	uint64_t sum = 0;
	struct stat sb;
	if (dmls_run_open(&run, &path, 1, &e))
		return !stat(path, &sb) ? (uint64_t)sb.st_size : 0;
	for (size_t i = 0; i < run.ncaptures; i++)
		if (!stat(run.captures[i], &sb))
			sum += (uint64_t)sb.st_size;
	dmls_run_release(&run);
	return sum;
}

/* The entries of the other ranks' runs into rank 0's (owner -1: a run
 * every rank knows failed, not sent). */
static int gather_runs(dmls_compare *c, const int *owner)
{
	int rc = 0;
	if (mpi_rank) {
		pack k = {0};
		for (uint64_t i = 0; i < c->n; i++)
			if (owner[i] == mpi_rank) {
				put(&k, &i, 8);
				put_run(&k, &c->runs[i]);
			}
		mpi_send_blob(k.p, k.oom ? 0 : k.n, 0, TAG_RUNS);
		free(k.p);
		return k.oom ? -1 : 0;
	}
	for (int r = 1; r < mpi_size; r++) {
		uint8_t *buf;
		size_t len;
		rc |= mpi_recv_blob(&buf, &len, r, TAG_RUNS);
		unpack u = {buf, buf ? len : 0, 0, 0};
		while (!u.bad && u.off < u.n) {
			uint64_t i;
			get(&u, &i, 8);
			if (u.bad || i >= c->n || owner[i] != r || c->runs[i].row ||
			    c->runs[i].error.status) {
				rc = -1;
				break;
			}
			rc |= get_run(&u, &c->runs[i]);
		}
		free(buf);
	}
	c->nfailed = 0;
	for (size_t i = 0; i < c->n; i++)
		c->nfailed += c->runs[i].error.status != DMLS_OK;
	return rc;
}

int cli_mpi_compare_runs(dmls_compare *c, const char *const *inputs, size_t n,
			 const dmls_job_opts *opts, dmls_error *err)
{
	if (!mpi_started)
		return dmls_compare_runs(c, inputs, n, opts, err);
	int rc = mpi_agree(dmls_compare_plan(c, inputs, n, err), err);
	if (rc)
		return rc;
	uint64_t mine = c->n, lo, hi;
	MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	if (lo != hi) {
		rc = dmls_fail(err, DMLS_EIO, "the ranks found from %llu to %llu runs: compare needs "
			       "the dataset on a file system every rank sees",
			       (unsigned long long)lo, (unsigned long long)hi);
		return mpi_agree(rc, err);
	}
	size_t nr = c->n, P = (size_t)mpi_size;
	uint64_t *part = calloc(nr ? nr : 1, 8), *size = calloc(nr ? nr : 1, 8);
	uint8_t *can = malloc(nr * P + 1);
	int *owner = calloc(nr ? nr : 1, sizeof(*owner));
	rc = part && size && can && owner ? DMLS_OK
					  : dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if ((rc = mpi_agree(rc, err)) == DMLS_OK) {
		for (size_t i = (size_t)mpi_rank; i < nr; i += P) /* each rank sizes its share */
			part[i] = c->runs[i].error.status ? 0 : run_bytes(c->runs[i].path);
		MPI_Allreduce(part, size, (int)nr, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
		memset(can, 1, nr * P);
		mpi_assign(size, can, nr, owner);
		for (size_t i = 0; i < nr; i++)
			if (c->runs[i].error.status) /* not found: failed on every rank */
				owner[i] = -1;
		mpi_report("compare", "runs", owner, size, nr);
		for (size_t i = 0; i < nr && !rc; i++)
			if (owner[i] == mpi_rank)
				rc = dmls_compare_run_one(c, i, opts, err);
		rc = mpi_agree(rc, err);
	}
	if (!rc && gather_runs(c, owner))
		rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
	rc = mpi_agree(rc, err);
	free(part);
	free(size);
	free(can);
	free(owner);
	return rc;
}
