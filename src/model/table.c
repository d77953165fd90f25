/*
 * table.c - a small table of named columns of text cells, and its CSV reader.
 *
 * Cells stay text so that a column can be used both as a number and as a
 * category; dmls_table_finish() decides, per column, whether every present
 * cell is a number (strtod over the whole cell, decimal forms only: "inf",
 * "nan" and hex floats are not numbers).  Missing-value markers follow
 * pandas.read_csv's defaults, since users check us against pandas+statsmodels.
 *
 * The CSV reader follows RFC 4180: fields separated by commas, optionally
 * quoted with '"' (a doubled quote inside is one quote), records ended by LF or
 * CRLF; unquoted fields are trimmed of spaces and tabs.
 */
#include "dmlscope/model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const missing_markers[] = {
	"", "NA", "N/A", "n/a", "NaN", "nan", "-NaN", "-nan", "NULL", "null", "None",
	"#N/A", "<NA>",
};

static int is_missing(const char *s)
{
	if (!s)
		return 1;
	for (size_t i = 0; i < sizeof(missing_markers) / sizeof(*missing_markers); i++)
		if (!strcmp(s, missing_markers[i]))
			return 1;
	return 0;
}

/* Parse a decimal number filling the whole cell; *integer says "no . or e". */
static int parse_number(const char *s, double *v, int *integer)
{
	const char *p = s;
	int digits = 0;
	*integer = 1;
	for (; *p; p++) {
		if (isdigit((unsigned char)*p))
			digits = 1;
		else if (*p == '.' || *p == 'e' || *p == 'E')
			*integer = 0;
		else if (*p != '+' && *p != '-')
			return 0;
	}
	if (!digits)
		return 0;
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *end == '\0' && isfinite(*v);
}

int dmls_table_init(dmls_table *t, const char *name, const char *const *names, size_t ncols,
		    dmls_error *err)
{
	memset(t, 0, sizeof(*t));
	t->name = strdup(name ? name : "table");
	t->cols = calloc(ncols ? ncols : 1, sizeof(*t->cols));
	if (!t->name || !t->cols)
		goto oom;
	t->ncols = ncols;
	for (size_t j = 0; j < ncols; j++) {
		for (size_t i = 0; i < j; i++)
			if (!strcmp(names[i], names[j])) {
				dmls_fail(err, DMLS_EBAD, "'%s': column '%s' appears twice",
					  t->name, names[j]);
				dmls_table_release(t);
				return DMLS_EBAD;
			}
		if (!(t->cols[j].name = strdup(names[j])))
			goto oom;
	}
	return DMLS_OK;
oom:
	dmls_table_release(t);
	return dmls_fail(err, DMLS_ENOMEM, "out of memory");
}

int dmls_table_append(dmls_table *t, const char *const *cells, dmls_error *err)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		for (size_t j = 0; j < t->ncols; j++) {
			char **c = realloc(t->cols[j].cells, cap * sizeof(*c));
			if (!c)
				return dmls_fail(err, DMLS_ENOMEM, "out of memory");
			t->cols[j].cells = c;
		}
		t->cap = cap;
	}
	for (size_t j = 0; j < t->ncols; j++) {
		char *c = NULL;
		if (!is_missing(cells[j]) && !(c = strdup(cells[j]))) {
			for (size_t i = 0; i < j; i++)
				free(t->cols[i].cells[t->nrows]);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		t->cols[j].cells[t->nrows] = c;
	}
	t->nrows++;
	return DMLS_OK;
}

void dmls_table_finish(dmls_table *t)
{
	for (size_t j = 0; j < t->ncols; j++) {
		dmls_column *c = &t->cols[j];
		free(c->num);
		c->num = malloc((t->nrows ? t->nrows : 1) * sizeof(double));
		size_t nums = 0, strs = 0;
		c->integer = 1;
		c->first_bad = 0;
		for (size_t i = 0; i < t->nrows; i++) {
			double v = NAN;
			int integer = 1;
			if (c->cells[i]) {
				if (parse_number(c->cells[i], &v, &integer)) {
					nums++;
					c->integer &= integer;
				} else {
					v = NAN;
					if (!strs++)
						c->first_bad = i;
				}
			}
			if (c->num)
				c->num[i] = v;
		}
		c->type = nums && strs ? DMLS_COL_MIXED
			  : nums       ? DMLS_COL_NUMERIC
			  : strs       ? DMLS_COL_STRING
				       : DMLS_COL_EMPTY;
		if (c->type != DMLS_COL_NUMERIC)
			c->integer = 0;
	}
}

void dmls_table_release(dmls_table *t)
{
	for (size_t j = 0; t->cols && j < t->ncols; j++) {
		for (size_t i = 0; i < t->nrows; i++)
			free(t->cols[j].cells[i]);
		free(t->cols[j].cells);
		free(t->cols[j].num);
		free(t->cols[j].name);
	}
	free(t->cols);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

long dmls_table_find(const dmls_table *t, const char *name)
{
	for (size_t j = 0; j < t->ncols; j++)
		if (!strcmp(t->cols[j].name, name))
			return (long)j;
	return -1;
}

/* ---- CSV --------------------------------------------------------------- */

typedef struct csv_rec {
	size_t n, cap;
	char **f;            /* fields, owned */
	char *buf;           /* the field being read */
	size_t len, bufcap;
} csv_rec;

static int rec_putc(csv_rec *r, int c)
{
	if (r->len + 1 >= r->bufcap) {
		size_t cap = r->bufcap ? 2 * r->bufcap : 64;
		char *b = realloc(r->buf, cap);
		if (!b)
			return -1;
		r->buf = b;
		r->bufcap = cap;
	}
	r->buf[r->len++] = (char)c;
	return 0;
}

static int rec_end_field(csv_rec *r, int quoted)
{
	if (rec_putc(r, 0))
		return -1;
	char *s = r->buf;
	if (!quoted) { /* trim */
		size_t l = strlen(s);
		while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
			s[--l] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		char **f = realloc(r->f, cap * sizeof(*f));
		if (!f)
			return -1;
		r->f = f;
		r->cap = cap;
	}
	if (!(r->f[r->n] = strdup(s)))
		return -1;
	r->n++;
	r->len = 0;
	return 0;
}

static void rec_clear(csv_rec *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->f[i]);
	r->n = 0;
	r->len = 0;
}

/* Read one record: 1 read, 0 end of file, -1 out of memory, -2 bad quoting. */
static int csv_read_record(FILE *f, csv_rec *r, size_t *line)
{
	rec_clear(r);
	int c = getc(f);
	if (c == EOF)
		return 0;
	int quoted = 0, inq = 0;
	for (;; c = getc(f)) {
		if (inq) {
			if (c == EOF)
				return -2;
			if (c == '"') {
				int d = getc(f);
				if (d != '"') {
					inq = 0;
					ungetc(d, f);
					continue;
				}
			}
			if (c == '\n')
				(*line)++;
			if (rec_putc(r, c))
				return -1;
			continue;
		}
		if (c == '"' && r->len == 0) {
			inq = quoted = 1;
		} else if (c == ',') {
			if (rec_end_field(r, quoted))
				return -1;
			quoted = 0;
		} else if (c == '\n' || c == EOF) {
			if (r->len && r->buf[r->len - 1] == '\r')
				r->len--;
			(*line)++;
			return rec_end_field(r, quoted) ? -1 : 1;
		} else if (rec_putc(r, c)) {
			return -1;
		}
	}
}

static int blank_record(const csv_rec *r)
{
	return r->n == 1 && r->f[0][0] == '\0';
}

int dmls_table_read_csv(dmls_table *t, FILE *f, const char *name, dmls_error *err)
{
	csv_rec r = {0};
	size_t line = 0;
	int rc, st = DMLS_OK;
	memset(t, 0, sizeof(*t));
	while ((rc = csv_read_record(f, &r, &line)) == 1 && blank_record(&r))
		;
	if (rc == 0) {
		st = dmls_fail(err, DMLS_EBAD, "'%s': empty file, expected a header row", name);
		goto out;
	}
	if (rc < 0)
		goto bad;
	if (!strncmp(r.f[0], "\xef\xbb\xbf", 3)) /* a UTF-8 byte order mark */
		memmove(r.f[0], r.f[0] + 3, strlen(r.f[0] + 3) + 1);
	if ((st = dmls_table_init(t, name, (const char *const *)r.f, r.n, err)))
		goto out;
	while ((rc = csv_read_record(f, &r, &line)) == 1) {
		if (blank_record(&r))
			continue;
		if (r.n != t->ncols) {
			st = dmls_fail(err, DMLS_EBAD, "'%s' line %zu: %zu fields, header has %zu",
				       name, line, r.n, t->ncols);
			goto out;
		}
		if ((st = dmls_table_append(t, (const char *const *)r.f, err)))
			goto out;
	}
	if (rc < 0)
		goto bad;
	if (ferror(f)) {
		st = dmls_fail(err, DMLS_EIO, "'%s': read error", name);
		goto out;
	}
	if (t->nrows == 0) {
		st = dmls_fail(err, DMLS_EBAD, "'%s': no data rows after the header", name);
		goto out;
	}
	dmls_table_finish(t);
	goto out;
bad:
	st = rc == -1 ? dmls_fail(err, DMLS_ENOMEM, "out of memory")
		      : dmls_fail(err, DMLS_EBAD, "'%s' line %zu: unterminated quoted field",
				  name, line + 1);
out:
	rec_clear(&r);
	free(r.f);
	free(r.buf);
	if (st && t->cols)
		dmls_table_release(t);
	return st;
}

int dmls_table_load_csv(dmls_table *t, const char *path, dmls_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		memset(t, 0, sizeof(*t));
		return dmls_fail(err, DMLS_EIO, "'%s': %s", path, strerror(errno));
	}
	int st = dmls_table_read_csv(t, f, path, err);
	fclose(f);
	return st;
}

static void csv_cell(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && s[0] != '\t') {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int dmls_table_write_csv(const dmls_table *t, FILE *f, const char *name, dmls_error *err)
{
	for (size_t j = 0; j < t->ncols; j++) {
		if (j)
			fputc(',', f);
		csv_cell(f, t->cols[j].name);
	}
	fputc('\n', f);
	for (size_t i = 0; i < t->nrows; i++) {
		for (size_t j = 0; j < t->ncols; j++) {
			if (j)
				fputc(',', f);
			csv_cell(f, t->cols[j].cells[i]);
		}
		fputc('\n', f);
	}
	if (fflush(f) || ferror(f))
		return dmls_fail(err, DMLS_EIO, "'%s': cannot write", name);
	return DMLS_OK;
}
