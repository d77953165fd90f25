/*
 * dataset.c - a dataset folder (one run folder per job) as a feature table.
 *
 * Every folder holding captures, down to three levels below the dataset
 * folder (the testbed writes dataset/n<ranks>/<run>/), is one run (sorted by
 * path, so that the cross-validation folds are reproducible) and one row:
 *   run             the run folder's path below the dataset folder
 *   framework, model, optimizer, batch, backend, delay, topology
 *                   the fields of the folder name (runfolder.h)
 *   framework_backend  "framework_backend", the study's categorical
 *   loss_percent    0 for delay "normal", X for "loss_X"
 *   workers         truth.json's "workers" when there is one, else the number
 *                   of captures (the study captures each worker)
 *   ranks           truth.json's "ranks" (workers plus servers), else the
 *                   number of captures
 *   model_size_mb   truth.json's gradient_bytes in MiB (2^20 bytes, so that
 *                   ResNet50 is the study's 98 MB), else the parameter count
 *                   of torchvision's model of that name * 4 bytes
 *   (of a run of several jobs, truth.json's entry of the top-level job:
 *   dmls_run_info_get)
 *   steps, mean_step_s  from train_history.log (a run of several jobs: the
 *                   top-level job's job-<k>/train_history.log)
 *   wire_mb         all wire bytes of the run, 1e6 bytes
 *   mb_per_step     the study's response, computed by the analysis
 *                   (trainlog_metrics.c): wire MB per mean-step-time bin
 * Unknown values are missing cells: the fit drops those rows and says so.
 */
#include "dmlscope/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"
#include "dmlscope/job.h"
#include "dmlscope/runlist.h"

#define DMLS_STUDY_FORMULA \
	"mb_per_step ~ model_size_mb + C(framework_backend) + C(batch) + C(topology)"

void dmls_default_formula(const dmls_table *t, char *buf, size_t cap)
{
	long w = t ? dmls_table_find(t, "workers") : -1;
	int varies = 0;
	if (w >= 0) {
		const dmls_column *c = &t->cols[w];
		for (size_t i = 1; i < t->nrows && !varies; i++)
			varies = c->cells[i] && c->cells[0] && strcmp(c->cells[i], c->cells[0]);
	}
	snprintf(buf, cap, "%s%s", DMLS_STUDY_FORMULA, varies ? " + workers" : "");
}

enum {
	C_RUN, C_FRAMEWORK, C_MODEL, C_OPTIMIZER, C_BATCH, C_BACKEND, C_DELAY, C_TOPOLOGY,
	C_FB, C_LOSS, C_WORKERS, C_RANKS, C_SIZE, C_STEPS, C_STEP_S, C_WIRE_MB, C_MB_STEP, C_NCOLS
};

static const char *const col_names[C_NCOLS] = {
	"run", "framework", "model", "optimizer", "batch", "backend", "delay", "topology",
	"framework_backend", "loss_percent", "workers", "ranks", "model_size_mb", "steps",
	"mean_step_s", "wire_mb", "mb_per_step",
};

static void set_num(char cells[C_NCOLS][128], int c, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(cells[c], 128, fmt, v);
	else
		cells[c][0] = '\0';
}

/* Analyze one run folder into the cells of its row. */
static int run_row(const char *path, const char *rel, char cells[C_NCOLS][128],
		   dmls_error *err)
{
	dmls_job job;
	dmls_job_opts opts = {0};
	const char *in[1] = {path};
	int st = dmls_job_analyze(&job, in, 1, &opts, err);
	if (st) {
		dmls_job_release(&job);
		return st;
	}
	const dmls_run_attrs *a = &job.run.attrs;
	memset(cells, 0, C_NCOLS * 128);
	snprintf(cells[C_RUN], 128, "%s", rel);
	if (a->parsed) {
		snprintf(cells[C_FRAMEWORK], 128, "%s", a->framework);
		snprintf(cells[C_MODEL], 128, "%s", a->model);
		snprintf(cells[C_OPTIMIZER], 128, "%s", a->optimizer);
		snprintf(cells[C_BATCH], 128, "%s", a->batch);
		snprintf(cells[C_BACKEND], 128, "%s", a->backend);
		snprintf(cells[C_DELAY], 128, "%s", a->delay);
		snprintf(cells[C_TOPOLOGY], 128, "%s", a->topology);
	}
	dmls_run_info ri;
	dmls_run_info_get(&job, &ri);
	snprintf(cells[C_FB], 128, "%s", ri.framework_backend);
	set_num(cells, C_LOSS, ri.loss_percent, "%.15g");
	set_num(cells, C_WORKERS, ri.workers, "%.0f");
	set_num(cells, C_RANKS, ri.ranks, "%.0f");
	set_num(cells, C_SIZE, ri.model_size_mb, "%.15g");
	set_num(cells, C_WIRE_MB, (double)job.stats.wire_bytes / 1e6, "%.15g");
	if (job.analysis && job.analysis->log.present) {
		const dmls_trainlog_metrics *m = &job.analysis->log;
		set_num(cells, C_STEPS, (double)m->steps, "%.0f");
		set_num(cells, C_STEP_S, m->mean_step_s, "%.15g");
		set_num(cells, C_MB_STEP, m->mb_per_step, "%.15g");
	}
	dmls_job_release(&job);
	return DMLS_OK;
}

int dmls_dataset_table(const char *dir, dmls_table *out, dmls_error *err)
{
	dmls_runlist rl;
	memset(out, 0, sizeof(*out));
	if (dmls_has_captures(dir))
		return dmls_fail(err, DMLS_EBAD, "'%s' is one run; fit needs a dataset folder "
				 "of run folders (or a CSV)", dir);
	dmls_runlist_init(&rl);
	int st = dmls_runlist_find(&rl, dir, DMLS_DATASET_DEPTH, err);
	if (!st && !rl.n)
		st = dmls_fail(err, DMLS_EBAD, "'%s': no run folders (folders with captures)",
			       dir);
	if (!st)
		st = dmls_table_init(out, dir, col_names, C_NCOLS, err);
	for (size_t i = 0; !st && i < rl.n; i++) {
		char cells[C_NCOLS][128];
		const char *ptr[C_NCOLS];
		const char *rel = rl.paths[i] + strlen(dir);
		while (*rel == '/')
			rel++;
		if ((st = run_row(rl.paths[i], rel, cells, err)))
			break;
		for (int c = 0; c < C_NCOLS; c++)
			ptr[c] = cells[c];
		st = dmls_table_append(out, ptr, err);
	}
	dmls_runlist_release(&rl);
	if (st) {
		dmls_table_release(out);
		return st;
	}
	dmls_table_finish(out);
	return DMLS_OK;
}
