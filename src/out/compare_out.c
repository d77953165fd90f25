/*
 * compare_out.c - `compare`'s table as text, JSON and CSV files.
 *
 * The JSON array and runs.csv hold every column of dmls_compare_columns
 * (units in the key names, unknown values null / an empty cell); the
 * terminal table the columns with a title, in human units (the unit of
 * each column is its metric's, result.h).  The long CSV tables
 * (one row per run and point, a `run` column first) are what the report's
 * figures draw, for pandas or any plotting tool.
 */
#include "dmlscope/render.h"

#include <math.h>
#include <string.h>

json_t *dmls_compare_row_json(const dmls_value *row)
{
	json_t *o = json_object();
	for (size_t j = 0; j < dmls_compare_ncolumns; j++)
		json_object_set_new(o, dmls_compare_columns[j].name, dmls_json_value(row[j]));
	return o;
}

json_t *dmls_compare_json(const dmls_compare *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n; i++)
		if (c->runs[i].row)
			json_array_append_new(a, dmls_compare_row_json(c->runs[i].row));
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

static void cell_text(dmls_value v, char unit, char *buf, size_t n)
{
	static const char *const bytes[] = {"B", "kB", "MB", "GB", "TB", NULL};
	static const char *const rates[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", NULL};
	double x = v.type == DMLS_T_INT ? (double)v.i : v.r;
	if (v.type == DMLS_T_STR)
		snprintf(buf, n, "%s", v.s);
	else if (v.type != DMLS_T_INT && v.type != DMLS_T_REAL)
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

void dmls_compare_text(const dmls_compare *c, FILE *fp, size_t width)
{
	size_t w[64] = {0};
	char buf[CELL];
	size_t nc = dmls_compare_ncolumns < 64 ? dmls_compare_ncolumns : 64;
	for (size_t j = 0; j < nc; j++) {
		const char *title = dmls_compare_title(j);
		if (!title)
			continue;
		w[j] = strlen(title);
		for (size_t i = 0; i < c->n; i++) {
			if (!c->runs[i].row)
				continue;
			cell_text(c->runs[i].row[j], dmls_compare_unit(j), buf, CELL);
			if (strlen(buf) > w[j])
				w[j] = strlen(buf);
		}
	}
	size_t rows = 0;
	for (size_t i = 0; i < c->n; i++)
		rows += c->runs[i].row != NULL;
	if (!rows)
		return; /* the errors say why */
	/* A terminal's width: the run's name, then the measured columns (the
	 * numbers and the pattern) while they fit, then the folder name's
	 * fields, which the run's name already shows.  The others are in --csv
	 * and --json; the table keeps its column order. */
	size_t used = 0, left_out = 0;
	int keep[64] = {0};
	for (int pass = 0; pass < 3; pass++)
		for (size_t j = 0; j < nc; j++) {
			if (!dmls_compare_title(j) || keep[j])
				continue;
			const char *key = dmls_compare_columns[j].key;
			int text = dmls_compare_unit(j) == DMLS_UNIT_TEXT;
			int rank = !key ? 0 : (!text || !strcmp(key, "pattern.kind")) ? 1 : 2;
			if (rank != pass)
				continue;
			size_t need = (used ? 2 : 0) + w[j];
			if (width && used && used + need > width)
				continue;
			keep[j] = 1;
			used += need;
		}
	for (size_t j = 0; j < nc; j++)
		if (dmls_compare_title(j) && !keep[j])
			w[j] = 0, left_out++;
	for (size_t j = 0; j < nc; j++) {
		const char *title = dmls_compare_title(j);
		if (title && w[j])
			fprintf(fp, "%s%*s", j ? "  " : "",
				dmls_compare_unit(j) == DMLS_UNIT_TEXT ? -(int)w[j] : (int)w[j], title);
	}
	fputc('\n', fp);
	for (size_t i = 0; i < c->n; i++) {
		if (!c->runs[i].row)
			continue;
		for (size_t j = 0; j < nc; j++) {
			char unit = dmls_compare_unit(j);
			if (!dmls_compare_title(j) || !w[j])
				continue;
			cell_text(c->runs[i].row[j], unit, buf, CELL);
			/* text left, numbers right */
			fprintf(fp, "%s%*s", j ? "  " : "", unit == DMLS_UNIT_TEXT ? -(int)w[j] : (int)w[j],
				buf);
		}
		fputc('\n', fp);
	}
	if (left_out)
		fprintf(fp, "(%zu more columns than fit in %zu: --csv or --json has every one)\n",
			left_out, width);
}

/* ---- CSV ---- */

static void csv_text(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++)
		fprintf(fp, *s == '"' ? "\"\"" : "%c", *s);
	fputc('"', fp);
}

/* A real with 15 digits, unknown empty. */
static void csv_real(FILE *fp, double v)
{
	if (isfinite(v))
		fprintf(fp, "%.15g", v);
}

/* One CSV cell: strings quoted when they need it, null empty. */
static void csv_cell(FILE *fp, dmls_value v)
{
	switch (v.type) {
	case DMLS_T_STR: csv_text(fp, v.s); break;
	case DMLS_T_INT: fprintf(fp, "%lld", (long long)v.i); break;
	case DMLS_T_REAL: csv_real(fp, v.r); break;
	case DMLS_T_BOOL: fputs(v.i ? "1" : "0", fp); break;
	default: break;
	}
}

static void write_runs(const dmls_compare *c, FILE *fp)
{
	for (size_t j = 0; j < dmls_compare_ncolumns; j++)
		fprintf(fp, "%s%s", j ? "," : "", dmls_compare_columns[j].name);
	fputc('\n', fp);
	for (size_t i = 0; i < c->n; i++) {
		if (!c->runs[i].row)
			continue;
		for (size_t j = 0; j < dmls_compare_ncolumns; j++) {
			if (j)
				fputc(',', fp);
			csv_cell(fp, c->runs[i].row[j]);
		}
		fputc('\n', fp);
	}
}

static void write_throughput(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,t_s,bin_s,wire_bytes,bps\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		const dmls_compare_figures *f = &r->fig;
		for (size_t k = 0; r->row && k < f->ntp; k++) {
			double v = (double)f->tp_wire_bytes[k];
			csv_text(fp, r->name);
			fprintf(fp, ",%.6f,%g,%.0f,%.1f\n", f->tp_t0_s + (double)k * f->tp_bin_s,
				f->tp_bin_s, v, v * 8 / f->tp_bin_s);
		}
	}
}

static void write_burstiness(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,timescale_s,peak_to_mean\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		for (size_t k = 0; r->row && r->fig.has_analysis && k < DMLS_NTAU; k++) {
			csv_text(fp, r->name);
			fprintf(fp, ",%g,", dmls_burst_tau_s[k]);
			csv_real(fp, r->fig.peak_to_mean[k]);
			fputc('\n', fp);
		}
	}
}

static void write_iterations(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,iteration,start_s,payload_bytes\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		for (size_t k = 0; r->row && r->fig.has_analysis && k < r->fig.niter; k++) {
			csv_text(fp, r->name);
			fprintf(fp, ",%zu,", k);
			csv_real(fp, r->fig.starts_s[k]);
			fputc(',', fp);
			csv_real(fp, r->fig.iter_bytes[k]);
			fputc('\n', fp);
		}
	}
}

static void write_accuracy(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,type,cum_wire_bytes,accuracy\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		for (size_t k = 0; r->row && r->fig.has_log && k < r->fig.nacc; k++) {
			const dmls_acc_point *p = &r->fig.acc[k];
			csv_text(fp, r->name);
			fprintf(fp, ",%s,", p->is_epoch ? "epoch" : "batch");
			csv_real(fp, p->cum_wire_bytes);
			fputc(',', fp);
			csv_real(fp, p->accuracy);
			fputc('\n', fp);
		}
	}
}

static void write_matrix(const dmls_compare *c, FILE *fp)
{
	fprintf(fp, "run,src,dst,wire_bytes\n");
	for (size_t i = 0; i < c->n; i++) {
		const dmls_compare_run *r = &c->runs[i];
		const dmls_compare_figures *f = &r->fig;
		for (size_t s = 0; r->row && s < f->nhosts; s++)
			for (size_t d = 0; d < f->nhosts; d++) {
				uint64_t v = f->wire_bytes[s * f->nhosts + d];
				if (v == 0)
					continue;
				csv_text(fp, r->name);
				fprintf(fp, ",%s,%s,%lld\n", f->hosts[s], f->hosts[d], (long long)v);
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
