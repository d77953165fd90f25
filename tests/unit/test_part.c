/*
 * test_part.c - a job read in parts (part.h) gives the JSON of one pass,
 * byte for byte: each capture of a sample run read alone on the job's
 * origin, the parts merged (in a tree, as ranks do, and through their
 * serialized form), the job finished from the merge.  And the captures
 * that share flows are found: the same capture given twice is one group.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dmlscope/part.h"
#include "dmlscope/render.h"
#include "dmlscope/result.h"
#include "dmlscope/serial.h"

static char *job_json(const dmls_job *job)
{
	dmls_result res;
	assert_int_equal(dmls_result_init(&res, job), 0);
	json_t *doc = dmls_render_json(&res);
	assert_non_null(doc);
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12) | JSON_ENSURE_ASCII);
	json_decref(doc);
	dmls_result_release(&res);
	return s;
}

/* a's state through its serialized form into dst */
static void merge_serialized(dmls_stats *dst, const dmls_stats *src, const dmls_job_opts *o)
{
	uint8_t *buf;
	size_t len;
	dmls_error err;
	assert_int_equal(dmls_stats_serialize(src, &buf, &len, &err), 0);
	dmls_stats back;
	assert_int_equal(dmls_stats_deserialize(&back, buf, len, &o->limits, &err), 0);
	assert_int_equal(dmls_stats_merge(dst, &back), 0);
	dmls_stats_release(&back);
	free(buf);
}

static void parts_equal_whole(const char *run, int nfiles)
{
	char dir[512], paths[8][600];
	const char *pp[8];
	snprintf(dir, sizeof(dir), "%s/samples/%s", DMLS_SOURCE_DIR, run);
	for (int i = 0; i < nfiles; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/worker-%d-tcpdump.pcap", dir, i);
		pp[i] = paths[i];
	}
	const char *inputs[] = {dir};
	dmls_job_opts o = {0};
	dmls_error err, damage;
	dmls_job whole;
	assert_int_equal(dmls_job_analyze(&whole, inputs, 1, &o, &err), 0);
	char *a = job_json(&whole);

	/* the origin */
	int64_t t0 = INT64_MAX, t;
	for (int i = 0; i < nfiles; i++)
		if (dmls_part_first_ns(pp + i, 1, NULL, &t, &err) == 1 && t < t0)
			t0 = t;
	assert_true(t0 == whole.stats.t0_ns);
	/* one part per capture, with its keys */
	dmls_part parts[8];
	dmls_input_file files[8];
	const uint64_t *keys[8];
	size_t nkeys[8], group[8];
	dmls_error_clear(&damage);
	for (int i = 0; i < nfiles; i++) {
		dmls_part_init(&parts[i], &o, t0);
		uint32_t ord = (uint32_t)i;
		assert_int_equal(
			dmls_part_read(&parts[i], pp + i, &ord, 1, &o, 1, &files[i], &damage, &err), 0);
		keys[i] = parts[i].keys;
		nkeys[i] = parts[i].nkeys;
		assert_true(nkeys[i] > 0);
	}
	assert_int_equal(dmls_part_groups(keys, nkeys, (size_t)nfiles, group), 0);
	/* a reduction tree: i takes i + step, step doubling */
	for (int step = 1; step < nfiles; step *= 2)
		for (int i = 0; i + step < nfiles; i += 2 * step) {
			merge_serialized(&parts[i].stats, &parts[i + step].stats, &o);
			dmls_part_counts_add(&parts[i].counts, &parts[i].has_counts,
					     &parts[i + step].counts, parts[i + step].has_counts);
		}
	dmls_input_file *fl = calloc((size_t)nfiles, sizeof(*fl));
	memcpy(fl, files, (size_t)nfiles * sizeof(*fl));
	dmls_job merged;
	assert_int_equal(dmls_job_from_parts(&merged, inputs, 1, &parts[0].stats,
					     &parts[0].counts, fl, (size_t)nfiles, &damage, &err),
			 0);
	char *b = job_json(&merged);
	if (strcmp(a, b)) { /* show where */
		size_t k = 0;
		while (a[k] == b[k])
			k++;
		fprintf(stderr, "differ at %zu:\n%.300s\n---\n%.300s\n", k, a + (k > 200 ? k - 200 : 0),
			b + (k > 200 ? k - 200 : 0));
	}
	assert_string_equal(a, b);
	free(a);
	free(b);
	for (int i = 0; i < nfiles; i++)
		dmls_part_release(&parts[i]);
	dmls_job_release(&whole);
	dmls_job_release(&merged);
}

static void test_ring(void **state)
{
	(void)state;
	parts_equal_whole("pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring", 4);
}

static void test_star(void **state)
{
	(void)state;
	parts_equal_whole("pytorch_rpc-mobilenetv2-adam-16-tensorpipe-normal-star", 3);
}

static void test_butterfly(void **state)
{
	(void)state;
	parts_equal_whole("pytorch_manual-mobilenetv2-adam-16-gloo-normal-butterfly", 4);
}

/* Captures sharing a flow are one group, the others stay alone. */
static void test_groups(void **state)
{
	(void)state;
	static const uint64_t k0[] = {1, 5, 9}, k1[] = {2, 4}, k2[] = {3, 9}, k3[] = {4, 7};
	const uint64_t *keys[] = {k0, k1, k2, k3, NULL};
	size_t nkeys[] = {3, 2, 2, 2, 0}, group[5];
	assert_int_equal(dmls_part_groups(keys, nkeys, 5, group), 4);
	assert_int_equal(group[0], 0);
	assert_int_equal(group[2], 0);
	assert_int_equal(group[1], 1);
	assert_int_equal(group[3], 1);
	assert_int_equal(group[4], 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_butterfly),
		cmocka_unit_test(test_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
