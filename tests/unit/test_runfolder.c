/* test_runfolder.c - train_history.log, run-folder names, units */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/runfolder.h"
#include "dmlscope/units.h"

static void test_log_ok(void **state)
{
	(void)state;
	const char *txt = "Type,ID,Timestamp,Loss,Accuracy\r\n"
			  "Batch,0,100.0,2.3,0.1\n"
			  "Batch,1,100.5,2.2,0.12\n"
			  "Batch,2,101.0,2.1,\n"
			  "Batch,3,102.0,2.0,0.2\n"
			  "Epoch,0,102.1,2.0,0.2\n";
	dmls_trainlog log;
	dmls_error err;
	assert_int_equal(dmls_trainlog_parse(&log, txt, strlen(txt), "t.log", &err), DMLS_OK);
	assert_int_equal(log.steps, 4);
	assert_int_equal(log.epochs, 1);
	assert_true(fabs(log.mean_step_s - 2.0 / 3.0) < 1e-12);
	/* 4 steps: from the second on, (102.0 - 100.5) / 2 */
	assert_true(fabs(log.steady_step_s - 0.75) < 1e-12);
	assert_true(fabs(log.median_step_s - 0.5) < 1e-12);
	assert_true(isnan(log.rows[2].accuracy));
	dmls_trainlog_release(&log);
}

/* Under DMLS_STEADY_FROM steps the steady step is the mean step. */
static void test_log_short(void **state)
{
	(void)state;
	const char *txt = "Type,ID,Timestamp,Loss,Accuracy\n"
			  "Batch,0,100.0,2.3,0.1\n"
			  "Batch,1,103.0,2.2,0.12\n"
			  "Batch,2,104.0,2.1,0.13\n";
	dmls_trainlog log;
	dmls_error err;
	assert_int_equal(dmls_trainlog_parse(&log, txt, strlen(txt), "t.log", &err), DMLS_OK);
	assert_true(fabs(log.mean_step_s - 2.0) < 1e-12);
	assert_true(fabs(log.steady_step_s - 2.0) < 1e-12);
	dmls_trainlog_release(&log);
}

/* Batch times that go backwards (rows out of order, a clock stepped back)
 * give no step time at all, rather than negative or shrunken ones, and
 * the line where they do; an Epoch row's time does not count. */
static void test_log_backwards(void **state)
{
	(void)state;
	const char *txt = "Type,ID,Timestamp,Loss,Accuracy\n"
			  "Batch,0,100.0,2.3,0.1\n"
			  "Epoch,0,90.0,2.3,0.1\n"
			  "Batch,1,101.0,2.2,0.12\n"
			  "Batch,2,102.0,2.1,0.13\n"
			  "Batch,3,99.0,2.1,0.13\n"
			  "Batch,4,98.0,2.0,0.14\n";
	dmls_trainlog log;
	dmls_error err;
	assert_int_equal(dmls_trainlog_parse(&log, txt, strlen(txt), "t.log", &err), DMLS_OK);
	assert_int_equal(log.steps, 5);
	assert_int_equal(log.backwards_line, 6);
	assert_true(isnan(log.mean_step_s));
	assert_true(isnan(log.steady_step_s));
	assert_true(isnan(log.median_step_s));
	dmls_trainlog_release(&log);
	const char *ok = "Type,ID,Timestamp,Loss,Accuracy\n"
			 "Batch,0,100.0,2.3,0.1\n"
			 "Epoch,0,90.0,2.3,0.1\n"
			 "Batch,1,100.0,2.2,0.12\n"
			 "Batch,2,101.0,2.1,0.13\n";
	assert_int_equal(dmls_trainlog_parse(&log, ok, strlen(ok), "t.log", &err), DMLS_OK);
	assert_int_equal(log.backwards_line, 0);
	assert_true(fabs(log.mean_step_s - 0.5) < 1e-12);
	dmls_trainlog_release(&log);
}

static void test_log_bad(void **state)
{
	(void)state;
	dmls_trainlog log;
	dmls_error err;
	const char *nohdr = "a,b,c\n";
	assert_int_equal(dmls_trainlog_parse(&log, nohdr, strlen(nohdr), "x.log", &err), DMLS_EBAD);
	assert_non_null(strstr(err.msg, "'x.log'"));
	const char *badnum = "Type,ID,Timestamp,Loss,Accuracy\nBatch,0,abc,1,1\n";
	assert_int_equal(dmls_trainlog_parse(&log, badnum, strlen(badnum), "x.log", &err),
			 DMLS_EBAD);
	assert_non_null(strstr(err.msg, "line 2"));
	const char *fields = "Type,ID,Timestamp,Loss,Accuracy\nBatch,0,1\n";
	assert_int_equal(dmls_trainlog_parse(&log, fields, strlen(fields), "x.log", &err),
			 DMLS_EBAD);
	assert_int_equal(dmls_trainlog_parse(&log, "", 0, "e.log", &err), DMLS_EBAD);
}

static void test_attrs(void **state)
{
	(void)state;
	dmls_run_attrs a;
	assert_int_equal(dmls_run_attrs_parse(&a, "horovod-resnet50-adam-64-mpi-normal-ring"), 0);
	assert_string_equal(a.framework, "horovod");
	assert_string_equal(a.batch, "64");
	assert_string_equal(a.topology, "ring");
	assert_int_equal(dmls_run_attrs_parse(&a, "kungfu-densenet201-adam-128-nccl-loss_0.1-star"), 0);
	assert_string_equal(a.delay, "loss_0.1");
	assert_int_equal(dmls_run_attrs_parse(&a, "just-a-name"), -1);
	assert_int_equal(dmls_run_attrs_parse(&a, "a--b-c-d-e-f"), -1);
}

static void test_units(void **state)
{
	(void)state;
	double b;
	int64_t ns;
	assert_int_equal(dmls_parse_size("25MB", &b), 0);
	assert_true(b == 25e6);
	assert_int_equal(dmls_parse_size("8.9MiB", &b), 0);
	assert_true(fabs(b - 8.9 * 1048576) < 1e-6);
	assert_int_equal(dmls_parse_size("4096", &b), 0);
	assert_int_equal(dmls_parse_size("12XB", &b), -1);
	assert_int_equal(dmls_parse_size("-1", &b), -1);
	assert_int_equal(dmls_parse_time_ns("1ms", &ns), 0);
	assert_true(ns == 1000000);
	assert_int_equal(dmls_parse_time_ns("100us", &ns), 0);
	assert_true(ns == 100000);
	assert_int_equal(dmls_parse_time_ns("0.01", &ns), 0);
	assert_true(ns == 10000000);
	assert_int_equal(dmls_parse_time_ns("0", &ns), -1);
	assert_int_equal(dmls_parse_time_ns("fast", &ns), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_ok),
		cmocka_unit_test(test_log_short),
		cmocka_unit_test(test_log_backwards),
		cmocka_unit_test(test_log_bad),
		cmocka_unit_test(test_attrs),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
