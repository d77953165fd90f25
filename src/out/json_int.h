/* json_int.h - the lists of json.c, for test_result. */
#ifndef DMLSCOPE_JSON_INT_H
#define DMLSCOPE_JSON_INT_H

#include "dmlscope/render.h"

/* The list-valued keys of `analyze --json` (DMLS_T_LIST metrics) and what
 * writes each. */
typedef struct dmls_json_list {
	const char *key;
	json_t *(*write)(const dmls_result *r);
} dmls_json_list;
extern const dmls_json_list dmls_json_lists[];
extern const size_t dmls_json_nlists;

/* Set in root every metric of r whose key starts with one of sections
 * (NULL-terminated; NULL: all), in the table's order.  0, or -1. */
int dmls_json_walk(json_t *root, const dmls_result *r, const char *const *sections);

#endif
