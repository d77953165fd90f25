/*
 * runinfo.c - what a run is beyond its traffic (job.h, dmls_run_info):
 * the study's categorical framework_backend, the loss rate of the folder
 * name, and the model's size and the workers from the testbed's truth.json
 * or, without one, from torchvision's parameter counts.
 */
#include "dmlscope/job.h"

#include "dmlscope/decode.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* torchvision's parameter counts (ImageNet heads), for runs without truth.json. */
static const struct {
	const char *name;
	double params;
} model_params[] = {
	{"mobilenetv2", 3504872},  {"densenet201", 20013928}, {"resnet50", 25557032},
	{"resnet101", 44549160},   {"resnet18", 11689512},    {"resnet34", 21797672},
	{"resnet152", 60192808},   {"vgg16", 138357544},      {"densenet121", 7978856},
};

/* 1 when truth entry j's "hosts" (each with an "addr") are the hosts
 * st->hosts[m[0..n)]. */
static int same_hosts(json_t *j, const dmls_stats *st, const size_t *m, size_t n)
{
	json_t *hs = json_object_get(j, "hosts");
	if (!json_is_array(hs) || json_array_size(hs) != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char addr[64];
		dmls_addr_format(st->hosts[m[i]].addr, addr, sizeof(addr));
		int found = 0;
		for (size_t k = 0; k < n && !found; k++) {
			const char *a = json_string_value(json_object_get(json_array_get(hs, k), "addr"));
			found = a && !strcmp(a, addr);
		}
		if (!found)
			return 0;
	}
	return 1;
}

/* The entry of a multi-job run's truth.json ("jobs") that is the
 * analysis' top-level job, whose numbers the run's are: the one on its
 * hosts; of two on the very same hosts, the one whose logged mean step is
 * nearest the analysis' period.  NULL when none is (or no analysis). */
static json_t *top_job(json_t *jobs, const dmls_job *job)
{
	const dmls_analysis *a = job->analysis;
	if (!a || !a->pattern.ranks)
		return NULL;
	json_t *best = NULL;
	double off = INFINITY;
	for (size_t i = 0; i < json_array_size(jobs); i++) {
		json_t *j = json_array_get(jobs, i), *ms = json_object_get(j, "mean_step_s");
		if (!same_hosts(j, &job->stats, a->pattern.members, a->pattern.ranks))
			continue;
		double d = json_is_number(ms) && isfinite(a->iter.period_s)
				   ? fabs(json_number_value(ms) - a->iter.period_s)
				   : INFINITY;
		if (!best || d < off)
			best = j, off = d;
	}
	return best;
}

/* Model size, workers and ranks from truth.json, when the run has one; of
 * a run of several jobs, the top-level job's (its first job's are the
 * file's own keys), none when no job of the file is the analysis'. */
static void read_truth(const dmls_job *job, dmls_run_info *ri)
{
	if (!job->run.truth_path)
		return;
	json_t *root = json_load_file(job->run.truth_path, 0, NULL), *t = root;
	if (!root)
		return;
	json_t *jobs = json_object_get(root, "jobs");
	if (json_is_array(jobs) && json_array_size(jobs) > 1 && !(t = top_job(jobs, job))) {
		json_decref(root);
		return;
	}
	json_t *g = json_object_get(t, "gradient_bytes"), *w = json_object_get(t, "workers");
	json_t *r = json_object_get(t, "ranks");
	if (json_is_number(g))
		ri->model_size_mb = json_number_value(g) / 1048576.0;
	if (json_is_number(w))
		ri->workers = json_number_value(w);
	if (json_is_number(r))
		ri->ranks = json_number_value(r);
	json_decref(root);
}

void dmls_run_info_get(const dmls_job *job, dmls_run_info *ri)
{
	const dmls_run_attrs *a = &job->run.attrs;
	memset(ri, 0, sizeof(*ri));
	ri->loss_percent = ri->model_size_mb = NAN;
	ri->workers = ri->ranks = (double)job->run.ncaptures;
	if (a->parsed) {
		snprintf(ri->framework_backend, sizeof(ri->framework_backend), "%.60s_%.60s",
			 a->framework, a->backend);
		ri->loss_percent = !strcmp(a->delay, "normal")	     ? 0
				   : !strncmp(a->delay, "loss_", 5) ? strtod(a->delay + 5, NULL)
								     : NAN;
		for (size_t i = 0; i < sizeof(model_params) / sizeof(*model_params); i++)
			if (!strcmp(a->model, model_params[i].name))
				ri->model_size_mb = model_params[i].params * 4 / 1048576.0;
	}
	read_truth(job, ri);
}
