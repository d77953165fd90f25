/*
 * model_io.c - a fitted model saved as JSON, and loaded back for prediction.
 *
 * The file holds what prediction needs and nothing that could go stale:
 *   {"dmlscope_model": 1, "formula": "...", "response": "y",
 *    "factors": [{"code", "var", "categorical", "levels_numeric",
 *                 "levels_integer", "levels": [...], "level_values": [...]}],
 *    "columns": [...], "coefficients": [...],
 *    "cov_unscaled": [[...]]  ((X'X)^+, statsmodels' normalized_cov_params),
 *    "scale": sigma^2, "df_resid": ..., "n": ..., "rank": ...}
 * Loading re-parses the formula, gives its factors the saved levels and
 * re-derives the coding (coding.c), then checks the column names agree, so a
 * file edited by hand cannot silently mean something else.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/model.h"
#include "model/json_num.h"

static json_t *factor_json(const dmls_factor *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "code", json_string(f->code));
	json_object_set_new(o, "var", json_string(f->var));
	json_object_set_new(o, "categorical", json_boolean(f->categorical));
	if (!f->categorical)
		return o;
	json_object_set_new(o, "levels_numeric", json_boolean(f->levels_numeric));
	json_object_set_new(o, "levels_integer", json_boolean(f->levels_integer));
	json_t *lv = json_array(), *vals = json_array();
	for (size_t i = 0; i < f->nlevels; i++) {
		json_array_append_new(lv, json_string(f->levels[i]));
		if (f->levels_numeric)
			json_array_append_new(vals, json_real(f->level_num[i]));
	}
	json_object_set_new(o, "levels", lv);
	if (f->levels_numeric)
		json_object_set_new(o, "level_values", vals);
	else
		json_decref(vals);
	return o;
}

int dmls_model_save(const char *path, const dmls_design *d, const dmls_fit *fit,
		    dmls_error *err)
{
	json_t *o = json_object(), *fs = json_array(), *cols = json_array();
	json_t *b = json_array(), *cov = json_array();
	json_object_set_new(o, "dmlscope_model", json_integer(1));
	json_object_set_new(o, "formula", json_string(d->fm.text));
	json_object_set_new(o, "response", json_string(d->fm.response.code));
	for (size_t i = 0; i < d->fm.nfactors; i++)
		json_array_append_new(fs, factor_json(&d->fm.factors[i]));
	for (size_t j = 0; j < d->ncols; j++) {
		json_t *r = json_array();
		json_array_append_new(cols, json_string(d->names[j]));
		json_array_append_new(b, json_real(fit->coefs[j].coef));
		for (size_t c = 0; c < d->ncols; c++)
			json_array_append_new(r, json_real(fit->cov_unscaled[j * d->ncols + c]));
		json_array_append_new(cov, r);
	}
	json_object_set_new(o, "factors", fs);
	json_object_set_new(o, "columns", cols);
	json_object_set_new(o, "coefficients", b);
	json_object_set_new(o, "cov_unscaled", cov);
	json_object_set_new(o, "scale", json_num(fit->scale));
	json_object_set_new(o, "df_resid", json_num(fit->df_resid));
	json_object_set_new(o, "n", json_integer((json_int_t)fit->n));
	json_object_set_new(o, "rank", json_integer((json_int_t)fit->rank));
	int rc = json_dump_file(o, path, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(o);
	return rc ? dmls_fail(err, DMLS_EIO, "'%s': cannot write the model", path) : DMLS_OK;
}

static int bad(dmls_error *err, const char *name, const char *what)
{
	return dmls_fail(err, DMLS_EBAD, "'%s': not a dmlscope model: %s", name, what);
}

/* Give factor f the levels saved in o. */
static int load_levels(dmls_factor *f, json_t *o, const char *name, dmls_error *err)
{
	f->categorical = json_is_true(json_object_get(o, "categorical"));
	if (!f->categorical)
		return DMLS_OK;
	f->levels_numeric = json_is_true(json_object_get(o, "levels_numeric"));
	f->levels_integer = json_is_true(json_object_get(o, "levels_integer"));
	json_t *lv = json_object_get(o, "levels"), *vals = json_object_get(o, "level_values");
	size_t n = json_array_size(lv);
	if (!json_is_array(lv) || n == 0 ||
	    (f->levels_numeric && json_array_size(vals) != n))
		return bad(err, name, "bad levels");
	f->levels = calloc(n, sizeof(char *));
	f->level_num = calloc(n, sizeof(double));
	if (!f->levels || !f->level_num)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(lv, i));
		if (!s || !(f->levels[i] = strdup(s)))
			return bad(err, name, "bad levels");
		f->nlevels = i + 1;
		if (f->levels_numeric)
			f->level_num[i] = json_number_value(json_array_get(vals, i));
	}
	return DMLS_OK;
}

static int load_factors(dmls_model *m, json_t *root, const char *name, dmls_error *err)
{
	json_t *fs = json_object_get(root, "factors");
	for (size_t i = 0; i < m->d.fm.nfactors; i++) {
		dmls_factor *f = &m->d.fm.factors[i];
		json_t *o = NULL;
		for (size_t j = 0; j < json_array_size(fs); j++) {
			const char *code = json_string_value(json_object_get(json_array_get(fs, j), "code"));
			if (code && !strcmp(code, f->code))
				o = json_array_get(fs, j);
		}
		if (!o)
			return bad(err, name, "a factor of the formula is not described");
		int st = load_levels(f, o, name, err);
		if (st)
			return st;
	}
	return DMLS_OK;
}

static int load_numbers(dmls_model *m, json_t *root, const char *name, dmls_error *err)
{
	size_t k = m->d.ncols;
	json_t *cols = json_object_get(root, "columns"), *b = json_object_get(root, "coefficients");
	json_t *cov = json_object_get(root, "cov_unscaled");
	if (json_array_size(cols) != k || json_array_size(b) != k || json_array_size(cov) != k)
		return bad(err, name, "the columns do not match the formula");
	m->beta = calloc(k ? k : 1, sizeof(double));
	m->cov_unscaled = calloc(k * k + 1, sizeof(double));
	if (!m->beta || !m->cov_unscaled)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	for (size_t j = 0; j < k; j++) {
		const char *cn = json_string_value(json_array_get(cols, j));
		json_t *r = json_array_get(cov, j);
		if (!cn || strcmp(cn, m->d.names[j]) || !json_is_number(json_array_get(b, j)) ||
		    json_array_size(r) != k)
			return bad(err, name, "the columns do not match the formula");
		m->beta[j] = json_number_value(json_array_get(b, j));
		for (size_t c = 0; c < k; c++)
			m->cov_unscaled[j * k + c] = json_number_value(json_array_get(r, c));
	}
	json_t *s = json_object_get(root, "scale"), *df = json_object_get(root, "df_resid");
	if (!json_is_number(s) || !json_is_number(df))
		return bad(err, name, "no scale or df_resid");
	m->scale = json_number_value(s);
	m->df_resid = json_number_value(df);
	return DMLS_OK;
}

int dmls_model_from_json(dmls_model *m, json_t *root, const char *name, dmls_error *err)
{
	memset(m, 0, sizeof(*m));
	const char *formula = json_string_value(json_object_get(root, "formula"));
	if (!json_is_object(root) || !json_object_get(root, "dmlscope_model") || !formula)
		return bad(err, name, "no 'dmlscope_model' or 'formula'");
	int st = dmls_formula_parse(&m->d.fm, formula, err);
	if (st == DMLS_EUSAGE) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "bad formula");
		return bad(err, name, msg);
	}
	if (st)
		return st;
	if ((st = load_factors(m, root, name, err)) || (st = dmls_design_code(&m->d, err)) ||
	    (st = load_numbers(m, root, name, err))) {
		dmls_model_release(m);
		return st;
	}
	return DMLS_OK;
}

int dmls_model_load(dmls_model *m, const char *path, dmls_error *err)
{
	json_error_t je;
	memset(m, 0, sizeof(*m));
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		if (je.line < 0 || strstr(je.text, "unable to open"))
			return dmls_fail(err, DMLS_EIO, "'%s': %s", path, je.text);
		return dmls_fail(err, DMLS_EBAD, "'%s': not a dmlscope model: line %d: %s", path,
				 je.line, je.text);
	}
	int st = dmls_model_from_json(m, root, path, err);
	json_decref(root);
	return st;
}

void dmls_model_release(dmls_model *m)
{
	dmls_design_release(&m->d);
	free(m->beta);
	free(m->cov_unscaled);
	memset(m, 0, sizeof(*m));
}
