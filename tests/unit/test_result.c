/*
 * test_result.c - the result model (result.c) and its metric table
 * (metrics.c): the table is whole and consistent, it describes the
 * `analyze --json` document key for key, and every value the JSON shows is
 * the metric's value.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/compare.h"
#include "dmlscope/render.h"
#include "dmlscope/result.h"
#include "out/json_int.h"

#define DDP DMLS_SOURCE_DIR "/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring"

static int has_writer(const char *key)
{
	for (size_t i = 0; i < dmls_json_nlists; i++)
		if (!strcmp(dmls_json_lists[i].key, key))
			return 1;
	return 0;
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < dmls_nmetrics; i++) {
		const dmls_metric *m = &dmls_metrics[i];
		if (dmls_metric_find(m->key) != m)
			fail_msg("%s: not found, or found twice", m->key);
		if (!m->desc || !*m->desc || !strchr("sbrtifyo", m->unit))
			fail_msg("%s: no description or an unknown unit", m->key);
		if (m->type == DMLS_T_LIST) {
			if (!(m->flags & DMLS_M_EXTRA) && !has_writer(m->key))
				fail_msg("%s: a list nothing writes", m->key);
		} else if (!m->title || m->offset == 0 ||
			   m->offset >= sizeof(dmls_result)) {
			fail_msg("%s: no title or no place in dmls_result", m->key);
		}
	}
	for (size_t i = 0; i < dmls_json_nlists; i++) {
		const dmls_metric *m = dmls_metric_find(dmls_json_lists[i].key);
		if (!m || m->type != DMLS_T_LIST)
			fail_msg("%s: written as a list but not a list metric",
				 dmls_json_lists[i].key);
	}
	for (size_t j = 0; j < dmls_compare_ncolumns; j++) {
		const dmls_compare_column *c = &dmls_compare_columns[j];
		if (c->key && !dmls_metric_find(c->key))
			fail_msg("compare column %s: no metric %s", c->name, c->key);
		if (c->terminal && !dmls_compare_title(j))
			fail_msg("compare column %s: no title", c->name);
	}
}

/* Every key path of doc's objects (not inside lists) is a metric, and
 * every JSON metric present for r is in doc with the metric's value. */
static void check_paths(json_t *o, const char *prefix)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		char path[128];
		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k);
		if (json_is_object(v))
			check_paths(v, path);
		else if (!dmls_metric_find(path))
			fail_msg("%s: in the document, not in the metric table", path);
	}
}

static json_t *at(json_t *doc, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *v = doc;
	for (char *save, *tok = strtok_r(buf, ".", &save); v && tok; tok = strtok_r(NULL, ".", &save))
		v = json_object_get(v, tok);
	return v;
}

static void check_values(json_t *doc, const dmls_result *r)
{
	for (size_t i = 0; i < dmls_nmetrics; i++) {
		const dmls_metric *m = &dmls_metrics[i];
		if (m->flags & DMLS_M_EXTRA)
			continue;
		json_t *got = at(doc, m->key);
		if (!dmls_metric_present(m, r)) {
			if (got)
				fail_msg("%s: absent for this result, yet written", m->key);
			continue;
		}
		if (!got)
			fail_msg("%s: missing", m->key);
		if (m->type == DMLS_T_LIST) {
			assert_true(json_is_array(got));
			continue;
		}
		json_t *want = dmls_json_value(dmls_metric_value(m, r));
		if (!json_equal(got, want))
			fail_msg("%s: the document and the metric differ", m->key);
		json_decref(want);
	}
}

static void test_sample_document(void **state)
{
	(void)state;
	dmls_job job;
	dmls_error err;
	const char *in[] = {DDP};
	assert_int_equal(dmls_job_analyze(&job, in, 1, NULL, &err), DMLS_OK);
	dmls_result r;
	assert_int_equal(dmls_result_init(&r, &job), DMLS_OK);
	assert_true(r.has_run && r.has_analysis && r.has_log);
	json_t *doc = dmls_render_json(&r);
	assert_non_null(doc);
	check_paths(doc, "");
	check_values(doc, &r);
	/* compare's own numbers */
	assert_int_equal(r.pattern.workers, 4);
	assert_true(r.burst.ptm_5ms > 1);
	assert_true(r.log.final_accuracy >= 0 && r.log.final_accuracy <= 1);
	/* the orders: top loss flows by count, the matrix of every host */
	for (size_t i = 1; i < r.loss.ntop; i++)
		assert_true(job.stats.flows[r.loss.top[i - 1]].retransmissions >=
			    job.stats.flows[r.loss.top[i]].retransmissions);
	assert_int_equal(r.matrix.n, job.stats.nhosts);
	assert_int_equal(r.nshown, job.stats.nhosts);
	json_decref(doc);
	dmls_result_release(&r);
	dmls_job_release(&job);
}

/* No packets and no analysis: the traffic keys only, no NaN. */
static void test_empty(void **state)
{
	(void)state;
	dmls_stats st;
	dmls_stats_init(&st, 0);
	assert_int_equal(dmls_stats_finish(&st), 0);
	dmls_result r;
	assert_int_equal(dmls_result_init_stats(&r, &st, NULL), DMLS_OK);
	json_t *doc = dmls_render_json(&r);
	assert_non_null(doc);
	check_paths(doc, "");
	check_values(doc, &r);
	assert_null(json_object_get(doc, "pattern"));
	assert_true(json_is_null(at(doc, "throughput.peak_bps")));
	char *s = json_dumps(doc, 0);
	assert_null(strstr(s, "nan"));
	free(s);
	assert_int_equal(r.figure.n, 0);
	json_decref(doc);
	dmls_result_release(&r);
	dmls_stats_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_sample_document),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
