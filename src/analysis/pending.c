/*
 * pending.c - placeholder so the CLI links until the analysis stage
 * (pattern.c, iterations.c, burstiness.c, ...) lands on main.
 * DELETE THIS FILE when it does: the real definitions replace these.
 */
#include "dmlscope/analysis.h"
#include "dmlscope/render.h"

int dmls_analysis_run(dmls_analysis **out, dmls_stats *st, const dmls_trainlog *log,
		      dmls_error *err)
{
	(void)st;
	(void)log;
	*out = NULL;
	return dmls_fail(err, DMLS_EBAD, "traffic analysis is not built in yet");
}

void dmls_analysis_free(dmls_analysis *a)
{
	(void)a;
}

void dmls_analysis_json(const dmls_analysis *a, const dmls_stats *st, json_t *root)
{
	(void)a, (void)st, (void)root;
}

void dmls_analysis_text(const dmls_analysis *a, const dmls_stats *st, FILE *fp)
{
	(void)a, (void)st, (void)fp;
}

int dmls_analysis_csv(const dmls_analysis *a, const dmls_stats *st, const char *dir,
		      dmls_error *err)
{
	(void)a, (void)st, (void)dir, (void)err;
	return 0;
}
