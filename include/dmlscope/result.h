/*
 * result.h - every number dmlscope shows about one job, computed once.
 *
 * dmls_result_init reads an analyzed dmls_job (its stats, analysis, input
 * counts, run attributes and train log) and computes every scalar and every
 * derived list any output shows: totals, durations, mean and peak
 * throughput, flow quantiles, retransmissions, the pattern, the iterations,
 * the gradient size, regularity, peak-to-mean at each timescale, phases,
 * the train log's metrics, the top loss flows, the folded/limits account,
 * the notes.  The renderers (render.h: JSON, CSV, terminal, HTML) and
 * compare (compare.h) read the result and compute nothing; where they list
 * hosts, pairs, flows or bins they read the stats tables through
 * r->stats, in the order the result chose (busiest hosts, top pairs, top
 * loss flows, the matrix's hosts).
 *
 * One metric table, dmls_metrics[], names every value of `analyze --json`
 * and the few compare adds: its key (the dotted path in the document,
 * "iterations.period_s"), type, unit, short title for a terminal column, a
 * one-line description, and where it lives in dmls_result.  The JSON
 * renderer writes the document by walking the table in order; compare's
 * rows, runs.csv, its terminal table and the report's runs table pick their
 * columns from it by key.  A new number is one field here, one line in
 * result.c that computes it, and one line in the table (src/result/metrics.c).
 *
 * Unknown values are NAN (reals), -1 (integers) or NULL (strings); they are
 * written as null.
 *
 * Ownership and lifetime: a result points into the job (or the stats and
 * analysis) it was computed from: strings, the stats tables, the analysis'
 * arrays.  It is valid while they live, unchanged.  The lists marked "owned"
 * are the result's own and go with dmls_result_release.  To keep numbers
 * past the job, copy them (compare.c keeps one compact row per run).
 */
#ifndef DMLSCOPE_RESULT_H
#define DMLSCOPE_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/analysis.h"
#include "dmlscope/error.h"
#include "dmlscope/job.h"
#include "dmlscope/stats.h"

#define DMLS_FIGURE_BIN_NS 10000000LL /* the throughput figure: 10 ms bins */
#define DMLS_FIGURE_MAX_BINS 100000   /* coarser bins past this */
#define DMLS_TOP_PAIRS 8              /* the terminal's top pairs */
#define DMLS_TOP_LOSS_FLOWS 10        /* loss.top_flows */
#define DMLS_HOSTS_SHOWN 16           /* the terminal's host list */
#define DMLS_MATRIX_MAX_HOSTS 64      /* matrix rows, `other` included */

/* "worker", "server" or "other" (enum dmls_role). */
const char *dmls_role_name(int role);

/* What a table account kept and folded (limits.hosts, .pairs, .flows). */
typedef struct dmls_result_fold {
	int64_t cap, kept, folded, packets, wire_bytes, payload_bytes;
} dmls_result_fold;

typedef struct dmls_result_dist {
	int64_t count;
	double mean_s, p50_s, p90_s, max_s;
} dmls_result_dist;

typedef struct dmls_result {
	/* What it was computed from (read-only). */
	const dmls_stats *stats;          /* hosts, pairs, flows, series */
	const dmls_analysis *analysis;    /* NULL: no traffic analysis */
	const char *analysis_error;       /* why not (with analysis NULL) */

	/* Which parts hold: the sections of `analyze --json` that need them. */
	int has_run;        /* the run folder's name has the 7 fields */
	int has_analysis;
	int has_log;        /* a train log was read and set beside the traffic */

	const char *tool, *version;

	struct {
		const char *path;   /* the run folder, NULL for capture files */
		const char *name, *framework, *model, *optimizer, *batch, *backend;
		const char *delay, *topology;
		/* dmls_run_info (job.h): the same values as fit's dataset table */
		const char *framework_backend; /* NULL without a run folder name */
		double loss_percent, model_size_mb;
		char fb[128];       /* framework_backend's storage */
	} run;

	struct {
		size_t nfiles;
		const dmls_input_file *files;
		int64_t records, packets, wire_bytes, payload_bytes;
		int64_t truncated, non_ip, other, filtered, duplicates;
		int64_t decapsulated; /* packets read on a tunnel's inner headers */
		int64_t tcp_headers_cut; /* TCP headers cut before their data
					  * offset: payload estimated */
		double duration_s;
		double start_s;     /* Unix time of the first packet */
		int damage_status;  /* DMLS_OK, or what ended a capture early */
		const char *damage; /* its message, NULL when none */
	} input;

	struct {
		int64_t count, p50, p90, p99, max, retransmissions;
	} flows;

	struct {
		double bin_s, mean_bps, peak_bps;
	} throughput;

	struct {
		dmls_result_fold hosts, pairs, flows;
		double host_bin_s, pair_bin_s, wire_bin_s, flow_activity_bin_s;
		int hosts_coarsened, pairs_coarsened, wire_coarsened; /* series bins widened */
		double series_t0_s; /* series' origin, seconds from the first packet */
	} limits;

	struct {
		int kind;           /* enum dmls_pattern_kind */
		const char *name;   /* dmls_pattern_name(kind) */
		int64_t ranks, groups, jobs, data_edges;
		int64_t workers;    /* hosts with the role worker */
		double confidence, control_payload_bytes;
		int partial;
		/* host indexes into stats->hosts */
		size_t nhubs, norder, nmembers, nobserved;
		const size_t *hubs, *order, *members, *observed;
	} pattern;

	struct {
		double period_s, period_median_s, regularity, bytes_per_worker;
		double bytes_spread, bytes_outliers, duration_spread, acf_period_s, acf_peak;
		double iteration_bytes, byte_acf_peak, acf_at_period, end_s;
		int64_t count;
		int64_t runs;           /* runs back to back: 1, or the busiest read ... */
		double run_start_s, run_end_s; /* ... from here to here (NAN: one run) */
		size_t nrun_list;       /* every run (the first DMLS_RUNS_LISTED) */
		const dmls_run_span *run_list;
		const char *source, *method;
		const char *mode, *mode_evidence; /* dmls_mode_name, the why */
		double rank_period_spread, step_lock, phase_spread;
		size_t nranks;
		const dmls_rank_clock *ranks;
		size_t n;           /* iterations in the lists below */
		size_t nlisted;     /* the first of them JSON and figures list (at
				     * most DMLS_ITER_LISTED; CSV lists all n) */
		const double *starts_s, *bounds_s, *comm_end_s, *bytes;
		double *duration_s; /* owned: boundary to the next (the last: to end_s) */
	} iter;

	struct {
		double gradient_bytes, expected_iteration_bytes, observed_iteration_bytes;
		double server_iteration_bytes;
	} model;

	struct {
		const dmls_burst *total; /* total wire bytes, 100 us bins */
		double mean_bps;
		double ptm_5ms;          /* total's peak-to-mean at 5 ms */
		const char *series, *hosts_series;
		size_t nhosts;
		const dmls_burst *hosts; /* per host tx payload, 1 ms: hosts[i] is
					  * stats->hosts[host_idx[i]] */
		const size_t *host_idx;
	} burst;

	struct {
		double bin_s, gap_threshold_s, duty_cycle;
		dmls_result_dist bursts, gaps;
	} phases;

	struct {
		int64_t retransmissions, flows_with_retransmissions;
		double rate;
		double *host_rate;  /* owned: per host, tx retransmissions / tx packets */
		size_t ntop;
		size_t top[DMLS_TOP_LOSS_FLOWS]; /* flow indexes: most retransmissions,
						  * ties in flow order */
	} loss;

	struct {
		int64_t steps;
		double mean_step_s, steady_step_s, median_step_s, mb_per_step;
		double detected_period_s, period_error;
		double final_accuracy; /* the last accuracy the log gives */
		size_t nacc;
		const dmls_acc_point *acc;
	} log;

	size_t nnotes;
	const char (*notes)[160];

	/* The jobs of the capture (analysis.h): one result per job holding its
	 * job, pattern, iterations, model (and, for the top job, train_log)
	 * and notes; the rest of a job's result is unknown.  jobs[0] is the
	 * top level's job.  Owned. */
	struct {
		int64_t id;        /* index in jobs */
		double start_s;    /* the job's first packet, s from the capture's */
		double duration_s; /* its first to its last packet */
		double wire_bytes; /* its packets' wire bytes */
	} job;
	size_t njobs;
	struct dmls_result *jobs;

	/* Display orders and figures, chosen once (all owned). */
	size_t nshown;
	size_t *shown;        /* hosts for the terminal: all, or the
			       * DMLS_HOSTS_SHOWN busiest; address order */
	size_t ntop_pairs;
	size_t top_pairs[DMLS_TOP_PAIRS];       /* by wire bytes, descending */
	double top_pair_percent[DMLS_TOP_PAIRS]; /* of all wire bytes */
	struct {
		size_t n;         /* rows: every host, or the busiest
				   * DMLS_MATRIX_MAX_HOSTS - 1 and `other` */
		size_t *host;     /* host index of each row, SIZE_MAX: other */
		uint64_t *wire_bytes, *payload_bytes; /* n x n, row = source */
	} matrix;
	size_t nflow_sizes;
	uint64_t *flow_sizes; /* every flow's wire bytes, ascending (the CDF) */
	struct {
		double bin_s, t0_s; /* t0_s: seconds from the first packet */
		size_t n;
		int64_t *wire_bytes;
	} figure;             /* all wire bytes in DMLS_FIGURE_BIN_NS bins
			       * (coarser past DMLS_FIGURE_MAX_BINS) */
} dmls_result;

/* The result of an analyzed job.  DMLS_OK or DMLS_ENOMEM; release r in
 * either case. */
int dmls_result_init(dmls_result *r, const dmls_job *job);
/* The same from a finished stats and its analysis alone (a test, a
 * fuzzer): no run attributes, no input files.  a may be NULL. */
int dmls_result_init_stats(dmls_result *r, const dmls_stats *st, const dmls_analysis *a);
void dmls_result_release(dmls_result *r);

/* ---- the metric table ---- */

enum dmls_type { DMLS_T_NULL, DMLS_T_INT, DMLS_T_REAL, DMLS_T_STR, DMLS_T_BOOL, DMLS_T_LIST };

/* Units: how to read a value, and how a terminal formats it (the codes are
 * those of the report's runs table). */
#define DMLS_UNIT_TEXT 's'    /* a string */
#define DMLS_UNIT_BYTES 'b'
#define DMLS_UNIT_BPS 'r'     /* bits per second */
#define DMLS_UNIT_SECONDS 't'
#define DMLS_UNIT_COUNT 'i'
#define DMLS_UNIT_NUMBER 'f'  /* a fraction, a ratio, or the unit in the key (MB) */
#define DMLS_UNIT_FLAG 'y'    /* true or false */
#define DMLS_UNIT_RECORD 'o'  /* a list of records, fields in the description */

/* When a value exists (else it is absent from `analyze --json` and null in
 * a compare row). */
#define DMLS_M_RUN 0x1        /* a run folder whose name has the 7 fields */
#define DMLS_M_ANALYSIS 0x2   /* the analysis ran */
#define DMLS_M_LOG 0x4        /* with a train log */
#define DMLS_M_EXTRA 0x8      /* not a key of `analyze --json` (compare's own) */

typedef struct dmls_metric {
	const char *key;   /* path in `analyze --json`: "iterations.period_s" */
	int type;          /* enum dmls_type; a list is written by the renderer */
	char unit;         /* DMLS_UNIT_*, of the elements for a list */
	unsigned flags;    /* DMLS_M_* */
	size_t offset;     /* of the value in dmls_result (not for lists):
			    * int64_t, double, const char * or int (bool) */
	const char *title; /* short title for a terminal column */
	const char *desc;  /* how to read the value, one line */
} dmls_metric;

extern const dmls_metric dmls_metrics[];
extern const size_t dmls_nmetrics;

/* The metric named key, or NULL. */
const dmls_metric *dmls_metric_find(const char *key);

/* A value as the renderers write it. */
typedef struct dmls_value {
	int type;          /* enum dmls_type: NULL, INT, REAL, STR or BOOL */
	int64_t i;         /* INT, BOOL */
	double r;          /* REAL, finite */
	const char *s;     /* STR */
} dmls_value;

/* 1 when m exists for r (see DMLS_M_*). */
int dmls_metric_present(const dmls_metric *m, const dmls_result *r);
/* m's value in r: DMLS_T_NULL when absent or unknown (a list gives NULL). */
dmls_value dmls_metric_value(const dmls_metric *m, const dmls_result *r);

#endif
