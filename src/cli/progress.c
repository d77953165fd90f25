/*
 * progress.c - how far a long read is, on stderr, while it runs.
 *
 * Only on a terminal and without --quiet (a pipe or a log gets nothing),
 * only once the work has taken half a second (short runs stay silent;
 * DMLSCOPE_PROGRESS_DELAY=SECONDS changes that, as GIT_PROGRESS_DELAY does), at
 * most five times a second, on one line redrawn in place and cleared at the
 * end: bytes read of the total, percent, rate, time left, packets.  When
 * the total is unknown (standard input), bytes, rate and packets.
 */
#include "cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define START_S 0.5
#define EVERY_S 0.2

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, const char *cmd, int quiet)
{
	p->cmd = cmd;
	p->on = !quiet && isatty(STDERR_FILENO);
	const char *d = getenv("DMLSCOPE_PROGRESS_DELAY");
	char *end;
	double v = d ? strtod(d, &end) : START_S;
	p->delay = d && end != d && v >= 0 ? v : START_S;
	p->shown = 0;
	p->t0 = now_s();
	p->last = 0;
}

static void human(double b, char *out, size_t n)
{
	const char *u[] = {"B", "kB", "MB", "GB", "TB"};
	int i = 0;
	while (b >= 1000 && i < 4)
		b /= 1000, i++;
	snprintf(out, n, i ? "%.1f %s" : "%.0f %s", b, u[i]);
}

void cli_progress_cb(void *ctx, uint64_t done, uint64_t total, uint64_t packets)
{
	cli_progress *p = ctx;
	if (!p->on)
		return;
	double t = now_s(), el = t - p->t0;
	if (el < p->delay || t - p->last < EVERY_S)
		return;
	p->last = t;
	p->shown = 1;
	char d[32], tot[32], rate[32];
	human((double)done, d, sizeof(d));
	human(el > 0 ? (double)done / el : 0, rate, sizeof(rate));
	if (total > 0 && done <= total) {
		human((double)total, tot, sizeof(tot));
		double left = done > 0 ? el * (double)(total - done) / (double)done : 0;
		fprintf(stderr, "\r%s: %s of %s (%.0f %%), %s/s, %.0f s left, %.2f M packets\033[K",
			p->cmd, d, tot, 100.0 * (double)done / (double)total, rate, left,
			(double)packets / 1e6);
	} else {
		fprintf(stderr, "\r%s: %s read, %s/s, %.2f M packets\033[K", p->cmd, d, rate,
			(double)packets / 1e6);
	}
	fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = 0;
}
