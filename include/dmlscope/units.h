/*
 * units.h - parsing sizes and times given on the command line.
 *
 * Sizes: a number with an optional suffix B, kB/KB, MB, GB, TB (powers of
 * 1000) or KiB, MiB, GiB, TiB (powers of 1024): "25MB", "8.9MiB", "4096".
 * Times: a number with an optional suffix s, ms, us, ns (default seconds).
 */
#ifndef DMLSCOPE_UNITS_H
#define DMLSCOPE_UNITS_H

#include <stdint.h>

/* Returns 0 and sets *bytes, or -1 if s is not a non-negative size. */
int dmls_parse_size(const char *s, double *bytes);
/* Returns 0 and sets *ns, or -1 if s is not a positive time. */
int dmls_parse_time_ns(const char *s, int64_t *ns);

#endif
