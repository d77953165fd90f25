/*
 * json.c - `analyze --json`: the metric table (result.h) walked in order.
 *
 * Every metric that exists for the result and is a key of the document
 * (not DMLS_M_EXTRA) is set at its dotted path, the objects on the way
 * made as they are first needed, so the document's keys come in the
 * table's order; a list (DMLS_T_LIST in result.h) is written by its
 * writer, by key (dmls_json_lists, below the writers).  Each writer writes
 * what the result holds, in the result's order: stats tables through
 * r->stats, the analysis' arrays through the result's views.  Keys follow
 * doc/contract.md; unknown values are null, never NaN.
 */
#include "dmlscope/render.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "out/json_int.h"

json_t *dmls_json_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *dmls_json_value(dmls_value v)
{
	switch (v.type) {
	case DMLS_T_INT: return json_integer((json_int_t)v.i);
	case DMLS_T_REAL: return dmls_json_real(v.r);
	case DMLS_T_STR: return json_string(v.s);
	case DMLS_T_BOOL: return json_boolean(v.i);
	default: return json_null();
	}
}

/* ---- the lists ---- */
static json_t *num(double v)
{
	return dmls_json_real(v);
}

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *reals(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, num(v[i]));
	return a;
}

static json_t *addrs(const dmls_result *r, const size_t *idx, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(r->stats->hosts[idx[i]].name));
	return a;
}

static json_t *files(const dmls_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->input.nfiles; i++) {
		const dmls_input_file *f = &r->input.files[i];
		json_t *o = json_pack("{s:s, s:s?, s:s?, s:i, s:o, s:o}", "path", f->path, "format",
				      f->format, "compression", f->compression, "linktype",
				      f->linktype, "records", u64(f->records), "packets",
				      u64(f->packets));
		json_object_set_new(o, "clock_offset_s", json_real((double)f->clock_offset_ns / 1e9));
		json_object_set_new(o, "error", f->status ? json_string(f->error) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *hosts(const dmls_result *r)
{
	const dmls_stats *st = r->stats;
	json_t *a = json_array();
	for (size_t i = 0; i < st->nhosts; i++) {
		const dmls_host *h = &st->hosts[i];
		json_array_append_new(
			a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "addr",
				     h->name, "role", dmls_role_name(h->role), "tx_wire_bytes",
				     u64(h->tx_wire_bytes), "tx_payload_bytes",
				     u64(h->tx_payload_bytes), "rx_wire_bytes", u64(h->rx_wire_bytes),
				     "rx_payload_bytes", u64(h->rx_payload_bytes), "tx_packets",
				     u64(h->tx_packets), "rx_packets", u64(h->rx_packets),
				     "tx_retransmissions", u64(h->tx_retransmissions)));
	}
	return a;
}

static json_t *matrix_hosts(const dmls_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->matrix.n; i++) {
		size_t h = r->matrix.host[i];
		json_array_append_new(a, json_string(h == SIZE_MAX ? "other"
								   : r->stats->hosts[h].name));
	}
	return a;
}

static json_t *cells(const dmls_result *r, const uint64_t *v)
{
	size_t n = r->matrix.n;
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array();
		for (size_t j = 0; j < n; j++)
			json_array_append_new(row, u64(v[i * n + j]));
		json_array_append_new(a, row);
	}
	return a;
}

static json_t *matrix_wire(const dmls_result *r)
{
	return cells(r, r->matrix.wire_bytes);
}

static json_t *matrix_payload(const dmls_result *r)
{
	return cells(r, r->matrix.payload_bytes);
}

static json_t *hubs(const dmls_result *r)
{
	return addrs(r, r->pattern.hubs, r->pattern.nhubs);
}

static json_t *order(const dmls_result *r)
{
	return addrs(r, r->pattern.order, r->pattern.norder);
}

static json_t *members(const dmls_result *r)
{
	return addrs(r, r->pattern.members, r->pattern.nmembers);
}

static json_t *observed(const dmls_result *r)
{
	return addrs(r, r->pattern.observed, r->pattern.nobserved);
}

static json_t *starts(const dmls_result *r)
{
	return reals(r->iter.starts_s, r->iter.nlisted);
}

static json_t *bounds(const dmls_result *r)
{
	return reals(r->iter.bounds_s, r->iter.nlisted);
}

static json_t *comm_ends(const dmls_result *r)
{
	return reals(r->iter.comm_end_s, r->iter.nlisted);
}

static json_t *iter_bytes(const dmls_result *r)
{
	return reals(r->iter.bytes, r->iter.nlisted);
}

static json_t *timescales(const dmls_result *r)
{
	json_t *a = json_array();
	for (int i = 0; i < DMLS_NTAU; i++)
		json_array_append_new(a, json_real(dmls_burst_tau_s[i]));
	return a;
}

static json_t *drain_rates(const dmls_result *r)
{
	json_t *a = json_array();
	for (int i = 0; i < DMLS_NRATE; i++)
		json_array_append_new(a, json_real(dmls_burst_rate_bps[i]));
	return a;
}

static json_t *peak_to_mean(const dmls_result *r)
{
	return reals(r->burst.total->peak_to_mean, DMLS_NTAU);
}

static json_t *max_window(const dmls_result *r)
{
	return reals(r->burst.total->max_window_bytes, DMLS_NTAU);
}

static json_t *max_backlog(const dmls_result *r)
{
	return reals(r->burst.total->max_backlog_bytes, DMLS_NRATE);
}

/* One host's burstiness: the keys of the total's, and addr. */
static json_t *burst_hosts(const dmls_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->burst.nhosts; i++) {
		const dmls_burst *b = &r->burst.hosts[i];
		json_t *o = json_object();
		json_object_set_new(o, "timescales_s", timescales(r));
		json_object_set_new(o, "peak_to_mean", reals(b->peak_to_mean, DMLS_NTAU));
		json_object_set_new(o, "max_window_bytes", reals(b->max_window_bytes, DMLS_NTAU));
		json_object_set_new(o, "mean_bps", num(b->mean_bps));
		json_object_set_new(o, "drain_rates_bps", drain_rates(r));
		json_object_set_new(o, "max_backlog_bytes",
				    reals(b->max_backlog_bytes, DMLS_NRATE));
		json_object_set_new(o, "addr",
				    json_string(r->stats->hosts[r->burst.host_idx[i]].name));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *loss_hosts(const dmls_result *r)
{
	const dmls_stats *st = r->stats;
	json_t *a = json_array();
	for (size_t i = 0; i < st->nhosts; i++)
		json_array_append_new(a, json_pack("{s:s, s:I, s:o}", "addr", st->hosts[i].name,
						   "tx_retransmissions",
						   (json_int_t)st->hosts[i].tx_retransmissions,
						   "rate", num(r->loss.host_rate[i])));
	return a;
}

static json_t *loss_flows(const dmls_result *r)
{
	const dmls_stats *st = r->stats;
	json_t *a = json_array();
	for (size_t i = 0; i < r->loss.ntop; i++) {
		const dmls_flow *f = &st->flows[r->loss.top[i]];
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:i, s:I}", "src",
						   st->hosts[f->src].name, "dst",
						   st->hosts[f->dst].name, "sport", f->sport, "dport",
						   f->dport, "retransmissions",
						   (json_int_t)f->retransmissions));
	}
	return a;
}

static json_t *accuracy(const dmls_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->log.nacc; i++) {
		const dmls_acc_point *p = &r->log.acc[i];
		json_array_append_new(a, json_pack("{s:s, s:I, s:o, s:o, s:o}", "type",
						   p->is_epoch ? "epoch" : "batch", "id",
						   (json_int_t)p->id, "t_s", num(p->t_s),
						   "cum_wire_bytes", num(p->cum_wire_bytes),
						   "accuracy", num(p->accuracy)));
	}
	return a;
}

static json_t *notes(const dmls_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->nnotes; i++)
		json_array_append_new(a, json_string(r->notes[i]));
	return a;
}

static json_t *rank_clocks(const dmls_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->iter.nranks; i++) {
		const dmls_rank_clock *c = &r->iter.ranks[i];
		json_array_append_new(a, json_pack("{s:s, s:o, s:I, s:o}", "addr",
						   r->stats->hosts[c->host].name, "period_s",
						   num(c->period_s), "count", (json_int_t)c->count,
						   "bytes_per_exchange", num(c->bytes_per_exchange)));
	}
	return a;
}

static json_t *run_times(const dmls_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->iter.nrun_list; i++) {
		const dmls_run_span *u = &r->iter.run_list[i];
		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:b}", "start_s",
						   num(u->start_s), "end_s", num(u->end_s),
						   "wire_bytes", num(u->wire_bytes), "busiest",
						   u->busiest));
	}
	return a;
}

/* Each job: its own part of the document, in the same shape as the top
 * level's sections. */
static json_t *jobs(const dmls_result *r)
{
	static const char *const sections[] = {"pattern.", "iterations.", "model.", "train_log.",
					       "notes", NULL};
	json_t *a = json_array();
	for (size_t j = 0; j < r->njobs; j++) {
		const dmls_result *jr = &r->jobs[j];
		json_t *o = json_pack("{s:I, s:o, s:o, s:o, s:o}", "id", (json_int_t)jr->job.id,
				      "hosts", addrs(jr, jr->pattern.members, jr->pattern.nmembers),
				      "start_s", num(jr->job.start_s), "duration_s",
				      num(jr->job.duration_s), "wire_bytes", num(jr->job.wire_bytes));
		if (!o || dmls_json_walk(o, jr, sections)) {
			json_decref(o);
			json_decref(a);
			return NULL;
		}
		json_array_append_new(a, o);
	}
	return a;
}

const dmls_json_list dmls_json_lists[] = {
	{"input.files", files},
	{"hosts", hosts},
	{"matrix.hosts", matrix_hosts},
	{"matrix.wire_bytes", matrix_wire},
	{"matrix.payload_bytes", matrix_payload},
	{"pattern.hubs", hubs},
	{"pattern.order", order},
	{"pattern.members", members},
	{"pattern.observed", observed},
	{"iterations.starts_s", starts},
	{"iterations.boundaries_s", bounds},
	{"iterations.comm_end_s", comm_ends},
	{"iterations.payload_bytes", iter_bytes},
	{"iterations.ranks", rank_clocks},
	{"iterations.run_times", run_times},
	{"burstiness.timescales_s", timescales},
	{"burstiness.peak_to_mean", peak_to_mean},
	{"burstiness.max_window_bytes", max_window},
	{"burstiness.drain_rates_bps", drain_rates},
	{"burstiness.max_backlog_bytes", max_backlog},
	{"burstiness.hosts", burst_hosts},
	{"loss.hosts", loss_hosts},
	{"loss.top_flows", loss_flows},
	{"train_log.accuracy_vs_data", accuracy},
	{"jobs", jobs},
	{"notes", notes},
};

const size_t dmls_json_nlists = sizeof(dmls_json_lists) / sizeof(dmls_json_lists[0]);

/* ---- the walk ---- */

static json_t *list(const dmls_metric *m, const dmls_result *r)
{
	for (size_t i = 0; i < dmls_json_nlists; i++)
		if (!strcmp(dmls_json_lists[i].key, m->key))
			return dmls_json_lists[i].write(r);
	return json_null(); /* a list without a writer: test_result fails on it */
}

/* Set v (reference stolen) at the dotted path in root.  0, or -1. */
static int set_path(json_t *root, const char *path, json_t *v)
{
	char key[64];
	json_t *o = root;
	for (;;) {
		size_t l = strcspn(path, ".");
		if (l >= sizeof(key) || !o) {
			json_decref(v);
			return -1;
		}
		memcpy(key, path, l);
		key[l] = '\0';
		if (!path[l])
			return json_object_set_new(o, key, v);
		json_t *next = json_object_get(o, key);
		if (!next && json_object_set_new(o, key, next = json_object()))
			next = NULL;
		o = next;
		path += l + 1;
	}
}

static int wanted(const char *key, const char *const *sections)
{
	if (!sections)
		return 1;
	for (; *sections; sections++)
		if (!strncmp(key, *sections, strlen(*sections)))
			return 1;
	return 0;
}

int dmls_json_walk(json_t *root, const dmls_result *r, const char *const *sections)
{
	for (size_t i = 0; i < dmls_nmetrics; i++) {
		const dmls_metric *m = &dmls_metrics[i];
		if ((m->flags & DMLS_M_EXTRA) || !dmls_metric_present(m, r) ||
		    !wanted(m->key, sections))
			continue;
		json_t *v = m->type == DMLS_T_LIST ? list(m, r)
						    : dmls_json_value(dmls_metric_value(m, r));
		if (!v || set_path(root, m->key, v))
			return -1;
	}
	return 0;
}

json_t *dmls_render_json(const dmls_result *r)
{
	json_t *root = json_object();
	if (root && dmls_json_walk(root, r, NULL)) {
		json_decref(root);
		root = NULL;
	}
	return root;
}
