/*
 * cli_util.h - what every command's front end does the same way: write a
 * JSON document to a file or stdout, and report a getopt error in one line.
 */
#ifndef DMLSCOPE_CLI_UTIL_H
#define DMLSCOPE_CLI_UTIL_H

#include <jansson.h>

/* Write doc (reference stolen) to dest ("-" = stdout) with precision
 * significant digits for reals.  Returns 0, or prints "dmlscope CMD: 'dest':
 * cannot write" and returns DMLS_EIO (DMLS_ENOMEM and "out of memory" when
 * doc is NULL: building it failed). */
int cli_write_json(json_t *doc, const char *dest, const char *cmd, int precision);

/* Flush standard output; on failure print "dmlscope CMD: cannot write to
 * standard output" and return DMLS_EIO, else 0. */
int cli_flush_stdout(const char *cmd);

/* Report getopt_long's ':' (missing value) or '?' (unknown option) for the
 * option at argv[optind - 1] in one line; returns -1. */
int cli_option_error(const char *cmd, int c, char **argv);

/* --csv DIR: a folder, not "-" (it writes several files).  Returns 0, or
 * prints "dmlscope CMD: --csv takes a folder ..." and returns -1. */
int cli_csv_dir(const char *cmd, const char *arg);

/* --tunnels inner|outer into decode flags (0, DMLS_DECODE_OUTER).  Returns
 * 0, or prints "dmlscope CMD: invalid --tunnels ..." and returns -1. */
int cli_tunnels(const char *cmd, const char *arg, unsigned *flags);

#endif
