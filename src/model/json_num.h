/* json_num.h - a JSON number, or null for NaN and infinity (never NaN in output). */
#ifndef DMLSCOPE_MODEL_JSON_NUM_H
#define DMLSCOPE_MODEL_JSON_NUM_H

#include <jansson.h>
#include <math.h>

static inline json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

#endif
