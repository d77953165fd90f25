/* units.c - sizes ("25MB", "8.9MiB") and times ("1ms", "100us") from text. */
#include "dmlscope/units.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int parse_scaled(const char *s, const char *const *suffix, const double *scale,
			double *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -1;
	for (int i = 0; suffix[i]; i++)
		if (!strcasecmp(end, suffix[i]) && (*end || i == 0)) {
			*out = v * scale[i];
			return isfinite(*out) ? 0 : -1;
		}
	return -1;
}

int dmls_parse_size(const char *s, double *bytes)
{
	static const char *const suffix[] = {"", "B", "kB", "MB", "GB", "TB", "KiB", "MiB",
					     "GiB", "TiB", NULL};
	static const double scale[] = {1, 1, 1e3, 1e6, 1e9, 1e12, 1024.0, 1048576.0,
				       1073741824.0, 1099511627776.0};
	return parse_scaled(s, suffix, scale, bytes);
}

int dmls_parse_time_ns(const char *s, int64_t *ns)
{
	static const char *const suffix[] = {"", "s", "ms", "us", "ns", NULL};
	static const double scale[] = {1e9, 1e9, 1e6, 1e3, 1};
	double v;
	if (parse_scaled(s, suffix, scale, &v) || v < 1 || v > 9.2e18)
		return -1;
	*ns = (int64_t)llround(v);
	return 0;
}
