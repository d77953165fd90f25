/*
 * analysis.h - the training job seen in the traffic.
 *
 * From a dmls_stats (and, only for checking, a train log) this finds the
 * communication pattern and the roles of hosts, the iteration period, bytes
 * per iteration per worker and the gradient size they imply, regularity,
 * on/off phases and burstiness.  Owned by the analysis stage (src/analysis).
 */
#ifndef DMLSCOPE_ANALYSIS_H
#define DMLSCOPE_ANALYSIS_H

#include <stdio.h>

#include "dmlscope/error.h"
#include "dmlscope/runfolder.h"
#include "dmlscope/stats.h"

typedef struct dmls_analysis dmls_analysis;

/* Analyze st (roles are written into st->hosts[i].role).  log may be NULL. */
int dmls_analysis_run(dmls_analysis **out, dmls_stats *st, const dmls_trainlog *log,
		      dmls_error *err);
void dmls_analysis_free(dmls_analysis *a);

#endif
