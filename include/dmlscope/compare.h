/*
 * compare.h - many runs side by side: the study's cross-run table and the
 * data of its figures.
 *
 * dmls_compare_runs expands RUN_OR_DATASET inputs (runlist.h), analyzes each
 * run with dmls_job_analyze, keeps a compact summary of it and releases the
 * job, so memory grows with the number of runs, not with their packets.  A
 * run that cannot be analyzed keeps its error and the others go on.
 *
 * Each run's summary is two JSON objects read from the job's `analyze --json`
 * document (so every number equals what `analyze` reports):
 *   row      one flat object per run, keys dmls_compare_columns[] (units in
 *            the key names, unknown values null)
 *   figures  matrix {hosts, roles, wire_bytes}, throughput {bin_s, t0_s,
 *            wire_bytes[]} (10 ms bins from the first packet, coarser past
 *            DMLS_COMPARE_MAX_BINS), burstiness {timescales_s, peak_to_mean},
 *            iterations {starts_s, payload_bytes}, accuracy {cum_wire_bytes,
 *            accuracy, type} (only with a train log), flows {count}
 * Renderers: text table, JSON array, CSV files (src/out/compare_out.c), and
 * one self-contained HTML report (src/out/report_html.c).
 */
#ifndef DMLSCOPE_COMPARE_H
#define DMLSCOPE_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "dmlscope/error.h"
#include "dmlscope/job.h"

#define DMLS_COMPARE_BIN_NS 10000000LL /* 10 ms throughput bins */
#define DMLS_COMPARE_MAX_BINS 100000   /* coarser bins past this */

typedef struct dmls_compare_run {
	char *path;         /* the run as given or found */
	char *name;         /* its last path component */
	dmls_error error;   /* DMLS_OK, or why (damage still leaves a row) */
	json_t *row;        /* NULL when nothing could be analyzed */
	json_t *figures;    /* NULL with row */
} dmls_compare_run;

typedef struct dmls_compare {
	size_t n, cap;
	dmls_compare_run *runs;
	size_t nfailed;     /* runs whose error is set */
} dmls_compare;

/* The table's columns, in order. */
typedef struct dmls_compare_column {
	const char *key;    /* row key, CSV header */
	const char *title;  /* terminal header, NULL: left out of the terminal */
	char unit;          /* terminal format: 's' string, 'b' bytes, 'r' bit/s,
			     * 't' seconds, 'i' integer, 'f' fraction/ratio */
} dmls_compare_column;
extern const dmls_compare_column dmls_compare_columns[];
extern const size_t dmls_compare_ncolumns;

void dmls_compare_init(dmls_compare *c);
void dmls_compare_release(dmls_compare *c);

/*
 * Analyze every run named by inputs: a run folder, a capture file, or a
 * dataset folder (its run folders, DMLS_DATASET_DEPTH levels down).  A
 * missing input or a folder without runs is a failed entry, as is a run
 * that cannot be read.  Returns DMLS_OK (check c->nfailed) or DMLS_EIO when
 * out of memory.
 */
int dmls_compare_runs(dmls_compare *c, const char *const *inputs, size_t n,
		      const dmls_job_opts *opts, dmls_error *err);

/* Add one analyzed job (for `analyze --report`). */
int dmls_compare_add_job(dmls_compare *c, const dmls_job *job, dmls_error *err);

/* Renderers (src/out/compare_out.c, src/out/report_html.c). */
json_t *dmls_compare_json(const dmls_compare *c);      /* array of rows */
void dmls_compare_text(const dmls_compare *c, FILE *fp);
/* runs.csv, throughput.csv, burstiness.csv, iterations.csv, accuracy.csv,
 * matrix.csv (long tables with a run column) in dir, creating it. */
int dmls_compare_csv(const dmls_compare *c, const char *dir, dmls_error *err);
/* The HTML report: data inlined as JSON, uPlot inlined, no external URL. */
int dmls_report_html(const dmls_compare *c, FILE *fp, dmls_error *err);
/* The same into the file path. */
int dmls_report_html_write(const dmls_compare *c, const char *path, dmls_error *err);

#endif
