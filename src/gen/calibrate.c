/*
 * calibrate.c - a job description taken from the analysis of a real run
 * (`dmlscope generate --like RUN`).
 *
 * What the analysis measures is what the generator needs: the pattern and
 * its ranks, S as the contract derives it from the bytes per worker (ring
 * and clique S = b N / (2(N-1)), star S = b), the number of iterations and
 * the mean period.  Options the user gave win over the run.
 */
#include <math.h>

#include "dmlscope/analysis.h"
#include "gen/gen_int.h"

int dmls_gen_calibrate(dmls_gen_job *job, unsigned set, const struct dmls_analysis *a,
		       const char *name, dmls_error *err)
{
	const dmls_pattern *p = &a->pattern;
	if (!(set & DMLS_GEN_SET_PATTERN)) {
		const char *kind = dmls_pattern_name(p->kind);
		if (dmls_gen_pattern_parse(kind) < 0)
			return dmls_fail(err, DMLS_EBAD,
					 "'%s': pattern '%s' cannot be generated; give --pattern",
					 name, kind);
		job->pattern = p->kind;
	}
	if (!(set & DMLS_GEN_SET_WORKERS)) {
		size_t hubs = p->kind == DMLS_PAT_STAR ? (p->nhubs ? p->nhubs : 1) : 0;
		if (job->pattern == DMLS_PAT_STAR && p->kind != DMLS_PAT_STAR)
			hubs = 1; /* one of the run's ranks becomes the server */
		if (p->ranks < hubs + 1)
			return dmls_fail(err, DMLS_EBAD, "'%s': no ranks found; give --workers",
					 name);
		job->workers = p->ranks - hubs;
	}
	if (!(set & DMLS_GEN_SET_GRADIENT)) {
		if (!isfinite(a->gradient_bytes) || a->gradient_bytes < 1)
			return dmls_fail(err, DMLS_EBAD,
					 "'%s': gradient size unknown for a %s; give "
					 "--gradient-bytes", name, dmls_pattern_name(p->kind));
		job->gradient_bytes = (uint64_t)llround(a->gradient_bytes);
	}
	if (!(set & DMLS_GEN_SET_ITERATIONS)) {
		if (a->iter.count < 1)
			return dmls_fail(err, DMLS_EBAD, "'%s': no iterations found; give "
					 "--iterations", name);
		job->iterations = a->iter.count;
	}
	if (!(set & DMLS_GEN_SET_PERIOD) && isfinite(a->iter.period_s) && a->iter.period_s > 0)
		job->iteration_ns = (int64_t)llround(a->iter.period_s * 1e9);
	return DMLS_OK;
}
