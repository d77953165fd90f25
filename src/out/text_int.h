/* text_int.h - between text.c (the traffic) and text_analysis.c. */
#ifndef DMLSCOPE_TEXT_INT_H
#define DMLSCOPE_TEXT_INT_H

#include "dmlscope/render.h"

/* The analysis' lines of the terminal summary (r->has_analysis). */
void dmls_render_text_analysis(const dmls_result *r, FILE *fp);

#endif
