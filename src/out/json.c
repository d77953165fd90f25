/*
 * json.c - `analyze --json`: the metric table (result.h) walked in order.
 *
 * Every metric that exists for the result and is a key of the document
 * (not DMLS_M_EXTRA) is set at its dotted path, the objects on the way
 * made as they are first needed, so the document's keys come in the
 * table's order; a list is written by its writer in json_lists.c.  Keys
 * follow doc/contract.md; unknown values are null, never NaN.
 */
#include "dmlscope/render.h"

#include <math.h>
#include <string.h>

#include "out/json_int.h"

json_t *dmls_json_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *dmls_json_value(dmls_value v)
{
	switch (v.type) {
	case DMLS_T_INT: return json_integer((json_int_t)v.i);
	case DMLS_T_REAL: return dmls_json_real(v.r);
	case DMLS_T_STR: return json_string(v.s);
	case DMLS_T_BOOL: return json_boolean(v.i);
	default: return json_null();
	}
}

static json_t *list(const dmls_metric *m, const dmls_result *r)
{
	for (size_t i = 0; i < dmls_json_nlists; i++)
		if (!strcmp(dmls_json_lists[i].key, m->key))
			return dmls_json_lists[i].write(r);
	return json_null(); /* a list without a writer: test_result fails on it */
}

/* Set v (reference stolen) at the dotted path in root.  0, or -1. */
static int set_path(json_t *root, const char *path, json_t *v)
{
	char key[64];
	json_t *o = root;
	for (;;) {
		size_t l = strcspn(path, ".");
		if (l >= sizeof(key) || !o) {
			json_decref(v);
			return -1;
		}
		memcpy(key, path, l);
		key[l] = '\0';
		if (!path[l])
			return json_object_set_new(o, key, v);
		json_t *next = json_object_get(o, key);
		if (!next && json_object_set_new(o, key, next = json_object()))
			next = NULL;
		o = next;
		path += l + 1;
	}
}

static int wanted(const char *key, const char *const *sections)
{
	if (!sections)
		return 1;
	for (; *sections; sections++)
		if (!strncmp(key, *sections, strlen(*sections)))
			return 1;
	return 0;
}

int dmls_json_walk(json_t *root, const dmls_result *r, const char *const *sections)
{
	for (size_t i = 0; i < dmls_nmetrics; i++) {
		const dmls_metric *m = &dmls_metrics[i];
		if ((m->flags & DMLS_M_EXTRA) || !dmls_metric_present(m, r) ||
		    !wanted(m->key, sections))
			continue;
		json_t *v = m->type == DMLS_T_LIST ? list(m, r)
						    : dmls_json_value(dmls_metric_value(m, r));
		if (!v || set_path(root, m->key, v))
			return -1;
	}
	return 0;
}

json_t *dmls_render_json(const dmls_result *r)
{
	json_t *root = json_object();
	if (root && dmls_json_walk(root, r, NULL)) {
		json_decref(root);
		root = NULL;
	}
	return root;
}
