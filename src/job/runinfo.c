/*
 * runinfo.c - what a run is beyond its traffic (job.h, dmls_run_info):
 * the study's categorical framework_backend, the loss rate of the folder
 * name, and the model's size and the workers from the testbed's truth.json
 * or, without one, from torchvision's parameter counts.
 */
#include "dmlscope/job.h"

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

/* Model size, workers and ranks from truth.json, when the run has one. */
static void read_truth(const dmls_job *job, dmls_run_info *ri)
{
	if (!job->run.truth_path)
		return;
	json_t *t = json_load_file(job->run.truth_path, 0, NULL);
	if (!t)
		return;
	json_t *g = json_object_get(t, "gradient_bytes"), *w = json_object_get(t, "workers");
	json_t *r = json_object_get(t, "ranks");
	if (json_is_number(g))
		ri->model_size_mb = json_number_value(g) / 1048576.0;
	if (json_is_number(w))
		ri->workers = json_number_value(w);
	if (json_is_number(r))
		ri->ranks = json_number_value(r);
	json_decref(t);
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
