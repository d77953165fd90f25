/*
 * runlist.h - find the run folders in a dataset folder.
 *
 * A run folder is a folder holding captures (*.pcap, *.pcapng) directly; a
 * dataset folder holds run folders down to DMLS_DATASET_DEPTH levels below
 * it (the testbed writes dataset/n<ranks>/<run>/).  Used by `fit` (one row
 * per run) and `compare` (one column of figures per run).
 *
 * Ownership: dmls_runlist_init/dmls_runlist_release; the paths are the
 * list's.
 */
#ifndef DMLSCOPE_RUNLIST_H
#define DMLSCOPE_RUNLIST_H

#include <stddef.h>

#include "dmlscope/error.h"

#define DMLS_DATASET_DEPTH 3 /* dataset/group/run */

typedef struct dmls_runlist {
	size_t n, cap;
	char **paths;       /* "dir/sub/run", in the order found (see _sort) */
} dmls_runlist;

void dmls_runlist_init(dmls_runlist *rl);
void dmls_runlist_release(dmls_runlist *rl);

/* True if dir holds a capture file directly (a run folder). */
int dmls_has_captures(const char *dir);

/* Append the run folders below dir, down to depth levels, sorted by path
 * (so that results and cross-validation folds are reproducible).  dir
 * itself is not tested.  Returns DMLS_OK (possibly none found) or DMLS_EIO
 * when out of memory. */
int dmls_runlist_find(dmls_runlist *rl, const char *dir, int depth, dmls_error *err);

/* Append a copy of path. */
int dmls_runlist_add(dmls_runlist *rl, const char *path, dmls_error *err);

#endif
