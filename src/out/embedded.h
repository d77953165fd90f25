/*
 * embedded.h - files compiled into the library (cmake/embed.cmake):
 * uPlot (vendor/uplot) and the HTML report's script and style.
 * Each array ends with a NUL that _len does not count.
 */
#ifndef DMLSCOPE_OUT_EMBEDDED_H
#define DMLSCOPE_OUT_EMBEDDED_H

#include <stddef.h>

extern const unsigned char dmls_embed_uplot_js[], dmls_embed_uplot_css[];
extern const unsigned char dmls_embed_report_js[], dmls_embed_report_css[];
extern const size_t dmls_embed_uplot_js_len, dmls_embed_uplot_css_len;
extern const size_t dmls_embed_report_js_len, dmls_embed_report_css_len;

#endif
