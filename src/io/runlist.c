/*
 * runlist.c - run folders below a dataset folder (see runlist.h).
 */
#include "dmlscope/runlist.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void dmls_runlist_init(dmls_runlist *rl)
{
	memset(rl, 0, sizeof(*rl));
}

void dmls_runlist_release(dmls_runlist *rl)
{
	for (size_t i = 0; i < rl->n; i++)
		free(rl->paths[i]);
	free(rl->paths);
	memset(rl, 0, sizeof(*rl));
}

int dmls_has_captures(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		const char *dot = strrchr(e->d_name, '.');
		found = e->d_name[0] != '.' && dot &&
			(!strcmp(dot, ".pcap") || !strcmp(dot, ".pcapng"));
	}
	closedir(d);
	return found;
}

/* Take ownership of p (freed on failure). */
static int push(dmls_runlist *rl, char *p)
{
	if (rl->n == rl->cap) {
		size_t cap = rl->cap ? 2 * rl->cap : 16;
		char **np = realloc(rl->paths, cap * sizeof(*np));
		if (!np) {
			free(p);
			return -1;
		}
		rl->paths = np;
		rl->cap = cap;
	}
	rl->paths[rl->n++] = p;
	return 0;
}

int dmls_runlist_add(dmls_runlist *rl, const char *path, dmls_error *err)
{
	char *p = strdup(path);
	if (!p || push(rl, p))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	return DMLS_OK;
}

static int find(dmls_runlist *rl, const char *dir, int depth)
{
	DIR *d = depth < 1 ? NULL : opendir(dir);
	struct dirent *e;
	int oom = 0;
	if (!d)
		return 0;
	while (!oom && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		size_t l = strlen(dir) + strlen(e->d_name) + 2;
		char *p = malloc(l);
		struct stat sb;
		if (!p) {
			oom = 1;
			break;
		}
		size_t dl = strlen(dir);
		snprintf(p, l, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", e->d_name);
		if (stat(p, &sb) || !S_ISDIR(sb.st_mode)) {
			free(p);
		} else if (dmls_has_captures(p)) {
			oom = push(rl, p);
		} else {
			if (depth > 1)
				oom = find(rl, p, depth - 1);
			free(p);
		}
	}
	closedir(d);
	return oom ? -1 : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int dmls_runlist_find(dmls_runlist *rl, const char *dir, int depth, dmls_error *err)
{
	size_t first = rl->n;
	if (find(rl, dir, depth))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (rl->n > first)
		qsort(rl->paths + first, rl->n - first, sizeof(*rl->paths), cmp_str);
	return DMLS_OK;
}
