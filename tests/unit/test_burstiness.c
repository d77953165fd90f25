/* test_burstiness.c - E(tau), PtM(tau), B_max(r), on/off phases and the
 * train-log metrics on series with answers worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/analysis.h"
#include "dmlscope/render.h"
#include "dmlscope/result.h"
#include "synth.h"

#define FINE 100000LL /* 100 us */

static void test_single_burst(void **state)
{
	(void)state;
	dmls_series s;
	dmls_series_init(&s, 0, FINE, 0);
	dmls_series_add(&s, 0, 1000000);          /* 1 MB in one 100 us bin */
	dmls_series_add(&s, 999999999LL, 1000);   /* 1 kB at the end of 1 s */
	dmls_burst b;
	dmls_burst_compute(&b, &s, 1.0);
	double rate = 1001000.0; /* bytes/s */
	assert_true(fabs(b.mean_bps - 8 * rate) < 1);
	assert_true(fabs(b.max_window_bytes[0] - 1e6) < 1);   /* 100 us */
	assert_true(fabs(b.max_window_bytes[1] - 1e6) < 1);   /* 1 ms */
	assert_true(fabs(b.max_window_bytes[5] - 1001000) < 1); /* 1 s holds both */
	assert_true(fabs(b.peak_to_mean[1] - 1e6 / (rate * 1e-3)) < 1e-6);
	assert_true(fabs(b.peak_to_mean[5] - 1.0) < 1e-9);
	/* 1 Gbit/s drains 12500 B per 100 us bin */
	assert_true(fabs(b.max_backlog_bytes[0] - (1e6 - 12500)) < 1);
	/* 100 Gbit/s drains 1.25 MB per bin: no backlog */
	assert_true(b.max_backlog_bytes[3] == 0);
	dmls_series_release(&s);
}

static void test_backlog_spans_bins(void **state)
{
	(void)state;
	dmls_series s;
	dmls_series_init(&s, 0, FINE, 0);
	for (int k = 0; k < 10; k++) /* 25 kB per bin = 2 Gbit/s for 1 ms */
		dmls_series_add_bin(&s, k, 25000);
	dmls_series_add_bin(&s, 10000, 1);
	dmls_burst b;
	dmls_burst_compute(&b, &s, 1.0);
	/* at 1 Gbit/s the queue grows 12500 B per bin for 10 bins */
	assert_true(fabs(b.max_backlog_bytes[0] - 125000) < 1);
	assert_true(fabs(b.max_window_bytes[1] - 250000) < 1);
	dmls_series_release(&s);
}

/* The online stream: a bin a little late joins the last one; one from
 * before every window (a clock stepped back an hour) starts the windows
 * again, so the hour's bytes are not piled into one bin.  It piled them
 * before: 100 us held 60 kB. */
static void test_stream_time_back(void **state)
{
	(void)state;
	dmls_burst_stream b;
	assert_int_equal(dmls_burst_stream_init(&b, FINE), 0);
	int64_t hour = 36000000; /* bins of 100 us */
	for (int64_t k = 0; k < 10; k++)
		dmls_burst_stream_push(&b, hour + k, 10000);
	dmls_burst_stream_push(&b, hour + 5, 1000); /* late by 4 bins: into the last */
	for (int64_t k = 0; k < 5; k++) /* an hour earlier */
		dmls_burst_stream_push(&b, k, 10000);
	dmls_burst r;
	dmls_burst_stream_result(&b, 1.0, &r);
	assert_true(fabs(r.max_window_bytes[0] - 11000) < 1e-9);  /* 100 us */
	assert_true(fabs(r.max_window_bytes[1] - 101000) < 1e-9); /* 1 ms: the first ten */
	assert_true(fabs(r.max_window_bytes[5] - 101000) < 1e-9); /* 1 s: not across the step */
	assert_true(fabs(r.mean_bps - 8 * 151000.0) < 1e-6);      /* every byte counted */
	/* 1 Gbit/s drains 12500 B a bin: 10 kB bins leave no backlog; the late
	 * kB, added after its bin drained, waits; the hour before adds none */
	assert_true(fabs(r.max_backlog_bytes[0] - 1000) < 1e-9);
	dmls_burst_stream_release(&b);
}

static void test_empty_series(void **state)
{
	(void)state;
	dmls_series s;
	dmls_series_init(&s, 0, FINE, 0);
	dmls_burst b;
	dmls_burst_compute(&b, &s, 0);
	for (int i = 0; i < DMLS_NTAU; i++)
		assert_true(isnan(b.peak_to_mean[i]));
	dmls_phases ph;
	dmls_phases_compute(&ph, &s, 0.005);
	assert_true(isnan(ph.duty_cycle));
	assert_int_equal(ph.bursts.n, 0);
	dmls_series_release(&s);
}

static void test_host_series_has_no_100us(void **state)
{
	(void)state;
	dmls_series s;
	dmls_series_init(&s, 0, DMLS_HOST_BIN_NS, 0);
	dmls_series_add(&s, 0, 5000);
	dmls_series_add(&s, 500000000LL, 5000);
	dmls_burst b;
	dmls_burst_compute(&b, &s, 0.5);
	assert_true(isnan(b.max_window_bytes[0])); /* 100 us < one 1 ms bin */
	assert_true(fabs(b.max_window_bytes[1] - 5000) < 1);
	assert_true(isnan(b.peak_to_mean[5])); /* 1 s > the 0.5 s span */
	dmls_series_release(&s);
}

static void test_phases(void **state)
{
	(void)state;
	dmls_series s;
	dmls_series_init(&s, 0, FINE, 0);
	for (int i = 0; i < 10; i++) /* 2 ms bursts every 100 ms, chatter between */
		for (int k = 0; k < 20; k++) {
			dmls_series_add(&s, i * 100000000LL + k * FINE, 50000);
			dmls_series_add(&s, i * 100000000LL + 50000000LL, 60);
		}
	dmls_phases ph;
	dmls_phases_compute(&ph, &s, 0.005);
	assert_int_equal(ph.bursts.n, 10);
	assert_int_equal(ph.gaps.n, 9);
	assert_true(fabs(ph.bursts.p50_s - 0.002) < 1e-9);
	assert_true(fabs(ph.gaps.p50_s - 0.098) < 1e-9);
	assert_true(fabs(ph.duty_cycle - 20.0 / 902.0) < 1e-9);
	dmls_series_release(&s);
}

static void test_trainlog(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	char buf[4096];
	size_t len = (size_t)snprintf(buf, sizeof(buf), "Type,ID,Timestamp,Loss,Accuracy\n");
	for (int i = 0; i < 20; i++) {
		int64_t t = SYNTH_T0 + i * 100000000LL;
		synth_send(&st, t + 20000000LL, 1, 2, 1000000);
		synth_send(&st, t + 20000000LL, 2, 1, 1000000);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "Batch,%d,%.6f,1.0,%.2f\n", i,
					(double)(t + 40000000LL) * 1e-9, 0.1 + 0.04 * i);
	}
	dmls_trainlog log;
	dmls_error err;
	assert_int_equal(dmls_trainlog_parse(&log, buf, len, "log", &err), 0);
	dmls_analysis *a = NULL;
	assert_int_equal(dmls_analysis_run(&a, &st, &log, &err), 0);
	assert_true(a->log.present);
	assert_int_equal(a->log.steps, 20);
	assert_true(fabs(a->log.mean_step_s - 0.1) < 1e-3);
	double nbins = floor(dmls_stats_duration_s(&st) / a->log.mean_step_s) + 1;
	assert_true(fabs(a->log.mb_per_step - (double)st.wire_bytes / nbins / 1e6) < 1e-9);
	assert_true(fabs(a->log.period_error) < 0.03);
	assert_int_equal(a->log.nacc, 20);
	for (size_t i = 1; i < a->log.nacc; i++) /* cumulative data grows */
		assert_true(a->log.acc[i].cum_wire_bytes > a->log.acc[i - 1].cum_wire_bytes);
	dmls_result r;
	assert_int_equal(dmls_result_init_stats(&r, &st, a), DMLS_OK);
	assert_true(r.has_log);
	assert_true(fabs(r.log.final_accuracy - (0.1 + 0.04 * 19)) < 1e-9);
	FILE *fp = tmpfile();
	if (fp) {
		dmls_render_text(&r, fp);
		assert_true(ftell(fp) > 0);
		fclose(fp);
	}
	dmls_result_release(&r);
	dmls_analysis_free(a);
	dmls_trainlog_release(&log);
	dmls_stats_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_burst), cmocka_unit_test(test_backlog_spans_bins),
		cmocka_unit_test(test_empty_series), cmocka_unit_test(test_host_series_has_no_100us),
		cmocka_unit_test(test_phases),       cmocka_unit_test(test_trainlog),
		cmocka_unit_test(test_stream_time_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
