/*
 * text_analysis.c - the analysis' lines of the terminal summary.
 *
 * A few lines a person reads in ten seconds: the pattern and roles, the
 * iterations and the gradient size they imply, phases, burstiness, the
 * train log beside the traffic, and notes on anything odd.
 */
#include <math.h>

#include "dmlscope/analysis.h"
#include "dmlscope/render.h"

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

static void pattern_text(const dmls_analysis *a, const dmls_stats *st, FILE *fp)
{
	const dmls_pattern *p = &a->pattern;
	fprintf(fp, "\npattern: %s", dmls_pattern_name(p->kind));
	if (p->ranks)
		fprintf(fp, ", %zu ranks (confidence %.2f)", p->ranks, p->confidence);
	if (p->ngroups)
		fprintf(fp, ", %zu groups", p->ngroups);
	if (p->partial)
		fprintf(fp, ", partial view: %zu of %zu ranks' sending captured", p->nobserved,
			p->ranks);
	fputc('\n', fp);
	if (p->norder) {
		fprintf(fp, "  ring order%s:", p->norder < p->ranks ? " (partial)" : "");
		for (size_t i = 0; i < p->norder; i++)
			fprintf(fp, " %s%s", st->hosts[p->order[i]].name,
				i + 1 < p->norder ? " ->" : "");
		if (p->norder == p->ranks)
			fprintf(fp, " -> %s", st->hosts[p->order[0]].name);
		fputc('\n', fp);
	}
	if (p->nhubs) {
		fprintf(fp, "  %s:", p->kind == DMLS_PAT_STAR ? "servers (hubs)" : "root");
		for (size_t i = 0; i < p->nhubs; i++)
			fprintf(fp, " %s", st->hosts[p->hubs[i]].name);
		fputc('\n', fp);
	}
}

static void iterations_text(const dmls_analysis *a, FILE *fp)
{
	const dmls_iterations *it = &a->iter;
	char b1[32], b2[32];
	if (it->count == 0)
		return;
	fprintf(fp, "iterations (from traffic): %zu", it->count);
	if (isfinite(it->period_s))
		fprintf(fp, ", period %.4g s (median %.4g s)", it->period_s, it->period_median_s);
	if (isfinite(it->regularity))
		fprintf(fp, ", regularity %.2f", it->regularity);
	fputc('\n', fp);
	fprintf(fp, "  bytes per worker per iteration %s (spread %.1f %%), gradient size S %s\n",
		mb(it->bytes_per_worker, b1, sizeof(b1)),
		isfinite(it->bytes_spread) ? 100 * it->bytes_spread : 0.0,
		mb(a->gradient_bytes, b2, sizeof(b2)));
	fprintf(fp, "  (regularity = mean of autocorrelation at the period, 1 - CV of iteration\n"
		    "   durations, 1 - CV of bytes per iteration; CV = 1.4826 MAD / median)\n");
}

static void burst_text(const dmls_analysis *a, FILE *fp)
{
	const dmls_phases *ph = &a->phases;
	const dmls_burst *b = &a->burst_total;
	char b1[32];
	if (isfinite(ph->duty_cycle))
		fprintf(fp, "phases: duty cycle %.1f %%, %zu bursts (median %.3g s), gaps median %.3g s\n",
			100 * ph->duty_cycle, ph->bursts.n, ph->bursts.p50_s,
			isfinite(ph->gaps.p50_s) ? ph->gaps.p50_s : 0.0);
	fprintf(fp, "burstiness (peak-to-mean):");
	for (int i = 0; i < DMLS_NTAU; i++)
		if (isfinite(b->peak_to_mean[i]))
			fprintf(fp, " %g ms %.1f:1", dmls_burst_tau_s[i] * 1e3, b->peak_to_mean[i]);
	fputc('\n', fp);
	fprintf(fp, "  max backlog at 10 Gbit/s %s\n", mb(b->max_backlog_bytes[1], b1, sizeof(b1)));
}

void dmls_analysis_text(const dmls_analysis *a, const dmls_stats *st, FILE *fp)
{
	if (!a)
		return;
	pattern_text(a, st, fp);
	iterations_text(a, fp);
	burst_text(a, fp);
	const dmls_trainlog_metrics *m = &a->log;
	if (m->present)
		fprintf(fp, "train log: %zu steps, mean step %.4g s (traffic: %.4g s, %+.1f %%), "
			    "%.2f MB per step\n",
			m->steps, m->mean_step_s, a->iter.period_s,
			isfinite(m->period_error) ? 100 * m->period_error : 0.0, m->mb_per_step);
	for (size_t i = 0; i < a->nnotes; i++)
		fprintf(fp, "note: %s\n", a->notes[i]);
}
