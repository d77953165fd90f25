/* test_model.c - formula parser, CSV table, patsy coding, OLS, prediction. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>
#include <gsl/gsl_errno.h>

#include "dmlscope/model.h"

static void parse_ok(const char *text, dmls_formula *fm)
{
	dmls_error err = {0};
	int st = dmls_formula_parse(fm, text, &err);
	if (st)
		fail_msg("%s: %s", text, err.msg);
}

static void test_formula_terms(void **state)
{
	dmls_formula fm;
	parse_ok("y ~ a + C(b) + a:C(b) + b:a + np.log(x)", &fm);
	assert_string_equal(fm.response.code, "y");
	assert_int_equal(fm.nfactors, 4); /* a, C(b), b, np.log(x) */
	assert_int_equal(fm.nterms, 6);   /* 1, a, C(b), a:C(b), b:a, np.log(x) */
	assert_true(fm.intercept);
	assert_int_equal(fm.terms[0].nf, 0);
	assert_string_equal(fm.factors[1].code, "C(b)");
	assert_true(fm.factors[1].forced);
	assert_int_equal(fm.factors[3].fn, DMLS_FN_LOG);
	assert_string_equal(fm.factors[3].var, "x");
	dmls_formula_release(&fm);

	parse_ok("y ~ a*b - 1", &fm); /* a + b + a:b, no intercept */
	assert_false(fm.intercept);
	assert_int_equal(fm.nterms, 3);
	assert_int_equal(fm.terms[2].nf, 2);
	dmls_formula_release(&fm);

	parse_ok("y ~ 0 + a + a + a:a", &fm); /* repeated terms count once */
	assert_false(fm.intercept);
	assert_int_equal(fm.nterms, 1);
	dmls_formula_release(&fm);

	parse_ok("y ~ (a + b):c - 0", &fm); /* a:c + b:c, intercept kept */
	assert_true(fm.intercept);
	assert_int_equal(fm.nterms, 3);
	dmls_formula_release(&fm);
}

static void test_formula_errors(void **state)
{
	const char *bad[] = {"y ~", "y ~ a +", "~ a", "y a", "y ~ foo(a)", "y ~ (a + b",
			     "y ~ a ** 2", "y ~ 2", "y ~ C(a", "y ~ a b"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		dmls_formula fm;
		dmls_error err = {0};
		assert_int_equal(dmls_formula_parse(&fm, bad[i], &err), DMLS_EUSAGE);
		assert_non_null(strstr(err.msg, "bad formula"));
	}
}

static void load(dmls_table *t, const char *csv)
{
	dmls_error err = {0};
	FILE *f = fmemopen((void *)csv, strlen(csv), "r");
	assert_non_null(f);
	if (dmls_table_read_csv(t, f, "mem.csv", &err))
		fail_msg("%s", err.msg);
	fclose(f);
}

static void test_csv(void **state)
{
	dmls_table t;
	load(&t, "a,\"b c\",d\r\n1,\"x,\"\"y\"\"\",  2.5 \r\n\r\n3,z,NA\n");
	assert_int_equal(t.ncols, 3);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(t.cols[1].name, "b c");
	assert_string_equal(t.cols[1].cells[0], "x,\"y\"");
	assert_null(t.cols[2].cells[1]); /* NA is missing */
	assert_int_equal(t.cols[0].type, DMLS_COL_NUMERIC);
	assert_true(t.cols[0].integer);
	assert_int_equal(t.cols[1].type, DMLS_COL_STRING);
	assert_int_equal(t.cols[2].type, DMLS_COL_NUMERIC);
	assert_false(t.cols[2].integer);
	dmls_table_release(&t);
	load(&t, "\xef\xbb\xbfy,x\n1,2\n"); /* byte order mark */
	assert_int_equal(dmls_table_find(&t, "y"), 0);
	dmls_table_release(&t);
}

static const char *const table_csv =
	"y,x,batch,topo,s\n"
	"1.0,1,64,ring,0.5\n"
	"2.9,2,128,star,1.5\n"
	"5.2,3,512,ring,2\n"
	"7.1,4,64,tree,0.5\n"
	"8.8,5,128,ring,1.5\n"
	"11.2,6,512,star,2\n"
	"13.0,7,64,tree,0.5\n";

static void check_names(const char *formula, const char *const *want, size_t n)
{
	dmls_table t;
	dmls_design d;
	dmls_error err = {0};
	load(&t, table_csv);
	if (dmls_design_build(&d, formula, &t, &err))
		fail_msg("%s: %s", formula, err.msg);
	assert_int_equal(d.ncols, n);
	for (size_t j = 0; j < n; j++)
		assert_string_equal(d.names[j], want[j]);
	dmls_design_release(&d);
	dmls_table_release(&t);
}

static void test_coding_names(void **state)
{
	const char *a[] = {"Intercept", "C(batch)[T.128]", "C(batch)[T.512]", "topo[T.star]",
			   "topo[T.tree]", "x"};
	check_names("y ~ x + C(batch) + topo", a, 6);
	const char *b[] = {"x:topo[ring]", "x:topo[star]", "x:topo[tree]"};
	check_names("y ~ x:topo - 1", b, 3);
	const char *c[] = {"Intercept", "C(s)[T.1.5]", "C(s)[T.2.0]"};
	check_names("y ~ C(s)", c, 3);
	const char *e[] = {"C(batch)[64]", "C(batch)[128]", "C(batch)[512]", "np.log(x)"};
	check_names("y ~ 0 + C(batch) + np.log(x)", e, 4);
}

static void test_ols_exact(void **state)
{
	/* y = 1 + 2x exactly: coefficients exact, residuals zero */
	double X[10], y[5];
	for (int i = 0; i < 5; i++) {
		X[2 * i] = 1;
		X[2 * i + 1] = i;
		y[i] = 1 + 2.0 * i;
	}
	dmls_fit fit;
	dmls_error err = {0};
	assert_int_equal(dmls_ols(&fit, X, y, 5, 2, &err), DMLS_OK);
	assert_true(fabs(fit.coefs[0].coef - 1) < 1e-12);
	assert_true(fabs(fit.coefs[1].coef - 2) < 1e-12);
	assert_true(fit.ssr < 1e-20);
	assert_int_equal(fit.rank, 2);
	assert_int_equal(fit.k_constant, 1);
	dmls_fit_release(&fit);
}

static void test_ols_known(void **state)
{
	/* x = 1..5, y = 2, 4, 5, 4, 5: b = (2.2, 0.6), SSR = 2.4, R2 = 0.6,
	 * se(b1) = sqrt(0.8 / 10) (by hand: Sxx = 10, s^2 = 2.4 / 3) */
	double X[10], y[5] = {2, 4, 5, 4, 5};
	for (int i = 0; i < 5; i++) {
		X[2 * i] = 1;
		X[2 * i + 1] = i + 1;
	}
	dmls_fit fit;
	dmls_error err = {0};
	assert_int_equal(dmls_ols(&fit, X, y, 5, 2, &err), DMLS_OK);
	assert_true(fabs(fit.coefs[0].coef - 2.2) < 1e-12);
	assert_true(fabs(fit.coefs[1].coef - 0.6) < 1e-12);
	assert_true(fabs(fit.ssr - 2.4) < 1e-12);
	assert_true(fabs(fit.r2 - 0.6) < 1e-12);
	assert_true(fabs(fit.coefs[1].std_err - sqrt(0.08)) < 1e-12);
	assert_true(fabs(fit.df_resid - 3) < 1e-12);
	assert_true(fabs(fit.f_stat - 4.5) < 1e-9); /* ESS 3.6 / (2.4 / 3) */
	dmls_fit_release(&fit);
}

static void test_ols_too_few_rows(void **state)
{
	double X[4] = {1, 0, 1, 1}, y[2] = {1, 2};
	dmls_fit fit;
	dmls_error err = {0};
	assert_int_equal(dmls_ols(&fit, X, y, 2, 2, &err), DMLS_EBAD);
	assert_non_null(strstr(err.msg, "2 rows for 2 parameters"));
}

static void caller_handler(const char *reason, const char *file, int line, int gsl_errno)
{
}

/* The library turns GSL's aborting handler off only while it runs: the
 * caller's handler is back afterwards, after success and failure alike. */
static void test_gsl_handler_restored(void **state)
{
	double X[10], y[5] = {2, 4, 5, 4, 5};
	for (int i = 0; i < 5; i++) {
		X[2 * i] = 1;
		X[2 * i + 1] = i + 1;
	}
	dmls_fit fit;
	dmls_error err = {0};
	gsl_error_handler_t *orig = gsl_set_error_handler(caller_handler);
	assert_int_equal(dmls_ols(&fit, X, y, 5, 2, &err), DMLS_OK);
	assert_ptr_equal(gsl_set_error_handler(caller_handler), caller_handler);
	assert_int_equal(dmls_ols_cv(&fit, X, y, 5, 2, 5, &err), DMLS_OK);
	assert_ptr_equal(gsl_set_error_handler(caller_handler), caller_handler);
	assert_true(fabs(dmls_t975(3) - 3.182446305284263) < 1e-9);
	assert_ptr_equal(gsl_set_error_handler(caller_handler), caller_handler);
	dmls_fit_release(&fit);
	assert_int_equal(dmls_ols(&fit, X, y, 2, 2, &err), DMLS_EBAD);
	assert_ptr_equal(gsl_set_error_handler(orig), caller_handler);
}

static void test_predict_roundtrip(void **state)
{
	dmls_table t;
	dmls_design d;
	dmls_fit fit;
	dmls_model m;
	dmls_prediction p;
	dmls_error err = {0};
	char path[] = "/tmp/dmls_model_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	load(&t, table_csv);
	assert_int_equal(dmls_design_build(&d, "y ~ x + C(batch)", &t, &err), DMLS_OK);
	assert_int_equal(dmls_fit_design(&fit, &d, 5, &err), DMLS_OK);
	assert_int_equal(dmls_model_save(path, &d, &fit, &err), DMLS_OK);
	assert_int_equal(dmls_model_load(&m, path, &err), DMLS_OK);
	const char *kv[] = {"x=3", "batch=512"};
	assert_int_equal(dmls_model_predict(&m, kv, 2, &p, &err), DMLS_OK);
	/* row 3 of the table: fitted value x'b */
	double want = d.X[2 * d.ncols] * fit.coefs[0].coef;
	for (size_t j = 1; j < d.ncols; j++)
		want += d.X[2 * d.ncols + j] * fit.coefs[j].coef;
	assert_true(fabs(p.mean - want) < 1e-9);
	assert_true(p.pi_low < p.ci_low && p.ci_low < p.mean && p.mean < p.ci_high);
	const char *bad[] = {"x=3", "batch=256"};
	assert_int_equal(dmls_model_predict(&m, bad, 2, &p, &err), DMLS_EBAD);
	assert_non_null(strstr(err.msg, "never seen"));
	dmls_model_release(&m);
	dmls_fit_release(&fit);
	dmls_design_release(&d);
	dmls_table_release(&t);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formula_terms),   cmocka_unit_test(test_formula_errors),
		cmocka_unit_test(test_csv),             cmocka_unit_test(test_coding_names),
		cmocka_unit_test(test_ols_exact),       cmocka_unit_test(test_ols_known),
		cmocka_unit_test(test_ols_too_few_rows), cmocka_unit_test(test_predict_roundtrip),
		cmocka_unit_test(test_gsl_handler_restored),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
