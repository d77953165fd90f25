/* text_int.h - between text.c (the traffic) and text_analysis.c. */
#ifndef DMLSCOPE_TEXT_INT_H
#define DMLSCOPE_TEXT_INT_H

#include "dmlscope/render.h"

/* 1.2 MB, 3.4 Gbit/s (powers of 1000; "n/a" for NaN) into buf. */
const char *dmls_fmt_bytes(double v, char *buf, size_t n);
const char *dmls_fmt_bps(double v, char *buf, size_t n);

/* The analysis' lines of the terminal summary (r->has_analysis). */
void dmls_render_text_analysis(const dmls_result *r, FILE *fp);

#endif
