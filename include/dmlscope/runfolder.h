/*
 * runfolder.h - the study's run-folder layout and its train_history.log.
 *
 * A run folder is named framework-model-optimizer-batchsize-backend-delay-topology
 * (e.g. horovod-resnet50-adam-64-mpi-normal-ring; delay "normal" or
 * "loss_0.1") and holds worker-<i>-tcpdump.pcap (any *.pcap / *.pcapng is
 * taken) and optionally train_history.log, a CSV with header
 * Type,ID,Timestamp,Loss,Accuracy and rows Batch,<i>,<unix time>,<loss>,<acc>
 * and Epoch,<i>,....  An optional truth.json (written by our testbed) is
 * noted but never read by the traffic analysis.
 */
#ifndef DMLSCOPE_RUNFOLDER_H
#define DMLSCOPE_RUNFOLDER_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/error.h"

typedef struct dmls_log_row {
	int is_epoch;     /* 0 Batch, 1 Epoch */
	long id;
	double ts_s;      /* unix time */
	double loss, accuracy; /* NAN when the field is empty */
} dmls_log_row;

typedef struct dmls_trainlog {
	size_t nrows, cap;
	dmls_log_row *rows;
	size_t steps;          /* Batch rows */
	size_t epochs;         /* Epoch rows */
	double first_step_s, last_step_s; /* unix time of first and last Batch row */
	double mean_step_s;    /* (last - first) / (steps - 1); NAN if < 2 steps */
	double steady_step_s;  /* the same from the second step on (DMLS_STEADY_FROM) */
	double median_step_s;
	size_t backwards_line; /* first line whose Batch time is before the Batch
				* row's before it, 0 when none: the rows are not
				* in time order, and the three step times are NAN */
} dmls_trainlog;

/* From this many steps (or iterations) on, a mean step leaves out the first
 * interval: the job's one-off start-up (an optimizer's lazily allocated
 * state, DDP's bucket rebuild, a parameter server's first pull), which can
 * outlast a step, is not the job's period.  Used alike for the log
 * (steady_step_s) and the traffic (iterations.period_s). */
#define DMLS_STEADY_FROM 4

/* Parse a train_history.log held in memory (name for messages). */
int dmls_trainlog_parse(dmls_trainlog *log, const char *buf, size_t len,
			const char *name, dmls_error *err);
int dmls_trainlog_load(dmls_trainlog *log, const char *path, dmls_error *err);
void dmls_trainlog_release(dmls_trainlog *log);

typedef struct dmls_run_attrs {
	char framework[64], model[64], optimizer[32], batch[16];
	char backend[64], delay[32], topology[64];
	int parsed;           /* 1 when the folder name had the 7 fields */
} dmls_run_attrs;

typedef struct dmls_run {
	char *path;           /* folder, or NULL for plain capture files */
	char *name;           /* last path component */
	dmls_run_attrs attrs;
	size_t ncaptures;
	char **captures;      /* paths, sorted */
	char *log_path;       /* NULL when no train_history.log */
	char *truth_path;     /* NULL when no truth.json */
	/* a run of several jobs (the testbed's): job-<k>/train_history.log of
	 * each job that wrote one, by k, at most DMLS_RUN_MAX_JOB_LOGS */
	size_t njob_logs;
	char **job_logs;
} dmls_run;

#define DMLS_RUN_MAX_JOB_LOGS 32

/* Parse "framework-model-optimizer-batch-backend-delay-topology". */
int dmls_run_attrs_parse(dmls_run_attrs *a, const char *name);

/* Resolve INPUT... : one folder (a run) or capture files.  DMLS_EIO for a
 * missing path, DMLS_EBAD for a folder without captures. */
int dmls_run_open(dmls_run *run, const char *const *inputs, size_t n, dmls_error *err);
void dmls_run_release(dmls_run *run);

/* True if path is a directory holding captures directly (a run folder). */
int dmls_is_run_folder(const char *path);

#endif
