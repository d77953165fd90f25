/*
 * job_stats.c - a job from packets already counted (a live capture).
 *
 * dmls_job_analyze reads captures; a watch (watch.h) has counted its
 * packets as they came.  This makes the same dmls_job from that stats, so
 * the result, its renderers and the exit codes are analyze's.
 */
#include "dmlscope/job.h"

#include <stdlib.h>
#include <string.h>

static int set_run(dmls_job *job, const char *input_path, const char *name, dmls_error *err)
{
	if (input_path)
		return dmls_run_open(&job->run, &input_path, 1, err);
	job->run.name = strdup(name ? name : "live");
	return job->run.name ? DMLS_OK : dmls_fail(err, DMLS_ENOMEM, "out of memory");
}

int dmls_job_analyze_stats(dmls_job *job, dmls_stats *st, const dmls_input_counts *counts,
			   const dmls_input_file *file, const char *input_path, const char *name,
			   dmls_error *err)
{
	memset(job, 0, sizeof(*job));
	job->stats = *st;
	memset(st, 0, sizeof(*st));
	job->counts = *counts;
	if (dmls_stats_finish(&job->stats))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	int rc = set_run(job, input_path, name, err);
	if (rc)
		return rc;
	job->files = calloc(1, sizeof(*job->files));
	if (!job->files)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	job->nfiles = 1;
	job->files[0] = *file;
	job->files[0].path = strdup(file->path ? file->path : job->run.name);
	if (!job->files[0].path)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	rc = dmls_analysis_run(&job->analysis, &job->stats, NULL, &job->analysis_error);
	if (rc != DMLS_OK)
		job->analysis = NULL;
	dmls_job_note_input(job);
	if (rc == DMLS_ENOMEM)
		return dmls_fail(err, rc, "%s", job->analysis_error.msg);
	return DMLS_OK;
}
