/*
 * notes.c - what was odd, and why a value is null: the notes of an
 * analysis, one line each, in the order a reader needs them (the view,
 * the capture, the job, the iterations, the mode, loss, the log).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "analysis/analysis_int.h"

/* Missed TCP data worth a note: 64 kB and 1 % of the payload. */
#define MISSED_MIN_BYTES 65536
#define MISSED_SHARE 0.01

#define CLOCK_BACK_NS 1000000000LL /* time going back more than this is noted */

void dmls_note(dmls_analysis *a, const char *fmt, ...)
{
	if (a->nnotes >= DMLS_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->notes[a->nnotes++], sizeof(a->notes[0]), fmt, ap);
	va_end(ap);
}

void dmls_analysis_note_input(dmls_analysis *a, const char *text)
{
	dmls_note(a, "%s", text);
}

static void notes_iterations(dmls_analysis *a)
{
	const dmls_iterations *it = &a->iter;
	if (it->runs > 1 && isfinite(it->run_start_s) && isfinite(it->run_end_s))
		dmls_note(a, "%zu runs back to back (silence, new connections): "
			"iterations, mode and pattern of the busiest, t = %.3f to %.3f s; totals, "
			"matrix: all runs", it->runs, it->run_start_s, it->run_end_s);
	else if (it->runs > 1)
		dmls_note(a, "%zu runs back to back (silence, new connections): "
			"iterations, mode and pattern of the busiest; totals, matrix: all runs",
		     it->runs);
	if (it->idle_gap_s > 0 && it->count > 0)
		dmls_note(a, "iterations of the busiest stretch only (t = %.3f to %.3f s, %.0f %% "
			"of the job's bytes): idle gaps up to %.3g s cut the rest away",
		     it->starts_s[0], it->end_s, 100 * it->stretch_share, it->idle_gap_s);
	if (it->count == 1)
		dmls_note(a, "one iteration only: no period");
	if (it->count < 2 || !isfinite(it->period_median_s))
		return;
	double longest = 0, at = 0;
	size_t stalls = 0; /* intervals over 3 median periods: pauses, which may recur */
	for (size_t i = 0; i + 1 < it->count; i++) {
		double d = it->comm_end_s[i + 1] - it->comm_end_s[i];
		stalls += d > 3 * it->period_median_s;
		if (d > longest)
			longest = d, at = it->comm_end_s[i];
	}
	if (stalls == 1 && it->count >= 3)
		dmls_note(a, "stall: %.3g s without an iteration from t = %.3f s (median period %.3g s)",
		     longest, at, it->period_median_s);
	else if (stalls > 1 && it->count >= 3)
		dmls_note(a, "stalls: %zu pauses of over 3 periods between iterations, the longest "
			"%.3g s from t = %.3f s (median period %.3g s)",
		     stalls, longest, at, it->period_median_s);
}

/* A partial view: which ranks' sending the capture holds, what follows. */
static void notes_view(dmls_analysis *a, const dmls_stats *st)
{
	const dmls_pattern *p = &a->pattern;
	if (!p->partial)
		return;
	char list[96] = "";
	size_t len = 0;
	for (size_t i = 0; i < p->nobserved && len + 1 < sizeof(list); i++) {
		int w = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
				 st->hosts[p->observed[i]].name);
		if (w < 0 || (size_t)w >= sizeof(list) - len) {
			snprintf(list + len, sizeof(list) - len, "...");
			break;
		}
		len += (size_t)w;
	}
	if (p->service_port)
		dmls_note(a, "partial view: %zu ranks' sending (%s), to service port %u: MPI-style "
			"connections on demand, rank count unknown", p->nobserved, list,
		     p->service_port);
	else if (p->center_jobs > 1)
		dmls_note(a, "partial view: only the sending of %s, a host in %zu jobs: this job's "
			"hosts are those its steps reach, its rank count unknown", list,
			p->center_jobs);
	else
		dmls_note(a, "partial view: only %zu of %zu ranks' outgoing traffic is in the "
			"capture: %s", p->nobserved, p->ranks, list);
	if (p->lone_sender)
		dmls_note(a, "one sender with one data peer: a ring neighbour or a parameter server's "
			"worker; kind and gradient size unknown");
	else if (p->kind == DMLS_PAT_RING && p->norder < p->ranks)
		dmls_note(a, "ring order partial: %zu of %zu ranks placed; S uses N = %zu ranks "
			"(data peers and contacts of the observed ranks)", p->norder, p->ranks,
		     p->ranks);
	else if (a->hub_one_at_a_time)
		dmls_note(a, "one sender to many, each at a clock of its own (an asynchronous server, "
			"a gossiping or pair-averaging rank, or a host in two jobs): kind, period "
			"and S unknown");
	else if (p->hub_or_clique > 0)
		dmls_note(a, "one rank fans out evenly, two like bursts a step to a peer in %.0f %% "
			"of steps: a clique's rank or a star's hub, not told apart; kind and S "
			"unknown", 100 * p->hub_or_clique);
	else if (p->partners > 0)
		dmls_note(a, "one rank sends to its %zu partners in turn, in one order every step: a "
			"recursive-doubling rank (or a server serving in a fixed order); S = bytes a "
			"step / %zu", p->partners, p->partners);
	else if (p->kind == DMLS_PAT_STAR && isfinite(a->server_bytes))
		dmls_note(a, "star seen from its hub only: S = the hub's bytes per iteration / %zu "
			"workers", p->ranks - p->nhubs);
	if (a->pulled_first)
		dmls_note(a, "the hub's first sends (the workers' initial pull of the model) are "
			"warm-up, not a step");
	if (p->lone_sender && a->iter.count >= 2)
		dmls_note(a, a->ends_from_acks
				? "iterations end with the sender's acknowledgements of its peer's "
				  "reply (the reply itself is not in the capture)"
				: "period from one rank's sending alone: a step that ends with a "
				  "message it receives (a server's reply) is not seen to end");
}

/* Notes about the job alone (every job gets them). */
void dmls_notes_job(dmls_analysis *a, const dmls_stats *st)
{
	const dmls_pattern *p = &a->pattern;
	notes_view(a, st);
	if (a->pairs_told && isfinite(a->twin_period_s))
		dmls_note(a, "one of two jobs on the same hosts, told apart by their connections' "
			"clocks (%.3g s, the other's %.3g s): %zu pair(s) read as this job's alone",
		     a->twin_period_s, a->twin_other_s, a->pairs_told);
	else if (a->pairs_told)
		dmls_note(a, "%zu pair(s) shared with another job (both ends run ranks of both): "
			"read as this job's alone, told by their connections' clocks", a->pairs_told);
	if (a->background_flows) {
		double mb = a->background_payload_bytes / 1e6; /* GB past 10^4 MB */
		double x = mb >= 1e4 ? mb / 1e3 : mb;
		const char *unit = mb >= 1e4 ? "GB" : "MB";
		if (a->background_payload_bytes == 0)
			dmls_note(a, "%zu connection(s) at the job's hosts acknowledging a steady "
				"stream into them (its sender not captured) left out of its pattern, "
				"steps and S", a->background_flows);
		else if (a->background_unsplit)
			dmls_note(a, "%zu steady connection(s) at the job's hosts (%.1f %s: a bulk "
				"transfer, busy where the job idles) left out; %zu pair(s) of the job's "
				"not split", a->background_flows, x, unit, a->background_unsplit);
		else
			dmls_note(a, "%zu steady connection(s) at the job's hosts (%.1f %s: a bulk "
				"transfer, busy where the job idles) left out of its pattern, steps and S",
			     a->background_flows, x, unit);
	}
	if (a->hub_answers > 0)
		dmls_note(a, "one host's capture: it answers its peers about as slowly as they answer "
			"it (%.2f), a gossiping or pair-averaging rank, no server; kind and S unknown",
		     a->hub_answers);
	else if (p->ranks > 0 && p->kind == DMLS_PAT_UNKNOWN && !p->lone_sender)
		dmls_note(a, "communication pattern not recognized among %zu hosts", p->ranks);
	if (p->hub_exchanges)
		dmls_note(a, "hub-shaped collective: the hub exchanges with its spokes at once "
			"(no push-then-pull), so it is a rank, not a parameter server");
	if (p->hub_unchecked_s > 0)
		dmls_note(a, "hub read as a parameter server by the volumes alone: its pairs' "
			"series (%.3g s bins) are too coarse to tell a server's answers from a "
			"collective's exchanges at once",
		     p->hub_unchecked_s);
	if (p->tree_node)
		dmls_note(a, "tree, not a server: the hub sends to its root before hearing from it, "
			"the rest send first; the tree may reach past these %zu ranks",
		     p->ranks);
	if (p->kind == DMLS_PAT_HIERARCHICAL && !isfinite(a->gradient_bytes) &&
	    isfinite(a->iter.bytes_per_worker))
		dmls_note(a, "S null: a hierarchical all-reduce's bytes depend on the algorithms "
			"inside and across its %zu groups (bytes per worker are measured)",
		     p->ngroups);
	if (p->kind == DMLS_PAT_BUTTERFLY && p->ranks == 3)
		dmls_note(a, "3 ranks in a path whose middle rank exchanges with an end at once: "
			"MPICH's or Open MPI's all-reduce for N = 3 (the extra rank hands its "
			"vector over)");
	if (a->iter.unresolved_bin_s > 0 && isfinite(a->iter.pause_every_s))
		dmls_note(a, "iterations not resolved: %.3g s bins (coarsened to fit memory), but the "
			"ranks pause every %.3g s (1 ms streams); count, period and S unknown",
		     a->iter.unresolved_bin_s, a->iter.pause_every_s);
	else if (a->iter.unresolved_bin_s > 0)
		dmls_note(a, "iterations not resolved: %.3g s bins (coarsened to fit memory), %.0f %% "
			"of them busy: no gap between steps spans a bin; count, period and S unknown",
		     a->iter.unresolved_bin_s, 100 * a->iter.on_share);
	else if (p->ranks > 0 && a->iter.count == 0)
		dmls_note(a, "no iterations found");
	if (a->iter.count > DMLS_ITER_LISTED)
		dmls_note(a, "%zu iterations: the JSON lists of iteration times and bytes hold the "
			"first %d, the CSV output every one", a->iter.count, DMLS_ITER_LISTED);
	notes_iterations(a);
	const dmls_mode *m = &a->mode;
	if (a->two_jobs && a->pair_groups >= 2)
		dmls_note(a, "two jobs on the same hosts: their data pairs keep %zu steps (%.3g s on "
			"%zu pairs, %.3g s on %zu): count, period and S withheld",
		     a->pair_groups, a->pair_group_s[0], a->pair_group_n[0], a->pair_group_s[1],
		     a->pair_group_n[1]);
	else if (a->two_jobs && 2 * a->split_three > a->split_pairs)
		dmls_note(a, "two jobs or more on the same hosts: %zu of %zu split pairs keep steps "
			"apart (%.3g s, %.3g s), %zu over 3 connections or more: count, period and "
			"S withheld",
		     a->conn_apart, a->conn_tested, a->conn_period_s[0], a->conn_period_s[1],
		     a->split_three);
	else if (a->two_jobs)
		dmls_note(a, "two jobs on the same hosts: the connections of %zu of %zu split data "
			"pairs keep steps apart (%.3g s, %.3g s): count, period and S withheld",
		     a->conn_apart, a->conn_tested, a->conn_period_s[0], a->conn_period_s[1]);
	else if (a->iter_unsure && a->stalled_share > 0)
		dmls_note(a, "iterations uncertain: %.0f %% of the time in stalls over 3 median "
			"periods, inside steps too (a lossy path's timeouts): count, period and S "
			"withheld", 100 * a->stalled_share);
	else if (a->iter_unsure && a->log_multiple > 0)
		dmls_note(a, "iterations uncertain: each of the %zu the traffic's clock counted is "
			"about %.0f of the train log's steps: count, period and S withheld",
		     a->iter_found, a->log_multiple);
	else if (a->iter_unsure && a->sync_kind)
		dmls_note(a, "iterations uncertain: the ranks' clocks read asynchronous, which a %s "
			"all-reduce is not (busy hosts or loss): count, period and S withheld",
		     a->sync_kind);
	else if (a->iter_unsure && a->ranks_apart > 0)
		dmls_note(a, "iterations uncertain: on a lossy path the job's clock (%zu steps) and "
			"%zu ranks' own clocks agree on no step: count, period and S withheld",
		     a->iter_found, a->ranks_apart);
	else if (a->iter_unsure && a->two_kinds > 0)
		dmls_note(a, "iterations uncertain: mean period %.1fx the median, lengths' robust CV "
			"%.2f: steps and their parts counted alike; count, period and S withheld",
		     a->two_kinds, a->iter.duration_cv);
	else if (a->iter_unsure)
		dmls_note(a, "iterations uncertain: %.0f %% of a worker's iterations move 25 %% more or "
			"less than its median (steady steps: none); period and S withheld",
		     100 * a->iter.bytes_outliers);
	if (m->mode == DMLS_MODE_ASYNC)
		dmls_note(a, "asynchronous: %s; no job-wide period (each rank's own: iterations.ranks)",
		     m->why);
	if (a->split_pairs >= 2 && 2 * a->split_pairs >= a->data_pairs && m->mode == DMLS_MODE_SYNC &&
	    a->conn_tested == 0) /* untested: both readings */
		dmls_note(a, "%zu of %zu data pairs split over 2+ data connections: two jobs on the "
			"same hosts (their steps and S then counted as one) or parallel sockets",
		     a->split_pairs, a->data_pairs);
}

void dmls_notes_all(dmls_analysis *a, const dmls_stats *st)
{
	const dmls_pattern *p = &a->pattern;
	if (st->packets == 0) {
		dmls_note(a, "empty capture: nothing to analyze");
		return;
	}
	if (p->ranks == 0)
		dmls_note(a, "only control traffic: no pair moved %.0f bytes or more",
		     DMLS_MIN_DATA_BYTES);
	if (a->jobs_found > 1)
		dmls_note(a, "%zu jobs in the capture: the top level is the one moving the most bytes "
			"(%zu hosts); each is in jobs%s", a->jobs_found, p->ranks,
		     a->jobs_found > a->njobs ? " (the largest ones)" : "");
	if (a->jobs_found > 1 && a->jobs_unsure)
		dmls_note(a, "jobs split at a shared host end their steps together but drift "
			"as two jobs would: maybe one job (a tree's root, a group's leader)");
	if (a->stepless)
		dmls_note(a, "other traffic: %zu host group(s) (%zu hosts, %.4g MB of payload) move "
			"data without steps (a bulk transfer, not a training job): not in jobs",
		     a->stepless, a->stepless_hosts, a->stepless_payload_bytes / 1e6);
	dmls_notes_job(a, st);
	if (a->phases.bin_s > 1.5e-3 && isfinite(a->phases.duty_cycle))
		dmls_note(a, "phases at %.3g ms bins (the total payload series coarsened past its "
			"memory budget): bursts and gaps are whole bins, the duty cycle an upper bound",
		     1e3 * a->phases.bin_s);
	if (st->packets >= 2 && st->first_ns == st->last_ns)
		dmls_note(a, "all %llu packets carry one time stamp (times lost in a conversion?): "
			"rates, the peak and peak-to-mean are null, phases see one instant",
		     (unsigned long long)st->packets);
	if (st->t0_ns != INT64_MIN && st->first_ns < st->t0_ns - CLOCK_BACK_NS)
		dmls_note(a, "time goes back: the earliest packet is %.6g s before the first (a "
			"clock stepped back while capturing, or records out of order)",
		     (double)(st->t0_ns - st->first_ns) / 1e9);
	if (DMLS_STATS_DISORDERED(st))
		dmls_note(a, "%llu packet%s (%.3g %%) stamped 1 ms or more before packets read "
			"earlier (up to %.6g s): records out of time order, so burstiness and the peak "
			"come from the series at %.3g ms bins (time scales below are null)",
		     (unsigned long long)st->late_packets, st->late_packets == 1 ? "" : "s",
		     100.0 * (double)st->late_packets / (double)st->packets,
		     (double)st->late_max_ns / 1e9, (double)st->total_wire.bin_ns / 1e6);
	uint64_t missed = dmls_stats_missed_bytes(st);
	if (missed >= MISSED_MIN_BYTES && (double)missed >= MISSED_SHARE * (double)st->payload_bytes)
		dmls_note(a, "the capture missed %.3g MB of TCP data, %.2g %% (sequence gaps that "
			"no retransmission filled: packets dropped while capturing?): volumes and S "
			"low by as much",
		     (double)missed / 1e6,
		     100.0 * (double)missed / ((double)st->payload_bytes + (double)missed));
	if (st->retransmissions > 0)
		dmls_note(a, "%llu retransmissions (%.3g %% of packets): %s",
		     (unsigned long long)st->retransmissions,
		     100.0 * (double)st->retransmissions / (double)st->packets,
		     DMLS_STATS_DISORDERED(st) ? "segments read out of time order count too, so not "
						  "a measure of loss here"
					       : "loss or timeouts on the path");
	if (a->log.present && a->log.backwards_line)
		dmls_note(a, "the train log's Batch times go backwards at its line %zu: no step time "
			"from it (rows out of order, or a clock stepped back)", a->log.backwards_line);
	if (a->log.present)
		dmls_note_log_period(a);
}

void dmls_note_log_period(dmls_analysis *a)
{
	if (isfinite(a->log.period_error) && fabs(a->log.period_error) > 0.03)
		dmls_note(a, "detected period %.4g s differs from the log's steady mean step %.4g s by %.1f %%",
		     a->iter.period_s, a->log.steady_step_s, 100 * a->log.period_error);
}
