/*
 * json.c - `analyze --json`: the stats part of the result model.
 *
 * The analysis' own keys (pattern, iterations, model, burstiness,
 * train_log, ...) are added by json_analysis.c.
 */
#include "dmlscope/render.h"
#include "dmlscope/version.h"

#include <math.h>
#include <stdlib.h>

static const char *role_name(int role)
{
	switch (role) {
	case DMLS_ROLE_WORKER: return "worker";
	case DMLS_ROLE_SERVER: return "server";
	default: return "other";
	}
}

json_t *dmls_json_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *input_json(const dmls_job *job)
{
	const dmls_input_counts *c = &job->counts;
	json_t *files = json_array();
	for (size_t i = 0; i < job->nfiles; i++) {
		const dmls_input_file *f = &job->files[i];
		json_t *o = json_pack("{s:s, s:s?, s:i, s:o, s:o}", "path", f->path, "format",
				      f->format, "linktype", f->linktype, "records", u64(f->records),
				      "packets", u64(f->packets));
		json_object_set_new(o, "error", f->status ? json_string(f->error) : json_null());
		json_array_append_new(files, o);
	}
	json_t *skipped = json_pack("{s:o, s:o, s:o, s:o, s:o}", "truncated", u64(c->truncated),
				    "non_ip", u64(c->non_ip), "other", u64(c->other), "filtered",
				    u64(c->filtered), "duplicates", u64(c->duplicates));
	json_t *in = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "files", files, "records",
			       u64(c->records), "packets", u64(job->stats.packets), "wire_bytes",
			       u64(job->stats.wire_bytes), "payload_bytes",
			       u64(job->stats.payload_bytes), "skipped", skipped);
	json_object_set_new(in, "duration_s", json_real(dmls_stats_duration_s(&job->stats)));
	json_object_set_new(in, "start_s", job->stats.packets
						  ? json_real((double)job->stats.first_ns / 1e9)
						  : json_null());
	json_object_set_new(in, "damage", job->damage.status ? json_string(job->damage.msg)
							     : json_null());
	return in;
}

static json_t *hosts_json(const dmls_stats *st)
{
	json_t *a = json_array();
	for (size_t i = 0; i < st->nhosts; i++) {
		const dmls_host *h = &st->hosts[i];
		json_array_append_new(
			a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "addr",
				     h->name, "role", role_name(h->role), "tx_wire_bytes",
				     u64(h->tx_wire_bytes), "tx_payload_bytes",
				     u64(h->tx_payload_bytes), "rx_wire_bytes", u64(h->rx_wire_bytes),
				     "rx_payload_bytes", u64(h->rx_payload_bytes), "tx_packets",
				     u64(h->tx_packets), "rx_packets", u64(h->rx_packets),
				     "tx_retransmissions", u64(h->tx_retransmissions)));
	}
	return a;
}

/* Hosts named in the matrix: every host up to DMLS_MATRIX_MAX_HOSTS;
 * beyond, the busiest DMLS_MATRIX_MAX_HOSTS - 1 (tx + rx wire bytes, ties to
 * the earlier) and one `other` row and column for the rest, folded pairs
 * included (their ends are unknown: other -> other). */
#define DMLS_MATRIX_MAX_HOSTS 64

static int cmp_busy(const void *a, const void *b, void *ctx)
{
	const dmls_stats *st = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t bx = st->hosts[x].tx_wire_bytes + st->hosts[x].rx_wire_bytes;
	uint64_t by = st->hosts[y].tx_wire_bytes + st->hosts[y].rx_wire_bytes;
	if (bx != by)
		return bx < by ? 1 : -1;
	return (x > y) - (x < y);
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

static json_t *matrix_json(const dmls_stats *st)
{
	int fold = st->nhosts > DMLS_MATRIX_MAX_HOSTS || st->fold_pairs.entries > 0;
	size_t k = st->nhosts > DMLS_MATRIX_MAX_HOSTS ? DMLS_MATRIX_MAX_HOSTS - 1 : st->nhosts;
	size_t n = k + (fold ? 1 : 0);
	size_t *order = malloc((st->nhosts ? st->nhosts : 1) * sizeof(*order));
	size_t *row = malloc((st->nhosts ? st->nhosts : 1) * sizeof(*row));
	size_t cells = n ? n * n : 1;
	uint64_t *w = calloc(cells, sizeof(*w)), *pl = calloc(cells, sizeof(*pl));
	json_t *names = json_array(), *wire = json_array(), *pay = json_array();
	if (!order || !row || !w || !pl)
		goto out;
	for (size_t i = 0; i < st->nhosts; i++)
		order[i] = i, row[i] = k; /* k: other */
	if (st->nhosts > k) {
		qsort_r(order, st->nhosts, sizeof(*order), cmp_busy, (void *)st);
		qsort(order, k, sizeof(*order), cmp_index); /* the busiest, in table order */
	}
	for (size_t i = 0; i < k; i++)
		row[order[i]] = i;
	for (size_t i = 0; i < st->npairs; i++) {
		const dmls_pair *p = &st->pairs[i];
		size_t c = row[p->src] * n + row[p->dst];
		w[c] += p->wire_bytes;
		pl[c] += p->payload_bytes;
	}
	if (fold) {
		w[n * n - 1] += st->fold_pairs.wire_bytes;
		pl[n * n - 1] += st->fold_pairs.payload_bytes;
	}
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(names, json_string(i < k ? st->hosts[order[i]].name : "other"));
		json_t *rw = json_array(), *rp = json_array();
		for (size_t j = 0; j < n; j++) {
			json_array_append_new(rw, u64(w[i * n + j]));
			json_array_append_new(rp, u64(pl[i * n + j]));
		}
		json_array_append_new(wire, rw);
		json_array_append_new(pay, rp);
	}
out:
	free(order);
	free(row);
	free(w);
	free(pl);
	return json_pack("{s:o, s:o, s:o}", "hosts", names, "wire_bytes", wire, "payload_bytes",
			 pay);
}

static json_t *fold_json(const dmls_fold *f, size_t cap, size_t kept)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "cap", u64(cap), "kept", u64(kept),
			 "folded", u64(f->entries), "folded_packets", u64(f->packets),
			 "folded_wire_bytes", u64(f->wire_bytes), "folded_payload_bytes",
			 u64(f->payload_bytes));
}

/* What the bounded tables and series kept, and what they folded. */
static json_t *limits_json(const dmls_stats *st)
{
	json_t *bins = json_object();
	static const char *const names[DMLS_NCLASS] = {"host_bin_s", "pair_bin_s",
						       "flow_activity_bin_s"};
	for (int c = 0; c < DMLS_NCLASS; c++)
		json_object_set_new(bins, names[c], json_real((double)st->cls[c].bin_ns / 1e9));
	return json_pack("{s:o, s:o, s:o, s:o}", "hosts",
			 fold_json(&st->fold_hosts, st->max_hosts, st->nhosts), "pairs",
			 fold_json(&st->fold_pairs, st->max_pairs, st->npairs), "flows",
			 fold_json(&st->fold_flows, st->max_flows, st->nflows), "series", bins);
}

static json_t *flows_json(const dmls_stats *st)
{
	json_t *q = json_pack("{s:o, s:o, s:o, s:o}", "p50", u64(st->flow_p50_bytes), "p90",
			      u64(st->flow_p90_bytes), "p99", u64(st->flow_p99_bytes), "max",
			      u64(st->flow_max_bytes));
	return json_pack("{s:o, s:o, s:o}", "count", u64(st->flows_seen), "size_quantiles", q,
			 "retransmissions", u64(st->retransmissions));
}

static json_t *throughput_json(const dmls_stats *st)
{
	double bin_s = (double)st->total_wire.bin_ns / 1e9, dur = dmls_stats_duration_s(st);
	json_t *o = json_object();
	json_object_set_new(o, "bin_s", json_real(bin_s));
	json_object_set_new(o, "mean_bps",
			    dur > 0 ? json_real((double)st->wire_bytes * 8.0 / dur) : json_null());
	json_object_set_new(o, "peak_bps",
			    st->packets ? json_real((double)st->peak_bin_wire_bytes * 8.0 / bin_s)
					: json_null());
	return o;
}

json_t *dmls_job_json(const dmls_job *job)
{
	const dmls_stats *st = &job->stats;
	json_t *root = json_object();
	json_object_set_new(root, "tool", json_pack("{s:s, s:s}", "name", "dmlscope", "version",
						    DMLS_VERSION));
	json_object_set_new(root, "input", input_json(job));
	if (job->run.attrs.parsed) {
		const dmls_run_attrs *a = &job->run.attrs;
		json_object_set_new(root, "run",
				    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "name",
					      job->run.name, "framework", a->framework, "model",
					      a->model, "optimizer", a->optimizer, "batch", a->batch,
					      "backend", a->backend, "delay", a->delay, "topology",
					      a->topology));
	}
	json_object_set_new(root, "hosts", hosts_json(st));
	json_object_set_new(root, "matrix", matrix_json(st));
	json_object_set_new(root, "flows", flows_json(st));
	json_object_set_new(root, "throughput", throughput_json(st));
	json_object_set_new(root, "limits", limits_json(st));
	if (job->analysis)
		dmls_analysis_json(job->analysis, st, root);
	return root;
}
