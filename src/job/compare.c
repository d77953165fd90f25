/*
 * compare.c - many runs side by side (see compare.h).
 *
 * Each run goes through the same pipeline as `analyze` (dmls_job_analyze),
 * the same result (dmls_result_init) and JSON renderer (dmls_render_json); the table row and the
 * figure data are read from that document by key path, so a number in
 * runs.csv is the number `analyze --json` prints for the run.  Only the
 * 10 ms throughput series is computed here, from the 100 us total wire
 * series the one pass kept (the study's "link throughput in 10 ms bins").
 */
#include "dmlscope/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dmlscope/render.h"
#include "dmlscope/result.h"
#include "dmlscope/runlist.h"

/* key, terminal title (NULL: CSV and JSON only), format */
const dmls_compare_column dmls_compare_columns[] = {
	{"run", "run", 's'},
	{"path", NULL, 's'},
	{"framework", "framework", 's'},
	{"model", "model", 's'},
	{"batch", "batch", 's'},
	{"backend", "backend", 's'},
	{"delay", "delay", 's'},
	{"topology", NULL, 's'},
	{"workers", "wrk", 'i'},
	{"ranks", "ranks", 'i'},
	{"pattern", "pattern", 's'},
	{"duration_s", "time", 't'},
	{"wire_bytes", "wire", 'b'},
	{"payload_bytes", NULL, 'b'},
	{"flows", "flows", 'i'},
	{"mean_bps", "mean", 'r'},
	{"peak_bps", "peak", 'r'},
	{"period_s", "period", 't'},
	{"iterations", "iter", 'i'},
	{"bytes_per_worker", "B/wrk/it", 'b'},
	{"gradient_bytes", "S", 'b'},
	{"regularity", "reg", 'f'},
	{"ptm_5ms", "PtM5ms", 'f'},
	{"retransmissions", "retx", 'i'},
	{"log_steps", "steps", 'i'},
	{"mean_step_s", "step", 't'},
	{"mb_per_step", "MB/step", 'f'},
	{"final_accuracy", "acc", 'f'},
};

#define NCOLS (sizeof(dmls_compare_columns) / sizeof(dmls_compare_columns[0]))
const size_t dmls_compare_ncolumns = NCOLS;

/* Where each column is read in the `analyze --json` document ("": computed
 * here from it). */
static const char *const col_paths[] = {
	"", /* run */
	"", /* path */
	"run.framework", /* framework */
	"run.model", /* model */
	"run.batch", /* batch */
	"run.backend", /* backend */
	"run.delay", /* delay */
	"run.topology", /* topology */
	"", /* workers */
	"pattern.ranks", /* ranks */
	"pattern.kind", /* pattern */
	"input.duration_s", /* duration_s */
	"input.wire_bytes", /* wire_bytes */
	"input.payload_bytes", /* payload_bytes */
	"flows.count", /* flows */
	"throughput.mean_bps", /* mean_bps */
	"throughput.peak_bps", /* peak_bps */
	"iterations.period_s", /* period_s */
	"iterations.count", /* iterations */
	"iterations.bytes_per_worker", /* bytes_per_worker */
	"model.gradient_bytes", /* gradient_bytes */
	"iterations.regularity", /* regularity */
	"", /* ptm_5ms */
	"flows.retransmissions", /* retransmissions */
	"train_log.steps", /* log_steps */
	"train_log.mean_step_s", /* mean_step_s */
	"train_log.mb_per_step", /* mb_per_step */
	"", /* final_accuracy */
};
_Static_assert(sizeof(col_paths) / sizeof(col_paths[0]) == NCOLS, "one path per column");

void dmls_compare_init(dmls_compare *c)
{
	memset(c, 0, sizeof(*c));
}

void dmls_compare_release(dmls_compare *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->runs[i].path);
		free(c->runs[i].name);
		json_decref(c->runs[i].row);
		json_decref(c->runs[i].figures);
	}
	free(c->runs);
	memset(c, 0, sizeof(*c));
}

/* The value at a dotted key path ("a.b.2": index 2 of array b), or NULL. */
static json_t *dig(json_t *doc, const char *path)
{
	char key[64];
	json_t *v = doc;
	while (v && *path) {
		size_t l = strcspn(path, ".");
		if (l >= sizeof(key))
			return NULL;
		memcpy(key, path, l);
		key[l] = '\0';
		path += l + (path[l] == '.');
		if (json_is_array(v))
			v = json_array_get(v, (size_t)strtoul(key, NULL, 10));
		else
			v = json_object_get(v, key);
	}
	return v;
}

static json_t *copy_or_null(json_t *v)
{
	return v ? json_deep_copy(v) : json_null();
}

/* PtM at the 5 ms timescale, found by value in timescales_s. */
static json_t *ptm_5ms(json_t *doc)
{
	json_t *ts = dig(doc, "burstiness.timescales_s");
	for (size_t i = 0; i < json_array_size(ts); i++)
		if (fabs(json_number_value(json_array_get(ts, i)) - 0.005) < 1e-12)
			return copy_or_null(json_array_get(dig(doc, "burstiness.peak_to_mean"), i));
	return json_null();
}

/* The last accuracy the train log reports. */
static json_t *final_accuracy(json_t *doc)
{
	json_t *acc = dig(doc, "train_log.accuracy_vs_data");
	for (size_t i = json_array_size(acc); i-- > 0;) {
		json_t *a = json_object_get(json_array_get(acc, i), "accuracy");
		if (json_is_number(a))
			return json_deep_copy(a);
	}
	return json_null();
}

static json_t *workers(json_t *doc)
{
	json_t *hosts = json_object_get(doc, "hosts");
	json_int_t w = 0;
	for (size_t i = 0; i < json_array_size(hosts); i++) {
		const char *r = json_string_value(json_object_get(json_array_get(hosts, i), "role"));
		w += r && !strcmp(r, "worker");
	}
	return json_object_get(doc, "pattern") ? json_integer(w) : json_null();
}

static json_t *make_row(json_t *doc, const char *name, const char *path)
{
	json_t *row = json_object();
	for (size_t i = 0; i < NCOLS; i++) {
		const char *k = dmls_compare_columns[i].key;
		json_t *v;
		if (!strcmp(k, "run"))
			v = json_string(name);
		else if (!strcmp(k, "path"))
			v = path ? json_string(path) : json_null();
		else if (!strcmp(k, "workers"))
			v = workers(doc);
		else if (!strcmp(k, "ptm_5ms"))
			v = ptm_5ms(doc);
		else if (!strcmp(k, "final_accuracy"))
			v = final_accuracy(doc);
		else
			v = copy_or_null(dig(doc, col_paths[i]));
		json_object_set_new(row, k, v ? v : json_null());
	}
	return row;
}

/* Total wire bytes in 10 ms bins (coarser for long runs), from the first
 * packet to the last. */
static json_t *throughput_figure(const dmls_stats *st)
{
	const dmls_series *s = &st->total_wire;
	json_t *o = json_object(), *bytes = json_array();
	int64_t factor = DMLS_COMPARE_BIN_NS / s->bin_ns;
	if (factor < 1)
		factor = 1;
	int64_t from = 0, to = 0;
	if (!dmls_series_empty(s)) {
		from = s->min_bin < 0 ? -((-s->min_bin + factor - 1) / factor) * factor : 0;
		to = s->max_bin + 1;
	}
	while ((to - from + factor - 1) / factor > DMLS_COMPARE_MAX_BINS)
		factor *= 2;
	size_t n = (size_t)((to - from + factor - 1) / factor);
	double *v = calloc(n ? n : 1, sizeof(*v));
	if (v) {
		dmls_series_dense(s, from, n, (uint32_t)factor, v);
		for (size_t i = 0; i < n; i++)
			json_array_append_new(bytes, json_integer((json_int_t)v[i]));
		free(v);
	}
	double t0 = (double)(s->t0_ns - st->first_ns + from * s->bin_ns) / 1e9;
	json_object_set_new(o, "bin_s", json_real((double)(factor * s->bin_ns) / 1e9));
	json_object_set_new(o, "t0_s", json_real(st->packets ? t0 : 0.0));
	json_object_set_new(o, "wire_bytes", bytes);
	return o;
}

static json_t *accuracy_figure(json_t *doc)
{
	json_t *acc = dig(doc, "train_log.accuracy_vs_data");
	if (!acc)
		return json_null();
	json_t *o = json_object(), *x = json_array(), *y = json_array(), *type = json_array();
	for (size_t i = 0; i < json_array_size(acc); i++) {
		json_t *p = json_array_get(acc, i);
		json_array_append(x, json_object_get(p, "cum_wire_bytes"));
		json_array_append(y, json_object_get(p, "accuracy"));
		json_array_append(type, json_object_get(p, "type"));
	}
	json_object_set_new(o, "cum_wire_bytes", x);
	json_object_set_new(o, "accuracy", y);
	json_object_set_new(o, "type", type);
	return o;
}

static json_t *make_figures(json_t *doc, const dmls_stats *st)
{
	json_t *f = json_object(), *roles = json_array();
	json_t *hosts = json_object_get(doc, "hosts");
	for (size_t i = 0; i < json_array_size(hosts); i++)
		json_array_append(roles, json_object_get(json_array_get(hosts, i), "role"));
	json_object_set_new(f, "matrix",
			    json_pack("{s:O, s:o, s:O}", "hosts", dig(doc, "matrix.hosts"), "roles",
				      roles, "wire_bytes", dig(doc, "matrix.wire_bytes")));
	json_object_set_new(f, "throughput", throughput_figure(st));
	json_object_set_new(f, "burstiness",
			    json_pack("{s:o, s:o}", "timescales_s",
				      copy_or_null(dig(doc, "burstiness.timescales_s")),
				      "peak_to_mean",
				      copy_or_null(dig(doc, "burstiness.peak_to_mean"))));
	json_object_set_new(f, "iterations",
			    json_pack("{s:o, s:o}", "starts_s",
				      copy_or_null(dig(doc, "iterations.starts_s")), "payload_bytes",
				      copy_or_null(dig(doc, "iterations.payload_bytes"))));
	json_object_set_new(f, "accuracy", accuracy_figure(doc));
	return f;
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

/* Fill r from an analyzed job. */
static int fill(dmls_compare *c, dmls_compare_run *r, const dmls_job *job, dmls_error *err)
{
	dmls_result res;
	json_t *doc = NULL;
	if (dmls_result_init(&res, job) == DMLS_OK)
		doc = dmls_render_json(&res);
	dmls_result_release(&res);
	if (!doc)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	r->row = make_row(doc, r->name, r->path);
	r->figures = make_figures(doc, &job->stats);
	json_decref(doc);
	if (!r->row || !r->figures)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (job->damage.status)
		set_error(c, r, &job->damage);
	else if (job->stats.packets == 0) {
		dmls_error e;
		dmls_fail(&e, DMLS_EBAD, "'%s': no IP packets to analyze", r->name);
		set_error(c, r, &e);
	}
	return DMLS_OK;
}

int dmls_compare_add_job(dmls_compare *c, const dmls_job *job, dmls_error *err)
{
	dmls_compare_run *r = push(c, job->run.path, job->run.name ? job->run.name : "run");
	if (!r)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return fill(c, r, job, err);
}

static int analyze_one(dmls_compare *c, const char *path, const char *name,
		       const dmls_job_opts *opts, dmls_error *err)
{
	dmls_compare_run *r = push(c, path, name);
	if (!r)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	dmls_job job;
	dmls_error e;
	const char *in[1] = {path};
	int rc = DMLS_OK;
	if (dmls_job_analyze(&job, in, 1, opts, &e))
		set_error(c, r, &e);
	else
		rc = fill(c, r, &job, err);
	dmls_job_release(&job);
	return rc;
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
			  dmls_error *err)
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
		rc = analyze_one(c, rl.paths[i], rel, opts, err);
	}
	dmls_runlist_release(&rl);
	return rc;
}

int dmls_compare_runs(dmls_compare *c, const char *const *inputs, size_t n,
		      const dmls_job_opts *opts, dmls_error *err)
{
	int rc = DMLS_OK;
	for (size_t i = 0; !rc && i < n; i++) {
		struct stat sb;
		char name[256];
		base_name(inputs[i], name, sizeof(name));
		if (stat(inputs[i], &sb) == 0 && S_ISDIR(sb.st_mode) &&
		    !dmls_has_captures(inputs[i]))
			rc = expand_dataset(c, inputs[i], opts, err);
		else
			rc = analyze_one(c, inputs[i], name, opts, err);
	}
	return rc;
}
