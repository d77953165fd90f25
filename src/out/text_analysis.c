/*
 * text_analysis.c - the analysis' lines of the terminal summary.
 *
 * A few lines a person reads in ten seconds: the pattern and roles, the
 * iterations and the gradient size they imply, phases, burstiness, the
 * train log beside the traffic, and notes on anything odd.
 */
#include <math.h>
#include <string.h>

#include "out/text_int.h"

static const char *mb(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (v >= 1e9)
		snprintf(buf, len, "%.2f GB", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2f MB", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1f kB", v / 1e3);
	else
		snprintf(buf, len, "%.0f B", v);
	return buf;
}

static void pattern_text(const dmls_result *r, FILE *fp)
{
	const dmls_stats *st = r->stats;
	fprintf(fp, "%spattern: %s", r->job.id > 0 ? "" : "\n", r->pattern.name);
	if (r->pattern.ranks > 0)
		fprintf(fp, ", %lld ranks (confidence %.2f)", (long long)r->pattern.ranks,
			r->pattern.confidence);
	else if (r->pattern.ranks < 0 && r->pattern.partial)
		fprintf(fp, ", rank count unknown");
	else if (r->pattern.ranks < 0 && r->pattern.nmembers > 0) /* seen: a part of it */
		fprintf(fp, ", %zu ranks seen, rank count unknown (confidence %.2f)",
			r->pattern.nmembers, r->pattern.confidence);
	if (r->pattern.groups > 0)
		fprintf(fp, ", %lld groups", (long long)r->pattern.groups);
	if (r->pattern.partial && r->pattern.ranks > 0)
		fprintf(fp, ", partial view: %zu of %lld ranks' sending captured",
			r->pattern.nobserved, (long long)r->pattern.ranks);
	else if (r->pattern.partial)
		fprintf(fp, ", partial view: %zu ranks' sending captured", r->pattern.nobserved);
	fputc('\n', fp);
	size_t n = r->pattern.norder;
	if (n) {
		fprintf(fp, "  ring order%s:", n < r->pattern.nmembers ? " (partial)" : "");
		for (size_t i = 0; i < n; i++)
			fprintf(fp, " %s%s", st->hosts[r->pattern.order[i]].name,
				i + 1 < n ? " ->" : "");
		if (n == r->pattern.nmembers)
			fprintf(fp, " -> %s", st->hosts[r->pattern.order[0]].name);
		fputc('\n', fp);
	}
	if (r->pattern.nhubs) {
		fprintf(fp, "  %s:", r->pattern.kind == DMLS_PAT_STAR ? "servers (hubs)" : "root");
		for (size_t i = 0; i < r->pattern.nhubs; i++)
			fprintf(fp, " %s", st->hosts[r->pattern.hubs[i]].name);
		fputc('\n', fp);
	}
}

/* An asynchronous job: each rank's own period instead of one. */
static void async_text(const dmls_result *r, FILE *fp)
{
	char b1[32], b2[32];
	fprintf(fp, "iterations: asynchronous (%s)\n", r->iter.mode_evidence);
	for (size_t i = 0; i < r->iter.nranks && i < DMLS_HOSTS_SHOWN; i++) {
		const dmls_rank_clock *c = &r->iter.ranks[i];
		if (c->count == 0)
			continue;
		fprintf(fp, "  %-15s %zu exchanges, period %.4g s, %s per exchange\n",
			r->stats->hosts[c->host].name, c->count, c->period_s,
			mb(c->bytes_per_exchange, b1, sizeof(b1)));
	}
	fprintf(fp, "  gradient size S %s\n", mb(r->model.gradient_bytes, b2, sizeof(b2)));
}

/* Runs back to back: each one's time and bytes, the busiest marked (the
 * first DMLS_RUNS_SHOWN; runs.csv lists them all). */
#define DMLS_RUNS_SHOWN 8
static void runs_text(const dmls_result *r, FILE *fp)
{
	char b1[32];
	size_t n = r->iter.nrun_list;
	if (n == 0)
		return;
	fprintf(fp, "runs back to back: %lld, the iterations from the busiest\n",
		(long long)r->iter.runs);
	for (size_t i = 0; i < n && i < DMLS_RUNS_SHOWN; i++) {
		const dmls_run_span *u = &r->iter.run_list[i];
		fprintf(fp, "  run %zu: t = %.3f to %.3f s, %s on the wire%s\n", i + 1, u->start_s,
			u->end_s, mb(u->wire_bytes, b1, sizeof(b1)), u->busiest ? " (busiest)" : "");
	}
	if (n > DMLS_RUNS_SHOWN)
		fprintf(fp, "  ... %zu more (all of them in runs.csv)\n", n - DMLS_RUNS_SHOWN);
}

static void iterations_text(const dmls_result *r, FILE *fp)
{
	char b1[32], b2[32];
	if (r->iter.mode && !strcmp(r->iter.mode, "asynchronous")) {
		async_text(r, fp);
		return;
	}
	if (r->iter.count < 0) { /* withheld: the notes say why */
		fprintf(fp, "iterations: withheld (see the notes)\n");
		return;
	}
	if (r->iter.count == 0)
		return;
	fprintf(fp, "iterations (from traffic): %lld", (long long)r->iter.count);
	if (isfinite(r->iter.period_s))
		fprintf(fp, ", period %.4g s (median %.4g s)", r->iter.period_s,
			r->iter.period_median_s);
	if (isfinite(r->iter.regularity))
		fprintf(fp, ", regularity %.2f", r->iter.regularity);
	fputc('\n', fp);
	fprintf(fp, "  bytes per worker per iteration %s (spread %.1f %%), gradient size S %s\n",
		mb(r->iter.bytes_per_worker, b1, sizeof(b1)),
		isfinite(r->iter.bytes_spread) ? 100 * r->iter.bytes_spread : 0.0,
		mb(r->model.gradient_bytes, b2, sizeof(b2)));
	if (r->job.id == 0) /* once, under the top level's job */
		fprintf(fp, "  (regularity = mean of autocorrelation at the period, 1 - CV of "
			    "iteration\n   durations, 1 - CV of bytes per iteration; CV = 1.4826 MAD / "
			    "median)\n");
}

static void burst_text(const dmls_result *r, FILE *fp)
{
	const dmls_burst *b = r->burst.total;
	char b1[32];
	if (isfinite(r->phases.duty_cycle))
		fprintf(fp, "phases: duty cycle %.1f %%, %lld bursts (median %.3g s), gaps median %.3g s\n",
			100 * r->phases.duty_cycle, (long long)r->phases.bursts.count,
			r->phases.bursts.p50_s,
			isfinite(r->phases.gaps.p50_s) ? r->phases.gaps.p50_s : 0.0);
	fprintf(fp, "burstiness (peak-to-mean):");
	for (int i = 0; i < DMLS_NTAU; i++)
		if (isfinite(b->peak_to_mean[i]))
			fprintf(fp, " %g ms %.1f:1", dmls_burst_tau_s[i] * 1e3, b->peak_to_mean[i]);
	fputc('\n', fp);
	fprintf(fp, "  max backlog at 10 Gbit/s %s\n", mb(b->max_backlog_bytes[1], b1, sizeof(b1)));
}

/* The train log beside the traffic (the run folder's, or a job's own). */
static void log_text(const dmls_result *r, FILE *fp)
{
	char err[32] = "no error: no steady step", mb[32] = "no MB per step";
	if (!r->has_log)
		return;
	if (isfinite(r->log.period_error))
		snprintf(err, sizeof(err), "%+.1f %%", 100 * r->log.period_error);
	if (isfinite(r->log.mb_per_step))
		snprintf(mb, sizeof(mb), "%.2f MB per step", r->log.mb_per_step);
	if (!isfinite(r->log.mean_step_s)) /* under 2 steps, or out of order */
		fprintf(fp, "train log: %lld steps, no step time\n", (long long)r->log.steps);
	else if (isfinite(r->log.detected_period_s))
		fprintf(fp, "train log: %lld steps, mean step %.4g s, from the second %.4g s "
			    "(traffic: %.4g s, %s), %s\n",
			(long long)r->log.steps, r->log.mean_step_s, r->log.steady_step_s,
			r->log.detected_period_s, err, mb);
	else
		fprintf(fp, "train log: %lld steps, mean step %.4g s (traffic: no job-wide period), %s\n",
			(long long)r->log.steps, r->log.mean_step_s, mb);
}

/* The other jobs of the capture: a few lines each. */
static void jobs_text(const dmls_result *r, FILE *fp)
{
	char b1[32];
	for (size_t j = 1; j < r->njobs; j++) {
		const dmls_result *jr = &r->jobs[j];
		fprintf(fp, "\njob %lld of %zu: %.3f s from t=%.3f s, %s on the wire\n",
			(long long)jr->job.id, r->njobs, jr->job.duration_s, jr->job.start_s,
			mb(jr->job.wire_bytes, b1, sizeof(b1)));
		pattern_text(jr, fp);
		iterations_text(jr, fp);
		runs_text(jr, fp);
		log_text(jr, fp);
		for (size_t i = 0; i < jr->nnotes; i++)
			fprintf(fp, "note: %s\n", jr->notes[i]);
	}
}

void dmls_render_text_analysis(const dmls_result *r, FILE *fp)
{
	pattern_text(r, fp);
	iterations_text(r, fp);
	runs_text(r, fp);
	burst_text(r, fp);
	log_text(r, fp);
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(fp, "note: %s\n", r->notes[i]);
	jobs_text(r, fp);
}
