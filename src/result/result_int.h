/* result_int.h - between result.c and result_lists.c. */
#ifndef DMLSCOPE_RESULT_INT_H
#define DMLSCOPE_RESULT_INT_H

#include "dmlscope/result.h"

/* The display orders and figures of r (r->stats and r->analysis set, the
 * scalars computed).  DMLS_OK or DMLS_ENOMEM. */
int dmls_result_lists(dmls_result *r);

#endif
