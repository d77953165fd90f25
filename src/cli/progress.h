/*
 * progress.h - progress of a long read on stderr, for a person at a
 * terminal (progress.c).
 */
#ifndef DMLSCOPE_CLI_PROGRESS_H
#define DMLSCOPE_CLI_PROGRESS_H

#include <stdint.h>

typedef struct cli_progress {
	const char *cmd;     /* "dmlscope analyze" */
	int on, shown;
	double t0, last, delay;
} cli_progress;

/* On only when stderr is a terminal and not quiet. */
void cli_progress_init(cli_progress *p, const char *cmd, int quiet);
/* The dmls_job_opts.progress callback; ctx is the cli_progress. */
void cli_progress_cb(void *ctx, uint64_t done, uint64_t total, uint64_t packets);
/* Clear the line, if anything was shown. */
void cli_progress_end(cli_progress *p);

#endif
