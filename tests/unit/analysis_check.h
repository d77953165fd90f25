/*
 * analysis_check.h - what the analysis unit tests assert on a result: run the
 * analysis (and render its result to JSON, which must hold no NaN), look for a note,
 * compare with a relative tolerance.  Include after <cmocka.h>.
 */
#ifndef DMLS_TEST_ANALYSIS_CHECK_H
#define DMLS_TEST_ANALYSIS_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "dmlscope/analysis.h"
#include "dmlscope/render.h"
#include "dmlscope/result.h"

static inline dmls_analysis *analyze(dmls_stats *st)
{
	dmls_analysis *a = NULL;
	dmls_error err;
	assert_int_equal(dmls_analysis_run(&a, st, NULL, &err), 0);
	assert_non_null(a);
	/* every analysis renders to JSON without NaN */
	dmls_result r;
	assert_int_equal(dmls_result_init_stats(&r, st, a), DMLS_OK);
	json_t *root = dmls_render_json(&r);
	assert_non_null(root);
	assert_non_null(json_object_get(root, "pattern"));
	char *s = json_dumps(root, 0);
	assert_non_null(s);
	assert_null(strstr(s, "nan"));
	free(s);
	json_decref(root);
	dmls_result_release(&r);
	return a;
}

/* The terminal summary of st and a (to a temporary file): bytes written. */
static inline long render_text(const dmls_stats *st, const dmls_analysis *a)
{
	dmls_result r;
	long n = 0;
	assert_int_equal(dmls_result_init_stats(&r, st, a), DMLS_OK);
	FILE *fp = tmpfile();
	if (fp) {
		dmls_render_text(&r, fp);
		n = ftell(fp);
		fclose(fp);
	}
	dmls_result_release(&r);
	return n;
}

static inline int has_note(const dmls_analysis *a, const char *word)
{
	for (size_t i = 0; i < a->nnotes; i++)
		if (strstr(a->notes[i], word))
			return 1;
	return 0;
}

static inline void assert_near(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("got %g, want %g within %g %%", got, want, rel * 100);
}

#endif
