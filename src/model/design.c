/*
 * design.c - a formula meets a table: factor types, levels, X and y.
 *
 * A factor is categorical when wrapped in C() or when its column holds no
 * number at all (patsy treats string columns as categorical).  Levels are
 * the distinct values of the rows used, sorted: numerically for a numeric
 * column (C(batch): 64 < 128 < 512), by byte order (Python's str order for
 * UTF-8) otherwise.  Numeric levels print like pandas/patsy do: "128" for an
 * integer column, Python's repr of the float otherwise ("1.5", "2.0",
 * "1e+22").  Rows with a missing cell in any column the formula reads are
 * dropped (statsmodels' missing='drop').
 */
#include "dmlscope/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double dmls_fn_apply(int fn, double v)
{
	switch (fn) {
	case DMLS_FN_LOG: return v > 0 ? log(v) : NAN;
	case DMLS_FN_LOG10: return v > 0 ? log10(v) : NAN;
	case DMLS_FN_LOG2: return v > 0 ? log2(v) : NAN;
	case DMLS_FN_EXP: return exp(v);
	case DMLS_FN_SQRT: return v >= 0 ? sqrt(v) : NAN;
	default: return v;
	}
}

/* Python's repr() of a float: the shortest digits that read back the same,
 * fixed notation for exponents -4..15 (with ".0" when integral). */
static void py_repr(double v, char *buf, size_t cap)
{
	int p;
	char tmp[40];
	for (p = 1; p <= 17; p++) {
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	int e = atoi(strchr(tmp, 'e') + 1);
	if (e < -4 || e >= 16) {
		snprintf(buf, cap, "%s", tmp);
		return;
	}
	int dec = p - 1 - e;
	snprintf(buf, cap, "%.*f", dec > 0 ? dec : 0, v);
	if (!strchr(buf, '.'))
		strncat(buf, ".0", cap - strlen(buf) - 1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect the sorted distinct levels of column c over the used rows. */
static int factor_levels(dmls_factor *f, const dmls_column *c, const char *used, size_t nrows)
{
	size_t n = 0;
	f->levels_numeric = c->type == DMLS_COL_NUMERIC;
	f->levels_integer = c->integer;
	if (f->levels_numeric) {
		double *v = malloc((nrows ? nrows : 1) * sizeof(*v));
		if (!v)
			return -1;
		for (size_t i = 0; i < nrows; i++)
			if (used[i])
				v[n++] = c->num[i];
		qsort(v, n, sizeof(*v), cmp_double);
		size_t u = 0;
		for (size_t i = 0; i < n; i++)
			if (!u || v[i] != v[u - 1])
				v[u++] = v[i];
		f->level_num = v;
		f->nlevels = u;
		if (!(f->levels = calloc(u ? u : 1, sizeof(char *))))
			return -1;
		for (size_t i = 0; i < u; i++) {
			char buf[48];
			if (f->levels_integer)
				snprintf(buf, sizeof(buf), "%.0f", v[i]);
			else
				py_repr(v[i], buf, sizeof(buf));
			if (!(f->levels[i] = strdup(buf)))
				return -1;
		}
		return 0;
	}
	char **s = malloc((nrows ? nrows : 1) * sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < nrows; i++)
		if (used[i])
			s[n++] = c->cells[i];
	qsort(s, n, sizeof(*s), cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || strcmp(s[i], s[u - 1]))
			s[u++] = s[i];
	f->nlevels = u;
	f->levels = s;
	for (size_t i = 0; i < u; i++)
		if (!(s[i] = strdup(s[i]))) {
			f->nlevels = i; /* the rest still belong to the table */
			return -1;
		}
	return 0;
}

/* Level index of a row's cell (binary search over the sorted levels). */
static size_t level_of(const dmls_factor *f, const dmls_column *c, size_t row)
{
	size_t lo = 0, hi = f->nlevels;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int r = f->levels_numeric ? cmp_double(&c->num[row], &f->level_num[mid])
					  : strcmp(c->cells[row], f->levels[mid]);
		if (r == 0)
			return mid;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/* Find each factor's column and decide numeric or categorical. */
static int bind_factor(dmls_factor *f, const dmls_table *t, long *col, int response,
		       dmls_error *err)
{
	*col = dmls_table_find(t, f->var);
	if (*col < 0)
		return dmls_fail(err, DMLS_EBAD, "'%s': missing column '%s'", t->name, f->var);
	const dmls_column *c = &t->cols[*col];
	if (c->type == DMLS_COL_EMPTY)
		return dmls_fail(err, DMLS_EBAD, "'%s': column '%s' has no values", t->name,
				 f->var);
	if (response && f->forced)
		return dmls_fail(err, DMLS_EUSAGE, "the response '%s' cannot be categorical",
				 f->code);
	f->categorical = f->forced || c->type == DMLS_COL_STRING;
	if ((response || !f->categorical || f->fn) && c->type != DMLS_COL_NUMERIC) {
		size_t r = c->first_bad;
		return dmls_fail(err, DMLS_EBAD,
				 "'%s' line %zu: non-numeric value '%s' in column '%s'%s", t->name,
				 r + 2, c->cells[r], f->var,
				 response || f->fn ? "" : " (use C() to make it categorical)");
	}
	return DMLS_OK;
}

/* Mark rows with every needed cell present; count them. */
static size_t mark_rows(const dmls_table *t, const long *cols, size_t ncols, char *used)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		used[i] = 1;
		for (size_t j = 0; j < ncols; j++)
			if (!t->cols[cols[j]].cells[i])
				used[i] = 0;
		n += used[i];
	}
	return n;
}

static int fill_matrices(dmls_design *d, const dmls_table *t, const long *cols,
			 const char *used, dmls_error *err)
{
	const dmls_formula *fm = &d->fm;
	double num[DMLS_MAX_FACTORS];
	size_t level[DMLS_MAX_FACTORS];
	d->X = malloc((d->n * d->ncols + 1) * sizeof(double));
	d->y = malloc((d->n ? d->n : 1) * sizeof(double));
	if (!d->X || !d->y)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t i = 0, r = 0; i < t->nrows; i++) {
		if (!used[i])
			continue;
		for (size_t j = 0; j <= fm->nfactors; j++) {
			const dmls_factor *f = j < fm->nfactors ? &fm->factors[j] : &fm->response;
			const dmls_column *c = &t->cols[cols[j]];
			if (f->categorical) {
				level[j] = level_of(f, c, i);
				continue;
			}
			double v = dmls_fn_apply(f->fn, c->num[i]);
			if (!isfinite(v))
				return dmls_fail(err, DMLS_EBAD,
						 "'%s' line %zu: '%s' is not finite for %s = %s",
						 t->name, i + 2, f->code, f->var, c->cells[i]);
			if (j < fm->nfactors)
				num[j] = v;
			else
				d->y[r] = v;
		}
		dmls_design_row(d, num, level, d->X + r * d->ncols);
		r++;
	}
	return DMLS_OK;
}

int dmls_design_build(dmls_design *d, const char *formula, const dmls_table *t,
		      dmls_error *err)
{
	long cols[DMLS_MAX_FACTORS + 1];
	char *used = NULL;
	int st;
	memset(d, 0, sizeof(*d));
	if ((st = dmls_formula_parse(&d->fm, formula, err)))
		return st;
	dmls_formula *fm = &d->fm;
	for (size_t j = 0; j <= fm->nfactors; j++) { /* the response first */
		size_t i = j ? j - 1 : fm->nfactors;
		dmls_factor *f = i < fm->nfactors ? &fm->factors[i] : &fm->response;
		if ((st = bind_factor(f, t, &cols[i], i == fm->nfactors, err)))
			goto fail;
	}
	if (!(used = malloc(t->nrows ? t->nrows : 1)))
		goto oom;
	d->n = mark_rows(t, cols, fm->nfactors + 1, used);
	d->dropped = t->nrows - d->n;
	if (d->n == 0) {
		st = dmls_fail(err, DMLS_EBAD, "'%s': no row has all of the formula's columns",
			       t->name);
		goto fail;
	}
	for (size_t j = 0; j < fm->nfactors; j++)
		if (fm->factors[j].categorical &&
		    factor_levels(&fm->factors[j], &t->cols[cols[j]], used, t->nrows))
			goto oom;
	if ((st = dmls_design_code(d, err)) || (st = fill_matrices(d, t, cols, used, err)))
		goto fail;
	free(used);
	return DMLS_OK;
oom:
	st = dmls_fail(err, DMLS_ENOMEM, "out of memory");
fail:
	free(used);
	dmls_design_release(d);
	return st;
}

void dmls_design_release(dmls_design *d)
{
	dmls_formula_release(&d->fm);
	for (size_t i = 0; d->names && i < d->ncols; i++)
		free(d->names[i]);
	free(d->names);
	free(d->subs);
	free(d->X);
	free(d->y);
	memset(d, 0, sizeof(*d));
}
