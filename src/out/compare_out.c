/*
 * compare_out.c - `compare`'s table as text, JSON and CSV files.
 *
 * The JSON array and runs.csv hold every column of dmls_compare_columns
 * (units in the key names, unknown values null / an empty cell); the
 * terminal table a readable subset in human units.  The long CSV tables
 * (one row per run and point, a `run` column first) are what the report's
 * figures draw, for pandas or any plotting tool.
 */
#include "dmlscope/compare.h"

#include <math.h>
#include <string.h>

#include "dmlscope/render.h"

json_t *dmls_compare_json(const dmls_compare *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n; i++)
		if (c->runs[i].row)
			json_array_append(a, c->runs[i].row);
	return a;
}

/* ---- terminal ---- */

static void human(double v, const char *const *units, double base, char *buf, size_t n)
{
	int u = 0;
	while (fabs(v) >= base && units[u + 1]) {
		v /= base;
		u++;
	}
	snprintf(buf, n, fabs(v) >= 100 ? "%.0f %s" : fabs(v) >= 10 ? "%.1f %s" : "%.2f %s", v,
		 units[u]);
}

static void cell_text(json_t *v, char unit, char *buf, size_t n)
{
	static const char *const bytes[] = {"B", "kB", "MB", "GB", "TB", NULL};
	static const char *const rates[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", NULL};
	double x = json_number_value(v);
	if (json_is_string(v))
		snprintf(buf, n, "%s", json_string_value(v));
	else if (!json_is_number(v))
		snprintf(buf, n, "-");
	else if (unit == 'b')
		human(x, bytes, 1000, buf, n);
	else if (unit == 'r')
		human(x, rates, 1000, buf, n);
	else if (unit == 't')
		snprintf(buf, n, x < 1 ? "%.4f s" : "%.3f s", x);
	else if (unit == 'i')
		snprintf(buf, n, "%.0f", x);
	else
		snprintf(buf, n, "%.3g", x);
}

#define CELL 64

void dmls_compare_text(const dmls_compare *c, FILE *fp)
{
	size_t w[64] = {0};
	char buf[CELL];
	size_t nc = dmls_compare_ncolumns < 64 ? dmls_compare_ncolumns : 64;
	for (size_t j = 0; j < nc; j++) {
		const dmls_compare_column *col = &dmls_compare_columns[j];
		if (!col->title)
			continue;
		w[j] = strlen(col->title);
		for (size_t i = 0; i < c->n; i++) {
			if (!c->runs[i].row)
				continue;
			cell_text(json_object_get(c->runs[i].row, col->key), col->unit, buf, CELL);
			if (strlen(buf) > w[j])
				w[j] = strlen(buf);
		}
	}
	size_t rows = 0;
	for (size_t i = 0; i < c->n; i++)
		rows += c->runs[i].row != NULL;
	if (!rows)
		return; /* the errors say why */
	for (size_t j = 0; j < nc; j++) {
		const dmls_compare_column *col = &dmls_compare_columns[j];
		if (col->title)
			fprintf(fp, "%s%*s", j ? "  " : "", col->unit == 's' ? -(int)w[j] : (int)w[j],
				col->title);
	}
	fputc('\n', fp);
	for (size_t i = 0; i < c->n; i++) {
		if (!c->runs[i].row)
			continue;
		for (size_t j = 0; j < nc; j++) {
			const dmls_compare_column *col = &dmls_compare_columns[j];
			if (!col->title)
				continue;
			cell_text(json_object_get(c->runs[i].row, col->key), col->unit, buf, CELL);
			/* text left, numbers right */
			fprintf(fp, "%s%*s", j ? "  " : "", col->unit == 's' ? -(int)w[j] : (int)w[j],
				buf);
		}
		fputc('\n', fp);
	}
}

/* ---- CSV ---- */

/* One CSV cell: strings quoted when they need it, reals with 15 digits,
 * null empty. */
static void csv_cell(FILE *fp, json_t *v)
{
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		if (strpbrk(s, ",\"\n")) {
			fputc('"', fp);
			for (; *s; s++)
				fprintf(fp, *s == '"' ? "\"\"" : "%c", *s);
			fputc('"', fp);
		} else {
			fputs(s, fp);
		}
	} else if (json_is_integer(v)) {
		fprintf(fp, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		fprintf(fp, "%.15g", json_real_value(v));
	} else if (json_is_true(v) || json_is_false(v)) {
		fputs(json_is_true(v) ? "1" : "0", fp);
	}
}

static void write_runs(const dmls_compare *c, FILE *fp)
{
	for (size_t j = 0; j < dmls_compare_ncolumns; j++)
		fprintf(fp, "%s%s", j ? "," : "", dmls_compare_columns[j].key);
	fputc('\n', fp);
	for (size_t i = 0; i < c->n; i++) {
		if (!c->runs[i].row)
			continue;
		for (size_t j = 0; j < dmls_compare_ncolumns; j++) {
			if (j)
				fputc(',', fp);
			csv_cell(fp, json_object_get(c->runs[i].row, dmls_compare_columns[j].key));
		}
		fputc('\n', fp);
	}
}

static json_t *fig(const dmls_compare_run *r, const char *a, const char *b)
{
	return json_object_get(json_object_get(r->figures, a), b);
}

static void run_cell(FILE *fp, const dmls_compare_run *r)
{
	json_t *s = json_string(r->name);
	csv_cell(fp, s);
	json_decref(s);
}

static void write_throughput(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,t_s,bin_s,wire_bytes,bps\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		json_t *b = fig(r, "throughput", "wire_bytes");
		double bin = json_number_value(fig(r, "throughput", "bin_s"));
		double t0 = json_number_value(fig(r, "throughput", "t0_s"));
		for (size_t k = 0; k < json_array_size(b); k++) {
			double v = json_number_value(json_array_get(b, k));
			run_cell(fp, r);
			fprintf(fp, ",%.6f,%g,%.0f,%.1f\n", t0 + (double)k * bin, bin, v,
				v * 8 / bin);
		}
	}
}

static void write_burstiness(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,timescale_s,peak_to_mean\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		json_t *ts = fig(r, "burstiness", "timescales_s");
		json_t *pm = fig(r, "burstiness", "peak_to_mean");
		for (size_t k = 0; k < json_array_size(ts); k++) {
			run_cell(fp, r);
			fprintf(fp, ",%g,", json_number_value(json_array_get(ts, k)));
			csv_cell(fp, json_array_get(pm, k));
			fputc('\n', fp);
		}
	}
}

static void write_iterations(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,iteration,start_s,payload_bytes\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		json_t *st = fig(r, "iterations", "starts_s");
		json_t *b = fig(r, "iterations", "payload_bytes");
		for (size_t k = 0; k < json_array_size(st); k++) {
			run_cell(fp, r);
			fprintf(fp, ",%zu,", k);
			csv_cell(fp, json_array_get(st, k));
			fputc(',', fp);
			csv_cell(fp, json_array_get(b, k));
			fputc('\n', fp);
		}
	}
}

static void write_accuracy(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,type,cum_wire_bytes,accuracy\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		json_t *x = fig(r, "accuracy", "cum_wire_bytes");
		json_t *y = fig(r, "accuracy", "accuracy");
		json_t *t = fig(r, "accuracy", "type");
		for (size_t k = 0; k < json_array_size(x); k++) {
			run_cell(fp, r);
			fputc(',', fp);
			csv_cell(fp, json_array_get(t, k));
			fputc(',', fp);
			csv_cell(fp, json_array_get(x, k));
			fputc(',', fp);
			csv_cell(fp, json_array_get(y, k));
			fputc('\n', fp);
		}
	}
}

static void write_matrix(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,src,dst,wire_bytes\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		json_t *h = fig(r, "matrix", "hosts"), *m = fig(r, "matrix", "wire_bytes");
		for (size_t s = 0; s < json_array_size(h); s++)
			for (size_t d = 0; d < json_array_size(h); d++) {
				json_t *v = json_array_get(json_array_get(m, s), d);
				if (json_number_value(v) <= 0)
					continue;
				run_cell(fp, r);
				fprintf(fp, ",%s,%s,", json_string_value(json_array_get(h, s)),
					json_string_value(json_array_get(h, d)));
				csv_cell(fp, v);
				fputc('\n', fp);
			}
	}
}

int dmls_compare_csv(const dmls_compare *c, const char *dir, dmls_error *err)
{
	static const struct {
		const char *name;
		void (*write)(const dmls_compare *, FILE *);
	} tables[] = {
		{"runs.csv", write_runs},             {"throughput.csv", write_throughput},
		{"burstiness.csv", write_burstiness}, {"iterations.csv", write_iterations},
		{"accuracy.csv", write_accuracy},     {"matrix.csv", write_matrix},
	};
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		FILE *fp = dmls_open_out(dir, tables[i].name, err);
		if (!fp)
			return err ? err->status : DMLS_EIO;
		tables[i].write(c, fp);
		int bad = ferror(fp);
		if (fclose(fp) || bad)
			return dmls_fail(err, DMLS_EIO, "'%s/%s': write error", dir,
					 tables[i].name);
	}
	return DMLS_OK;
}
