/*
 * fit_text.c - the fit printed like statsmodels' OLS summary().
 *
 * Same three tables in the same places (model, coefficients, residual
 * diagnostics) and the same number formats (statsmodels.iolib's forg: fixed
 * with 3 or 4 decimals, %g beyond 1e4 or below 1e-4).  Where statsmodels
 * prints the date and time we print the cross-validation results, so that
 * the output is reproducible.  "R-squared (uncentered)" without a constant,
 * as statsmodels does.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dmlscope/model.h"

/* statsmodels.iolib.summary.forg */
static const char *forg(char *buf, size_t cap, double x, int prec)
{
	if (!isfinite(x))
		snprintf(buf, cap, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
	else if (fabs(x) >= 1e4 || fabs(x) < 1e-4)
		snprintf(buf, cap, "%.*g", prec, x);
	else
		snprintf(buf, cap, "%.*f", prec, x);
	return buf;
}

static const char *fmt(char *buf, size_t cap, const char *f, double x)
{
	if (!isfinite(x))
		snprintf(buf, cap, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
	else
		snprintf(buf, cap, f, x);
	return buf;
}

static void rule(FILE *f, int c, int width)
{
	for (int i = 0; i < width; i++)
		fputc(c, f);
	fputc('\n', f);
}

static void row(FILE *f, const char *l, const char *lv, const char *r, const char *rv)
{
	fprintf(f, "%-20s%17.17s   %-22s%16s\n", l, lv, r, rv);
}

static void header(FILE *f, const dmls_design *d, const dmls_fit *fit)
{
	char a[64], b[64], c[64];
	const char *r2 = fit->k_constant ? "R-squared:" : "R-squared (uncentered):";
	const char *ar2 = fit->k_constant ? "Adj. R-squared:" : "Adj. R-squared (uncentered):";
	fprintf(f, "%*s\n", (78 + 22) / 2, "OLS Regression Results");
	rule(f, '=', 78);
	row(f, "Dep. Variable:", d->fm.response.code, r2, fmt(a, 64, "%.3f", fit->r2));
	row(f, "Model:", "OLS", ar2, fmt(a, 64, "%.3f", fit->adj_r2));
	row(f, "Method:", "Least Squares", "F-statistic:", fmt(a, 64, "%#.4g", fit->f_stat));
	snprintf(b, 64, "%d", fit->cv_folds);
	row(f, "CV folds:", b, "Prob (F-statistic):", fmt(a, 64, "%#.3g", fit->f_p));
	row(f, "CV RMSE:", forg(b, 64, fit->cv_rmse, 4), "Log-Likelihood:",
	    fmt(a, 64, "%#.5g", fit->llf));
	snprintf(c, 64, "%zu", fit->n);
	row(f, "No. Observations:", c, "AIC:", fmt(a, 64, "%#.4g", fit->aic));
	snprintf(c, 64, "%.0f", fit->df_resid);
	row(f, "Df Residuals:", c, "BIC:", fmt(a, 64, "%#.4g", fit->bic));
	snprintf(c, 64, "%.0f", fit->df_model);
	row(f, "Df Model:", c, "CV MAPE (%):", forg(b, 64, fit->cv_mape, 3));
	row(f, "Covariance Type:", "nonrobust", "", "");
}

static void coef_table(FILE *f, const dmls_design *d, const dmls_fit *fit, int nw, int width)
{
	char v[6][48];
	rule(f, '=', width);
	fprintf(f, "%-*s %10s %10s %10s %10s %11s %11s\n", nw, "", "coef", "std err", "t",
		"P>|t|", "[0.025", "0.975]");
	rule(f, '-', width);
	for (size_t j = 0; j < fit->k; j++) {
		const dmls_coef *c = &fit->coefs[j];
		fprintf(f, "%-*s %10s %10s %10s %10s %11s %11s\n", nw, d->names[j],
			forg(v[0], 48, c->coef, 4), forg(v[1], 48, c->std_err, 3),
			forg(v[2], 48, c->t, 3), fmt(v[3], 48, "%.3f", c->p),
			forg(v[4], 48, c->ci_low, 3), forg(v[5], 48, c->ci_high, 3));
	}
	rule(f, '=', width);
}

static void footer(FILE *f, const dmls_fit *fit)
{
	char a[48], b[48];
	row(f, "Omnibus:", fmt(a, 48, "%.3f", fit->omnibus), "Durbin-Watson:",
	    fmt(b, 48, "%.3f", fit->durbin_watson));
	row(f, "Prob(Omnibus):", fmt(a, 48, "%.3f", fit->omnibus_p), "Jarque-Bera (JB):",
	    fmt(b, 48, "%.3f", fit->jarque_bera));
	row(f, "Skew:", fmt(a, 48, "%.3f", fit->skew), "Prob(JB):",
	    fmt(b, 48, "%.3g", fit->jb_p));
	row(f, "Kurtosis:", fmt(a, 48, "%.3f", fit->kurtosis), "Cond. No.",
	    fmt(b, 48, "%#.3g", fit->condition_number));
	rule(f, '=', 78);
	fprintf(f, "\nNotes:\n[1] Standard Errors assume that the covariance matrix of the "
		   "errors is correctly specified.\n");
	if (fit->rank < fit->k)
		fprintf(f, "[2] The design matrix has rank %zu for %zu columns: it is singular.\n",
			fit->rank, fit->k);
	else if (fit->condition_number > 1000)
		fprintf(f, "[2] The condition number is large, %.3g. This might indicate that "
			   "there are\nstrong multicollinearity or other numerical problems.\n",
			fit->condition_number);
	if (fit->nwarnings) {
		fprintf(f, "\nWarnings:\n");
		for (size_t i = 0; i < fit->nwarnings; i++)
			fprintf(f, "- %s\n", fit->warnings[i]);
	}
}

void dmls_fit_print_text(FILE *f, const dmls_design *d, const dmls_fit *fit)
{
	int nw = 14;
	for (size_t j = 0; j < fit->k; j++)
		if ((int)strlen(d->names[j]) > nw)
			nw = (int)strlen(d->names[j]);
	int width = nw + 66 > 78 ? nw + 66 : 78;
	header(f, d, fit);
	coef_table(f, d, fit, nw, width);
	footer(f, fit);
}
