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
#include "dmlscope/render.h"
#include "dmlscope/version.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "out/embedded.h"

static json_t *columns_json(void)
{
	json_t *a = json_array();
	for (size_t j = 0; j < dmls_compare_ncolumns; j++) {
		char unit[2] = {dmls_compare_unit(j), '\0'};
		json_array_append_new(a, json_pack("{s:s, s:s?, s:s}", "key",
						   dmls_compare_columns[j].name, "title",
						   dmls_compare_title(j), "unit", unit));
	}
	return a;
}

static json_t *reals(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, dmls_json_real(v[i]));
	return a;
}

static json_t *matrix_json(const dmls_compare_figures *f)
{
	json_t *hosts = json_array(), *roles = json_array(), *wire = json_array();
	json_t *rank = json_array();
	for (size_t i = 0; i < f->nhosts; i++) {
		json_t *row = json_array();
		json_array_append_new(hosts, json_string(f->hosts[i]));
		json_array_append_new(roles, json_string(f->roles[i]));
		json_array_append_new(rank, json_integer((json_int_t)f->rank[i]));
		for (size_t j = 0; j < f->nhosts; j++)
			json_array_append_new(
				row, json_integer((json_int_t)f->wire_bytes[i * f->nhosts + j]));
		json_array_append_new(wire, row);
	}
	return json_pack("{s:o, s:o, s:o, s:o}", "hosts", hosts, "roles", roles, "wire_bytes", wire,
			 "rank", rank);
}

static json_t *throughput_json(const dmls_compare_figures *f)
{
	json_t *o = json_object(), *bytes = json_array();
	for (size_t i = 0; i < f->ntp; i++)
		json_array_append_new(bytes, json_integer((json_int_t)f->tp_wire_bytes[i]));
	json_object_set_new(o, "bin_s", json_real(f->tp_bin_s));
	json_object_set_new(o, "t0_s", json_real(f->tp_t0_s));
	json_object_set_new(o, "wire_bytes", bytes);
	return o;
}

static json_t *accuracy_json(const dmls_compare_figures *f)
{
	if (!f->has_log)
		return json_null();
	json_t *o = json_object(), *x = json_array(), *y = json_array(), *type = json_array();
	for (size_t i = 0; i < f->nacc; i++) {
		json_array_append_new(x, dmls_json_real(f->acc[i].cum_wire_bytes));
		json_array_append_new(y, dmls_json_real(f->acc[i].accuracy));
		json_array_append_new(type, json_string(f->acc[i].is_epoch ? "epoch" : "batch"));
	}
	json_object_set_new(o, "cum_wire_bytes", x);
	json_object_set_new(o, "accuracy", y);
	json_object_set_new(o, "type", type);
	return o;
}

/* What the figures draw (report.js): null where the run has no analysis or
 * no train log. */
static json_t *figures_json(const dmls_compare_figures *f)
{
	json_t *o = json_object(), *ts = json_null(), *ptm = json_null();
	json_t *starts = json_null(), *bytes = json_null();
	if (f->has_analysis) {
		ts = reals(dmls_burst_tau_s, DMLS_NTAU);
		ptm = reals(f->peak_to_mean, DMLS_NTAU);
		starts = reals(f->starts_s, f->niter);
		bytes = reals(f->iter_bytes, f->niter);
	}
	json_object_set_new(o, "matrix", matrix_json(f));
	json_object_set_new(o, "throughput", throughput_json(f));
	json_object_set_new(o, "burstiness",
			    json_pack("{s:o, s:o}", "timescales_s", ts, "peak_to_mean", ptm));
	json_object_set_new(o, "iterations",
			    json_pack("{s:o, s:o}", "starts_s", starts, "payload_bytes", bytes));
	json_object_set_new(o, "accuracy", accuracy_json(f));
	json_t *lh = json_array(), *lf = json_array();
	for (size_t i = 0; i < f->nloss_hosts; i++)
		json_array_append_new(lh, json_pack("{s:s, s:I, s:o}", "host", f->loss_hosts[i].what,
						    "retransmissions",
						    (json_int_t)f->loss_hosts[i].retransmissions,
						    "rate", dmls_json_real(f->loss_hosts[i].rate)));
	for (size_t i = 0; i < f->nloss_flows; i++)
		json_array_append_new(lf, json_pack("{s:s, s:I}", "flow", f->loss_flows[i].what,
						    "retransmissions",
						    (json_int_t)f->loss_flows[i].retransmissions));
	json_object_set_new(o, "loss", json_pack("{s:o, s:o}", "hosts", lh, "flows", lf));
	json_object_set_new(o, "flow_cdf",
			    json_pack("{s:o, s:o}", "wire_bytes", reals(f->cdf_bytes, f->ncdf),
				      "fraction", reals(f->cdf_frac, f->ncdf)));
	return o;
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
		json_object_set_new(o, "row", r->row ? dmls_compare_row_json(r->row) : json_null());
		json_object_set_new(o, "figures", r->row ? figures_json(&r->fig) : json_null());
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
