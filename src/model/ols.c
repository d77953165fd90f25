/*
 * ols.c - ordinary least squares with statsmodels' OLS statistics.
 *
 * Solution: the SVD X = U S V' (GSL one-sided Jacobi, accurate for small
 * singular values), b = V S^+ U' y, the minimum-norm least-squares solution
 * that statsmodels' default method="pinv" gives; singular values at or below
 * tol = s_max * max(n, k) * DBL_EPSILON count as zero (numpy matrix_rank's
 * tolerance, which statsmodels uses for the rank).  (X'X)^+ = V S^-2 V'.
 *
 * Statistics (statsmodels.regression.linear_model.RegressionResults; Greene,
 * Econometric Analysis, 7th ed., ch. 4-5):
 *   df_resid = n - rank, df_model = rank - k_constant, scale = SSR / df_resid
 *   std_err_j = sqrt(scale * (X'X)^+_jj), t_j = b_j / std_err_j,
 *   p_j = 2 Q_t(|t_j|; df_resid), CI = b_j -/+ t_0.975(df_resid) std_err_j
 *   R2 = 1 - SSR/TSS with TSS centred when the model has a constant
 *   (k_constant = 1), uncentred (sum y^2) otherwise;
 *   adj R2 = 1 - (n - k_constant) / df_resid * (1 - R2)
 *   F = (ESS / df_model) / (SSR / df_resid), p = Q_F(F; df_model, df_resid)
 *   llf = -n/2 log(2 pi) - n/2 log(SSR / n) - n/2
 *   AIC = -2 llf + 2 (df_model + k_constant), BIC = -2 llf + log(n) (...)
 *   condition number = s_max / s_min = sqrt(eig_max / eig_min of X'X)
 * k_constant follows statsmodels' _handle_constant: a constant non-zero
 * column, or else a constant the columns span (rank [1 X] == rank X).
 * Residual diagnostics: diag.c.  dmls_fit_design (last): the fit of a
 * design, its cross-validation and its warnings.
 */
#include "dmlscope/model.h"
#include "model/internal.h"

#include <float.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The SVD of an n x k matrix (n padded with zero rows up to k). */
typedef struct svd {
	size_t rows, k;
	gsl_matrix *U, *V;
	gsl_vector *S;
	double tol;
	size_t rank;
} svd;

static void svd_release(svd *s)
{
	if (s->U)
		gsl_matrix_free(s->U);
	if (s->V)
		gsl_matrix_free(s->V);
	if (s->S)
		gsl_vector_free(s->S);
	memset(s, 0, sizeof(*s));
}

/* SVD of the rows of X for which keep(i) (all when keep is NULL), scaled
 * to unit-length columns when unit. */
static int svd_compute(svd *s, const double *X, size_t n, size_t k, const char *keep, int unit)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += !keep || keep[i];
	memset(s, 0, sizeof(*s));
	s->rows = m > k ? m : k;
	s->k = k;
	s->U = gsl_matrix_calloc(s->rows, k);
	s->V = gsl_matrix_alloc(k, k);
	s->S = gsl_vector_alloc(k);
	if (!s->U || !s->V || !s->S) {
		svd_release(s);
		return -1;
	}
	for (size_t i = 0, r = 0; i < n; i++)
		if (!keep || keep[i]) {
			for (size_t j = 0; j < k; j++)
				gsl_matrix_set(s->U, r, j, X[i * k + j]);
			r++;
		}
	if (unit)
		for (size_t j = 0; j < k; j++) {
			gsl_vector_view c = gsl_matrix_column(s->U, j);
			double nrm = gsl_blas_dnrm2(&c.vector);
			if (nrm > 0)
				gsl_vector_scale(&c.vector, 1.0 / nrm);
		}
	gsl_linalg_SV_decomp_jacobi(s->U, s->V, s->S);
	double smax = gsl_vector_max(s->S);
	s->tol = smax * (double)(m > k ? m : k) * DBL_EPSILON;
	for (size_t j = 0; j < k; j++)
		s->rank += gsl_vector_get(s->S, j) > s->tol;
	return 0;
}

/* b = V S^+ U' y over the kept rows. */
static void svd_solve(const svd *s, const double *y, size_t n, const char *keep, double *b)
{
	double *uty = calloc(s->k ? s->k : 1, sizeof(double));
	if (!uty)
		return;
	for (size_t j = 0; j < s->k; j++) {
		double sj = gsl_vector_get(s->S, j), acc = 0;
		if (sj <= s->tol)
			continue;
		for (size_t i = 0, r = 0; i < n; i++)
			if (!keep || keep[i])
				acc += gsl_matrix_get(s->U, r++, j) * y[i];
		uty[j] = acc / sj;
	}
	for (size_t a = 0; a < s->k; a++) {
		double acc = 0;
		for (size_t j = 0; j < s->k; j++)
			acc += gsl_matrix_get(s->V, a, j) * uty[j];
		b[a] = acc;
	}
	free(uty);
}

static double smin_ratio(const svd *s)
{
	double smax = gsl_vector_max(s->S), smin = gsl_vector_min(s->S);
	return smin > 0 ? smax / smin : INFINITY;
}

/* statsmodels' _handle_constant (hasconst=None). */
static int detect_constant(const double *X, size_t n, size_t k, size_t rank)
{
	int nconst = 0, found = 0;
	for (size_t j = 0; j < k && n; j++) {
		double lo = X[j], hi = X[j];
		for (size_t i = 1; i < n; i++) {
			double v = X[i * k + j];
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		if (lo == hi) {
			nconst++;
			found |= lo != 0;
		}
	}
	if (found)
		return 1;
	/* implicit constant: does [1 X] have the rank of X? */
	double *A = malloc(n * (k + 1) * sizeof(double));
	if (!A)
		return 0;
	for (size_t i = 0; i < n; i++) {
		A[i * (k + 1)] = 1.0;
		memcpy(A + i * (k + 1) + 1, X + i * k, k * sizeof(double));
	}
	svd s;
	int kc = 0;
	if (!svd_compute(&s, A, n, k + 1, NULL, 0)) {
		kc = s.rank == rank;
		svd_release(&s);
	}
	free(A);
	return kc;
}

double dmls_t975(double df)
{
	if (!(df > 0))
		return NAN;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	double q = gsl_cdf_tdist_Qinv(0.025, df);
	gsl_set_error_handler(old);
	return q;
}

static void coef_stats(dmls_fit *fit, const double *b)
{
	double q = dmls_t975(fit->df_resid);
	for (size_t j = 0; j < fit->k; j++) {
		dmls_coef *c = &fit->coefs[j];
		c->coef = b[j];
		c->std_err = sqrt(fit->scale * fit->cov_unscaled[j * fit->k + j]);
		c->t = c->coef / c->std_err;
		c->p = isfinite(c->t) ? 2 * gsl_cdf_tdist_Q(fabs(c->t), fit->df_resid) : NAN;
		c->ci_low = c->coef - q * c->std_err;
		c->ci_high = c->coef + q * c->std_err;
	}
}

static void model_stats(dmls_fit *fit, const double *y)
{
	double n = (double)fit->n, mean = 0, ctss = 0, utss = 0;
	for (size_t i = 0; i < fit->n; i++)
		mean += y[i] / n;
	for (size_t i = 0; i < fit->n; i++) {
		ctss += (y[i] - mean) * (y[i] - mean);
		utss += y[i] * y[i];
	}
	fit->tss = fit->k_constant ? ctss : utss;
	fit->ess = fit->tss - fit->ssr;
	fit->r2 = 1 - fit->ssr / fit->tss;
	fit->adj_r2 = 1 - (n - fit->k_constant) / fit->df_resid * (1 - fit->r2);
	fit->f_stat = fit->df_model > 0 ? (fit->ess / fit->df_model) / fit->scale : NAN;
	fit->f_p = isfinite(fit->f_stat)
			   ? gsl_cdf_fdist_Q(fit->f_stat, fit->df_model, fit->df_resid)
			   : NAN;
	fit->llf = -n / 2 * log(2 * M_PI) - n / 2 * log(fit->ssr / n) - n / 2;
	double p = fit->df_model + fit->k_constant;
	fit->aic = -2 * fit->llf + 2 * p;
	fit->bic = -2 * fit->llf + log(n) * p;
}

static int ols(dmls_fit *fit, const double *X, const double *y, size_t n, size_t k,
	       dmls_error *err)
{
	svd s, su;
	double *b = NULL, *e = NULL;
	memset(fit, 0, sizeof(*fit));
	fit->cv_rmse = fit->cv_mape = NAN;
	if (k == 0)
		return dmls_fail(err, DMLS_EBAD, "the model has no columns");
	if (n <= k)
		return dmls_fail(err, DMLS_EBAD, "%zu rows for %zu parameters: need more rows "
				 "than parameters", n, k);
	fit->n = n;
	fit->k = k;
	fit->coefs = calloc(k, sizeof(*fit->coefs));
	fit->cov_unscaled = calloc(k * k, sizeof(double));
	b = calloc(k, sizeof(double));
	e = calloc(n, sizeof(double));
	if (!fit->coefs || !fit->cov_unscaled || !b || !e || svd_compute(&s, X, n, k, NULL, 0))
		goto oom;
	if (svd_compute(&su, X, n, k, NULL, 1)) {
		svd_release(&s);
		goto oom;
	}
	fit->rank = s.rank;
	fit->condition_number = smin_ratio(&s);
	fit->scaled_condition_number = smin_ratio(&su);
	svd_release(&su);
	svd_solve(&s, y, n, NULL, b);
	for (size_t a = 0; a < k; a++) /* (X'X)^+ = V S^-2 V' */
		for (size_t c = 0; c < k; c++) {
			double acc = 0;
			for (size_t j = 0; j < k; j++) {
				double sj = gsl_vector_get(s.S, j);
				if (sj > s.tol)
					acc += gsl_matrix_get(s.V, a, j) *
					       gsl_matrix_get(s.V, c, j) / (sj * sj);
			}
			fit->cov_unscaled[a * k + c] = acc;
		}
	svd_release(&s);
	for (size_t i = 0; i < n; i++) {
		double yh = 0;
		for (size_t j = 0; j < k; j++)
			yh += X[i * k + j] * b[j];
		e[i] = y[i] - yh;
		fit->ssr += e[i] * e[i];
	}
	fit->k_constant = detect_constant(X, n, k, fit->rank);
	fit->df_resid = (double)(n - fit->rank);
	fit->df_model = (double)fit->rank - fit->k_constant;
	fit->scale = fit->ssr / fit->df_resid;
	coef_stats(fit, b);
	model_stats(fit, y);
	dmls_resid_diagnostics(fit, e);
	free(b);
	free(e);
	return DMLS_OK;
oom:
	free(b);
	free(e);
	dmls_fit_release(fit);
	return dmls_fail(err, DMLS_ENOMEM, "out of memory");
}

/*
 * GSL's default error handler aborts the process: the public entry points
 * turn it off while GSL runs (the results are checked instead) and restore
 * the caller's handler before they return.
 */
int dmls_ols(dmls_fit *fit, const double *X, const double *y, size_t n, size_t k,
	     dmls_error *err)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = ols(fit, X, y, n, k, err);
	gsl_set_error_handler(old);
	return rc;
}

static int ols_cv(dmls_fit *fit, const double *X, const double *y, size_t n, size_t k,
		  int folds, dmls_error *err)
{
	if (folds > (int)n)
		folds = (int)n;
	fit->cv_folds = 0;
	fit->cv_rmse = fit->cv_mape = NAN;
	if (folds < 2)
		return DMLS_OK;
	char *keep = malloc(n);
	double *b = malloc(k * sizeof(double));
	double sse = 0, ape = 0;
	size_t nape = 0;
	if (!keep || !b) {
		free(keep);
		free(b);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	for (int f = 0; f < folds; f++) {
		svd s;
		for (size_t i = 0; i < n; i++)
			keep[i] = (int)(i % (size_t)folds) != f;
		if (svd_compute(&s, X, n, k, keep, 0)) {
			free(keep);
			free(b);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		svd_solve(&s, y, n, keep, b);
		svd_release(&s);
		for (size_t i = 0; i < n; i++) {
			if (keep[i])
				continue;
			double yh = 0;
			for (size_t j = 0; j < k; j++)
				yh += X[i * k + j] * b[j];
			sse += (y[i] - yh) * (y[i] - yh);
			if (y[i] != 0) {
				ape += fabs((y[i] - yh) / y[i]);
				nape++;
			}
		}
	}
	free(keep);
	free(b);
	fit->cv_folds = folds;
	fit->cv_rmse = sqrt(sse / (double)n);
	fit->cv_mape = nape ? 100.0 * ape / (double)nape : NAN;
	return DMLS_OK;
}

int dmls_ols_cv(dmls_fit *fit, const double *X, const double *y, size_t n, size_t k,
		int folds, dmls_error *err)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = ols_cv(fit, X, y, n, k, folds, err);
	gsl_set_error_handler(old);
	return rc;
}

int dmls_fit_warn(dmls_fit *fit, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char **w = realloc(fit->warnings, (fit->nwarnings + 1) * sizeof(*w));
	if (!w)
		return -1;
	fit->warnings = w;
	if (!(w[fit->nwarnings] = strdup(buf)))
		return -1;
	fit->nwarnings++;
	return 0;
}

void dmls_fit_release(dmls_fit *fit)
{
	free(fit->coefs);
	free(fit->cov_unscaled);
	for (size_t i = 0; i < fit->nwarnings; i++)
		free(fit->warnings[i]);
	free(fit->warnings);
	memset(fit, 0, sizeof(*fit));
}

/* Rows per parameter below which we warn: a common rule of thumb for linear
 * models is 10 to 20 (Harrell, Regression Modeling Strategies, 4.4). */
#define DMLS_ROWS_PER_PARAM 10
/* Condition number of X with unit-length columns above which columns are
 * near-collinear (Belsley, Kuh and Welsch, 1980: 30 moderate, 100 strong). */
#define DMLS_COLLINEAR_COND 100

int dmls_fit_design(dmls_fit *fit, const dmls_design *d, int folds, dmls_error *err)
{
	int st = dmls_ols(fit, d->X, d->y, d->n, d->ncols, err);
	if (st)
		return st;
	if ((st = dmls_ols_cv(fit, d->X, d->y, d->n, d->ncols, folds, err))) {
		dmls_fit_release(fit);
		return st;
	}
	int bad = 0;
	if (d->dropped)
		bad |= dmls_fit_warn(fit, "dropped %zu rows with missing values", d->dropped);
	for (size_t i = 0; i < d->fm.nfactors; i++) {
		const dmls_factor *f = &d->fm.factors[i];
		if (f->categorical && f->nlevels == 1)
			bad |= dmls_fit_warn(fit, "'%s' has a single level ('%s')", f->code,
					     f->levels[0]);
	}
	if (fit->rank < fit->k)
		bad |= dmls_fit_warn(fit, "rank deficient: rank %zu for %zu columns; the "
				     "coefficients are the minimum-norm solution (pinv) and "
				     "not all are identifiable", fit->rank, fit->k);
	else if (fit->scaled_condition_number > DMLS_COLLINEAR_COND)
		bad |= dmls_fit_warn(fit, "near-collinear columns: condition number %.3g "
				     "with unit-length columns (above %d)",
				     fit->scaled_condition_number, DMLS_COLLINEAR_COND);
	if (fit->n < DMLS_ROWS_PER_PARAM * fit->k)
		bad |= dmls_fit_warn(fit, "%.1f rows per parameter (%zu rows, %zu parameters): "
				     "fewer than %d, estimates are fragile",
				     (double)fit->n / (double)fit->k, fit->n, fit->k,
				     DMLS_ROWS_PER_PARAM);
	if (bad) {
		dmls_fit_release(fit);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	return DMLS_OK;
}
