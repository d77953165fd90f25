/*
 * compare.c - many runs side by side (see compare.h).
 *
 * Each run goes through the same pipeline as `analyze` (dmls_job_analyze)
 * and the same result (dmls_result_init); its row and figure data are
 * copied from that result, so a number in runs.csv is the number `analyze
 * --json` prints for the run.  The columns are metrics of result.h picked
 * by key; nothing is computed here.
 */
#include "dmlscope/compare.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dmlscope/runlist.h"

/* name, metric key (NULL: the run's own name or path), in the terminal */
const dmls_compare_column dmls_compare_columns[] = {
	{"run", NULL, 1},
	{"path", NULL, 0},
	{"framework", "run.framework", 1},
	{"model", "run.model", 1},
	{"batch", "run.batch", 1},
	{"backend", "run.backend", 1},
	{"delay", "run.delay", 1},
	{"topology", "run.topology", 0},
	{"framework_backend", "run.framework_backend", 0},
	{"loss_percent", "run.loss_percent", 0},
	{"model_size_mb", "run.model_size_mb", 0},
	{"workers", "pattern.workers", 1},
	{"ranks", "pattern.ranks", 1},
	{"pattern", "pattern.kind", 1},
	{"duration_s", "input.duration_s", 1},
	{"wire_bytes", "input.wire_bytes", 1},
	{"payload_bytes", "input.payload_bytes", 0},
	{"flows", "flows.count", 1},
	{"mean_bps", "throughput.mean_bps", 1},
	{"peak_bps", "throughput.peak_bps", 1},
	{"period_s", "iterations.period_s", 1},
	{"iterations", "iterations.count", 1},
	{"bytes_per_worker", "iterations.bytes_per_worker", 1},
	{"gradient_bytes", "model.gradient_bytes", 1},
	{"regularity", "iterations.regularity", 1},
	{"ptm_5ms", "burstiness.ptm_5ms", 1},
	{"retransmissions", "flows.retransmissions", 1},
	{"log_steps", "train_log.steps", 1},
	{"mean_step_s", "train_log.mean_step_s", 1},
	{"mb_per_step", "train_log.mb_per_step", 1},
	{"final_accuracy", "train_log.final_accuracy", 1},
};

#define NCOLS (sizeof(dmls_compare_columns) / sizeof(dmls_compare_columns[0]))
const size_t dmls_compare_ncolumns = NCOLS;

_Static_assert(DMLS_HOST_NAME == sizeof(((dmls_host *)0)->name), "host name size");

const char *dmls_compare_title(size_t j)
{
	const dmls_compare_column *col = &dmls_compare_columns[j];
	const dmls_metric *m = col->key ? dmls_metric_find(col->key) : NULL;
	if (!col->terminal)
		return NULL;
	return m ? m->title : col->name;
}

char dmls_compare_unit(size_t j)
{
	const dmls_compare_column *col = &dmls_compare_columns[j];
	const dmls_metric *m = col->key ? dmls_metric_find(col->key) : NULL;
	return m ? m->unit : DMLS_UNIT_TEXT;
}

void dmls_compare_init(dmls_compare *c)
{
	memset(c, 0, sizeof(*c));
}

static void figures_release(dmls_compare_figures *f)
{
	free(f->hosts);
	free(f->wire_bytes);
	free(f->roles);
	free(f->rank);
	free(f->cdf_bytes);
	free(f->cdf_frac);
	free(f->loss_hosts);
	free(f->loss_flows);
	free(f->tp_wire_bytes);
	free(f->starts_s);
	free(f->iter_bytes);
	free(f->acc);
	memset(f, 0, sizeof(*f));
}

static void row_release(dmls_value *row)
{
	for (size_t j = 0; row && j < NCOLS; j++)
		if (row[j].type == DMLS_T_STR)
			free((char *)row[j].s); /* the row's own copy */
	free(row);
}

void dmls_compare_release(dmls_compare *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->runs[i].path);
		free(c->runs[i].name);
		row_release(c->runs[i].row);
		figures_release(&c->runs[i].fig);
	}
	free(c->runs);
	memset(c, 0, sizeof(*c));
}

static dmls_value text_value(const char *s)
{
	dmls_value v = {s ? DMLS_T_STR : DMLS_T_NULL, 0, 0, s};
	return v;
}

/* The row of r: every column's value, strings copied.  NULL when out of
 * memory. */
static dmls_value *make_row(const dmls_result *r, const char *name, const char *path)
{
	dmls_value *row = calloc(NCOLS, sizeof(*row));
	for (size_t j = 0; row && j < NCOLS; j++) {
		const dmls_compare_column *col = &dmls_compare_columns[j];
		const dmls_metric *m = col->key ? dmls_metric_find(col->key) : NULL;
		dmls_value v = col->key ? (m ? dmls_metric_value(m, r) : text_value(NULL))
					: text_value(!strcmp(col->name, "run") ? name : path);
		if (v.type == DMLS_T_STR && !(v.s = strdup(v.s))) {
			row_release(row);
			return NULL;
		}
		row[j] = v;
	}
	return row;
}

/* malloc of n elements of size (at least one). */
static void *alloc(size_t n, size_t size)
{
	return malloc((n ? n : 1) * size);
}

static int matrix_figure(dmls_compare_figures *f, const dmls_result *r)
{
	const dmls_stats *st = r->stats;
	size_t n = r->matrix.n;
	f->hosts = alloc(n, sizeof(*f->hosts));
	f->wire_bytes = alloc(n * n, sizeof(*f->wire_bytes));
	f->roles = alloc(n, sizeof(*f->roles));
	f->rank = alloc(n, sizeof(*f->rank));
	if (!f->hosts || !f->wire_bytes || !f->roles || !f->rank)
		return DMLS_ENOMEM;
	f->nhosts = n;
	for (size_t i = 0; i < n; i++) {
		size_t hi = r->matrix.host[i];
		const dmls_host *h = hi == SIZE_MAX ? NULL : &st->hosts[hi];
		snprintf(f->hosts[i], sizeof(f->hosts[i]), "%s", h ? h->name : "other");
		f->roles[i] = h ? dmls_role_name(h->role) : "other";
		/* a ring in its order, a job's ranks (servers first), then the rest */
		f->rank[i] = 3 * n + i;
		for (size_t k = 0; h && k < r->pattern.norder; k++)
			if (r->pattern.order[k] == hi)
				f->rank[i] = k;
		for (size_t k = 0; h && f->rank[i] >= 3 * n && k < r->pattern.nmembers; k++)
			if (r->pattern.members[k] == hi)
				f->rank[i] = (h->role == DMLS_ROLE_SERVER ? n : 2 * n) + k;
	}
	if (n)
		memcpy(f->wire_bytes, r->matrix.wire_bytes, n * n * sizeof(*f->wire_bytes));
	return DMLS_OK;
}

static int cmp_size(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The flow-size CDF (the study's figure), at most DMLS_CDF_POINTS points:
 * the kept flows' wire bytes at evenly spaced ranks, the last the largest. */
static int cdf_figure(dmls_compare_figures *f, const dmls_result *r)
{
	const dmls_stats *st = r->stats;
	size_t n = st->nflows, k = n < DMLS_CDF_POINTS ? n : DMLS_CDF_POINTS;
	uint64_t *v = alloc(n, sizeof(*v));
	f->cdf_bytes = alloc(k, sizeof(double));
	f->cdf_frac = alloc(k, sizeof(double));
	if (!v || !f->cdf_bytes || !f->cdf_frac) {
		free(v);
		return DMLS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = st->flows[i].wire_bytes;
	qsort(v, n, sizeof(*v), cmp_size);
	size_t m = 0;
	for (size_t j = 0; j < k; j++) {
		size_t rank = (j + 1) * n / k; /* 1-based, the last is n */
		double b = (double)v[rank - 1];
		if (m && f->cdf_bytes[m - 1] == b)
			m--; /* one point per size: the share of flows up to it */
		f->cdf_bytes[m] = b;
		f->cdf_frac[m++] = (double)rank / (double)n;
	}
	f->ncdf = m;
	free(v);
	return DMLS_OK;
}

/* The hosts that retransmitted and the flows that did most (result.h). */
static int loss_figure(dmls_compare_figures *f, const dmls_result *r)
{
	const dmls_stats *st = r->stats;
	f->loss_hosts = alloc(st->nhosts, sizeof(*f->loss_hosts));
	f->loss_flows = alloc(r->loss.ntop, sizeof(*f->loss_flows));
	if (!f->loss_hosts || !f->loss_flows)
		return DMLS_ENOMEM;
	for (size_t i = 0; i < st->nhosts && r->loss.host_rate; i++) {
		const dmls_host *h = &st->hosts[i];
		if (!h->tx_retransmissions)
			continue;
		struct dmls_loss_row *l = &f->loss_hosts[f->nloss_hosts++];
		snprintf(l->what, sizeof(l->what), "%s", h->name);
		l->retransmissions = h->tx_retransmissions;
		l->rate = r->loss.host_rate[i];
	}
	for (size_t i = 0; i < r->loss.ntop; i++) {
		const dmls_flow *fl = &st->flows[r->loss.top[i]];
		struct dmls_loss_row *l = &f->loss_flows[f->nloss_flows++];
		snprintf(l->what, sizeof(l->what), "%s:%u -> %s:%u", st->hosts[fl->src].name,
			 fl->sport, st->hosts[fl->dst].name, fl->dport);
		l->retransmissions = fl->retransmissions;
		l->rate = NAN;
	}
	return DMLS_OK;
}

static int series_figures(dmls_compare_figures *f, const dmls_result *r)
{
	if (cdf_figure(f, r) || loss_figure(f, r))
		return DMLS_ENOMEM;
	f->tp_bin_s = r->figure.bin_s;
	f->tp_t0_s = r->figure.t0_s;
	f->ntp = r->figure.n;
	f->tp_wire_bytes = alloc(f->ntp, sizeof(*f->tp_wire_bytes));
	if (!f->tp_wire_bytes)
		return DMLS_ENOMEM;
	if (f->ntp)
		memcpy(f->tp_wire_bytes, r->figure.wire_bytes, f->ntp * sizeof(*f->tp_wire_bytes));
	if (!(f->has_analysis = r->has_analysis))
		return DMLS_OK;
	memcpy(f->peak_to_mean, r->burst.total->peak_to_mean, sizeof(f->peak_to_mean));
	f->niter = r->iter.nlisted;
	f->starts_s = alloc(f->niter, sizeof(double));
	f->iter_bytes = alloc(f->niter, sizeof(double));
	if (!f->starts_s || !f->iter_bytes)
		return DMLS_ENOMEM;
	if (f->niter) {
		memcpy(f->starts_s, r->iter.starts_s, f->niter * sizeof(double));
		memcpy(f->iter_bytes, r->iter.bytes, f->niter * sizeof(double));
	}
	if (!(f->has_log = r->has_log))
		return DMLS_OK;
	f->nacc = r->log.nacc;
	if (!(f->acc = alloc(f->nacc, sizeof(*f->acc))))
		return DMLS_ENOMEM;
	if (f->nacc)
		memcpy(f->acc, r->log.acc, f->nacc * sizeof(*f->acc));
	return DMLS_OK;
}

/* A new entry named name for path (copies both). */
static dmls_compare_run *push(dmls_compare *c, const char *path, const char *name)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		dmls_compare_run *r = realloc(c->runs, cap * sizeof(*r));
		if (!r)
			return NULL;
		c->runs = r;
		c->cap = cap;
	}
	dmls_compare_run *r = &c->runs[c->n];
	memset(r, 0, sizeof(*r));
	r->path = path ? strdup(path) : NULL;
	r->name = strdup(name);
	if ((path && !r->path) || !r->name) {
		free(r->path);
		free(r->name);
		return NULL;
	}
	c->n++;
	return r;
}

static void set_error(dmls_compare *c, dmls_compare_run *r, const dmls_error *e)
{
	if (r->error.status == DMLS_OK)
		c->nfailed++;
	r->error = *e;
}

/* Why a run's captures gave no IP packet (dmls_input_why_empty). */
static const char *why_empty(const dmls_result *res)
{
	static char why[160];
	dmls_input_counts ic = {.records = (uint64_t)res->input.records,
				.truncated = (uint64_t)res->input.truncated,
				.non_ip = (uint64_t)res->input.non_ip,
				.other = (uint64_t)res->input.other,
				.filtered = (uint64_t)res->input.filtered};
	return dmls_input_why_empty(&ic, res->input.files, res->input.nfiles, why, sizeof(why));
}

/* Fill r from a run's result. */
static int fill(dmls_compare *c, dmls_compare_run *r, const dmls_result *res, dmls_error *err)
{
	r->row = make_row(res, r->name, r->path);
	if (!r->row || matrix_figure(&r->fig, res) || series_figures(&r->fig, res))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	dmls_error e;
	if (res->input.damage_status)
		set_error(c, r, (dmls_fail(&e, res->input.damage_status, "%s", res->input.damage), &e));
	else if (res->input.packets == 0)
		set_error(c, r, (dmls_fail(&e, DMLS_EBAD, "'%s': no IP packets to analyze%s", r->name,
					   why_empty(res)),
				 &e));
	return DMLS_OK;
}

int dmls_compare_add(dmls_compare *c, const dmls_result *res, dmls_error *err)
{
	dmls_compare_run *r = push(c, res->run.path, res->run.name);
	if (!r)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return fill(c, r, res, err);
}

/* Analyze run i into its entry (a run that failed to be found keeps its
 * error). */
static int analyze_into(dmls_compare *c, size_t i, const dmls_job_opts *opts, dmls_error *err)
{
	dmls_compare_run *r = &c->runs[i];
	if (r->error.status || r->row)
		return DMLS_OK;
	dmls_job job;
	dmls_error e;
	const char *in[1] = {r->path};
	int rc = DMLS_OK;
	if (dmls_job_analyze(&job, in, 1, opts, &e)) {
		set_error(c, r, &e);
	} else {
		dmls_result res;
		rc = dmls_result_init(&res, &job);
		if (rc)
			rc = dmls_fail(err, rc, "out of memory");
		else
			rc = fill(c, r, &res, err);
		dmls_result_release(&res);
	}
	dmls_job_release(&job);
	return rc;
}

/* A run's entry, analyzed now or (plan) later. */
static int analyze_one(dmls_compare *c, const char *path, const char *name,
		       const dmls_job_opts *opts, int now, dmls_error *err)
{
	if (!push(c, path, name))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return now ? analyze_into(c, c->n - 1, opts, err) : DMLS_OK;
}

int dmls_compare_run_one(dmls_compare *c, size_t i, const dmls_job_opts *opts, dmls_error *err)
{
	return i < c->n ? analyze_into(c, i, opts, err) : DMLS_OK;
}

/* The last component of path, without trailing slashes. */
static void base_name(const char *path, char *out, size_t cap)
{
	size_t l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		l--;
	size_t b = l;
	while (b > 0 && path[b - 1] != '/')
		b--;
	snprintf(out, cap, "%.*s", (int)(l - b), path + b);
}

/* A dataset folder: each of its runs, named by its path below dir. */
static int expand_dataset(dmls_compare *c, const char *dir, const dmls_job_opts *opts,
			  int now, dmls_error *err)
{
	dmls_runlist rl;
	dmls_runlist_init(&rl);
	int rc = dmls_runlist_find(&rl, dir, DMLS_DATASET_DEPTH, err);
	if (!rc && rl.n == 0) {
		char name[256];
		dmls_error e;
		base_name(dir, name, sizeof(name));
		dmls_compare_run *r = push(c, dir, name);
		if (!r)
			rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		else
			set_error(c, r, (dmls_fail(&e, DMLS_EBAD, "'%s': no captures and no run "
						   "folders below it", dir), &e));
	}
	for (size_t i = 0; !rc && i < rl.n; i++) {
		const char *rel = rl.paths[i] + strlen(dir);
		while (*rel == '/')
			rel++;
		rc = analyze_one(c, rl.paths[i], rel, opts, now, err);
	}
	dmls_runlist_release(&rl);
	return rc;
}

static int add_inputs(dmls_compare *c, const char *const *inputs, size_t n,
		      const dmls_job_opts *opts, int now, dmls_error *err)
{
	int rc = DMLS_OK;
	for (size_t i = 0; !rc && i < n; i++) {
		struct stat sb;
		char name[256];
		base_name(inputs[i], name, sizeof(name));
		if (stat(inputs[i], &sb) == 0 && S_ISDIR(sb.st_mode) &&
		    !dmls_has_captures(inputs[i]))
			rc = expand_dataset(c, inputs[i], opts, now, err);
		else
			rc = analyze_one(c, inputs[i], name, opts, now, err);
	}
	return rc;
}

int dmls_compare_runs(dmls_compare *c, const char *const *inputs, size_t n,
		      const dmls_job_opts *opts, dmls_error *err)
{
	return add_inputs(c, inputs, n, opts, 1, err);
}

int dmls_compare_plan(dmls_compare *c, const char *const *inputs, size_t n, dmls_error *err)
{
	return add_inputs(c, inputs, n, NULL, 0, err);
}
