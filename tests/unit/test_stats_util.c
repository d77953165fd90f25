/* test_stats_util.c - the analysis' quantiles: selection agrees with sorting */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analysis/period.h"

static void test_select_equals_sort(void **state)
{
	(void)state;
	srand(3);
	for (int t = 0; t < 20000; t++) {
		size_t n = 1 + (size_t)(rand() % 60);
		double a[64], b[64];
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] = (double)(rand() % 7); /* many ties */
		double q = (rand() % 101) / 100.0;
		double x = dmls_quantile(a, n, q), y = dmls_quantile_select(b, n, q);
		assert_true(fabs(x - y) < 1e-12);
	}
	assert_true(isnan(dmls_quantile_select(NULL, 0, 0.5)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_equals_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
