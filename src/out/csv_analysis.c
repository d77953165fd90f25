/*
 * csv_analysis.c - the analysis as CSV files.
 *
 *   iterations.csv   index,boundary_s,start_s,comm_end_s,duration_s,payload_bytes
 *                    (bytes of all job hosts between one boundary and the next)
 *   burstiness.csv   scope,timescale_s,max_window_bytes,peak_to_mean
 *   backlog.csv      scope,drain_rate_bps,max_backlog_bytes
 * scope is "total" (wire bytes, 100 us bins) or a host address (its sent
 * payload, 1 ms bins).  Unknown values are empty fields.
 */
#include <math.h>

#include "dmlscope/analysis.h"
#include "dmlscope/render.h"

static void num(FILE *fp, double v, const char *end)
{
	if (isfinite(v))
		fprintf(fp, "%.9g%s", v, end);
	else
		fputs(end, fp);
}

static int close_out(FILE *fp, const char *dir, const char *name, dmls_error *err)
{
	int bad = ferror(fp);
	if (fclose(fp) || bad)
		return dmls_fail(err, DMLS_EIO, "'%s/%s': cannot write", dir, name);
	return 0;
}

static int iterations_csv(const dmls_analysis *a, const char *dir, dmls_error *err)
{
	FILE *fp = dmls_open_out(dir, "iterations.csv", err);
	if (!fp)
		return err ? err->status : DMLS_EIO;
	const dmls_iterations *it = &a->iter;
	fprintf(fp, "index,boundary_s,start_s,comm_end_s,duration_s,payload_bytes\n");
	for (size_t i = 0; i < it->count; i++) {
		double end = i + 1 < it->count ? it->bounds_s[i + 1] : it->end_s;
		fprintf(fp, "%zu,", i);
		num(fp, it->bounds_s[i], ",");
		num(fp, it->starts_s[i], ",");
		num(fp, it->comm_end_s[i], ",");
		num(fp, end - it->bounds_s[i], ",");
		num(fp, it->bytes[i], "\n");
	}
	return close_out(fp, dir, "iterations.csv", err);
}

static int burst_csv(const dmls_analysis *a, const dmls_stats *st, const char *dir,
		     dmls_error *err)
{
	FILE *fp = dmls_open_out(dir, "burstiness.csv", err);
	if (!fp)
		return err ? err->status : DMLS_EIO;
	fprintf(fp, "scope,timescale_s,max_window_bytes,peak_to_mean\n");
	for (size_t h = 0; h <= a->nhosts && h <= st->nhosts; h++) {
		const dmls_burst *b = h == 0 ? &a->burst_total : &a->burst_host[h - 1];
		for (int i = 0; i < DMLS_NTAU; i++) {
			fprintf(fp, "%s,%g,", h == 0 ? "total" : st->hosts[h - 1].name,
				dmls_burst_tau_s[i]);
			num(fp, b->max_window_bytes[i], ",");
			num(fp, b->peak_to_mean[i], "\n");
		}
	}
	int rc = close_out(fp, dir, "burstiness.csv", err);
	if (rc || !(fp = dmls_open_out(dir, "backlog.csv", err)))
		return rc ? rc : (err ? err->status : DMLS_EIO);
	fprintf(fp, "scope,drain_rate_bps,max_backlog_bytes\n");
	for (size_t h = 0; h <= a->nhosts && h <= st->nhosts; h++) {
		const dmls_burst *b = h == 0 ? &a->burst_total : &a->burst_host[h - 1];
		for (int i = 0; i < DMLS_NRATE; i++) {
			fprintf(fp, "%s,%g,", h == 0 ? "total" : st->hosts[h - 1].name,
				dmls_burst_rate_bps[i]);
			num(fp, b->max_backlog_bytes[i], "\n");
		}
	}
	return close_out(fp, dir, "backlog.csv", err);
}

int dmls_analysis_csv(const dmls_analysis *a, const dmls_stats *st, const char *dir,
		      dmls_error *err)
{
	if (!a)
		return 0;
	int rc = iterations_csv(a, dir, err);
	return rc ? rc : burst_csv(a, st, dir, err);
}
