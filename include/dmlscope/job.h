/*
 * job.h - analyze one training job: inputs -> one pass -> analysis.
 *
 * The pipeline every command shares: resolve the inputs (capture files or a
 * run folder), stream their packets through dmls_input into dmls_stats,
 * read the train_history.log when there is one, then run the analysis.
 *
 * Damage in a capture does not stop the job: what was read before it is
 * analyzed and the first damage is kept in job->damage, so the caller can
 * report the numbers *and* exit with DMLS_EBAD.
 */
#ifndef DMLSCOPE_JOB_H
#define DMLSCOPE_JOB_H

#include <stddef.h>

#include "dmlscope/analysis.h"
#include "dmlscope/input.h"
#include "dmlscope/runfolder.h"
#include "dmlscope/stats.h"

typedef struct dmls_job_opts {
	int64_t bin_ns;     /* throughput bin, 0 = 1 ms */
	const char *filter; /* BPF expression or NULL */
	dmls_stats_limits limits; /* table caps, zeros = defaults */
	/* Called every 65536 packets while reading (may be NULL): bytes read
	 * of total (0: unknown), packets so far.  The library prints nothing;
	 * the caller decides (the CLI: on a terminal, unless --quiet). */
	void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes, uint64_t packets);
	void *progress_ctx;
	/* 1: read, decode and count in one thread; 2: reading and decoding
	 * in a second thread; 0 (the default): 2 where the process may run
	 * on two CPUs and the input is compressed, of unknown size or of
	 * 8 MiB or more, else 1 (job.c says why). */
	int threads;
	unsigned decode_flags; /* dmls_decode_ex's: DMLS_DECODE_OUTER, or 0 */
} dmls_job_opts;

typedef struct dmls_job {
	dmls_run run;
	dmls_stats stats;
	dmls_input_counts counts;
	size_t nfiles;
	dmls_input_file *files;   /* copies, paths owned by the job */
	int has_log;
	dmls_trainlog log;
	/* a run of several jobs: the run's job-<k>/train_history.log as read,
	 * each given to the job whose steps its rows keep (one that cannot be
	 * read is left out, its error the job's damage) */
	size_t njob_logs;
	dmls_trainlog *job_logs;
	const char **job_log_names; /* "job-<k>/train_history.log" */
	dmls_analysis *analysis;  /* NULL if the analysis failed */
	dmls_error analysis_error; /* why it failed */
	dmls_error damage;        /* first damaged input (status DMLS_OK if none) */
} dmls_job;

/*
 * Analyze inputs into job (which the caller releases with dmls_job_release
 * in every case).  Returns DMLS_OK, or an error when nothing could be
 * analyzed (no input readable, bad filter).  Damage that still leaves
 * packets is reported in job->damage, not as a failure.
 */
int dmls_job_analyze(dmls_job *job, const char *const *inputs, size_t n,
		     const dmls_job_opts *opts, dmls_error *err);
void dmls_job_release(dmls_job *job);

/* The end of dmls_job_analyze once job->stats is finished and the run,
 * counts and files are in: the train log, then the analysis (part.h
 * builds a job from merged parts and calls it).  DMLS_OK or DMLS_ENOMEM. */
int dmls_job_run_analysis(dmls_job *job, dmls_error *err);

/* Notes on how the input was read (clock offsets taken from the stamps,
 * TCP headers cut by the snap length) into job->analysis, when there is
 * one: dmls_job_run_analysis and dmls_job_analyze_stats add them. */
void dmls_job_note_input(dmls_job *job);

/*
 * The same job from packets already counted into st (a live capture:
 * watch.h), which the job takes over (st is left empty): st is finished
 * and analyzed as dmls_job_analyze would.  counts and file describe the
 * input (file->path copied); input_path, when not NULL, is a capture of
 * the same packets (watch -w) whose run (dmls_run_open) the job takes, so
 * its result is analyze's on that file; else the run is called name.
 * Release job with dmls_job_release in every case.
 */
int dmls_job_analyze_stats(dmls_job *job, dmls_stats *st, const dmls_input_counts *counts,
			   const dmls_input_file *file, const char *input_path, const char *name,
			   dmls_error *err);

/*
 * What a run is beyond its traffic, the same for fit's dataset table and
 * compare's rows (src/job/runinfo.c):
 *   framework_backend  "framework_backend" of the folder name ("" if none)
 *   loss_percent       0 for delay "normal", X for "loss_X", else NAN
 *   workers, ranks     truth.json's, else the number of captures
 *   model_size_mb      truth.json's gradient_bytes in MiB (2^20 bytes, so
 *                      ResNet50 is the study's 98 MB), else the parameter
 *                      count of torchvision's model of that name x 4 bytes,
 *                      else NAN
 */
typedef struct dmls_run_info {
	char framework_backend[128];
	double loss_percent, workers, ranks, model_size_mb;
} dmls_run_info;
void dmls_run_info_get(const dmls_job *job, dmls_run_info *ri);

#endif
