/*
 * compare.h - many runs side by side: the study's cross-run table and the
 * data of its figures.
 *
 * dmls_compare_runs expands RUN_OR_DATASET inputs (runlist.h), analyzes each
 * run with dmls_job_analyze, computes its dmls_result (result.h), keeps a
 * compact copy of what the table and the figures show and releases the
 * job, so memory grows with the number of runs, not with their packets.  A
 * run that cannot be analyzed keeps its error and the others go on.
 *
 * Each run's copy (its numbers are the result's, so they equal what
 * `analyze` reports):
 *   row      one value per column of dmls_compare_columns[]: the run's name
 *            and path, then metrics picked by key (units in the column
 *            names, unknown values DMLS_T_NULL)
 *   figures  the matrix (hosts, roles, wire bytes), all wire bytes in 10 ms
 *            bins from the first packet (coarser past DMLS_FIGURE_MAX_BINS),
 *            peak-to-mean at each timescale, bytes per iteration, accuracy
 *            vs data (only with a train log)
 * Renderers (render.h): text table, JSON array, CSV files
 * (src/out/compare_out.c), and one self-contained HTML report
 * (src/out/report_html.c).
 */
#ifndef DMLSCOPE_COMPARE_H
#define DMLSCOPE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/error.h"
#include "dmlscope/job.h"
#include "dmlscope/result.h"

/* The table's columns, in order. */
typedef struct dmls_compare_column {
	const char *name;   /* row key, CSV header */
	const char *key;    /* its metric (result.h); NULL: the run's own name
			     * ("run") or path ("path") as compare found it */
	int terminal;       /* 1: shown in the terminal table (the metric's title) */
} dmls_compare_column;
extern const dmls_compare_column dmls_compare_columns[];
extern const size_t dmls_compare_ncolumns;

/* Column j's terminal title (NULL: CSV and JSON only) and unit
 * (DMLS_UNIT_*). */
const char *dmls_compare_title(size_t j);
char dmls_compare_unit(size_t j);

#define DMLS_HOST_NAME 48 /* sizeof(dmls_host.name) */

#define DMLS_CDF_POINTS 200
/* (An array added here must also travel in src/mpi/mpi_compare.c.) */
typedef struct dmls_compare_figures {
	/* the volume matrix of `analyze --json` */
	size_t nhosts;
	char (*hosts)[DMLS_HOST_NAME]; /* rows and columns: addresses, "other" */
	uint64_t *wire_bytes;          /* nhosts x nhosts, row = source */
	const char **roles;            /* each row's dmls_role_name, "other" for other */
	size_t *rank;                  /* display order: ring order, then the job's
					* members, then the rest (other last) */
	/* loss: the hosts that retransmitted (address, segments, share of the
	 * TCP/UDP packets they sent) and the flows that did most (at most 10) */
	size_t nloss_hosts, nloss_flows;
	struct dmls_loss_row {
		char what[2 * DMLS_HOST_NAME + 16]; /* "addr" or "src:port -> dst:port" */
		uint64_t retransmissions;
		double rate;                        /* NAN for a flow */
	} *loss_hosts, *loss_flows;
	/* the flow-size CDF: at most DMLS_CDF_POINTS (size, share of flows <= it) */
	size_t ncdf;
	double *cdf_bytes, *cdf_frac;
	/* all wire bytes (result.h: figure) */
	double tp_bin_s, tp_t0_s;
	size_t ntp;
	int64_t *tp_wire_bytes;
	/* with the analysis */
	int has_analysis;
	double peak_to_mean[DMLS_NTAU]; /* at dmls_burst_tau_s, NAN unknown */
	size_t niter;
	double *starts_s, *iter_bytes;  /* each iteration's start and payload */
	/* with a train log */
	int has_log;
	size_t nacc;
	dmls_acc_point *acc;
} dmls_compare_figures;

typedef struct dmls_compare_run {
	char *path;         /* the run as given or found */
	char *name;         /* its last path component */
	dmls_error error;   /* DMLS_OK, or why (damage still leaves a row) */
	dmls_value *row;    /* dmls_compare_ncolumns values (strings owned),
			     * NULL when nothing could be analyzed */
	dmls_compare_figures fig; /* with row */
} dmls_compare_run;

typedef struct dmls_compare {
	size_t n, cap;
	dmls_compare_run *runs;
	size_t nfailed;     /* runs whose error is set */
} dmls_compare;

void dmls_compare_init(dmls_compare *c);
void dmls_compare_release(dmls_compare *c);

/*
 * Analyze every run named by inputs: a run folder, a capture file, or a
 * dataset folder (its run folders, DMLS_DATASET_DEPTH levels down).  A
 * missing input or a folder without runs is a failed entry, as is a run
 * that cannot be read.  Returns DMLS_OK (check c->nfailed) or DMLS_ENOMEM
 * when out of memory.
 */
int dmls_compare_runs(dmls_compare *c, const char *const *inputs, size_t n,
		      const dmls_job_opts *opts, dmls_error *err);

/*
 * The same in two steps, for runs spread over processes (doc/mpi.md):
 * dmls_compare_plan lists every run of inputs in c without analyzing any
 * (a missing one is already a failed entry), dmls_compare_run_one
 * analyzes entry i.  Planning then running every entry equals
 * dmls_compare_runs.
 */
int dmls_compare_plan(dmls_compare *c, const char *const *inputs, size_t n, dmls_error *err);
int dmls_compare_run_one(dmls_compare *c, size_t i, const dmls_job_opts *opts, dmls_error *err);

/* Add one analyzed run's result (for `analyze --report`), named by its run;
 * damage sets its error. */
int dmls_compare_add(dmls_compare *c, const dmls_result *r, dmls_error *err);

#endif
