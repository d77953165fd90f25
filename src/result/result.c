/*
 * result.c - the scalars of dmls_result, computed once (see result.h).
 *
 * Each section copies or derives what the outputs show from the stats, the
 * analysis and the job; the display orders and figures (busiest hosts, top
 * pairs, the matrix, top loss flows, the flow-size CDF, the 10 ms
 * throughput figure) are in result_lists.c.  Unknown values are NAN, -1 or
 * NULL, never left for a renderer to work out.
 */
#include "dmlscope/result.h"
#include "dmlscope/version.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/result_int.h"

const char *dmls_role_name(int role)
{
	switch (role) {
	case DMLS_ROLE_WORKER: return "worker";
	case DMLS_ROLE_SERVER: return "server";
	default: return "other";
	}
}

static int64_t i64(uint64_t v)
{
	return (int64_t)v;
}

static void fold(dmls_result_fold *f, const dmls_fold *src, size_t cap, size_t kept)
{
	f->cap = (int64_t)cap;
	f->kept = (int64_t)kept;
	f->folded = i64(src->entries);
	f->packets = i64(src->packets);
	f->wire_bytes = i64(src->wire_bytes);
	f->payload_bytes = i64(src->payload_bytes);
}

/* Totals, flows, throughput and the limits account: what the one pass gives. */
static void traffic(dmls_result *r, const dmls_stats *st)
{
	double dur = dmls_stats_duration_s(st);
	r->input.packets = i64(st->packets);
	r->input.wire_bytes = i64(st->wire_bytes);
	r->input.payload_bytes = i64(st->payload_bytes);
	r->input.duration_s = dur;
	r->input.start_s = st->packets ? (double)st->first_ns / 1e9 : NAN;

	r->flows.count = i64(st->flows_seen);
	r->flows.p50 = i64(st->flow_p50_bytes);
	r->flows.p90 = i64(st->flow_p90_bytes);
	r->flows.p99 = i64(st->flow_p99_bytes);
	r->flows.max = i64(st->flow_max_bytes);
	r->flows.retransmissions = i64(st->retransmissions);

	double bin_s = (double)st->peak_bin_ns / 1e9;
	r->throughput.bin_s = bin_s;
	r->throughput.mean_bps = dur > 0 ? (double)st->wire_bytes * 8.0 / dur : NAN;
	/* every packet at one instant (times lost): no rate, so no peak */
	int flat = st->packets >= 2 && st->first_ns == st->last_ns;
	r->throughput.peak_bps =
		st->packets && !flat ? (double)st->peak_bin_wire_bytes * 8.0 / bin_s : NAN;

	fold(&r->limits.hosts, &st->fold_hosts, st->max_hosts, st->nhosts);
	fold(&r->limits.pairs, &st->fold_pairs, st->max_pairs, st->npairs);
	fold(&r->limits.flows, &st->fold_flows, st->max_flows, st->nflows);
	r->limits.host_bin_s = (double)st->cls[DMLS_CLASS_HOST].bin_ns / 1e9;
	r->limits.pair_bin_s = (double)st->cls[DMLS_CLASS_PAIR].bin_ns / 1e9;
	r->limits.wire_bin_s = (double)st->cls[DMLS_CLASS_WIRE].bin_ns / 1e9;
	r->limits.flow_activity_bin_s = (double)st->cls[DMLS_CLASS_FLOW].bin_ns / 1e9;
	r->limits.hosts_coarsened = st->cls[DMLS_CLASS_HOST].coarsened != 0;
	r->limits.pairs_coarsened = st->cls[DMLS_CLASS_PAIR].coarsened != 0;
	r->limits.wire_coarsened = st->cls[DMLS_CLASS_WIRE].coarsened != 0;
	r->limits.series_t0_s = st->packets ? (double)(st->t0_ns - st->first_ns) / 1e9 : 0.0;

	r->loss.retransmissions = i64(st->retransmissions);
	r->loss.rate = st->packets ? (double)st->retransmissions / (double)st->packets : NAN;
	r->loss.flows_with_retransmissions = 0;
	for (size_t i = 0; i < st->nflows; i++)
		r->loss.flows_with_retransmissions += st->flows[i].retransmissions > 0;
}

static void pattern(dmls_result *r, const dmls_pattern *p, const dmls_stats *st)
{
	r->pattern.kind = p->kind;
	r->pattern.name = dmls_pattern_name(p->kind);
	/* unknown (a note says why): ranks connected on demand, a host in two
	 * jobs, a tree's inner node seen alone (its parent's other children
	 * and its children's own are not in the capture) */
	r->pattern.ranks = p->service_port || p->center_jobs > 1 || p->tree_node ? -1
										 : (int64_t)p->ranks;
	r->pattern.groups = p->ngroups ? (int64_t)p->ngroups : -1;
	r->pattern.jobs = (int64_t)p->components;
	r->pattern.data_edges = (int64_t)p->edges;
	r->pattern.confidence = p->ranks ? p->confidence : NAN;
	r->pattern.control_payload_bytes = p->ctrl_payload_bytes;
	r->pattern.partial = p->partial != 0;
	r->pattern.nhubs = p->nhubs;
	r->pattern.hubs = p->hubs;
	r->pattern.norder = p->norder;
	r->pattern.order = p->order;
	r->pattern.nmembers = p->ranks;
	r->pattern.members = p->members;
	r->pattern.nobserved = p->nobserved;
	r->pattern.observed = p->observed;
	r->pattern.workers = 0;
	for (size_t i = 0; i < st->nhosts; i++)
		r->pattern.workers += st->hosts[i].role == DMLS_ROLE_WORKER;
}

static void iterations(dmls_result *r, const dmls_iterations *it)
{
	r->iter.period_s = it->period_s;
	r->iter.period_median_s = it->period_median_s;
	r->iter.count = (int64_t)it->count;
	r->iter.regularity = it->regularity;
	r->iter.bytes_per_worker = it->bytes_per_worker;
	r->iter.bytes_spread = it->bytes_spread;
	r->iter.bytes_outliers = it->bytes_outliers;
	r->iter.duration_spread = it->duration_cv;
	r->iter.acf_period_s = it->acf_period_s;
	r->iter.acf_peak = it->acf_peak;
	r->iter.source = "traffic";
	r->iter.method = it->method;
	r->iter.iteration_bytes = it->iter_bytes;
	r->iter.byte_acf_peak = it->byte_peak;
	r->iter.acf_at_period = it->acf_at_period;
	r->iter.end_s = it->end_s;
	r->iter.runs = (int64_t)it->runs;
	r->iter.run_start_s = it->run_start_s;
	r->iter.run_end_s = it->run_end_s;
	r->iter.n = it->count;
	r->iter.nlisted = it->count < DMLS_ITER_LISTED ? it->count : DMLS_ITER_LISTED;
	r->iter.starts_s = it->starts_s;
	r->iter.bounds_s = it->bounds_s;
	r->iter.comm_end_s = it->comm_end_s;
	r->iter.bytes = it->bytes;
}

static void dist(dmls_result_dist *d, const dmls_dist *src)
{
	d->count = (int64_t)src->n;
	d->mean_s = src->mean_s;
	d->p50_s = src->p50_s;
	d->p90_s = src->p90_s;
	d->max_s = src->max_s;
}

/* Burstiness (peak-to-mean at each timescale) and on/off phases. */
static void bursts(dmls_result *r, const dmls_analysis *a)
{
	r->burst.total = &a->burst_total;
	r->burst.mean_bps = a->burst_total.mean_bps;
	r->burst.ptm_5ms = NAN;
	for (int i = 0; i < DMLS_NTAU; i++)
		if (fabs(dmls_burst_tau_s[i] - 0.005) < 1e-12)
			r->burst.ptm_5ms = a->burst_total.peak_to_mean[i];
	r->burst.series = "total wire bytes, 100 us bins";
	r->burst.hosts_series = "host tx payload bytes, 1 ms bins";
	r->burst.nhosts = a->nhosts < r->stats->nhosts ? a->nhosts : r->stats->nhosts;
	r->burst.hosts = a->burst_host;
	r->burst.host_idx = a->burst_host_idx;
	r->phases.bin_s = a->phases.bin_s;
	r->phases.gap_threshold_s = a->phases.gap_threshold_s;
	r->phases.duty_cycle = a->phases.duty_cycle;
	dist(&r->phases.bursts, &a->phases.bursts);
	dist(&r->phases.gaps, &a->phases.gaps);
}

static void trainlog(dmls_result *r, const dmls_analysis *a)
{
	const dmls_trainlog_metrics *m = &a->log;
	r->has_log = m->present != 0;
	r->log.steps = (int64_t)m->steps;
	r->log.mean_step_s = m->mean_step_s;
	r->log.steady_step_s = m->steady_step_s;
	r->log.median_step_s = m->median_step_s;
	r->log.mb_per_step = m->mb_per_step;
	r->log.detected_period_s = a->iter.period_s;
	r->log.period_error = m->period_error;
	r->log.nacc = m->nacc;
	r->log.acc = m->acc;
	r->log.final_accuracy = NAN;
	for (size_t i = m->nacc; i-- > 0;)
		if (isfinite(m->acc[i].accuracy)) {
			r->log.final_accuracy = m->acc[i].accuracy;
			break;
		}
}

static void analysis(dmls_result *r, const dmls_analysis *a)
{
	r->has_analysis = 1;
	pattern(r, &a->pattern, r->stats);
	iterations(r, &a->iter);
	r->model.gradient_bytes = a->gradient_bytes;
	r->model.expected_iteration_bytes = a->expected_iter_bytes;
	r->model.observed_iteration_bytes = a->observed_iter_bytes;
	r->model.server_iteration_bytes = a->server_bytes;
	r->job.id = (int64_t)a->job_id;
	r->job.start_s = a->job_start_s;
	r->job.duration_s = a->job_end_s - a->job_start_s;
	r->job.wire_bytes = a->job_wire_bytes;
	r->iter.mode = dmls_mode_name(a->mode.mode);
	r->iter.mode_evidence = a->mode.why;
	r->iter.nrun_list = a->nrun_list;
	r->iter.run_list = a->run_list;
	r->iter.rank_period_spread = a->mode.period_spread;
	r->iter.phase_spread = a->mode.phase_spread;
	r->iter.step_lock = a->mode.step_lock;
	r->iter.nranks = a->mode.nranks;
	r->iter.ranks = a->mode.ranks;
	if (a->mode.mode == DMLS_MODE_ASYNC || a->iter_unsure || a->hub_one_at_a_time ||
	    a->iter.unresolved_bin_s > 0)
		r->iter.count = -1; /* no common step to count, or not one we trust (a
				     * lone sender's clocks merged, bins too coarse) */
	bursts(r, a);
	trainlog(r, a);
	r->nnotes = a->nnotes;
	r->notes = (const char (*)[160])a->notes;
}

/* Every analysis number unknown: what a result without analysis holds. */
static void unknown(dmls_result *r)
{
	r->pattern.ranks = r->pattern.groups = r->pattern.jobs = r->pattern.data_edges = -1;
	r->pattern.workers = r->iter.count = r->iter.runs = r->log.steps = -1;
	r->pattern.name = NULL;
	double *nan_fields[] = {
		&r->pattern.confidence, &r->pattern.control_payload_bytes, &r->iter.period_s,
		&r->iter.period_median_s, &r->iter.regularity, &r->iter.bytes_per_worker,
		&r->iter.bytes_spread, &r->iter.bytes_outliers, &r->iter.duration_spread, &r->iter.acf_period_s,
		&r->iter.acf_peak, &r->iter.iteration_bytes, &r->iter.byte_acf_peak,
		&r->iter.acf_at_period, &r->iter.end_s, &r->iter.run_start_s, &r->iter.run_end_s,
		&r->iter.rank_period_spread,
		&r->iter.phase_spread, &r->iter.step_lock, &r->model.gradient_bytes,
		&r->model.expected_iteration_bytes, &r->model.observed_iteration_bytes,
		&r->model.server_iteration_bytes, &r->burst.mean_bps, &r->burst.ptm_5ms,
		&r->phases.duty_cycle, &r->log.mean_step_s, &r->log.steady_step_s, &r->log.median_step_s,
		&r->log.mb_per_step, &r->log.detected_period_s, &r->log.period_error,
		&r->log.final_accuracy, &r->job.start_s, &r->job.duration_s, &r->job.wire_bytes,
	};
	for (size_t i = 0; i < sizeof(nan_fields) / sizeof(nan_fields[0]); i++)
		*nan_fields[i] = NAN;
}

/* One job's part: what its analysis holds, the rest unknown. */
static void job_part(dmls_result *jr, const dmls_stats *st, const dmls_analysis *a)
{
	memset(jr, 0, sizeof(*jr));
	jr->stats = st;
	jr->analysis = a;
	unknown(jr);
	analysis(jr, a);
}

static int jobs(dmls_result *r, const dmls_stats *st, const dmls_analysis *a)
{
	if (a->njobs == 0)
		return 0;
	r->jobs = calloc(a->njobs, sizeof(*r->jobs));
	if (!r->jobs)
		return DMLS_ENOMEM;
	r->njobs = a->njobs;
	for (size_t j = 0; j < a->njobs; j++)
		job_part(&r->jobs[j], st, a->jobs[j]);
	return 0;
}

static int compute(dmls_result *r, const dmls_stats *st, const dmls_analysis *a)
{
	r->stats = st;
	r->analysis = a;
	r->tool = "dmlscope";
	r->version = DMLS_VERSION;
	r->run.name = "capture";
	unknown(r);
	traffic(r, st);
	if (a) {
		analysis(r, a);
		if (jobs(r, st, a))
			return DMLS_ENOMEM;
	}
	return dmls_result_lists(r);
}

int dmls_result_init_stats(dmls_result *r, const dmls_stats *st, const dmls_analysis *a)
{
	memset(r, 0, sizeof(*r));
	return compute(r, st, a);
}

static void job_run(dmls_result *r, const dmls_job *job)
{
	const dmls_run_attrs *a = &job->run.attrs;
	r->run.path = job->run.path;
	r->run.name = job->run.name ? job->run.name : "capture";
	dmls_run_info ri;
	dmls_run_info_get(job, &ri);
	r->run.loss_percent = ri.loss_percent;
	r->run.model_size_mb = ri.model_size_mb;
	memcpy(r->run.fb, ri.framework_backend, sizeof(r->run.fb));
	r->run.framework_backend = ri.framework_backend[0] ? r->run.fb : NULL;
	r->has_run = a->parsed != 0;
	if (!r->has_run)
		return;
	r->run.framework = a->framework;
	r->run.model = a->model;
	r->run.optimizer = a->optimizer;
	r->run.batch = a->batch;
	r->run.backend = a->backend;
	r->run.delay = a->delay;
	r->run.topology = a->topology;
}

int dmls_result_init(dmls_result *r, const dmls_job *job)
{
	memset(r, 0, sizeof(*r));
	int rc = compute(r, &job->stats, job->analysis);
	job_run(r, job);
	const dmls_input_counts *c = &job->counts;
	r->input.nfiles = job->nfiles;
	r->input.files = job->files;
	r->input.records = i64(c->records);
	r->input.truncated = i64(c->truncated);
	r->input.non_ip = i64(c->non_ip);
	r->input.other = i64(c->other);
	r->input.filtered = i64(c->filtered);
	r->input.duplicates = i64(c->duplicates);
	r->input.decapsulated = i64(c->decapsulated);
	r->input.tcp_headers_cut = i64(c->tcp_cut);
	r->input.damage_status = job->damage.status;
	r->input.damage = job->damage.status ? job->damage.msg : NULL;
	r->analysis_error = job->analysis ? NULL : job->analysis_error.msg;
	return rc;
}

void dmls_result_release(dmls_result *r)
{
	free(r->iter.duration_s);
	free(r->loss.host_rate);
	free(r->shown);
	free(r->matrix.host);
	free(r->matrix.wire_bytes);
	free(r->matrix.payload_bytes);
	free(r->flow_sizes);
	free(r->figure.wire_bytes);
	free(r->jobs);
	memset(r, 0, sizeof(*r));
}
