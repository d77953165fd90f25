/*
 * fit_json.c - the `fit --json` document (doc/contract.md).
 *
 * Contract keys: n, k, formula, response, coefficients[] {name, coef,
 * std_err, t, p, ci_low, ci_high}, r2, adj_r2, f_stat, f_p, log_likelihood,
 * aic, bic, condition_number, df_resid, cv {folds, rmse, mape}.  Added:
 * rank, df_model, k_constant, scale, ssr, scaled_condition_number,
 * diagnostics {omnibus, omnibus_p, skew, kurtosis, jarque_bera, jb_p,
 * durbin_watson}, dropped_rows, warnings[].  NaN and infinity are null;
 * cv.mape is in percent.
 */
#include <jansson.h>

#include "dmlscope/model.h"
#include "model/json_num.h"

static json_t *coefs_json(const dmls_design *d, const dmls_fit *fit)
{
	json_t *a = json_array();
	for (size_t j = 0; j < fit->k; j++) {
		const dmls_coef *c = &fit->coefs[j];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(d->names[j]));
		json_object_set_new(o, "coef", json_num(c->coef));
		json_object_set_new(o, "std_err", json_num(c->std_err));
		json_object_set_new(o, "t", json_num(c->t));
		json_object_set_new(o, "p", json_num(c->p));
		json_object_set_new(o, "ci_low", json_num(c->ci_low));
		json_object_set_new(o, "ci_high", json_num(c->ci_high));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *dmls_fit_to_json(const dmls_design *d, const dmls_fit *fit)
{
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer((json_int_t)fit->n));
	json_object_set_new(o, "k", json_integer((json_int_t)fit->k));
	json_object_set_new(o, "formula", json_string(d->fm.text));
	json_object_set_new(o, "response", json_string(d->fm.response.code));
	json_object_set_new(o, "coefficients", coefs_json(d, fit));
	json_object_set_new(o, "r2", json_num(fit->r2));
	json_object_set_new(o, "adj_r2", json_num(fit->adj_r2));
	json_object_set_new(o, "f_stat", json_num(fit->f_stat));
	json_object_set_new(o, "f_p", json_num(fit->f_p));
	json_object_set_new(o, "log_likelihood", json_num(fit->llf));
	json_object_set_new(o, "aic", json_num(fit->aic));
	json_object_set_new(o, "bic", json_num(fit->bic));
	json_object_set_new(o, "condition_number", json_num(fit->condition_number));
	json_object_set_new(o, "df_resid", json_num(fit->df_resid));
	json_t *cv = json_object();
	json_object_set_new(cv, "folds", json_integer(fit->cv_folds));
	json_object_set_new(cv, "rmse", json_num(fit->cv_rmse));
	json_object_set_new(cv, "mape", json_num(fit->cv_mape));
	json_object_set_new(o, "cv", cv);
	json_object_set_new(o, "rank", json_integer((json_int_t)fit->rank));
	json_object_set_new(o, "df_model", json_num(fit->df_model));
	json_object_set_new(o, "k_constant", json_integer(fit->k_constant));
	json_object_set_new(o, "scale", json_num(fit->scale));
	json_object_set_new(o, "ssr", json_num(fit->ssr));
	json_object_set_new(o, "scaled_condition_number",
			    json_num(fit->scaled_condition_number));
	json_t *dg = json_object();
	json_object_set_new(dg, "omnibus", json_num(fit->omnibus));
	json_object_set_new(dg, "omnibus_p", json_num(fit->omnibus_p));
	json_object_set_new(dg, "skew", json_num(fit->skew));
	json_object_set_new(dg, "kurtosis", json_num(fit->kurtosis));
	json_object_set_new(dg, "jarque_bera", json_num(fit->jarque_bera));
	json_object_set_new(dg, "jb_p", json_num(fit->jb_p));
	json_object_set_new(dg, "durbin_watson", json_num(fit->durbin_watson));
	json_object_set_new(o, "diagnostics", dg);
	json_object_set_new(o, "dropped_rows", json_integer((json_int_t)d->dropped));
	json_t *w = json_array();
	for (size_t i = 0; i < fit->nwarnings; i++)
		json_array_append_new(w, json_string(fit->warnings[i]));
	json_object_set_new(o, "warnings", w);
	return o;
}
