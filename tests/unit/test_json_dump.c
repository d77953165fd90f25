/* test_json_dump.c - dmls_json_dumpf writes what jansson's json_dumpf writes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/render.h"

/* Both writers on doc at precision p: the same bytes. */
static void same(json_t *doc, int p)
{
	char *want = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(p) | JSON_ENSURE_ASCII);
	assert_non_null(want);
	char *got = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&got, &len);
	assert_non_null(fp);
	assert_int_equal(dmls_json_dumpf(doc, fp, p), 0);
	assert_int_equal(fclose(fp), 0);
	if (strcmp(want, got)) {
		size_t i = 0;
		while (want[i] && want[i] == got[i])
			i++;
		size_t from = i > 40 ? i - 40 : 0;
		fail_msg("precision %d, byte %zu:\njansson: %.80s\nours:    %.80s", p, i, want + from,
			 got + from);
	}
	free(want);
	free(got);
}

static void test_values(void **state)
{
	(void)state;
	static const double reals[] = {0.0, -0.0, 1.0, -1.0, 0.5, 0.1, -2.5, 100.0, 1e11,
				       123456789012.0, 1234567890123.0, 99999999999999.0,
				       9007199254740992.0, 9007199254740993.0, 1e300, -1e300,
				       1e-5, 1.5e-7, 3.14159265358979, 1e12, 1e17, 4e15,
				       0.001, 1e21, 2.2250738585072014e-308, 12345.678901234567};
	json_t *a = json_array();
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		json_array_append_new(a, json_real(reals[i]));
	json_t *o = json_object();
	json_object_set_new(o, "reals", a);
	json_object_set_new(o, "ints", json_pack("[I, I, I, I]", (json_int_t)0, (json_int_t)-7,
						 (json_int_t)INT64_MAX, (json_int_t)INT64_MIN));
	json_object_set_new(o, "empty_object", json_object());
	json_object_set_new(o, "empty_array", json_array());
	json_object_set_new(o, "flags", json_pack("[b, b, n]", 1, 0));
	json_object_set_new(o, "strings",
			    json_pack("[s, s, s, s, s]", "plain 198.18.0.1", "quote \" back \\ slash /",
				      "ctl \b\f\n\r\t\x01\x1f end", "caf\xc3\xa9 \xe2\x82\xac",
				      "\xf0\x9f\x98\x80 emoji"));
	json_object_set_new(o, "nested", json_pack("{s:{s:[[],{}]}, s:[{s:i}]}", "a", "b", "c",
						   "d", 1));
	json_object_set_new(o, "z first? no: insertion order", json_true());
	for (int p = 1; p <= 17; p++)
		same(o, p);
	json_decref(o);
}

/* Random reals of every magnitude, integers among them. */
static void test_random_reals(void **state)
{
	(void)state;
	json_t *a = json_array();
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v;
		switch (i % 4) {
		case 0: v = (double)(x >> (x & 63)); break;           /* integers */
		case 1: v = -(double)(x >> 20) / 1024.0; break;      /* binary fractions */
		case 2: v = (double)(x >> 11) * 1e-9; break;          /* times */
		default: memcpy(&v, &x, sizeof(v));                    /* any bits */
		}
		if (v == v && v - v == 0) /* finite */
			json_array_append_new(a, json_real(v));
	}
	same(a, 12);
	same(a, 17);
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_random_reals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
