/*
 * predict.c - prediction for a new job from a saved model.
 *
 * For a new row x (built by the same coding as the fit):
 *   mean    = x'b
 *   se_mean = sqrt(s^2 x'(X'X)^+ x)          the standard error of the mean
 *   se_obs  = sqrt(s^2 + se_mean^2)          of one new observation
 *   95 % intervals: mean -/+ t_0.975(df_resid) * se
 * (Greene, Econometric Analysis, 7th ed., 4.6 "Prediction"; statsmodels'
 * get_prediction().summary_frame() gives mean_ci_* and obs_ci_*.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/model.h"

/* The value given for var in "var=value" settings, or NULL. */
static const char *lookup(const char *const *kv, size_t nkv, const char *var)
{
	size_t l = strlen(var);
	for (size_t i = 0; i < nkv; i++)
		if (!strncmp(kv[i], var, l) && kv[i][l] == '=')
			return kv[i] + l + 1;
	return NULL;
}

static int parse_num(const char *s, double *v)
{
	char *end;
	if (!*s)
		return 0;
	*v = strtod(s, &end);
	return *end == '\0' && isfinite(*v);
}

static int unseen(const dmls_factor *f, const char *val, dmls_error *err)
{
	char list[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < f->nlevels && len < sizeof(list) - 8; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					f->levels[i]);
	return dmls_fail(err, DMLS_EBAD, "level '%s' of '%s' was never seen by the model "
			 "(levels: %s)", val, f->code, list);
}

/* One factor's value: its number (transformed) or its level index. */
static int factor_value(const dmls_factor *f, const char *val, double *num, size_t *level,
			dmls_error *err)
{
	double v;
	if (!f->categorical) {
		if (!parse_num(val, &v))
			return dmls_fail(err, DMLS_EBAD, "'%s': non-numeric value '%s'", f->var, val);
		*num = dmls_fn_apply(f->fn, v);
		if (!isfinite(*num))
			return dmls_fail(err, DMLS_EBAD, "'%s' is not finite for %s = %s", f->code,
					 f->var, val);
		return DMLS_OK;
	}
	for (size_t i = 0; i < f->nlevels; i++) {
		int match = f->levels_numeric ? parse_num(val, &v) && v == f->level_num[i]
					      : !strcmp(val, f->levels[i]);
		if (match) {
			*level = i;
			return DMLS_OK;
		}
	}
	return unseen(f, val, err);
}

/* Every setting must name a variable the model reads. */
static int check_keys(const dmls_formula *fm, const char *const *kv, size_t nkv,
		      dmls_error *err)
{
	for (size_t i = 0; i < nkv; i++) {
		const char *eq = strchr(kv[i], '=');
		if (!eq || eq == kv[i])
			return dmls_fail(err, DMLS_EUSAGE, "'%s': expected variable=value", kv[i]);
		int known = 0;
		for (size_t j = 0; j < fm->nfactors; j++) {
			const char *var = fm->factors[j].var;
			known |= strlen(var) == (size_t)(eq - kv[i]) &&
				 !strncmp(var, kv[i], (size_t)(eq - kv[i]));
		}
		if (!known)
			return dmls_fail(err, DMLS_EBAD, "'%.*s' is not a variable of the model "
					 "'%s'", (int)(eq - kv[i]), kv[i], fm->text);
		for (size_t j = 0; j < i; j++) /* a variable given twice: which one? */
			if (!strncmp(kv[j], kv[i], (size_t)(eq - kv[i]) + 1))
				return dmls_fail(err, DMLS_EUSAGE, "'%.*s' given twice ('%s', '%s')",
						 (int)(eq - kv[i]), kv[i], kv[j], kv[i]);
	}
	return DMLS_OK;
}

/* The inverse of a response transform (NAN outside its range). */
static double inverse(int fn, double v)
{
	switch (fn) {
	case DMLS_FN_LOG: return exp(v);
	case DMLS_FN_LOG10: return pow(10, v);
	case DMLS_FN_LOG2: return exp2(v);
	case DMLS_FN_EXP: return v > 0 ? log(v) : NAN;
	case DMLS_FN_SQRT: return v >= 0 ? v * v : NAN;
	default: return v;
	}
}

int dmls_model_predict(const dmls_model *m, const char *const *kv, size_t nkv,
		       dmls_prediction *out, dmls_error *err)
{
	const dmls_design *d = &m->d;
	double num[DMLS_MAX_FACTORS] = {0};
	size_t level[DMLS_MAX_FACTORS] = {0};
	int st = check_keys(&d->fm, kv, nkv, err);
	if (st)
		return st;
	for (size_t j = 0; j < d->fm.nfactors; j++) {
		const dmls_factor *f = &d->fm.factors[j];
		const char *val = lookup(kv, nkv, f->var);
		if (!val)
			return dmls_fail(err, DMLS_EBAD, "missing variable '%s' (give %s=VALUE)",
					 f->var, f->var);
		if ((st = factor_value(f, val, &num[j], &level[j], err)))
			return st;
	}
	size_t k = d->ncols;
	double *x = malloc((k ? k : 1) * sizeof(double));
	if (!x)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	dmls_design_row(d, num, level, x);
	double mean = 0, q = 0;
	for (size_t a = 0; a < k; a++) {
		mean += x[a] * m->beta[a];
		for (size_t c = 0; c < k; c++)
			q += x[a] * m->cov_unscaled[a * k + c] * x[c];
	}
	free(x);
	double t = dmls_t975(m->df_resid);
	out->mean = mean;
	out->se_mean = sqrt(m->scale * q);
	out->se_obs = sqrt(m->scale + out->se_mean * out->se_mean);
	out->ci_low = mean - t * out->se_mean;
	out->ci_high = mean + t * out->se_mean;
	out->pi_low = mean - t * out->se_obs;
	out->pi_high = mean + t * out->se_obs;
	out->df = m->df_resid;
	out->back = 0;
	int fn = d->fm.response.fn;
	if (fn != DMLS_FN_NONE) {
		out->back = 1;
		out->y = inverse(fn, mean);
		out->y_ci_low = inverse(fn, out->ci_low);
		out->y_ci_high = inverse(fn, out->ci_high);
		out->y_pi_low = inverse(fn, out->pi_low);
		out->y_pi_high = inverse(fn, out->pi_high);
	}
	return DMLS_OK;
}
