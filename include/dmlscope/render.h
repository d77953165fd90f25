/*
 * render.h - the analyzed job rendered as JSON, CSV files and a summary.
 *
 * Renderers only read the result model (dmls_job); they compute nothing the
 * analysis did not.  JSON keys follow doc/contract.md: numbers in
 * bytes, seconds and bits per second, unknown values null (never NaN).
 */
#ifndef DMLSCOPE_RENDER_H
#define DMLSCOPE_RENDER_H

#include <stdio.h>

#include <jansson.h>

#include "dmlscope/job.h"

/* A JSON number, or null when v is NaN or infinite. */
json_t *dmls_json_real(double v);

/* The whole `analyze --json` document (new reference). */
json_t *dmls_job_json(const dmls_job *job);

/* Write hosts.csv, matrix.csv, flows.csv, flow_cdf.csv, series.csv and
 * flow_activity.csv (plus the analysis' files) into dir, creating it. */
int dmls_job_csv(const dmls_job *job, const char *dir, dmls_error *err);

/* The terminal summary a person reads in ten seconds. */
void dmls_job_text(const dmls_job *job, FILE *fp);

/* The analysis' renderers (src/out/json_analysis.c and friends, also declared in analysis.h). */
void dmls_analysis_json(const dmls_analysis *a, const dmls_stats *st, json_t *root);
void dmls_analysis_text(const dmls_analysis *a, const dmls_stats *st, FILE *fp);
int dmls_analysis_csv(const dmls_analysis *a, const dmls_stats *st, const char *dir,
		      dmls_error *err);

/* Open dir/name for writing (creating dir). */
FILE *dmls_open_out(const char *dir, const char *name, dmls_error *err);

#endif
