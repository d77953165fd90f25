/*
 * analysis.h - the training job seen in the traffic.
 *
 * From a dmls_stats (and, only for checking, a train log) this finds the
 * communication pattern and the roles of hosts, the iteration period, bytes
 * per iteration per worker and the gradient size they imply, regularity,
 * on/off phases and burstiness.  Owned by the analysis stage (src/analysis).
 *
 * Pipeline (dmls_analysis_run, src/analysis/analysis.c): stages in one
 * forward order, each reading what the ones before it left:
 *   shape        pattern.c: the payload volume graph without control-plane
 *                pairs, its connected components (the largest is "the job"),
 *                static shape (ring, star, tree, clique, butterfly,
 *                hierarchical); pattern_view.c: which ranks' sending the
 *                capture holds, on a partial view the shape of the observed
 *                senders' edges; roles
 *   clock        iterations.c, byteclock.c: iterations of the workers,
 *                boundaries, bytes per worker
 *   shape_final  pattern.c and friends with the iterations: per-iteration
 *                pair volumes, changing partners (pairwise), two ranks, the
 *                tree's root; final roles
 *   clock_final  the iterations again only when the final roles changed
 *                the workers
 *   volume       S from bytes per worker and the pattern (doc/analysis.md)
 *   phases, burst (the burst sink's total, per host from its series),
 *   train_log
 *
 * Unknown numbers are NAN in the struct.  Host indexes refer to st->hosts
 * and stay valid while st lives.  Nothing here prints or renders: the
 * result (result.h) reads the analysis, the renderers (render.h) the result.
 */
#ifndef DMLSCOPE_ANALYSIS_H
#define DMLSCOPE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/burst.h"
#include "dmlscope/error.h"
#include "dmlscope/runfolder.h"
#include "dmlscope/stats.h"

enum dmls_pattern_kind {
	DMLS_PAT_UNKNOWN = 0,
	DMLS_PAT_RING,
	DMLS_PAT_TREE,
	DMLS_PAT_STAR,
	DMLS_PAT_CLIQUE,
	DMLS_PAT_BUTTERFLY,
	DMLS_PAT_HIERARCHICAL,
	DMLS_PAT_PAIRWISE,
};

/* "ring", "tree", ... "unknown" (the names of doc/contract.md). */
const char *dmls_pattern_name(int kind);

#define DMLS_EDGE_FRACTION 0.10 /* pairs below this share of the max pair are control plane */
#define DMLS_MIN_DATA_BYTES (256.0 * 1024) /* a job's largest pair moves at least this */
#define DMLS_SMALL_JOB_FLOOR (16.0 * 1024) /* ... or this, on many pairs alike (jobs.c) */
#define DMLS_SMALL_JOB_PAIRS 6
#define DMLS_SMALL_JOB_PACKETS 16
#define DMLS_MAX_JOBS 32        /* jobs analyzed one by one; the rest are counted */

/* One job of the capture (jobs.c): its hosts (address order not implied)
 * and the cut that tells its data pairs from its control plane. */
typedef struct dmls_job_scope {
	size_t n;
	size_t *hosts;         /* st->hosts indexes */
	double thr;            /* data pairs move at least this payload */
	double payload_bytes;  /* payload of its data pairs */
	int by_clock;          /* split from another job by their clocks (a
				* host in both, jobs_shared.c): 1; 2 when
				* the clocks locked but for their offsets'
				* wander (one job on busy hosts, or two of
				* one period: unsure); 3 by its edges'
				* periods (hosts in both); 4 by its rendezvous
				* listeners (jobs_listen.c) */
	double conn_period_s;  /* one of two jobs on the very same hosts, told
				* apart by their connections' clocks
				* (analysis.c): its connections' period,
				* and the other's; 0 for any other job */
	double conn_other_s;
	size_t conn_ref;       /* ... its connection on a pair both use
				* (st->flows index + 1), and the other's:
				* their steps tell the two apart where the
				* periods are too close to */
	size_t conn_other_ref;
	double edge_period_s;  /* split from another job by its edges' clocks
				* (jobs_shared.c, by_clock 3): their period, by
				* which a pair between hosts of both is told */
} dmls_job_scope;

/* The jobs of st, the largest (by payload) first; *n is 0 with nothing but
 * control traffic.  Free with dmls_jobs_free. */
int dmls_jobs_split(dmls_job_scope **jobs, size_t *n, const dmls_stats *st, dmls_error *err);
void dmls_jobs_free(dmls_job_scope *jobs, size_t n);

typedef struct dmls_pattern {
	int kind;              /* enum dmls_pattern_kind */
	double confidence;     /* [0,1] */
	size_t ranks;          /* hosts in the job: workers + servers */
	size_t *members;       /* host indexes of the ranks, address order */
	size_t nhubs;
	size_t *hubs;          /* star hubs (servers), tree root */
	size_t norder;
	size_t *order;         /* ring order starting at the lowest address */
	size_t ngroups;        /* hierarchical: number of groups */
	size_t components;     /* connected components of the data graph (jobs) */
	size_t edges;          /* directed data edges in the job */
	double ctrl_payload_bytes; /* payload in pairs left out as control plane */
	/* The view (pattern_view.c): which ranks' sending the capture holds. */
	int partial;           /* 1 when some rank's sending is missing */
	size_t nobserved;
	size_t *observed;      /* host indexes of the ranks whose sending is seen */
	size_t ndata;          /* ranks seen in the data graph (the rest: contacts) */
	size_t npairs;
	size_t *pairs;         /* partial view: st->pairs indexes of the observed
				* senders' data edges (what iterations count) */
	int lone_sender;       /* partial: one sender, one data peer, no other
				* bulk transfer (a ring neighbour or a PS worker) */
	int hub_exchanges;     /* star: the hub exchanges with its spokes at once
				* (a hub-shaped collective, no server) */
	double hub_unchecked_s; /* star: the hub check not made, its pairs' bins
				 * this coarse (a long capture's); else 0 */
	unsigned service_port; /* partial: the observed ranks send their data to
				* this service port (MPI-style, connected on
				* demand): the rank count is not known, 0 */
	size_t center_jobs;    /* partial, one host's capture: the jobs split by
				* their clocks that host is in; past 1 the rank
				* count is not known (its contacts belong to
				* either job) */
	int doubling;          /* butterfly by recursive doubling: the whole
				* vector, S, to each partner in turn */
	double hub_or_clique;  /* partial, one sender fanning out evenly, which
				* neither a star's hub nor a clique's rank: the
				* share of its edges' steps in two like bursts;
				* else 0 */
	size_t partners;       /* partial, one rank of a doubling butterfly
				* seen alone: the partners it sends to; else 0 */
	double extra_step_bytes; /* butterfly, N not a power of two: what an
				* extra rank sends its core rank a step (its
				* whole vector, S), the mean over the extras of
				* the median per iteration; NAN when not known */
	size_t extra;          /* butterfly of 3 from a hub: the extra rank (it
				* hands its whole vector, S, to the hub); else
				* SIZE_MAX */
	int tree_node;         /* tree read from a star whose hub sends to one
				* spoke (the root here, hubs[0]) before it hears
				* from it: a tree's inner node, its parent and
				* children (dmls_pattern_star_node) */
} dmls_pattern;

/* dmls_burst: burst.h */

typedef struct dmls_dist {
	size_t n;
	double mean_s, p50_s, p90_s, max_s;
} dmls_dist;

typedef struct dmls_phases {
	double bin_s;          /* resolution (1 ms) */
	double gap_threshold_s; /* quieter stretches shorter than this stay in a burst */
	double duty_cycle;     /* on time / span, NAN if empty */
	dmls_dist bursts, gaps;
} dmls_phases;

/* The per-iteration lists of the JSON output hold the first this many
 * iterations (a note says so past it); the CSV output holds every one. */
#define DMLS_ITER_LISTED 65536

typedef struct dmls_iterations {
	double period_s;        /* mean comm-end-to-comm-end interval, the first left
				 * out from DMLS_STEADY_FROM iterations on */
	double period_median_s; /* median of comm-end-to-comm-end intervals */
	const char *method;     /* "byte-clock", "time-acf", "time-ranks", "rank-clock",
				 * "gaps" or NULL */
	double acf_period_s;    /* the time autocorrelation's estimate */
	double acf_peak;        /* autocorrelation at that lag */
	double iter_bytes;      /* the byte clock's bytes per iteration (all job hosts) */
	double byte_peak;       /* autocorrelation in the byte domain */
	double acf_at_period;   /* time autocorrelation at period_median_s (unbiased) */
	size_t count;           /* detected iterations (starts) */
	double *starts_s;       /* count starts (10 % of the iteration's bytes sent),
				 * seconds from st->t0_ns */
	double *bounds_s;       /* count boundaries: end of the gap before each */
	double *comm_end_s;     /* count: end of each iteration's communication
				 * (99 % of its bytes sent) */
	double end_s;           /* end of the last iteration (last job byte) */
	double *bytes;          /* count: payload all job hosts sent in each */
	double bytes_per_worker;  /* median over workers of their median, NAN */
	double bytes_spread;      /* robust CV (1.4826 MAD / median) of per-worker-iteration bytes */
	double bytes_outliers;    /* share of (worker, iteration) cells more than 25 %
				   * off that worker's median (the robust CV is blind
				   * when over half the cells agree) */
	double duration_cv;       /* robust CV of comm-end-to-comm-end intervals */
	double regularity;        /* [0,1], see iterations.c */
	double stretch_share;     /* share of the job's bytes in the stretch searched:
				   * 1, or less when idle gaps (idle_gap_s, the
				   * longest) cut sessions away (iterations.c) */
	double idle_gap_s;        /* 0 when nothing was cut */
	size_t runs;              /* runs of the job back to back (stretch.c): 1, or
				   * more when only the busiest is read ... */
	double run_start_s, run_end_s; /* ... this one (NAN with one run) */
	double unresolved_bin_s;  /* > 0: the job series' bin (s), too coarse to
				   * separate iterations (traffic in on_share of
				   * the bins, or a pause every pause_every_s at
				   * 100 us); none are reported (iterations.c) */
	double on_share;
	double pause_every_s;
} dmls_iterations;

/* Synchronous or not (mode.c): each rank's own clock, compared. */
#define DMLS_MODE_MAX_RANKS 32 /* ranks that get a clock (the first in address order) */
enum { DMLS_MODE_UNKNOWN = 0, DMLS_MODE_SYNC, DMLS_MODE_ASYNC };
const char *dmls_mode_name(int mode); /* "synchronous", "asynchronous", "unknown" */

typedef struct dmls_rank_clock {
	size_t host;              /* st->hosts index */
	size_t count;             /* iterations of its sending alone (by request:
				   * its requests, from its connections when known) */
	double period_s;          /* their mean period, NAN */
	double bytes_per_exchange; /* median payload it sends per iteration, NAN */
	const double *ends;       /* nends ends (s from st->t0_ns), into dmls_mode */
	size_t nends;
	size_t end_off;           /* (internal) */
} dmls_rank_clock;

typedef struct dmls_mode {
	int mode;                 /* DMLS_MODE_* */
	const char *why;          /* the evidence, one phrase (static) */
	double period_spread;     /* share of ranks whose period is 10 % off the median */
	double step_lock;         /* median share of steps with one end per rank */
	double phase_spread;      /* median robust spread of end offsets / period */
	size_t nranks;
	dmls_rank_clock *ranks;
	double *ends;             /* (internal) every rank's ends */
	size_t nends;
	int by_request;           /* clocks from each rank's requests (exchanges.c) */
} dmls_mode;

/* Who started each exchange (exchanges.c): per rank of ranks[0..n) the
 * start times of its requests (ascending, s from st->t0_ns) and its mean
 * payload per request; paired_share: the share of bursts that came as a
 * request and its answer (NAN without bursts); by_conn: the requests a
 * rank made, counted from the payload it sent on the connections it
 * opened (0: not known). */
#define DMLS_EXCHANGES_PAIRED 0.6 /* a job of requests and answers from this share */
typedef struct dmls_exchanges {
	size_t n;
	double **t;
	size_t *count;
	double *bytes;
	size_t *by_conn;
	double paired_share;
} dmls_exchanges;
int dmls_exchanges_find(dmls_exchanges *x, const dmls_stats *st, const size_t *ranks, size_t n);
void dmls_exchanges_release(dmls_exchanges *x);

/* Clocks of ranks[0..n) and the verdict; pairs[0..np): the job's pairs
 * when a rank's sending mixes jobs (NULL: each rank's whole sending); ex:
 * the ranks' requests (NULL, or not a job of requests and answers: the
 * iterations of each rank's sending); job: the job's own iterations (all
 * ranks together), NULL if none. */
int dmls_mode_find(dmls_mode *m, const dmls_stats *st, const size_t *ranks, size_t n,
		   const size_t *pairs, size_t np, const dmls_exchanges *ex,
		   const dmls_iterations *job, dmls_error *err);
void dmls_mode_release(dmls_mode *m);

typedef struct dmls_acc_point {
	long id;
	int is_epoch;
	double t_s;              /* seconds from st->t0_ns */
	double cum_wire_bytes;
	double accuracy;
} dmls_acc_point;

typedef struct dmls_trainlog_metrics {
	int present;
	size_t steps;
	double mean_step_s, steady_step_s, median_step_s;
	double mb_per_step;       /* mean wire MB (1e6) per mean-step-time bin */
	double period_error;      /* (period_s - steady_step_s) / steady_step_s */
	size_t backwards_line;    /* the log's rows out of time order from this line
				   * (0: in order); its step times are then NAN */
	size_t nacc;
	dmls_acc_point *acc;      /* accuracy vs cumulative data */
} dmls_trainlog_metrics;

#define DMLS_MAX_NOTES 8

/* One of a job's runs back to back (stretch.c): when, its pairs' wire
 * bytes, and whether it is the busiest (the one the analysis reads). */
typedef struct dmls_run_span {
	double start_s, end_s; /* from the first packet */
	double wire_bytes;
	int busiest;
} dmls_run_span;
#define DMLS_RUNS_LISTED 1024
#define DMLS_BURST_MAX_HOSTS 64
typedef struct dmls_analysis {
	dmls_pattern pattern;
	dmls_iterations iter;     /* the job's; an asynchronous job's period is
				   * NAN (no common step; the result reports no
				   * count either) */
	dmls_mode mode;           /* synchronous or not, each rank's clock */
	int iter_unsure;          /* the iterations' bytes do not repeat (a worker's
				   * cells off its median): period, count and S
				   * withheld */
	double two_kinds;         /* the mean period over the median, when
				   * iterations of two kinds withheld them
				   * (analysis.c two_kinds); else 0 */
	double stalled_share;     /* of the job's time in pauses of over 3 median
				   * periods, when it withheld the iterations (0
				   * else): stalls, not steps, set the clock */
	double log_multiple;      /* k when the train log's steady step is a k-th
				   * of the traffic's period and withheld it
				   * (analysis.c log_multiple); else 0 */
	double hub_answers;       /* one host's capture around which the data make
				   * an asynchronous star whose hub answers its
				   * peers as they answer it (this ratio: a
				   * gossiping or pair-averaging rank, kind
				   * unknown); else 0 */
	const char *sync_kind;    /* a synchronous collective's kind (ring, tree,
				   * ...) whose ranks' clocks read asynchronous:
				   * the clocks, not the job, are out of step;
				   * mode unknown, iterations withheld; else NULL */
	size_t ranks_apart;       /* a lossy job's ranks clocked, when their own
				   * clocks keep no step with the job's byte
				   * clock (analysis.c reclock_by_ranks):
				   * iterations withheld; else 0 */
	size_t iter_found;        /* iterations the job clock counted (before an
				   * asynchronous verdict) */
	double gradient_bytes;    /* S, NAN if unknown */
	/* check of the pattern's formula: all job hosts' payload per iteration
	 * predicted from S (ring/butterfly 2(N-1)S, star 2WS) and observed
	 * (median over iterations) */
	double expected_iter_bytes, observed_iter_bytes;
	double server_bytes;      /* star seen from its hub only: median payload the
				   * hub sends per iteration (W S), else NAN */
	int ends_from_acks;       /* one sender alone: iteration ends from its
				   * acknowledgements of its peer's reply */
	int hub_one_at_a_time;    /* star seen from its hub alone, which answers one
				   * spoke at a time: no period, no S */
	size_t data_pairs;        /* the job's data pairs (directed) ... */
	size_t split_three;       /* split pairs over three connections or more */
	size_t split_pairs;       /* ... those over two connections or more,
				   * each with 5 % of its bytes (connections.c) ... */
	size_t conn_tested;       /* ... those whose connections' clocks were
				   * compared, and those keeping two apart */
	size_t conn_apart;
	size_t conn_apart_steady; /* ... of which both clocks are steady, and */
	size_t conn_apart_agree;  /* those whose two periods are the first's */
	size_t pair_groups;       /* data pairs' own clocks: groups of two or more
				   * keeping one step (no pair split) */
	size_t pair_group_n[2];   /* the two largest: their pairs, their periods */
	double pair_group_s[2];
	double conn_period_s[2];  /* the first pair apart: its two periods */
	int conn_heavy;           /* ... the one of its heavier connection (0, 1) */
	size_t conn_flow[2];      /* ... its two connections (st->flows), in the
				   * order of conn_period_s */
	int two_jobs_sync;        /* two_jobs found where the job's ranks kept
				   * one step (mode synchronous) */
	int two_jobs;             /* two jobs on the same hosts: count, period
				   * and S withheld */
	int pulled_first;         /* star seen with its hub: the first sends (the
				   * initial pull) were left out as warm-up */
	dmls_phases phases;
	dmls_burst burst_total;   /* total wire bytes, 100 us bins */
	size_t nhosts;
	dmls_burst *burst_host;   /* per host tx payload, 1 ms bins (tau 100us NAN): every
				   * host up to DMLS_BURST_MAX_HOSTS, else the busiest senders */
	size_t *burst_host_idx;   /* st->hosts index of burst_host[i], in table order */
	dmls_trainlog_metrics log;
	size_t nnotes;
	char notes[DMLS_MAX_NOTES][160];
	/* the job's runs back to back, the first DMLS_RUNS_LISTED (none with
	 * one run; stretch.c) */
	size_t nrun_list;
	dmls_run_span run_list[DMLS_RUNS_LISTED];
	/* The jobs of the capture (jobs.c).  The top-level analysis is of the
	 * largest job; jobs[0] is that analysis itself, jobs[1..njobs) the
	 * other jobs' (owned), each with the stages up to the volume (no
	 * phases, burstiness or train log: those are the capture's). */
	size_t njobs;              /* analyzed: at most DMLS_MAX_JOBS */
	size_t jobs_found;         /* found in the capture (those without steps left out) */
	int jobs_unsure;           /* some were split at a shared host by a narrow
				    * margin (dmls_job_scope.by_clock 2) */
	size_t stepless;           /* components of the volume matrix that move data
				    * without steps (a bulk transfer), not jobs */
	size_t stepless_hosts;
	double stepless_payload_bytes;
	struct dmls_analysis **jobs;
	size_t job_id;             /* this job's index in jobs[] */
	size_t pairs_told;         /* pairs it shares with another job (both ends
				    * hosts of both) read as its own by their
				    * connections' clocks (jobs_overlap.c) */
	size_t background_flows;   /* steady connections at its hosts (a bulk
				    * transfer beside the job, between two of
				    * them or to a host of no job) left out of
				    * its pattern, iterations and S
				    * (jobs_overlap.c) */
	double background_payload_bytes;
	size_t background_unsplit; /* of those, the ones on a pair beside two of
				    * the job's connections or more: the pair
				    * read as it is */
	double twin_period_s;      /* one of two jobs on the very same hosts
				    * (analysis.c): its connections' period,
				    * and the other's; else NAN */
	double twin_other_s;
	double job_start_s, job_end_s; /* the job's own time base: first and last
				    * packet between its hosts (or between
				    * one of them and a host of no job), s
				    * from st->t0_ns; NAN without a job */
	double job_wire_bytes;     /* wire bytes of those packets */
	double capture_start_s, capture_end_s; /* the capture's first and last
				    * packet, s from st->t0_ns (the span over
				    * which burstiness takes its mean rate);
				    * NAN for an empty capture */
} dmls_analysis;

/* Analyze st (roles are written into st->hosts[i].role).  log may be NULL. */
int dmls_analysis_run(dmls_analysis **out, dmls_stats *st, const dmls_trainlog *log,
		      dmls_error *err);
void dmls_analysis_free(dmls_analysis *a);
/* A note about the input that only the caller knows (the clock offsets
 * taken from its files' time stamps), after the analysis' own. */
void dmls_analysis_note_input(dmls_analysis *a, const char *text);

/* ---- stage functions (src/analysis), callable alone from tests ---- */

/* Static pattern of the payload volume graph: of the largest job. */
int dmls_pattern_find(dmls_pattern *p, const dmls_stats *st, dmls_error *err);
/* The same for one job of the njobs found by dmls_jobs_split. */
int dmls_pattern_find_job(dmls_pattern *p, const dmls_stats *st, const dmls_job_scope *job,
			  size_t njobs, dmls_error *err);
/* Classify again with pairs weighed by their median bytes per iteration
 * (needs 4 or more iteration starts, seconds from st->t0_ns). */
int dmls_pattern_refine(dmls_pattern *p, const dmls_stats *st, const double *starts_s,
			size_t count);
/* Two ranks: a ring, or a server and one worker taking turns (star)? */
void dmls_pattern_check_two(dmls_pattern *p, const dmls_stats *st);
/* A star's hub: a server its spokes take turns with, or a collective's
 * rank exchanging with them at once (N = 3: MPICH's butterfly)? */
void dmls_pattern_check_hub(dmls_pattern *p, const dmls_stats *st);
/* Does hub exchange at once (not push then pull) with half or more of its
 * 3 or more spokes, members[0..n) but hub, as a collective's rank does?
 * 0 where the pairs' bins are too coarse to tell. */
int dmls_hub_exchanges(const dmls_stats *st, size_t hub, const size_t *members, size_t n);
/* How fast the hub answers its spokes against how fast they answer it:
 * the median over spokes of the mean delay from a spoke's sending to the
 * hub's over the mean delay from the hub's to the spoke's (NAN without
 * both ways).  A server answers at once, its workers after their compute:
 * near 0. */
double dmls_hub_answers(const dmls_stats *st, size_t hub, const size_t *members, size_t n);
/* A star whose hub, each step, sends to one spoke before it hears from it
 * and hears from every other spoke first: a tree's inner node with its
 * parent (the root seen) and children, not a server (p->tree_node);
 * iterations as dmls_pattern_tree_root's. */
void dmls_pattern_star_node(dmls_pattern *p, const dmls_stats *st, const double *bounds_s,
			    size_t count, double end_s);
/* Tree: the root from timing (a child sends up before its parent sends
 * down); iterations from bounds_s[0..count) to end_s, s from st->t0_ns. */
void dmls_pattern_tree_root(dmls_pattern *p, const dmls_stats *st, const double *bounds_s,
			    size_t count, double end_s);
/* A star seen from its hub alone that is a clique's rank (each spoke gets
 * two bursts a step, not one), iterations bounds_s[0..count): 1 when p is
 * now a clique (or, between the two, unknown with p->hub_or_clique set), 0
 * when it stands, -1 (memory). */
int dmls_pattern_clique_rank(dmls_pattern *p, const dmls_stats *st, const double *bounds_s,
			     size_t count);
/* A star seen from its hub alone that is a rank of a recursive-doubling
 * butterfly (it sends to its partners in the same order every step),
 * iterations bounds_s[0..count): 1 when p is now a butterfly, 0 when it
 * stands, -1 (memory). */
int dmls_pattern_doubling_rank(dmls_pattern *p, const dmls_stats *st, const double *bounds_s,
			       size_t count);
/* Pairwise check with windows of window_s (<= 0: span / 16). */
void dmls_pattern_check_pairwise(dmls_pattern *p, const dmls_stats *st, double window_s);
void dmls_pattern_release(dmls_pattern *p);
/* Which ranks were observed sending; on a partial view classify again on
 * the observed senders' edges only and count as ranks the hosts they
 * exchange traffic with (pattern_view.c).  in_jobs (may be NULL): per
 * host, the jobs split by their clocks it is in (dmls_job_scope.by_clock);
 * one host's capture of a host in two of them keeps the job's own hosts,
 * its rank count unknown.  Returns 0 or
 * -1 (memory). */
int dmls_pattern_view(dmls_pattern *p, const dmls_stats *st, const size_t *in_jobs);
/* The host every packet of one host's capture is from or to (3 hosts or
 * more, the link's own traffic aside); st->nhosts when there is none. */
size_t dmls_view_center(const dmls_stats *st);
/* 1 when host h's sending is in the capture. */
int dmls_host_observed(const dmls_stats *st, size_t h);

/* Iterations of the job made of hosts[0..n). */
int dmls_iterations_find(dmls_iterations *it, const dmls_stats *st,
			 const size_t *hosts, size_t n, const size_t *workers,
			 size_t nworkers, dmls_error *err);
/* The same with the series made of the pairs st->pairs[pairs[i]] (a partial
 * view: the observed senders' data edges); npairs 0 = the hosts' series. */
int dmls_iterations_find_pairs(dmls_iterations *it, const dmls_stats *st, const size_t *hosts,
			       size_t n, const size_t *workers, size_t nworkers,
			       const size_t *pairs, size_t npairs, dmls_error *err);
/* The same without the byte clock: the starts tracked in time with the
 * period guide_s (s) given, as each rank's own clock keeps it. */
int dmls_iterations_find_guided(dmls_iterations *it, const dmls_stats *st, const size_t *hosts,
				size_t n, const size_t *workers, size_t nworkers,
				const size_t *pairs, size_t npairs, double guide_s, dmls_error *err);
/* The same with the iterations starting at the bounds at_s[0..nat) (s from
 * the capture's start: a rank's own clock, its bounds_s) instead of a
 * clock of the job's own. */
int dmls_iterations_find_at(dmls_iterations *it, const dmls_stats *st, const size_t *hosts,
			    size_t n, const size_t *workers, size_t nworkers,
			    const size_t *pairs, size_t npairs, const double *at_s, size_t nat,
			    dmls_error *err);
/* The clock of host h alone (its series, or np > 0 the pairs
 * st->pairs[pairs[i]]): the same count, periods, ends and bytes as
 * dmls_iterations_find_pairs, without the time autocorrelation (unless the
 * byte clock finds no steps) and the regularity, which a rank's clock does
 * not need: mode.c makes one per rank. */
int dmls_iterations_find_clock(dmls_iterations *it, const dmls_stats *st, size_t h,
			       const size_t *pairs, size_t np, dmls_error *err);
/* The clocks of hosts h[0..n) into its[0..n): each dmls_iterations_find_clock
 * over the host's own pairs among pairs[0..np) (those it sends on; its whole
 * sending when it has none or pairs is NULL).  They are independent, so with
 * st->analysis_threads >= 2 a second thread makes some of them; the results
 * are the same.  0, or the first failing host's error (nothing is left to
 * release then). */
int dmls_iterations_find_clocks(dmls_iterations *its, const dmls_stats *st, const size_t *h,
				size_t n, const size_t *pairs, size_t np, dmls_error *err);
/* Forget the first iteration (a parameter server's initial model pull seen
 * from the server alone) and recompute the period. */
void dmls_iterations_drop_first(dmls_iterations *it);
/* period_s, period_median_s, duration_cv again from comm_end_s. */
void dmls_iterations_period(dmls_iterations *it);
void dmls_iterations_release(dmls_iterations *it);

/* On/off phases of a 1 ms series. */
void dmls_phases_compute(dmls_phases *ph, const dmls_series *s, double gap_threshold_s);

/* The job's wire bytes over its own time base give mb_per_step (job_span_s
 * NAN: the whole capture's). */
int dmls_trainlog_metrics_compute(dmls_trainlog_metrics *m, const dmls_stats *st,
				  const dmls_trainlog *log, double period_s, double job_wire_bytes,
				  double job_span_s, dmls_error *err);
void dmls_trainlog_metrics_release(dmls_trainlog_metrics *m);
/* A run of several jobs: each of the logs (names for the notes) to the job
 * whose steps its rows keep (trainlog_metrics.c), as that job's train_log;
 * notes name the logs no job keeps.  DMLS_OK or DMLS_ENOMEM. */
int dmls_analysis_job_logs(dmls_analysis *a, const dmls_stats *st, const dmls_trainlog *logs,
			   const char *const *names, size_t n, dmls_error *err);

#endif
