/*
 * dataset.c - a dataset folder (one run folder per job) as a feature table.
 *
 * Each run becomes one row: mb_per_step (all workers' bytes per training step),
 * model_size_mb, framework_backend, batch, topology, workers and the other
 * attributes of the folder name.
 */
#include "dmlscope/model.h"

#include <string.h>

#define DMLS_STUDY_FORMULA \
	"mb_per_step ~ model_size_mb + C(framework_backend) + C(batch) + C(topology)"

void dmls_default_formula(const dmls_table *t, char *buf, size_t cap)
{
	long w = t ? dmls_table_find(t, "workers") : -1;
	int varies = 0;
	if (w >= 0) {
		const dmls_column *c = &t->cols[w];
		for (size_t i = 1; i < t->nrows && !varies; i++)
			varies = c->cells[i] && c->cells[0] && strcmp(c->cells[i], c->cells[0]);
	}
	snprintf(buf, cap, "%s%s", DMLS_STUDY_FORMULA, varies ? " + workers" : "");
}

int dmls_dataset_table(const char *dir, dmls_table *out, dmls_error *err)
{
	memset(out, 0, sizeof(*out));
	return dmls_fail(err, DMLS_EBAD, "'%s': dataset folders are not implemented yet; "
			 "give a CSV", dir);
}
