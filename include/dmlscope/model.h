/*
 * model.h - the study's regression, done right: tables, formulas, OLS, prediction.
 *
 * The pipeline, each stage callable alone (no disk, no printing):
 *
 *   dmls_table      columns of cells read from a CSV (or built from a dataset
 *                   folder); each column knows whether all its cells are numbers
 *   dmls_formula    a patsy/R formula "y ~ a + C(b) + a:b - 1" parsed into factors
 *                   and terms (src/model/formula.c)
 *   dmls_design     the formula bound to a table: categorical levels, patsy's
 *                   contrast coding and column names, and the rows of X and y
 *                   (src/model/design.c)
 *   dmls_fit        ordinary least squares with statsmodels' statistics, residual
 *                   diagnostics and k-fold cross-validation (src/model/ols.c, cv.c)
 *   dmls_model      what prediction needs, saved to and loaded from JSON
 *                   (src/model/model_io.c, predict.c)
 *
 * Numbers follow statsmodels' OLS (statsmodels.regression.linear_model) so a
 * user can check ours against it to 1e-6; formulas follow patsy's rules for
 * term order and redundancy-free coding (patsy docs, "Coding categorical data"
 * and "How formulas work / technical details").
 *
 * Missing cells ("", NA, NaN, nan, NULL, null, None, N/A) drop their row, like
 * statsmodels' missing='drop' for formulas.  A column whose present cells are
 * all numbers is numeric; a column with no number at all is categorical, and a
 * column mixing both is an error unless wrapped in C() (patsy would silently
 * make it categorical; we refuse, since one typo would change the model).
 */
#ifndef DMLSCOPE_MODEL_H
#define DMLSCOPE_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlscope/error.h"

/* ---- tables ------------------------------------------------------------ */

enum dmls_coltype {
	DMLS_COL_EMPTY = 0,   /* every cell missing */
	DMLS_COL_NUMERIC = 1, /* every present cell is a number */
	DMLS_COL_STRING = 2,  /* no present cell is a number */
	DMLS_COL_MIXED = 3,   /* both: usable only inside C() */
};

typedef struct dmls_column {
	char *name;
	char **cells;        /* nrows strings, NULL when missing */
	double *num;         /* the number in each cell, NAN when not a number */
	int type;            /* enum dmls_coltype, set by dmls_table_finish */
	int integer;         /* numeric and every cell an integer literal */
	size_t first_bad;    /* for DMLS_COL_MIXED: first row holding a non-number */
} dmls_column;

typedef struct dmls_table {
	char *name;          /* file or folder, for messages */
	size_t nrows, ncols, cap;
	dmls_column *cols;
} dmls_table;

/* Start an empty table with these column names (copied). */
int dmls_table_init(dmls_table *t, const char *name, const char *const *names, size_t ncols,
		    dmls_error *err);
/* Append one row of ncols cells (copied; NULL or a missing marker = missing). */
int dmls_table_append(dmls_table *t, const char *const *cells, dmls_error *err);
/* Classify columns and parse numbers; call once after the last append. */
void dmls_table_finish(dmls_table *t);
void dmls_table_release(dmls_table *t);
/* Column index of name, or -1. */
long dmls_table_find(const dmls_table *t, const char *name);

/* Read a CSV with a header row (RFC 4180 quoting, CRLF or LF). */
int dmls_table_read_csv(dmls_table *t, FILE *f, const char *name, dmls_error *err);
int dmls_table_load_csv(dmls_table *t, const char *path, dmls_error *err);
/* Write t as CSV (missing cells empty, quoted when needed). */
int dmls_table_write_csv(const dmls_table *t, FILE *f, const char *name, dmls_error *err);

/* Build the per-run feature table of a dataset folder (one run folder per
 * row): mb_per_step, model_size_mb, framework_backend, batch, topology,
 * workers, ...  (src/model/dataset.c). */
int dmls_dataset_table(const char *dir, dmls_table *out, dmls_error *err);

/* The study's formula, "mb_per_step ~ model_size_mb + C(framework_backend) +
 * C(batch) + C(topology)", plus "+ workers" when t has a 'workers' column
 * that varies. */
void dmls_default_formula(const dmls_table *t, char *buf, size_t cap);

/* ---- formulas ---------------------------------------------------------- */

enum dmls_fn { DMLS_FN_NONE = 0, DMLS_FN_LOG, DMLS_FN_LOG10, DMLS_FN_LOG2, DMLS_FN_EXP,
	       DMLS_FN_SQRT };

#define DMLS_MAX_TERM_FACTORS 8
#define DMLS_MAX_FACTORS 64

/* One factor: a column, maybe transformed, maybe forced categorical. */
typedef struct dmls_factor {
	char *code;          /* its name in column names: "x", "C(batch)", "np.log(x)" */
	char *var;           /* the column it reads */
	int fn;              /* enum dmls_fn applied to a numeric column */
	int forced;          /* 1 inside C() */
	/* Filled when bound to data (dmls_design_build) or loaded from a model: */
	int categorical;
	int levels_numeric;  /* levels are numbers, sorted numerically */
	int levels_integer;  /* ... and printed as integers */
	size_t nlevels;
	char **levels;       /* sorted; the text used in column names */
	double *level_num;   /* the numbers when levels_numeric */
} dmls_factor;

/* A term is an interaction of factors, in the order first written. */
typedef struct dmls_term {
	size_t nf;
	size_t f[DMLS_MAX_TERM_FACTORS];
	uint64_t mask;       /* the same factors as a set */
} dmls_term;

typedef struct dmls_formula {
	char *text;          /* as given */
	dmls_factor response;
	size_t nfactors;
	dmls_factor *factors;
	size_t nterms;       /* the intercept, when present, is the term with nf == 0 */
	dmls_term *terms;
	int intercept;
} dmls_formula;

/* Parse "y ~ a + b:C(c) - 1".  Syntax errors are DMLS_EUSAGE and say where. */
int dmls_formula_parse(dmls_formula *fm, const char *text, dmls_error *err);
void dmls_formula_release(dmls_formula *fm);
void dmls_factor_release(dmls_factor *f);

/* ---- design matrices --------------------------------------------------- */

/* A subterm: one term with one coding per categorical factor (patsy). */
typedef struct dmls_subterm {
	size_t nf;
	size_t f[DMLS_MAX_TERM_FACTORS];     /* factor indexes, term order */
	int full[DMLS_MAX_TERM_FACTORS];     /* categorical: 1 full rank, 0 treatment */
} dmls_subterm;

typedef struct dmls_design {
	dmls_formula fm;     /* owned; its factors carry their levels */
	size_t nsub;
	dmls_subterm *subs;
	size_t ncols;
	char **names;        /* column names, patsy style */
	int has_intercept;
	/* The data, when built from a table: */
	size_t n;            /* rows used */
	double *X;           /* n x ncols, row major */
	double *y;           /* n */
	size_t dropped;      /* rows dropped for missing cells */
} dmls_design;

/* Parse text and bind it to t: levels, coding, names and the matrices. */
int dmls_design_build(dmls_design *d, const char *formula, const dmls_table *t,
		      dmls_error *err);
/* Work out coding and column names once the factors know their levels. */
int dmls_design_code(dmls_design *d, dmls_error *err);
/* One design row from per-factor values: num[i] for numeric factors (already
 * transformed), level[i] (an index into levels) for categorical ones. */
void dmls_design_row(const dmls_design *d, const double *num, const size_t *level, double *x);
void dmls_design_release(dmls_design *d);

/* Apply a factor's function; NAN when out of its domain. */
double dmls_fn_apply(int fn, double v);

/* ---- ordinary least squares -------------------------------------------- */

typedef struct dmls_coef {
	double coef, std_err, t, p, ci_low, ci_high; /* 95 % interval */
} dmls_coef;

typedef struct dmls_fit {
	size_t n, k;         /* rows, columns of X */
	size_t rank;
	int k_constant;      /* statsmodels: 1 when X holds or spans a constant */
	dmls_coef *coefs;    /* k */
	double *cov_unscaled;/* k x k: (X'X)^+ (statsmodels normalized_cov_params) */
	double scale;        /* sigma^2 = SSR / df_resid */
	double ssr, ess, tss;
	double df_model, df_resid;
	double r2, adj_r2, f_stat, f_p, llf, aic, bic;
	double condition_number;        /* sqrt(max/min eigenvalue of X'X) */
	double scaled_condition_number; /* the same with unit-length columns */
	/* residual diagnostics, like statsmodels' summary() footer */
	double omnibus, omnibus_p, skew, kurtosis, jarque_bera, jb_p, durbin_watson;
	/* k-fold cross-validation */
	int cv_folds;
	double cv_rmse, cv_mape; /* MAPE in percent, rows with y == 0 skipped */
	size_t nwarnings;
	char **warnings;
} dmls_fit;

/* Fit y = X b by least squares through the SVD (minimum-norm solution, the
 * statsmodels pinv method) and fill every statistic.  DMLS_EBAD when there are
 * not more rows than columns.  These and dmls_t975 turn GSL's error handler
 * off while GSL runs and restore the caller's before they return. */
int dmls_ols(dmls_fit *fit, const double *X, const double *y, size_t n, size_t k,
	     dmls_error *err);
/* Cross-validate: row i is held out in fold i mod folds. */
int dmls_ols_cv(dmls_fit *fit, const double *X, const double *y, size_t n, size_t k,
		int folds, dmls_error *err);
/* The whole fit of a design: OLS, CV, and the warnings a user should see. */
int dmls_fit_design(dmls_fit *fit, const dmls_design *d, int folds, dmls_error *err);
void dmls_fit_release(dmls_fit *fit);
int dmls_fit_warn(dmls_fit *fit, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Quantile of Student's t with df degrees of freedom at 0.975. */
double dmls_t975(double df);

/* ---- rendering (src/out/fit_text.c, fit_json.c) ------------------------- */

/* statsmodels-like summary(). */
void dmls_fit_print_text(FILE *f, const dmls_design *d, const dmls_fit *fit);
/* The `fit --json` object of doc/contract.md (a new reference). */
struct json_t;
struct json_t *dmls_fit_to_json(const dmls_design *d, const dmls_fit *fit);

/* ---- saved models and prediction --------------------------------------- */

/* Save what prediction needs: formula, factors and levels, coding, column
 * names, coefficients, (X'X)^+, sigma^2, df_resid. */
int dmls_model_save(const char *path, const dmls_design *d, const dmls_fit *fit,
		    dmls_error *err);

typedef struct dmls_model {
	dmls_design d;       /* no data: X and y are NULL */
	double *beta;        /* ncols */
	double *cov_unscaled;/* ncols x ncols */
	double scale, df_resid;
} dmls_model;

int dmls_model_load(dmls_model *m, const char *path, dmls_error *err);
int dmls_model_from_json(dmls_model *m, struct json_t *root, const char *name,
			 dmls_error *err);
void dmls_model_release(dmls_model *m);

typedef struct dmls_prediction {
	double mean, se_mean, se_obs;
	double ci_low, ci_high; /* 95 % interval of the mean */
	double pi_low, pi_high; /* 95 % prediction interval of one new observation */
	double df;
	/* A transformed response (np.log(y), np.sqrt(y), ...) back in y's own
	 * units: the inverse applied to the prediction and to each interval's
	 * ends (a monotone inverse keeps the intervals' coverage; of a log,
	 * exp(mean) is y's median, not its mean).  back is 0 for a plain y. */
	int back;
	double y, y_ci_low, y_ci_high, y_pi_low, y_pi_high;
} dmls_prediction;

/* Predict from "var=value" settings (one per variable the formula reads). */
int dmls_model_predict(const dmls_model *m, const char *const *kv, size_t nkv,
		       dmls_prediction *out, dmls_error *err);

#endif
