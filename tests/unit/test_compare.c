/* test_compare.c - run discovery (runlist.c) and the compare table (compare.c)
 * on the committed sample runs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "dmlscope/compare.h"
#include "dmlscope/render.h"
#include "dmlscope/runlist.h"

#define SAMPLES DMLS_SOURCE_DIR "/samples"
#define DDP "pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring"
#define RPC "pytorch_rpc-mobilenetv2-adam-16-tensorpipe-normal-star"
#define MANUAL "pytorch_manual-mobilenetv2-adam-16-gloo-normal-butterfly"

static void test_runlist(void **state)
{
	dmls_runlist rl;
	dmls_error err;
	dmls_runlist_init(&rl);
	assert_int_equal(dmls_runlist_find(&rl, SAMPLES "/", DMLS_DATASET_DEPTH, &err), DMLS_OK);
	assert_int_equal(rl.n, 3);
	/* sorted, one slash between the folder and the run */
	assert_string_equal(rl.paths[0], SAMPLES "/" DDP);
	assert_string_equal(rl.paths[1], SAMPLES "/" MANUAL);
	assert_string_equal(rl.paths[2], SAMPLES "/" RPC);
	assert_true(dmls_has_captures(rl.paths[0]));
	assert_false(dmls_has_captures(SAMPLES));
	/* depth 0 finds nothing and leaves the list alone */
	assert_int_equal(dmls_runlist_find(&rl, SAMPLES, 0, &err), DMLS_OK);
	assert_int_equal(rl.n, 3);
	dmls_runlist_release(&rl);
	assert_int_equal(rl.n, 0);
}

/* The row's value in the column named key. */
static dmls_value cell(const dmls_compare_run *r, const char *key)
{
	for (size_t j = 0; j < dmls_compare_ncolumns; j++)
		if (!strcmp(dmls_compare_columns[j].name, key))
			return r->row[j];
	fail_msg("no column %s", key);
	return r->row[0];
}

static double num(const dmls_compare_run *r, const char *key)
{
	dmls_value v = cell(r, key);
	return v.type == DMLS_T_INT ? (double)v.i : v.type == DMLS_T_REAL ? v.r : NAN;
}

static const char *str(const dmls_compare_run *r, const char *key)
{
	dmls_value v = cell(r, key);
	return v.type == DMLS_T_STR ? v.s : "";
}

static void test_compare_samples(void **state)
{
	dmls_compare c;
	dmls_error err;
	const char *in[] = {SAMPLES "/" RPC, SAMPLES "/no-such-run", SAMPLES};
	dmls_compare_init(&c);
	assert_int_equal(dmls_compare_runs(&c, in, 3, NULL, &err), DMLS_OK);
	assert_int_equal(c.n, 5); /* rpc, the missing one, then the dataset's three */
	assert_int_equal(c.nfailed, 1);
	assert_int_equal(c.runs[1].error.status, DMLS_EIO);
	assert_null(c.runs[1].row);
	assert_string_equal(c.runs[0].name, RPC);
	assert_string_equal(c.runs[2].name, DDP);
	const dmls_compare_run *ddp = &c.runs[2];
	assert_non_null(ddp->row);
	assert_string_equal(str(ddp, "run"), DDP);
	assert_string_equal(str(ddp, "pattern"), "ring");
	assert_string_equal(str(ddp, "backend"), "gloo");
	assert_true(num(ddp, "workers") == 4 && num(ddp, "ranks") == 4);
	assert_true(num(ddp, "wire_bytes") > 1e8);
	assert_true(num(ddp, "ptm_5ms") > 1);
	assert_true(num(ddp, "final_accuracy") >= 0 && num(ddp, "final_accuracy") <= 1);
	/* the 10 ms series holds every wire byte */
	assert_true(fabs(ddp->fig.tp_bin_s - 0.01) < 1e-12);
	double sum = 0;
	for (size_t i = 0; i < ddp->fig.ntp; i++)
		sum += (double)ddp->fig.tp_wire_bytes[i];
	assert_true(sum == num(ddp, "wire_bytes"));
	assert_true(ddp->fig.has_log && ddp->fig.nacc > 0);
	/* the JSON array has the rows only */
	json_t *a = dmls_compare_json(&c);
	assert_int_equal(json_array_size(a), 4);
	json_decref(a);
	dmls_compare_release(&c);
}

static void test_report(void **state)
{
	dmls_compare c;
	dmls_error err;
	const char *in[] = {SAMPLES "/" DDP};
	char *buf = NULL;
	size_t len = 0;
	dmls_compare_init(&c);
	assert_int_equal(dmls_compare_runs(&c, in, 1, NULL, &err), DMLS_OK);
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(dmls_report_html(&c, fp, &err), DMLS_OK);
	fclose(fp);
	assert_non_null(strstr(buf, "<!DOCTYPE html>"));
	assert_non_null(strstr(buf, DDP));
	assert_non_null(strstr(buf, "var uPlot")); /* inlined, not linked */
	assert_null(strstr(buf, "<script src"));
	assert_non_null(strstr(buf, "</html>"));
	free(buf);
	dmls_compare_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runlist),
		cmocka_unit_test(test_compare_samples),
		cmocka_unit_test(test_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
