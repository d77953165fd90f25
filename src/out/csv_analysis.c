/*
 * csv_analysis.c - the analysis as CSV files.
 *
 *   iterations.csv   index,boundary_s,start_s,comm_end_s,duration_s,payload_bytes
 *                    (bytes of all job hosts between one boundary and the next)
 *   burstiness.csv   scope,timescale_s,max_window_bytes,peak_to_mean
 *   backlog.csv      scope,drain_rate_bps,max_backlog_bytes
 *   jobs.csv         job,hosts,kind,ranks,mode,period_s,iterations,
 *                    gradient_bytes,start_s,duration_s,wire_bytes
 *                    (every job of the capture; hosts space-separated)
 *   ranks.csv        job,addr,period_s,count,bytes_per_exchange (each rank's
 *                    own clock, iterations.ranks)
 *   runs.csv         job,run,start_s,end_s,wire_bytes,busiest (each job's
 *                    runs back to back, iterations.run_times: no row for a
 *                    job of one run; busiest 1 for the run the iterations
 *                    read)
 * scope is "total" (wire bytes, 100 us bins) or a host address (its sent
 * payload, 1 ms bins).  Unknown values are empty fields.
 */
#include <math.h>

#include "out/csv_int.h"

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

static int iterations_csv(const dmls_result *r, const char *dir, dmls_error *err)
{
	FILE *fp = dmls_open_out(dir, "iterations.csv", err);
	if (!fp)
		return err ? err->status : DMLS_EIO;
	fprintf(fp, "index,boundary_s,start_s,comm_end_s,duration_s,payload_bytes\n");
	for (size_t i = 0; i < r->iter.n; i++) {
		fprintf(fp, "%zu,", i);
		num(fp, r->iter.bounds_s[i], ",");
		num(fp, r->iter.starts_s[i], ",");
		num(fp, r->iter.comm_end_s[i], ",");
		num(fp, r->iter.duration_s[i], ",");
		num(fp, r->iter.bytes[i], "\n");
	}
	return close_out(fp, dir, "iterations.csv", err);
}

/* The total's rows, then each host's. */
static const dmls_burst *scope(const dmls_result *r, size_t h, const char **name)
{
	*name = h == 0 ? "total" : r->stats->hosts[r->burst.host_idx[h - 1]].name;
	return h == 0 ? r->burst.total : &r->burst.hosts[h - 1];
}

static int burst_csv(const dmls_result *r, const char *dir, dmls_error *err)
{
	const char *name;
	FILE *fp = dmls_open_out(dir, "burstiness.csv", err);
	if (!fp)
		return err ? err->status : DMLS_EIO;
	fprintf(fp, "scope,timescale_s,max_window_bytes,peak_to_mean\n");
	for (size_t h = 0; h <= r->burst.nhosts; h++) {
		const dmls_burst *b = scope(r, h, &name);
		for (int i = 0; i < DMLS_NTAU; i++) {
			fprintf(fp, "%s,%g,", name, dmls_burst_tau_s[i]);
			num(fp, b->max_window_bytes[i], ",");
			num(fp, b->peak_to_mean[i], "\n");
		}
	}
	int rc = close_out(fp, dir, "burstiness.csv", err);
	if (rc || !(fp = dmls_open_out(dir, "backlog.csv", err)))
		return rc ? rc : (err ? err->status : DMLS_EIO);
	fprintf(fp, "scope,drain_rate_bps,max_backlog_bytes\n");
	for (size_t h = 0; h <= r->burst.nhosts; h++) {
		const dmls_burst *b = scope(r, h, &name);
		for (int i = 0; i < DMLS_NRATE; i++) {
			fprintf(fp, "%s,%g,", name, dmls_burst_rate_bps[i]);
			num(fp, b->max_backlog_bytes[i], "\n");
		}
	}
	return close_out(fp, dir, "backlog.csv", err);
}

static int jobs_csv(const dmls_result *r, const char *dir, dmls_error *err)
{
	FILE *fp = dmls_open_out(dir, "jobs.csv", err);
	if (!fp)
		return err ? err->status : DMLS_EIO;
	fprintf(fp, "job,hosts,kind,ranks,mode,period_s,iterations,gradient_bytes,start_s,"
		    "duration_s,wire_bytes\n");
	for (size_t j = 0; j < r->njobs; j++) {
		const dmls_result *jr = &r->jobs[j];
		fprintf(fp, "%lld,", (long long)jr->job.id);
		for (size_t i = 0; i < jr->pattern.nmembers; i++)
			fprintf(fp, "%s%s", i ? " " : "",
				r->stats->hosts[jr->pattern.members[i]].name);
		fprintf(fp, ",%s,", jr->pattern.name ? jr->pattern.name : "");
		if (jr->pattern.ranks >= 0)
			fprintf(fp, "%lld", (long long)jr->pattern.ranks);
		fprintf(fp, ",%s,", jr->iter.mode ? jr->iter.mode : "");
		num(fp, jr->iter.period_s, ",");
		if (jr->iter.count >= 0)
			fprintf(fp, "%lld", (long long)jr->iter.count);
		fputc(',', fp);
		num(fp, jr->model.gradient_bytes, ",");
		num(fp, jr->job.start_s, ",");
		num(fp, jr->job.duration_s, ",");
		num(fp, jr->job.wire_bytes, "\n");
	}
	int rc = close_out(fp, dir, "jobs.csv", err);
	if (rc || !(fp = dmls_open_out(dir, "ranks.csv", err)))
		return rc ? rc : (err ? err->status : DMLS_EIO);
	fprintf(fp, "job,addr,period_s,count,bytes_per_exchange\n");
	for (size_t j = 0; j < r->njobs; j++)
		for (size_t i = 0; i < r->jobs[j].iter.nranks; i++) {
			const dmls_rank_clock *c = &r->jobs[j].iter.ranks[i];
			fprintf(fp, "%zu,%s,", j, r->stats->hosts[c->host].name);
			num(fp, c->period_s, ",");
			fprintf(fp, "%zu,", c->count);
			num(fp, c->bytes_per_exchange, "\n");
		}
	return close_out(fp, dir, "ranks.csv", err);
}

static int runs_csv(const dmls_result *r, const char *dir, dmls_error *err)
{
	FILE *fp = dmls_open_out(dir, "runs.csv", err);
	if (!fp)
		return err ? err->status : DMLS_EIO;
	fprintf(fp, "job,run,start_s,end_s,wire_bytes,busiest\n");
	for (size_t j = 0; j < r->njobs; j++) {
		const dmls_result *jr = &r->jobs[j];
		for (size_t i = 0; i < jr->iter.nrun_list; i++) {
			const dmls_run_span *u = &jr->iter.run_list[i];
			fprintf(fp, "%zu,%zu,", j, i);
			num(fp, u->start_s, ",");
			num(fp, u->end_s, ",");
			num(fp, u->wire_bytes, ",");
			fprintf(fp, "%d\n", u->busiest ? 1 : 0);
		}
	}
	return close_out(fp, dir, "runs.csv", err);
}

int dmls_render_csv_analysis(const dmls_result *r, const char *dir, dmls_error *err)
{
	int rc = iterations_csv(r, dir, err);
	rc = rc ? rc : burst_csv(r, dir, err);
	rc = rc ? rc : jobs_csv(r, dir, err);
	return rc ? rc : runs_csv(r, dir, err);
}
