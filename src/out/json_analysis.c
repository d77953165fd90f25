/*
 * json_analysis.c - the analysis' keys of `analyze --json`.
 *
 * Adds pattern, iterations, model, burstiness, phases, loss, notes and (when a
 * train_history.log was read) train_log to the document built by json.c.
 * Keys follow doc/contract.md; numbers are bytes, seconds and
 * bits per second; unknown values are null, never NaN.
 */
#include <math.h>

#include "dmlscope/analysis.h"
#include "dmlscope/render.h"

static json_t *num(double v)
{
	return dmls_json_real(v);
}

static json_t *addrs(const dmls_stats *st, const size_t *idx, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(st->hosts[idx[i]].name));
	return a;
}

static json_t *pattern_json(const dmls_pattern *p, const dmls_stats *st)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(dmls_pattern_name(p->kind)));
	json_object_set_new(o, "ranks", json_integer((json_int_t)p->ranks));
	json_object_set_new(o, "hubs", addrs(st, p->hubs, p->nhubs));
	json_object_set_new(o, "order", addrs(st, p->order, p->norder));
	json_object_set_new(o, "members", addrs(st, p->members, p->ranks));
	json_object_set_new(o, "confidence", num(p->ranks ? p->confidence : NAN));
	json_object_set_new(o, "groups", p->ngroups ? json_integer((json_int_t)p->ngroups)
						    : json_null());
	json_object_set_new(o, "jobs", json_integer((json_int_t)p->components));
	json_object_set_new(o, "data_edges", json_integer((json_int_t)p->edges));
	json_object_set_new(o, "control_payload_bytes", num(p->ctrl_payload_bytes));
	json_object_set_new(o, "partial", json_boolean(p->partial));
	json_object_set_new(o, "observed", addrs(st, p->observed, p->nobserved));
	return o;
}

static json_t *iterations_json(const dmls_iterations *it)
{
	json_t *o = json_object(), *starts = json_array(), *bytes = json_array();
	json_t *ends = json_array(), *bounds = json_array();
	json_object_set_new(o, "period_s", num(it->period_s));
	json_object_set_new(o, "period_median_s", num(it->period_median_s));
	json_object_set_new(o, "count", json_integer((json_int_t)it->count));
	json_object_set_new(o, "regularity", num(it->regularity));
	json_object_set_new(o, "bytes_per_worker", num(it->bytes_per_worker));
	json_object_set_new(o, "bytes_per_worker_spread", num(it->bytes_spread));
	json_object_set_new(o, "duration_spread", num(it->duration_cv));
	json_object_set_new(o, "acf_period_s", num(it->acf_period_s));
	json_object_set_new(o, "acf_peak", num(it->acf_peak));
	json_object_set_new(o, "source", json_string("traffic"));
	json_object_set_new(o, "method", it->method ? json_string(it->method) : json_null());
	json_object_set_new(o, "iteration_bytes", num(it->iter_bytes));
	json_object_set_new(o, "byte_acf_peak", num(it->byte_peak));
	json_object_set_new(o, "acf_at_period", num(it->acf_at_period));
	for (size_t i = 0; i < it->count; i++) {
		json_array_append_new(starts, num(it->starts_s[i]));
		json_array_append_new(bytes, num(it->bytes[i]));
		json_array_append_new(ends, num(it->comm_end_s[i]));
		json_array_append_new(bounds, num(it->bounds_s[i]));
	}
	json_object_set_new(o, "starts_s", starts);
	json_object_set_new(o, "boundaries_s", bounds);
	json_object_set_new(o, "comm_end_s", ends);
	json_object_set_new(o, "end_s", num(it->end_s));
	json_object_set_new(o, "payload_bytes", bytes);
	return o;
}

static json_t *burst_json(const dmls_burst *b)
{
	json_t *o = json_object(), *ts = json_array(), *pm = json_array(), *mw = json_array();
	json_t *rates = json_array(), *bl = json_array();
	for (int i = 0; i < DMLS_NTAU; i++) {
		json_array_append_new(ts, json_real(dmls_burst_tau_s[i]));
		json_array_append_new(pm, num(b->peak_to_mean[i]));
		json_array_append_new(mw, num(b->max_window_bytes[i]));
	}
	for (int i = 0; i < DMLS_NRATE; i++) {
		json_array_append_new(rates, json_real(dmls_burst_rate_bps[i]));
		json_array_append_new(bl, num(b->max_backlog_bytes[i]));
	}
	json_object_set_new(o, "timescales_s", ts);
	json_object_set_new(o, "peak_to_mean", pm);
	json_object_set_new(o, "max_window_bytes", mw);
	json_object_set_new(o, "mean_bps", num(b->mean_bps));
	json_object_set_new(o, "drain_rates_bps", rates);
	json_object_set_new(o, "max_backlog_bytes", bl);
	return o;
}

static json_t *burstiness_json(const dmls_analysis *a, const dmls_stats *st)
{
	json_t *o = burst_json(&a->burst_total), *hosts = json_array();
	json_object_set_new(o, "series", json_string("total wire bytes, 100 us bins"));
	for (size_t i = 0; i < a->nhosts && i < st->nhosts; i++) {
		json_t *h = burst_json(&a->burst_host[i]);
		json_object_set_new(h, "addr", json_string(st->hosts[i].name));
		json_array_append_new(hosts, h);
	}
	json_object_set_new(o, "hosts_series", json_string("host tx payload bytes, 1 ms bins"));
	json_object_set_new(o, "hosts", hosts);
	return o;
}

static json_t *dist_json(const dmls_dist *d)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o}", "count", (json_int_t)d->n, "mean_s",
			 num(d->mean_s), "p50_s", num(d->p50_s), "p90_s", num(d->p90_s),
			 "max_s", num(d->max_s));
}

static json_t *phases_json(const dmls_phases *ph)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "bin_s", num(ph->bin_s),
			 "gap_threshold_s", num(ph->gap_threshold_s), "duty_cycle",
			 num(ph->duty_cycle), "bursts", dist_json(&ph->bursts), "gaps",
			 dist_json(&ph->gaps));
}

static json_t *trainlog_json(const dmls_analysis *a)
{
	const dmls_trainlog_metrics *m = &a->log;
	json_t *acc = json_array();
	for (size_t i = 0; i < m->nacc; i++)
		json_array_append_new(
			acc, json_pack("{s:s, s:I, s:o, s:o, s:o}", "type",
				       m->acc[i].is_epoch ? "epoch" : "batch", "id",
				       (json_int_t)m->acc[i].id, "t_s", num(m->acc[i].t_s),
				       "cum_wire_bytes", num(m->acc[i].cum_wire_bytes),
				       "accuracy", num(m->acc[i].accuracy)));
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "steps", (json_int_t)m->steps,
			 "mean_step_s", num(m->mean_step_s), "median_step_s",
			 num(m->median_step_s), "mb_per_step", num(m->mb_per_step),
			 "detected_period_s", num(a->iter.period_s), "period_error",
			 num(m->period_error), "accuracy_vs_data", acc);
}

/* Retransmissions per host and the flows with the most (loss is visible). */
static json_t *loss_json(const dmls_stats *st)
{
	json_t *hosts = json_array(), *flows = json_array();
	size_t with = 0;
	for (size_t i = 0; i < st->nhosts; i++) {
		const dmls_host *h = &st->hosts[i];
		json_array_append_new(
			hosts, json_pack("{s:s, s:I, s:o}", "addr", h->name, "tx_retransmissions",
					 (json_int_t)h->tx_retransmissions, "rate",
					 num(h->tx_packets ? (double)h->tx_retransmissions /
								     (double)h->tx_packets
							   : NAN)));
	}
	for (size_t i = 0; i < st->nflows; i++)
		with += st->flows[i].retransmissions > 0;
	uint64_t floor_rt = 0; /* the 10 flows with the most, in flow order */
	for (int k = 0; k < 10; k++) {
		uint64_t best = 0;
		for (size_t i = 0; i < st->nflows; i++) {
			uint64_t r = st->flows[i].retransmissions;
			if (r > best && (k == 0 || r < floor_rt))
				best = r;
		}
		if (best == 0)
			break;
		floor_rt = best;
		for (size_t i = 0; i < st->nflows && json_array_size(flows) < 10; i++) {
			const dmls_flow *f = &st->flows[i];
			if (f->retransmissions == best)
				json_array_append_new(
					flows, json_pack("{s:s, s:s, s:i, s:i, s:I}", "src",
							 st->hosts[f->src].name, "dst",
							 st->hosts[f->dst].name, "sport", f->sport,
							 "dport", f->dport, "retransmissions",
							 (json_int_t)f->retransmissions));
		}
	}
	return json_pack("{s:I, s:o, s:I, s:o, s:o}", "retransmissions",
			 (json_int_t)st->retransmissions, "rate",
			 num(st->packets ? (double)st->retransmissions / (double)st->packets : NAN),
			 "flows_with_retransmissions", (json_int_t)with, "hosts", hosts,
			 "top_flows", flows);
}

void dmls_analysis_json(const dmls_analysis *a, const dmls_stats *st, json_t *root)
{
	if (!a || !root)
		return;
	json_object_set_new(root, "pattern", pattern_json(&a->pattern, st));
	json_object_set_new(root, "iterations", iterations_json(&a->iter));
	json_object_set_new(root, "model",
			    json_pack("{s:o, s:o, s:o, s:o}", "gradient_bytes",
				      num(a->gradient_bytes), "expected_iteration_bytes",
				      num(a->expected_iter_bytes), "observed_iteration_bytes",
				      num(a->observed_iter_bytes), "server_iteration_bytes",
				      num(a->server_bytes)));
	json_object_set_new(root, "burstiness", burstiness_json(a, st));
	json_object_set_new(root, "phases", phases_json(&a->phases));
	json_object_set_new(root, "loss", loss_json(st));
	if (a->log.present)
		json_object_set_new(root, "train_log", trainlog_json(a));
	json_t *notes = json_array();
	for (size_t i = 0; i < a->nnotes; i++)
		json_array_append_new(notes, json_string(a->notes[i]));
	json_object_set_new(root, "notes", notes);
}
