/*
 * out_file.c - the files of the renderers that write a folder (the CSV
 * tables of analyze and compare): dmls_open_out (render.h).
 */
#include "dmlscope/render.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p: dir and the folders above it. */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);
	if (n == 0 || n >= sizeof(path))
		return errno = n ? ENAMETOOLONG : ENOENT, -1;
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++)
		if (path[i] == '/' || path[i] == '\0') {
			char c = path[i];
			path[i] = '\0';
			if (mkdir(path, 0777) && errno != EEXIST)
				return -1;
			path[i] = c;
		}
	return 0;
}

FILE *dmls_open_out(const char *dir, const char *name, dmls_error *err)
{
	if (make_dirs(dir)) {
		dmls_fail(err, DMLS_EIO, "'%s': %s", dir, strerror(errno));
		return NULL;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	if (!fp)
		dmls_fail(err, DMLS_EIO, "'%s': %s", path, strerror(errno));
	return fp;
}
