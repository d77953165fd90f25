/*
 * htsim.c - the schedule as htsim's connection matrix and topology.
 *
 * htsim (Broadcom/csg-htsim, BSD-2; Handley et al., "Re-architecting
 * datacenter networks and stacks for low latency and high performance",
 * SIGCOMM 2017) reads a connection matrix with `-tm FILE`, parsed by
 * ConnectionMatrix::load in sim/datacenter/connection_matrix.cpp:
 *
 *   Nodes N                      must equal htsim's -nodes
 *   Connections C                must equal the flow lines
 *   Triggers T                   must equal the trigger lines
 *   a->b id K start <ps> size <B>
 *   a->b id K trigger <t> size <B> [send_done_trigger <t>]
 *   trigger id <t> barrier count <c>
 *
 * Tokens are split on single spaces; '#' comments only before the first
 * flow line; ids and trigger ids are positive.  `start` is picoseconds read
 * as a float (stof: 24 bits of mantissa, so about 65 ns of rounding at 1 s
 * into the run); `size` is read with stoi, so a message of 2^31 bytes or
 * more cannot be written.
 *
 * Flow id K is the message's row in the CSV flow list (1 = the first row
 * after the header), so simulated completions join back to the schedule.
 *
 * Open loop: every message starts at its planned time.  Closed loop: each
 * iteration's first step starts at its planned time (the compute gap is
 * kept); every later step starts when all the messages of the step before
 * it are sent and acknowledged: the flows of step s carry
 * `send_done_trigger t`, a barrier of count (flows of step s), and the
 * flows of step s + 1 wait on `trigger t`.  (htsim_ndp's receivers never
 * fire recv_done_trigger, so the sender's side is used.)  The simulator,
 * not our pacing model, then decides how long a congested step takes; the
 * 20-30 us between steps (the reduction) is not modelled.
 *
 * Topology (`-topo FILE`, FatTreeTopology::load in
 * sim/datacenter/fat_tree_topology.cpp): a 2-tier fat tree whose one pod
 * is one top-of-rack switch holding every host, so no flow ever leaves it:
 * one switch, links at the job's rate (whole Gbit/s: the file's speed is
 * an integer), 1 us per link.  htsim needs a tier above it: one uplink
 * to one idle switch, "oversubscribed" N:1 (set_params checks that the
 * ToR's down radix over its up radix is the oversubscription).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "dmlscope/analysis.h"
#include "gen/gen_int.h"

#define HTSIM_MAX_SIZE 2147483647ULL /* stoi */

int gen_check_sizes(const dmls_gen_schedule *s, const char *who, uint64_t max,
		    const char *why, dmls_error *err)
{
	for (size_t i = 0; i < s->nmsgs; i++)
		if (s->msgs[i].bytes > max)
			return dmls_fail(err, DMLS_EUSAGE,
					 "a message of %" PRIu64 " bytes: %s reads sizes as %s (at "
					 "most %" PRIu64 " bytes); give a smaller gradient or more "
					 "ranks", s->msgs[i].bytes, who, why, max);
	return DMLS_OK;
}

int64_t *gen_iteration_bounds(const dmls_gen_schedule *s)
{
	size_t K = s->job.iterations;
	int64_t *first = malloc((K ? 2 * K : 1) * sizeof(*first));
	if (!first)
		return NULL;
	int64_t *end = first + K;
	for (size_t k = 0; k < K; k++)
		first[k] = INT64_MAX, end[k] = 0;
	for (size_t i = 0; i < s->nmsgs; i++) {
		const dmls_gen_msg *m = &s->msgs[i];
		uint64_t nseg = (m->bytes + DMLS_GEN_MSS - 1) / DMLS_GEN_MSS;
		/* as schedule.c's lay_step: segments, one more gap, the ACK */
		int64_t e = m->start_ns + (int64_t)(nseg + 1) * m->gap_ns + GEN_ACK_DELAY_NS;
		if (m->start_ns < first[m->iteration])
			first[m->iteration] = m->start_ns;
		if (e > end[m->iteration])
			end[m->iteration] = e;
	}
	return first;
}

/* The plan in the header's comments: per iteration its first start and
 * planned end, picoseconds (htsim's unit), so runs can be compared. */
static int write_plan(const dmls_gen_schedule *s, FILE *fp)
{
	size_t K = s->job.iterations;
	int64_t *first = gen_iteration_bounds(s);
	if (!first)
		return -1;
	const int64_t *end = first + K;
	for (size_t k = 0; k < K; k++)
		if (end[k])
			fprintf(fp, "# iteration %zu start_ps %" PRId64 "000 planned_end_ps %" PRId64
				"000\n", k, first[k], end[k]);
	free(first);
	return 0;
}

static size_t node_count(const dmls_gen_schedule *s, size_t nodes)
{
	return nodes ? nodes : s->nhosts;
}

/* Per message, the trigger it waits on and the one it fires when sent (0 =
 * none), for the closed loop; the number of triggers in *ntrig. */
static int closed_loop(const dmls_gen_schedule *s, uint32_t *wait, uint32_t *fire,
		       uint32_t **count, size_t *ntrig)
{
	/* a step is the messages of one (iteration, step); the steps of an
	 * iteration follow one another in the order of their numbers */
	size_t n = s->nmsgs;
	int rc = 0;
	uint32_t K = (uint32_t)s->job.iterations, maxstep = 0;
	for (size_t i = 0; i < n; i++)
		maxstep = s->msgs[i].step > maxstep ? s->msgs[i].step : maxstep;
	size_t nslots = (size_t)K * (maxstep + 1);
	/* trigger of (k, step): fired by step's messages, waited on by the
	 * next step present in iteration k */
	uint32_t *msgs_in = calloc(nslots, sizeof(*msgs_in));
	uint32_t *trig = calloc(nslots, sizeof(*trig));
	*count = calloc(nslots + 1, sizeof(**count));
	if (!msgs_in || !trig || !*count) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		msgs_in[(size_t)s->msgs[i].iteration * (maxstep + 1) + s->msgs[i].step]++;
	*ntrig = 0;
	for (uint32_t k = 0; k < K; k++) {
		size_t prev = SIZE_MAX;
		for (uint32_t st = 0; st <= maxstep; st++) {
			size_t slot = (size_t)k * (maxstep + 1) + st;
			if (!msgs_in[slot])
				continue;
			if (prev != SIZE_MAX) {
				trig[prev] = (uint32_t)++*ntrig;
				(*count)[*ntrig] = msgs_in[prev];
			}
			prev = slot;
		}
	}
	/* the step that waits on trig[prev] is the next present step */
	for (size_t i = 0; i < n; i++) {
		const dmls_gen_msg *m = &s->msgs[i];
		size_t slot = (size_t)m->iteration * (maxstep + 1) + m->step;
		fire[i] = trig[slot];
		wait[i] = 0;
		for (size_t p = slot; p-- > (size_t)m->iteration * (maxstep + 1);) {
			if (msgs_in[p]) {
				wait[i] = trig[p];
				break;
			}
		}
	}
out:
	free(msgs_in);
	free(trig);
	return rc;
}

static void write_flow(FILE *fp, const dmls_gen_msg *m, size_t id, uint32_t wait,
		       uint32_t fire)
{
	fprintf(fp, "%u->%u id %zu ", m->src, m->dst, id);
	if (wait)
		fprintf(fp, "trigger %u", wait);
	else
		fprintf(fp, "start %" PRId64 "000", m->start_ns);
	fprintf(fp, " size %" PRIu64, m->bytes);
	if (fire)
		fprintf(fp, " send_done_trigger %u", fire);
	fputc('\n', fp);
}

int dmls_gen_write_htsim(const dmls_gen_schedule *s, const dmls_gen_htsim_opts *o, FILE *fp,
			 dmls_error *err)
{
	size_t nodes = node_count(s, o ? o->nodes : 0);
	if (nodes < s->nhosts)
		return dmls_fail(err, DMLS_EUSAGE, "%zu nodes cannot hold the job's %zu hosts",
				 nodes, s->nhosts);
	int rc = gen_check_sizes(s, "htsim", HTSIM_MAX_SIZE, "a signed 32-bit int", err);
	if (rc)
		return rc;
	uint32_t *wait = NULL, *fire = NULL, *count = NULL;
	size_t ntrig = 0;
	int oom = 0;
	if (o && o->closed_loop) {
		wait = malloc((s->nmsgs + 1) * sizeof(*wait));
		fire = malloc((s->nmsgs + 1) * sizeof(*fire));
		if (!wait || !fire || closed_loop(s, wait, fire, &count, &ntrig)) {
			free(wait);
			free(fire);
			free(count);
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
	}
	fprintf(fp, "# dmlscope generate: %s of %zu ranks, %zu iterations, %s loop; "
		"flow id = row of the CSV flow list\n",
		dmls_pattern_name(s->job.pattern), s->job.workers, s->job.iterations,
		wait ? "closed" : "open");
	if (write_plan(s, fp))
		oom = 1;
	fprintf(fp, "Nodes %zu\nConnections %zu\n", nodes, s->nmsgs);
	if (wait)
		fprintf(fp, "Triggers %zu\n", ntrig);
	for (size_t i = 0; i < s->nmsgs; i++)
		write_flow(fp, &s->msgs[i], i + 1, wait ? wait[i] : 0, fire ? fire[i] : 0);
	for (size_t t = 1; t <= ntrig; t++)
		fprintf(fp, "trigger id %zu barrier count %u\n", t, count[t]);
	free(wait);
	free(fire);
	free(count);
	if (oom)
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (fflush(fp) || ferror(fp))
		return dmls_fail(err, DMLS_EIO, "cannot write the connection matrix");
	return DMLS_OK;
}

int dmls_gen_write_htsim_topology(const dmls_gen_schedule *s, size_t nodes, FILE *fp,
				  dmls_error *err)
{
	nodes = node_count(s, nodes);
	double g = s->job.link_gbps;
	if (g < 1 || g != floor(g))
		return dmls_fail(err, DMLS_EUSAGE, "htsim's topology takes whole Gbit/s, not %g", g);
	fprintf(fp, "# dmlscope generate: one switch, %zu hosts at %g Gbit/s\n"
		"Nodes %zu\nTiers 2\nPodsize %zu\n\n", nodes, g, nodes, nodes);
	fprintf(fp, "Tier 0\nDownlink_speed_Gbps %.0f\nRadix_Down %zu\nRadix_Up 1\n"
		"Oversubscribed %zu\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n\n", g, nodes,
		nodes);
	fprintf(fp, "Tier 1\nDownlink_speed_Gbps %.0f\nRadix_Down 1\n"
		"Downlink_Latency_ns 1000\nSwitch_Latency_ns 0\n", g);
	if (fflush(fp) || ferror(fp))
		return dmls_fail(err, DMLS_EIO, "cannot write the topology");
	return DMLS_OK;
}
