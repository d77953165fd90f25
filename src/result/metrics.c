/*
 * metrics.c - the metric table: every value dmlscope shows, in the order of
 * the `analyze --json` document (see result.h).
 *
 * The JSON renderer walks this table to write the document (a list entry
 * is written by the renderer's list writer of that key); compare picks its
 * columns here by key.  To add a number: a field in dmls_result, the line
 * in result.c that computes it, and one line here.
 *
 * Columns: key, type (I integer, R real, S string, B bool, L list), unit
 * (DMLS_UNIT_* of result.h: s text, b bytes, r bit/s, t seconds, i count,
 * f number, y flag, o records), when it exists (DMLS_M_*), where its value
 * is, short title, description.
 */
#include "dmlscope/result.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define F(field) offsetof(dmls_result, field)
#define AN DMLS_M_ANALYSIS

enum { I = DMLS_T_INT, R = DMLS_T_REAL, S = DMLS_T_STR, B = DMLS_T_BOOL, L = DMLS_T_LIST };

const dmls_metric dmls_metrics[] = {
	{"tool.name", S, 's', 0, F(tool), "tool", "the program that wrote the document"},
	{"tool.version", S, 's', 0, F(version), "version", "its version"},
	{"input.files", L, 'o', 0, 0, NULL,
	 "captures read: path, format, linktype, records, packets, error"},
	{"input.records", I, 'i', 0, F(input.records), "records", "capture records read"},
	{"input.packets", I, 'i', 0, F(input.packets), "packets", "IP packets analyzed"},
	{"input.wire_bytes", I, 'b', 0, F(input.wire_bytes), "wire",
	 "bytes on the wire (original length), every packet"},
	{"input.payload_bytes", I, 'b', 0, F(input.payload_bytes), "payload",
	 "TCP/UDP payload bytes, from header lengths"},
	{"input.skipped.truncated", I, 'i', 0, F(input.truncated), "malformed",
	 "records too short or malformed to decode"},
	{"input.skipped.non_ip", I, 'i', 0, F(input.non_ip), "non-IP", "ARP, STP, ..."},
	{"input.skipped.other", I, 'i', 0, F(input.other), "link?", "records of an unknown link type"},
	{"input.skipped.filtered", I, 'i', 0, F(input.filtered), "filtered",
	 "records the BPF filter rejected"},
	{"input.skipped.duplicates", I, 'i', 0, F(input.duplicates), "dups",
	 "packets captured at both ends, counted once"},
	{"input.decapsulated", I, 'i', 0, F(input.decapsulated), "tunneled",
	 "packets read on their inner headers (VXLAN, Geneve, GRE, IP in IP, ERSPAN)"},
	{"input.tcp_headers_cut", I, 'i', 0, F(input.tcp_headers_cut), "TCP cut",
	 "packets whose TCP header the snap length cut before its data offset: payload estimated"},
	{"input.duration_s", R, 't', 0, F(input.duration_s), "time",
	 "first to last packet (0 with fewer than two)"},
	{"input.start_s", R, 't', 0, F(input.start_s), "start", "Unix time of the first packet"},
	{"input.damage", S, 's', 0, F(input.damage), "damage",
	 "what ended a capture early, null when nothing did"},
	{"run.name", S, 's', DMLS_M_RUN, F(run.name), "run", "the run folder's name"},
	{"run.framework", S, 's', DMLS_M_RUN, F(run.framework), "framework",
	 "the folder name's framework field"},
	{"run.model", S, 's', DMLS_M_RUN, F(run.model), "model", "the folder name's model"},
	{"run.optimizer", S, 's', DMLS_M_RUN, F(run.optimizer), "optimizer",
	 "the folder name's optimizer"},
	{"run.batch", S, 's', DMLS_M_RUN, F(run.batch), "batch", "the folder name's batch size"},
	{"run.backend", S, 's', DMLS_M_RUN, F(run.backend), "backend",
	 "the folder name's communication backend"},
	{"run.delay", S, 's', DMLS_M_RUN, F(run.delay), "delay",
	 "the folder name's network condition (normal, loss_X)"},
	{"run.topology", S, 's', DMLS_M_RUN, F(run.topology), "topology",
	 "the folder name's topology"},
	{"hosts", L, 'o', 0, 0, NULL,
	 "per host: addr, role, tx/rx wire and payload bytes, packets, tx_retransmissions"},
	{"matrix.hosts", L, 's', 0, 0, NULL,
	 "matrix rows and columns: every host, or the busiest and `other`"},
	{"matrix.wire_bytes", L, 'b', 0, 0, NULL, "wire bytes, row = source, column = destination"},
	{"matrix.payload_bytes", L, 'b', 0, 0, NULL, "payload bytes, the same layout"},
	{"flows.count", I, 'i', 0, F(flows.count), "flows",
	 "TCP/UDP 5-tuples seen, one per direction"},
	{"flows.size_quantiles.p50", I, 'b', 0, F(flows.p50), "flow p50",
	 "median flow size, wire bytes"},
	{"flows.size_quantiles.p90", I, 'b', 0, F(flows.p90), "flow p90",
	 "90th percentile flow size"},
	{"flows.size_quantiles.p99", I, 'b', 0, F(flows.p99), "flow p99",
	 "99th percentile flow size"},
	{"flows.size_quantiles.max", I, 'b', 0, F(flows.max), "flow max", "largest flow"},
	{"flows.retransmissions", I, 'i', 0, F(flows.retransmissions), "retx",
	 "TCP segments and RoCEv2 requests sent again (sequence numbers)"},
	{"throughput.bin_s", R, 't', 0, F(throughput.bin_s), "bin",
	 "bin of the peak (1 ms or --bin)"},
	{"throughput.mean_bps", R, 'r', 0, F(throughput.mean_bps), "mean",
	 "wire bits over the duration"},
	{"throughput.peak_bps", R, 'r', 0, F(throughput.peak_bps), "peak",
	 "wire bits of the busiest bin over the bin"},
	{"limits.hosts.cap", I, 'i', 0, F(limits.hosts.cap), "host cap", "host table cap"},
	{"limits.hosts.kept", I, 'i', 0, F(limits.hosts.kept), "hosts", "hosts in the table"},
	{"limits.hosts.folded", I, 'i', 0, F(limits.hosts.folded), "hosts folded",
	 "hosts folded into other at the cap"},
	{"limits.hosts.folded_packets", I, 'i', 0, F(limits.hosts.packets), "folded pkts",
	 "their packets"},
	{"limits.hosts.folded_wire_bytes", I, 'b', 0, F(limits.hosts.wire_bytes), "folded wire",
	 "their wire bytes"},
	{"limits.hosts.folded_payload_bytes", I, 'b', 0, F(limits.hosts.payload_bytes),
	 "folded payload", "their payload bytes"},
	{"limits.pairs.cap", I, 'i', 0, F(limits.pairs.cap), "pair cap", "pair table cap"},
	{"limits.pairs.kept", I, 'i', 0, F(limits.pairs.kept), "pairs", "pairs in the table"},
	{"limits.pairs.folded", I, 'i', 0, F(limits.pairs.folded), "pairs folded",
	 "pairs folded into other at the cap"},
	{"limits.pairs.folded_packets", I, 'i', 0, F(limits.pairs.packets), "folded pkts",
	 "their packets"},
	{"limits.pairs.folded_wire_bytes", I, 'b', 0, F(limits.pairs.wire_bytes), "folded wire",
	 "their wire bytes"},
	{"limits.pairs.folded_payload_bytes", I, 'b', 0, F(limits.pairs.payload_bytes),
	 "folded payload", "their payload bytes"},
	{"limits.flows.cap", I, 'i', 0, F(limits.flows.cap), "flow cap", "flow table cap"},
	{"limits.flows.kept", I, 'i', 0, F(limits.flows.kept), "flows kept", "flows in the table"},
	{"limits.flows.folded", I, 'i', 0, F(limits.flows.folded), "flows folded",
	 "flows folded into other at the cap"},
	{"limits.flows.folded_packets", I, 'i', 0, F(limits.flows.packets), "folded pkts",
	 "their packets"},
	{"limits.flows.folded_wire_bytes", I, 'b', 0, F(limits.flows.wire_bytes), "folded wire",
	 "their wire bytes"},
	{"limits.flows.folded_payload_bytes", I, 'b', 0, F(limits.flows.payload_bytes),
	 "folded payload", "their payload bytes"},
	{"limits.series.host_bin_s", R, 't', 0, F(limits.host_bin_s), "host bin",
	 "bin of the hosts' series now (coarsened past the budget)"},
	{"limits.series.pair_bin_s", R, 't', 0, F(limits.pair_bin_s), "pair bin",
	 "bin of the pairs' series now"},
	{"limits.series.wire_bin_s", R, 't', 0, F(limits.wire_bin_s), "wire bin",
	 "bin of the total wire series now (series.csv)"},
	{"limits.series.flow_activity_bin_s", R, 't', 0, F(limits.flow_activity_bin_s),
	 "flow bin", "bin of the flows' activity series now"},
	{"pattern.kind", S, 's', AN, F(pattern.name), "pattern",
	 "ring, tree, star, clique, butterfly, hierarchical, pairwise or unknown"},
	{"pattern.ranks", I, 'i', AN, F(pattern.ranks), "ranks",
	 "hosts in the collective: workers and servers"},
	{"pattern.hubs", L, 's', AN, 0, NULL, "star hubs (servers), tree root"},
	{"pattern.order", L, 's', AN, 0, NULL, "ring order from the lowest address"},
	{"pattern.members", L, 's', AN, 0, NULL, "the ranks, address order"},
	{"pattern.confidence", R, 'f', AN, F(pattern.confidence), "conf",
	 "how well the shape fits, 0 to 1"},
	{"pattern.groups", I, 'i', AN, F(pattern.groups), "groups",
	 "hierarchical: number of groups"},
	{"pattern.jobs", I, 'i', AN, F(pattern.jobs), "jobs",
	 "connected components of the data traffic"},
	{"pattern.data_edges", I, 'i', AN, F(pattern.data_edges), "edges",
	 "directed data edges in the job"},
	{"pattern.control_payload_bytes", R, 'b', AN, F(pattern.control_payload_bytes), "ctrl",
	 "payload in pairs left out as control plane"},
	{"pattern.partial", B, 'y', AN, F(pattern.partial), "partial",
	 "only some ranks' sending is in the capture"},
	{"pattern.observed", L, 's', AN, 0, NULL, "ranks whose sending is in the capture"},
	{"iterations.period_s", R, 't', AN, F(iter.period_s), "period",
	 "mean iteration: (last comm end - first) / (count - 1)"},
	{"iterations.period_median_s", R, 't', AN, F(iter.period_median_s), "median",
	 "median of comm-end-to-comm-end intervals"},
	{"iterations.count", I, 'i', AN, F(iter.count), "iter",
	 "iterations found in the traffic"},
	{"iterations.regularity", R, 'f', AN, F(iter.regularity), "reg",
	 "0 to 1: autocorrelation at the period, 1 - CV of durations and of bytes"},
	{"iterations.bytes_per_worker", R, 'b', AN, F(iter.bytes_per_worker), "B/wrk/it",
	 "median payload one worker sends per iteration"},
	{"iterations.bytes_per_worker_spread", R, 'f', AN, F(iter.bytes_spread), "B spread",
	 "robust CV (1.4826 MAD / median) of per-worker-iteration bytes"},
	{"iterations.bytes_per_worker_outliers", R, 'f', AN, F(iter.bytes_outliers), "B off",
	 "share of a worker's iterations more than 25 % off its median bytes (steady: near 0)"},
	{"iterations.duration_spread", R, 'f', AN, F(iter.duration_spread), "dur spread",
	 "robust CV of iteration durations"},
	{"iterations.acf_period_s", R, 't', AN, F(iter.acf_period_s), "acf period",
	 "the time autocorrelation's period"},
	{"iterations.acf_peak", R, 'f', AN, F(iter.acf_peak), "acf peak",
	 "autocorrelation at that lag"},
	{"iterations.mode", S, 's', AN, F(iter.mode), "mode",
	 "synchronous, asynchronous or unknown, from each rank's own clock"},
	{"iterations.mode_evidence", S, 's', AN, F(iter.mode_evidence), "why",
	 "what the mode rests on (or why it is unknown)"},
	{"iterations.rank_period_spread", R, 'f', AN, F(iter.rank_period_spread), "P off",
	 "share of ranks whose own period is more than 10 % off the median"},
	{"iterations.step_lock", R, 'f', AN, F(iter.step_lock), "lock",
	 "share of steps in which every rank ends one exchange (1: lockstep)"},
	{"iterations.phase_spread", R, 'f', AN, F(iter.phase_spread), "phase",
	 "robust spread of the ranks' iteration ends against one rank's, over the period"},
	{"iterations.ranks", L, 'o', AN, 0, NULL,
	 "each rank's own clock: addr, period_s, count, bytes_per_exchange"},
	{"iterations.source", S, 's', AN, F(iter.source), "source",
	 "where iterations come from: traffic"},
	{"iterations.method", S, 's', AN, F(iter.method), "method",
	 "byte-clock, time-acf, time-ranks, rank-clock or gaps"},
	{"iterations.iteration_bytes", R, 'b', AN, F(iter.iteration_bytes), "B/it",
	 "the byte clock's bytes per iteration, all job hosts"},
	{"iterations.byte_acf_peak", R, 'f', AN, F(iter.byte_acf_peak), "byte acf",
	 "autocorrelation in the byte domain"},
	{"iterations.acf_at_period", R, 'f', AN, F(iter.acf_at_period), "acf@period",
	 "time autocorrelation at the median period"},
	{"iterations.starts_s", L, 't', AN, 0, NULL,
	 "each iteration's start: 10 % of its bytes sent"},
	{"iterations.boundaries_s", L, 't', AN, 0, NULL, "end of the gap before each iteration"},
	{"iterations.comm_end_s", L, 't', AN, 0, NULL,
	 "end of each iteration's communication: 99 % of its bytes"},
	{"iterations.end_s", R, 't', AN, F(iter.end_s), "end", "the last iteration's end"},
	{"iterations.runs", I, 'i', AN, F(iter.runs), "runs",
	 "runs back to back (a silence, then connections opened anew): 1, or more"},
	{"iterations.run_start_s", R, 't', AN, F(iter.run_start_s), "run from",
	 "with runs > 1, the busiest run's start: the iterations, mode and pattern read it"},
	{"iterations.run_end_s", R, 't', AN, F(iter.run_end_s), "run to",
	 "with runs > 1, the busiest run's end"},
	{"iterations.run_times", L, 'o', AN, 0, NULL,
	 "with runs > 1, each run (the first 1024): start_s, end_s, wire_bytes of the job's pairs"},
	{"iterations.payload_bytes", L, 'b', AN, 0, NULL,
	 "payload all job hosts sent in each iteration"},
	{"model.gradient_bytes", R, 'b', AN, F(model.gradient_bytes), "S",
	 "gradient size S from bytes per worker and the pattern"},
	{"model.expected_iteration_bytes", R, 'b', AN, F(model.expected_iteration_bytes),
	 "expected B/it", "payload per iteration the pattern's formula predicts from S"},
	{"model.observed_iteration_bytes", R, 'b', AN, F(model.observed_iteration_bytes),
	 "observed B/it", "median payload per iteration observed"},
	{"model.server_iteration_bytes", R, 'b', AN, F(model.server_iteration_bytes),
	 "server B/it", "star seen from its hub: payload the hub sends per iteration"},
	{"burstiness.timescales_s", L, 't', AN, 0, NULL, "timescales tau of the lists below"},
	{"burstiness.peak_to_mean", L, 'f', AN, 0, NULL,
	 "E(tau) / (mean rate x tau), total wire bytes"},
	{"burstiness.max_window_bytes", L, 'b', AN, 0, NULL,
	 "E(tau): most bytes in any window tau"},
	{"burstiness.mean_bps", R, 'r', AN, F(burst.mean_bps), "mean",
	 "mean rate of the series"},
	{"burstiness.drain_rates_bps", L, 'r', AN, 0, NULL, "queue service rates r"},
	{"burstiness.max_backlog_bytes", L, 'b', AN, 0, NULL,
	 "largest backlog of a queue served at r"},
	{"burstiness.series", S, 's', AN, F(burst.series), "series", "what the lists measure"},
	{"burstiness.hosts_series", S, 's', AN, F(burst.hosts_series), "host series",
	 "what the per-host lists measure"},
	{"burstiness.hosts", L, 'o', AN, 0, NULL, "per host: addr and the lists above"},
	{"phases.bin_s", R, 't', AN, F(phases.bin_s), "bin", "resolution of the on/off phases"},
	{"phases.gap_threshold_s", R, 't', AN, F(phases.gap_threshold_s), "gap min",
	 "quieter stretches shorter than this stay in a burst"},
	{"phases.duty_cycle", R, 'f', AN, F(phases.duty_cycle), "duty",
	 "time on over the span"},
	{"phases.bursts.count", I, 'i', AN, F(phases.bursts.count), "bursts", "on periods"},
	{"phases.bursts.mean_s", R, 't', AN, F(phases.bursts.mean_s), "burst mean",
	 "mean burst length"},
	{"phases.bursts.p50_s", R, 't', AN, F(phases.bursts.p50_s), "burst p50",
	 "median burst length"},
	{"phases.bursts.p90_s", R, 't', AN, F(phases.bursts.p90_s), "burst p90",
	 "90th percentile burst length"},
	{"phases.bursts.max_s", R, 't', AN, F(phases.bursts.max_s), "burst max",
	 "longest burst"},
	{"phases.gaps.count", I, 'i', AN, F(phases.gaps.count), "gaps", "off periods"},
	{"phases.gaps.mean_s", R, 't', AN, F(phases.gaps.mean_s), "gap mean", "mean gap length"},
	{"phases.gaps.p50_s", R, 't', AN, F(phases.gaps.p50_s), "gap p50", "median gap length"},
	{"phases.gaps.p90_s", R, 't', AN, F(phases.gaps.p90_s), "gap p90",
	 "90th percentile gap length"},
	{"phases.gaps.max_s", R, 't', AN, F(phases.gaps.max_s), "gap max", "longest gap"},
	{"loss.retransmissions", I, 'i', AN, F(loss.retransmissions), "retx",
	 "TCP segments and RoCEv2 requests sent again"},
	{"loss.rate", R, 'f', AN, F(loss.rate), "retx rate", "retransmissions per packet"},
	{"loss.flows_with_retransmissions", I, 'i', AN, F(loss.flows_with_retransmissions),
	 "retx flows", "flows with one retransmission or more"},
	{"loss.hosts", L, 'o', AN, 0, NULL, "per host: addr, tx_retransmissions, rate"},
	{"loss.top_flows", L, 'o', AN, 0, NULL,
	 "the 10 flows with the most: src, dst, sport, dport, retransmissions"},
	{"train_log.steps", I, 'i', AN | DMLS_M_LOG, F(log.steps), "steps",
	 "Batch rows of train_history.log"},
	{"train_log.mean_step_s", R, 't', AN | DMLS_M_LOG, F(log.mean_step_s), "step",
	 "the log's mean step time: (last - first) / (steps - 1)"},
	{"train_log.steady_step_s", R, 't', AN | DMLS_M_LOG, F(log.steady_step_s), "steady step",
	 "the same from the second step on (4 steps or more), as period_s"},
	{"train_log.median_step_s", R, 't', AN | DMLS_M_LOG, F(log.median_step_s), "step p50",
	 "the log's median step time"},
	{"train_log.mb_per_step", R, 'f', AN | DMLS_M_LOG, F(log.mb_per_step), "MB/step",
	 "mean wire MB (1e6) per mean-step-time bin"},
	{"train_log.detected_period_s", R, 't', AN | DMLS_M_LOG, F(log.detected_period_s),
	 "period", "iterations.period_s beside the log"},
	{"train_log.period_error", R, 'f', AN | DMLS_M_LOG, F(log.period_error), "error",
	 "(period - steady step) / steady step"},
	{"train_log.accuracy_vs_data", L, 'o', AN | DMLS_M_LOG, 0, NULL,
	 "per log row: type, id, t_s, cum_wire_bytes, accuracy"},
	{"jobs", L, 'o', AN, 0, NULL,
	 "every job of the capture, the top level's first: id, hosts, start_s, duration_s, "
	 "pattern, iterations, model, notes (doc/contract.md)"},
	{"notes", L, 's', AN, 0, NULL, "what was odd, and why a value is null"},
	/* compare's own columns, not in `analyze --json` */
	{"pattern.workers", I, 'i', AN | DMLS_M_EXTRA, F(pattern.workers), "wrk",
	 "hosts the analysis calls workers"},
	{"burstiness.ptm_5ms", R, 'f', AN | DMLS_M_EXTRA, F(burst.ptm_5ms), "PtM5ms",
	 "peak-to-mean at 5 ms, total wire bytes"},
	{"train_log.final_accuracy", R, 'f', AN | DMLS_M_LOG | DMLS_M_EXTRA,
	 F(log.final_accuracy), "acc", "the last accuracy train_history.log gives"},
	{"run.framework_backend", S, 's', DMLS_M_RUN | DMLS_M_EXTRA, F(run.framework_backend),
	 "fw_backend", "framework_backend, the study's categorical (as in fit's table)"},
	{"run.loss_percent", R, 'f', DMLS_M_RUN | DMLS_M_EXTRA, F(run.loss_percent), "loss%",
	 "0 for delay normal, X for loss_X"},
	{"run.model_size_mb", R, 'f', DMLS_M_EXTRA, F(run.model_size_mb), "size MiB",
	 "the model's size in MiB: truth.json's gradient, else torchvision's parameters x 4"},
};

const size_t dmls_nmetrics = sizeof(dmls_metrics) / sizeof(dmls_metrics[0]);

const dmls_metric *dmls_metric_find(const char *key)
{
	for (size_t i = 0; i < dmls_nmetrics; i++)
		if (!strcmp(dmls_metrics[i].key, key))
			return &dmls_metrics[i];
	return NULL;
}

int dmls_metric_present(const dmls_metric *m, const dmls_result *r)
{
	return !((m->flags & DMLS_M_RUN) && !r->has_run) &&
	       !((m->flags & DMLS_M_ANALYSIS) && !r->has_analysis) &&
	       !((m->flags & DMLS_M_LOG) && !r->has_log);
}

dmls_value dmls_metric_value(const dmls_metric *m, const dmls_result *r)
{
	dmls_value v = {DMLS_T_NULL, 0, 0, NULL};
	if (!dmls_metric_present(m, r))
		return v;
	const char *p = (const char *)r + m->offset;
	switch (m->type) {
	case DMLS_T_INT:
		memcpy(&v.i, p, sizeof(v.i));
		v.type = v.i >= 0 ? DMLS_T_INT : DMLS_T_NULL;
		break;
	case DMLS_T_REAL:
		memcpy(&v.r, p, sizeof(v.r));
		v.type = isfinite(v.r) ? DMLS_T_REAL : DMLS_T_NULL;
		break;
	case DMLS_T_STR:
		memcpy(&v.s, p, sizeof(v.s));
		v.type = v.s ? DMLS_T_STR : DMLS_T_NULL;
		break;
	case DMLS_T_BOOL: {
		int b;
		memcpy(&b, p, sizeof(b));
		v.type = DMLS_T_BOOL;
		v.i = b != 0;
		break;
	}
	default: break; /* a list: the renderer writes it */
	}
	return v;
}
