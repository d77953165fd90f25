/* csv_int.h - between csv.c (the traffic) and csv_analysis.c. */
#ifndef DMLSCOPE_CSV_INT_H
#define DMLSCOPE_CSV_INT_H

#include "dmlscope/render.h"

/* iterations.csv, burstiness.csv and backlog.csv in dir (r->has_analysis). */
int dmls_render_csv_analysis(const dmls_result *r, const char *dir, dmls_error *err);

#endif
