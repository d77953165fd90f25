/* jobs_int.h - between jobs.c (the cut by volume) and jobs_shared.c. */
#ifndef DMLS_ANALYSIS_JOBS_INT_H
#define DMLS_ANALYSIS_JOBS_INT_H

#include "dmlscope/analysis.h"

/* Split each job of jobs[0..*njobs) in which two jobs share a host (their
 * parts keep different steps); the new jobs are appended.  0 or an error. */
int dmls_jobs_split_shared(dmls_job_scope **jobs, size_t *njobs, const dmls_stats *st,
			   dmls_error *err);

#endif
