/* internal.h - helpers shared by the files of src/model, not public API. */
#ifndef DMLSCOPE_MODEL_INTERNAL_H
#define DMLSCOPE_MODEL_INTERNAL_H

#include "dmlscope/model.h"

/* Omnibus, skew, kurtosis, Jarque-Bera and Durbin-Watson of residuals e. */
void dmls_resid_diagnostics(dmls_fit *fit, const double *e);

#endif
