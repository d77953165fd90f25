/*
 * report_html.c - `--report FILE.html`: the study's figures for a set of runs
 * in one self-contained file.
 *
 * The page is a shell: the runs' table rows and figure data (compare.h)
 * inlined as one JSON document in <script type="application/json">, uPlot
 * (vendor/uplot, MIT) and the report's own script and style (report.js,
 * report.css) inlined from the arrays cmake/embed.cmake compiles in.  The
 * script draws everything from the JSON, so the data a figure shows is
 * exactly what `compare --json/--csv` writes.  Nothing is fetched: no URL
 * is referenced, the file works offline and can be mailed.
 *
 * Inside <script>, "</script" or "<!--" would end or confuse the element:
 * every '<' in the JSON is written as \u003c (it can only occur in strings).
 */
#include "dmlscope/compare.h"
#include "dmlscope/version.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "out/embedded.h"

static json_t *columns_json(void)
{
	json_t *a = json_array();
	for (size_t j = 0; j < dmls_compare_ncolumns; j++) {
		const dmls_compare_column *c = &dmls_compare_columns[j];
		char unit[2] = {c->unit, '\0'};
		json_array_append_new(a, json_pack("{s:s, s:s?, s:s}", "key", c->key, "title",
						   c->title, "unit", unit));
	}
	return a;
}

static json_t *data_json(const dmls_compare *c)
{
	json_t *runs = json_array();
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "error", r->error.status ? json_string(r->error.msg)
							       : json_null());
		json_object_set(o, "row", r->row ? r->row : json_null());
		json_object_set(o, "figures", r->figures ? r->figures : json_null());
		json_array_append_new(runs, o);
	}
	return json_pack("{s:{s:s, s:s}, s:o, s:o}", "tool", "name", "dmlscope", "version",
			 DMLS_VERSION, "columns", columns_json(), "runs", runs);
}

/* The JSON with '<' escaped (see the top of the file). */
static int write_data(const dmls_compare *c, FILE *fp, dmls_error *err)
{
	json_t *doc = data_json(c);
	char *s = doc ? json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII |
						JSON_REAL_PRECISION(12))
		      : NULL;
	json_decref(doc);
	if (!s)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (const char *p = s; *p; p++) {
		if (*p == '<')
			fputs("\\u003c", fp);
		else
			fputc(*p, fp);
	}
	free(s);
	return DMLS_OK;
}

static void put(FILE *fp, const unsigned char *b, size_t n)
{
	fwrite(b, 1, n, fp);
}

int dmls_report_html(const dmls_compare *c, FILE *fp, dmls_error *err)
{
	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<title>dmlscope report: %zu run%s</title>\n<style>\n",
		c->n, c->n == 1 ? "" : "s");
	put(fp, dmls_embed_uplot_css, dmls_embed_uplot_css_len);
	fputs("\n</style>\n<style>\n", fp);
	put(fp, dmls_embed_report_css, dmls_embed_report_css_len);
	fputs("\n</style>\n</head>\n<body>\n<h1>dmlscope report</h1>\n"
	      "<noscript>The figures need JavaScript; the same data is in "
	      "<code>dmlscope compare --csv</code>.</noscript>\n"
	      "<div id=\"report\"></div>\n"
	      "<script type=\"application/json\" id=\"dmls-data\">", fp);
	int rc = write_data(c, fp, err);
	if (rc)
		return rc;
	fputs("</script>\n<script>\n", fp);
	put(fp, dmls_embed_uplot_js, dmls_embed_uplot_js_len);
	fputs("\n</script>\n<script>\n", fp);
	put(fp, dmls_embed_report_js, dmls_embed_report_js_len);
	fputs("\n</script>\n</body>\n</html>\n", fp);
	if (ferror(fp))
		return dmls_fail(err, DMLS_EIO, "write error: %s", strerror(errno));
	return DMLS_OK;
}

int dmls_report_html_write(const dmls_compare *c, const char *path, dmls_error *err)
{
	FILE *fp = fopen(path, "w");
	if (!fp)
		return dmls_fail(err, DMLS_EIO, "'%s': %s", path, strerror(errno));
	int rc = dmls_report_html(c, fp, err);
	int bad = ferror(fp);
	if ((fclose(fp) || bad) && !rc)
		rc = dmls_fail(err, DMLS_EIO, "'%s': write error", path);
	return rc;
}
