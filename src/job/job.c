/*
 * job.c - the shared pipeline: inputs, one pass over the packets, analysis.
 */
#include "dmlscope/job.h"

#include <stdlib.h>
#include <string.h>

static int copy_files(dmls_job *job, const dmls_input *in)
{
	job->nfiles = dmls_input_nfiles(in);
	job->files = calloc(job->nfiles ? job->nfiles : 1, sizeof(*job->files));
	if (!job->files)
		return -1;
	for (size_t i = 0; i < job->nfiles; i++) {
		job->files[i] = *dmls_input_get_file(in, i);
		job->files[i].path = strdup(job->files[i].path ? job->files[i].path : "");
	}
	return 0;
}

static int read_packets(dmls_job *job, const dmls_job_opts *opts, dmls_error *err)
{
	dmls_input *in;
	int rc = dmls_input_open(&in, (const char *const *)job->run.captures, job->run.ncaptures,
				 opts->filter, err);
	if (rc)
		return rc;
	dmls_pkt p;
	uint64_t done, total;
	while (dmls_input_next(in, &p) == 1) {
		if (opts->progress && (job->stats.packets & 0xffff) == 0) {
			dmls_input_progress(in, &done, &total);
			opts->progress(opts->progress_ctx, done, total, job->stats.packets);
		}
		if (dmls_stats_add(&job->stats, &p)) {
			dmls_input_free(in);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory after %llu packets",
					 (unsigned long long)job->stats.packets);
		}
	}
	if (dmls_stats_finish(&job->stats)) {
		dmls_input_free(in);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	job->counts = *dmls_input_get_counts(in);
	job->damage = *dmls_input_error(in);
	rc = copy_files(job, in) ? dmls_fail(err, DMLS_ENOMEM, "out of memory") : DMLS_OK;
	dmls_input_free(in);
	return rc;
}

int dmls_job_analyze(dmls_job *job, const char *const *inputs, size_t n,
		     const dmls_job_opts *opts, dmls_error *err)
{
	static const dmls_job_opts defaults = {0};
	if (!opts)
		opts = &defaults;
	memset(job, 0, sizeof(*job));
	dmls_stats_init_limits(&job->stats, opts->bin_ns, &opts->limits);
	int rc = dmls_run_open(&job->run, inputs, n, err);
	if (rc)
		return rc;
	rc = read_packets(job, opts, err);
	if (rc)
		return rc;
	return dmls_job_run_analysis(job, err);
}

int dmls_job_run_analysis(dmls_job *job, dmls_error *err)
{
	int rc;
	if (job->run.log_path) {
		dmls_error lerr;
		if (dmls_trainlog_load(&job->log, job->run.log_path, &lerr) == DMLS_OK)
			job->has_log = 1;
		else if (job->damage.status == DMLS_OK)
			job->damage = lerr;
	}
	rc = dmls_analysis_run(&job->analysis, &job->stats, job->has_log ? &job->log : NULL,
			       &job->analysis_error);
	if (rc != DMLS_OK)
		job->analysis = NULL;
	if (rc == DMLS_ENOMEM) /* not a property of the data: the job fails */
		return dmls_fail(err, rc, "%s", job->analysis_error.msg);
	return DMLS_OK;
}

void dmls_job_release(dmls_job *job)
{
	if (job->analysis)
		dmls_analysis_free(job->analysis);
	for (size_t i = 0; i < job->nfiles; i++)
		free(job->files[i].path);
	free(job->files);
	if (job->has_log)
		dmls_trainlog_release(&job->log);
	dmls_stats_release(&job->stats);
	dmls_run_release(&job->run);
	memset(job, 0, sizeof(*job));
}
