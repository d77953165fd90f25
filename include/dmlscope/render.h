/*
 * render.h - results written out: JSON, CSV files, the terminal summary,
 * compare's table and the HTML report (src/out).
 *
 * Renderers only read a dmls_result (result.h) or a dmls_compare
 * (compare.h); they compute nothing.  JSON keys follow doc/contract.md:
 * numbers in bytes, seconds and bits per second, unknown values null (never
 * NaN).  Nothing below this layer includes this header.
 */
#ifndef DMLSCOPE_RENDER_H
#define DMLSCOPE_RENDER_H

#include <stdio.h>

#include <jansson.h>

#include "dmlscope/compare.h"
#include "dmlscope/error.h"
#include "dmlscope/result.h"

/* A JSON number, or null when v is NaN or infinite. */
json_t *dmls_json_real(double v);
/* A metric value as JSON (null for DMLS_T_NULL). */
json_t *dmls_json_value(dmls_value v);

/* The whole `analyze --json` document (new reference, NULL when out of
 * memory): the metric table walked in order. */
json_t *dmls_render_json(const dmls_result *r);
/* doc to fp as json_dumpf(doc, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(
 * precision) | JSON_ENSURE_ASCII) writes it, byte for byte, but faster (one
 * buffer, reals that hold integers without printf).  0, or -1 (out of
 * memory or a write error). */
int dmls_json_dumpf(const json_t *doc, FILE *fp, int precision);

/* Write hosts.csv, matrix.csv, flows.csv, flow_cdf.csv, series.csv,
 * flow_activity.csv and, with the analysis, iterations.csv, burstiness.csv
 * and backlog.csv into dir, creating it. */
int dmls_render_csv(const dmls_result *r, const char *dir, dmls_error *err);

/* The terminal summary a person reads in ten seconds. */
void dmls_render_text(const dmls_result *r, FILE *fp);

/* compare: the rows as a JSON array (new reference), the aligned terminal
 * table, and runs.csv, throughput.csv, burstiness.csv, iterations.csv,
 * accuracy.csv, matrix.csv (long tables with a run column) in dir. */
json_t *dmls_compare_json(const dmls_compare *c);
/* One run's row as a JSON object, keys in column order (new reference). */
json_t *dmls_compare_row_json(const dmls_value *row);
/* The terminal table: the columns that fit in width characters (0: all). */
void dmls_compare_text(const dmls_compare *c, FILE *fp, size_t width);
int dmls_compare_csv(const dmls_compare *c, const char *dir, dmls_error *err);
/* The HTML report: data inlined as JSON, uPlot inlined, no external URL. */
int dmls_report_html(const dmls_compare *c, FILE *fp, dmls_error *err);
/* The same into the file path. */
int dmls_report_html_write(const dmls_compare *c, const char *path, dmls_error *err);

/* Open dir/name for writing (creating dir). */
FILE *dmls_open_out(const char *dir, const char *name, dmls_error *err);

#endif
