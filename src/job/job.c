/*
 * job.c - the shared pipeline: inputs, one pass over the packets, analysis.
 */
#include "dmlscope/job.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static int copy_files(dmls_job *job, const dmls_input *in)
{
	job->nfiles = dmls_input_nfiles(in);
	job->files = calloc(job->nfiles ? job->nfiles : 1, sizeof(*job->files));
	if (!job->files)
		return -1;
	for (size_t i = 0; i < job->nfiles; i++) {
		job->files[i] = *dmls_input_get_file(in, i);
		job->files[i].path = strdup(job->files[i].path ? job->files[i].path : "");
	}
	return 0;
}

/*
 * Reading and decoding can run in a second thread: the reader fills
 * batches of decoded packets in a ring; the sinks take them in order, so
 * the counts are the same packet for packet as in one thread.  It is the
 * default where the process may run on two CPUs and the input is worth
 * a thread: a compressed capture, a stream of unknown size, or at least
 * THREAD_MIN_BYTES of files.  Reading and decoding are about 40 % of the
 * pass, the sinks 60 %, so the pass takes the sinks' time alone (2 cores,
 * medians of 11 runs: 2 M packets of real runs back to back 391 -> 336 ms,
 * an hour's job of 1.2 M packets 265 -> 175 ms, 2 M SYNs 386 -> 267 ms,
 * ten minutes of the job (20 MB) 58 -> 49 ms; the 1.6 MB bundled sample
 * 6 -> 7 ms, where starting the thread costs what it saves).  A batch of
 * 4096 packets: 1024 and 256 were no faster, and handing batches over
 * cost more CPU.
 *
 * The reader writes the ring with streaming (non-temporal) stores: the
 * ring (1.7 MiB) is larger than a core's L2, and ordinary stores made the
 * reader fetch each line back from the other core's cache before writing
 * it (a fifth of the reader's time stalled on the stores of the decoder's
 * output).  Streamed, the lines go to memory and the sinks read them in
 * order (the prefetchers follow): the thread's CPU over one thread's fell
 * from +35 % to +4 % (an hour's job 274 -> 210 ms CPU, wall 187 -> 147 ms;
 * 2 M SYNs 430 -> 309 ms CPU).  The reader, faster than the sinks,
 * waits on a full ring; the sinks wake it when two batches are free, not
 * one, so that it fills two a wake (the hour's job: 179 -> 25 context
 * switches, each a few microseconds in a VM).
 */
#define THREAD_MIN_BYTES (8u << 20)
#define BATCH 4096
#define NBATCH 4

typedef struct pkt_batch {
	dmls_pkt p[BATCH];
	size_t n;
	int last; /* the input is done after these */
	uint64_t done_bytes, total_bytes;
} pkt_batch;

typedef struct pkt_ring {
	dmls_input *in;
	pkt_batch b[NBATCH];
	size_t filled, taken; /* batches, counted since the start */
	int stop;             /* the sinks gave up (out of memory) */
	pthread_mutex_t mu;
	pthread_cond_t more, room;
} pkt_ring;

/* *src into the ring, around the caches (above). */
static inline void put_packet(dmls_pkt *dst, const dmls_pkt *src)
{
#if defined(__x86_64__)
	_Static_assert(sizeof(dmls_pkt) % 8 == 0, "whole words");
	long long w[sizeof(dmls_pkt) / 8], *d = (long long *)(void *)dst;
	memcpy(w, src, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		_mm_stream_si64(d + i, w[i]);
#else
	*dst = *src;
#endif
}

static void *ring_fill(void *arg)
{
	pkt_ring *r = arg;
	for (int last = 0; !last;) {
		pthread_mutex_lock(&r->mu);
		while (r->filled - r->taken == NBATCH && !r->stop)
			pthread_cond_wait(&r->room, &r->mu);
		int stop = r->stop;
		pthread_mutex_unlock(&r->mu);
		if (stop)
			break;
		pkt_batch *b = &r->b[r->filled % NBATCH];
		b->n = 0;
		dmls_pkt p;
		while (b->n < BATCH && dmls_input_next(r->in, &p) == 1)
			put_packet(&b->p[b->n++], &p);
#if defined(__x86_64__)
		_mm_sfence(); /* the streamed stores before the batch is handed over */
#endif
		last = b->last = b->n < BATCH;
		dmls_input_progress(r->in, &b->done_bytes, &b->total_bytes);
		pthread_mutex_lock(&r->mu);
		r->filled++;
		pthread_cond_signal(&r->more);
		pthread_mutex_unlock(&r->mu);
	}
	return NULL;
}

/* Every packet of in into job->stats: 0, or -1 when out of memory. */
static int count_threaded(dmls_job *job, const dmls_job_opts *opts, dmls_input *in)
{
	pkt_ring *r = malloc(sizeof(*r));
	if (!r)
		return -1;
	r->in = in;
	r->filled = r->taken = 0;
	r->stop = 0;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->more, NULL);
	pthread_cond_init(&r->room, NULL);
	pthread_t tid;
	int rc = 0;
	if (pthread_create(&tid, NULL, ring_fill, r)) {
		rc = 1; /* no thread: the caller reads in this one */
		goto out;
	}
	for (int last = 0; !last && !rc;) {
		pthread_mutex_lock(&r->mu);
		while (r->filled == r->taken)
			pthread_cond_wait(&r->more, &r->mu);
		pthread_mutex_unlock(&r->mu);
		const pkt_batch *b = &r->b[r->taken % NBATCH];
		uint64_t before = job->stats.packets;
		for (size_t i = 0; i < b->n && !rc; i++)
			rc = dmls_stats_add(&job->stats, &b->p[i]) ? -1 : 0;
		if (opts->progress && (before >> 16) != (job->stats.packets >> 16))
			opts->progress(opts->progress_ctx, b->done_bytes, b->total_bytes,
				       job->stats.packets);
		last = b->last;
		pthread_mutex_lock(&r->mu);
		r->taken++;
		r->stop = rc != 0;
		if (r->stop || r->filled - r->taken <= NBATCH - 2)
			pthread_cond_signal(&r->room); /* the reader wakes to fill two */
		pthread_mutex_unlock(&r->mu);
	}
	pthread_join(tid, NULL);
out:
	pthread_cond_destroy(&r->room);
	pthread_cond_destroy(&r->more);
	pthread_mutex_destroy(&r->mu);
	free(r);
	return rc;
}

/* The same in this thread. */
static int count_here(dmls_job *job, const dmls_job_opts *opts, dmls_input *in)
{
	dmls_pkt p;
	uint64_t done, total;
	while (dmls_input_next(in, &p) == 1) {
		if (opts->progress && (job->stats.packets & 0xffff) == 0) {
			dmls_input_progress(in, &done, &total);
			opts->progress(opts->progress_ctx, done, total, job->stats.packets);
		}
		if (dmls_stats_add(&job->stats, &p))
			return -1;
	}
	return 0;
}

/* The CPUs this process may run on. */
static int cpus_allowed(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

static int read_packets(dmls_job *job, const dmls_job_opts *opts, dmls_error *err)
{
	dmls_input *in;
	int rc = dmls_input_open(&in, (const char *const *)job->run.captures, job->run.ncaptures,
				 opts->filter, err);
	if (rc)
		return rc;
	dmls_input_set_decode(in, opts->decode_flags);
	uint64_t done, total;
	dmls_input_progress(in, &done, &total);
	int compressed = 0;
	for (size_t i = 0; i < dmls_input_nfiles(in); i++)
		compressed |= dmls_input_get_file(in, i)->compression != NULL;
	int counted = 1;
	if (opts->threads == 2 ||
	    (opts->threads == 0 && cpus_allowed() >= 2 &&
	     (total == 0 || compressed || total >= THREAD_MIN_BYTES))) {
		counted = count_threaded(job, opts, in);
		job->stats.analysis_threads = counted == 0 ? 2 : 1; /* rank_clocks.c */
	}
	if (counted > 0)
		counted = count_here(job, opts, in);
	if (counted < 0) {
		dmls_input_free(in);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory after %llu packets",
				 (unsigned long long)job->stats.packets);
	}
	if (dmls_stats_finish(&job->stats)) {
		dmls_input_free(in);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	job->counts = *dmls_input_get_counts(in);
	job->damage = *dmls_input_error(in);
	rc = copy_files(job, in) ? dmls_fail(err, DMLS_ENOMEM, "out of memory") : DMLS_OK;
	dmls_input_free(in);
	return rc;
}

int dmls_job_analyze(dmls_job *job, const char *const *inputs, size_t n,
		     const dmls_job_opts *opts, dmls_error *err)
{
	static const dmls_job_opts defaults = {0};
	if (!opts)
		opts = &defaults;
	memset(job, 0, sizeof(*job));
	dmls_stats_init_limits(&job->stats, opts->bin_ns, &opts->limits);
	int rc = dmls_run_open(&job->run, inputs, n, err);
	if (rc)
		return rc;
	rc = read_packets(job, opts, err);
	if (rc)
		return rc;
	return dmls_job_run_analysis(job, err);
}

/* A note naming the files whose clock offsets were taken from their time
 * stamps (input.c, clocks.c): the first four, by name. */
static void note_clocks(dmls_job *job)
{
	char text[160];
	size_t used = 0, moved = 0, named = 0;
	for (size_t i = 0; i < job->nfiles; i++)
		moved += job->files[i].clock_offset_ns != 0;
	if (job->counts.clocks_contradict)
		dmls_analysis_note_input(job->analysis,
					 "clocks of the captures left as they were: their TCP "
					 "acknowledgements bound them both ways at once (a clock "
					 "stepped during a capture?)");
	if (!moved)
		return;
	used = (size_t)snprintf(text, sizeof(text),
				"clock offsets of %zu of %zu captures taken from their stamps:", moved,
				job->nfiles);
	for (size_t i = 0; i < job->nfiles && used < sizeof(text); i++) {
		const dmls_input_file *f = &job->files[i];
		if (!f->clock_offset_ns)
			continue;
		const char *base = strrchr(f->path, '/');
		double ms = (double)f->clock_offset_ns / 1e6;
		int k = named == 4 ? snprintf(text + used, sizeof(text) - used, " ...")
				   : snprintf(text + used, sizeof(text) - used, "%s %s %+.*f %s",
					      named ? "," : "", base ? base + 1 : f->path,
					      fabs(ms) < 1e3 ? 1 : 3, fabs(ms) < 1e3 ? ms : ms / 1e3,
					      fabs(ms) < 1e3 ? "ms" : "s");
		if (k < 0)
			break;
		used += (size_t)k;
		if (named++ == 4)
			break;
	}
	dmls_analysis_note_input(job->analysis, text);
}

/* A note when the snap length cut TCP headers before their data offset
 * (decode.h, tcp_cut): their payload is an estimate. */
static void note_tcp_cut(dmls_job *job)
{
	uint64_t n = job->counts.tcp_cut;
	if (!n)
		return;
	char text[160];
	snprintf(text, sizeof(text),
		 "snap length cut %llu of %llu TCP headers before their data offset: payload "
		 "estimated with a %d-byte header (Linux's), flags unknown",
		 (unsigned long long)n, (unsigned long long)job->counts.packets,
		 DMLS_TCP_CUT_HDR_BYTES);
	dmls_analysis_note_input(job->analysis, text);
}

/* A note when a tenth or more of the records did not decode: the analysis
 * is of the rest (a snap length that cuts TCP before its sequence number,
 * as `-i any -s 64` does to TCP over IPv6, leaves only the small others). */
static void note_truncated(dmls_job *job)
{
	const dmls_input_counts *c = &job->counts;
	if (!c->truncated || 10 * c->truncated < c->records)
		return;
	char text[160];
	snprintf(text, sizeof(text),
		 "%llu of %llu records too short or malformed to decode, not counted (a snap "
		 "length shorter than their headers? TCP needs 8 bytes)",
		 (unsigned long long)c->truncated, (unsigned long long)c->records);
	dmls_analysis_note_input(job->analysis, text);
}

void dmls_job_note_input(dmls_job *job)
{
	if (!job->analysis)
		return;
	note_truncated(job);
	note_clocks(job);
	note_tcp_cut(job);
}

/* The run's job-<k>/train_history.log files: 0, or -1 when out of memory. */
static int load_job_logs(dmls_job *job)
{
	size_t n = job->run.njob_logs;
	job->job_logs = calloc(n, sizeof(*job->job_logs));
	job->job_log_names = calloc(n, sizeof(*job->job_log_names));
	if (!job->job_logs || !job->job_log_names)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *path = job->run.job_logs[i], *name = path + strlen(path);
		for (int slashes = 0; name > path && slashes < 2; name--)
			if (name[-1] == '/' && ++slashes == 2)
				break;
		dmls_error lerr;
		if (dmls_trainlog_load(&job->job_logs[job->njob_logs], path, &lerr) != DMLS_OK) {
			if (lerr.status == DMLS_ENOMEM)
				return -1;
			if (job->damage.status == DMLS_OK)
				job->damage = lerr;
			continue;
		}
		job->job_log_names[job->njob_logs++] = name;
	}
	return 0;
}

int dmls_job_run_analysis(dmls_job *job, dmls_error *err)
{
	int rc;
	if (job->run.log_path) {
		dmls_error lerr;
		if (dmls_trainlog_load(&job->log, job->run.log_path, &lerr) == DMLS_OK)
			job->has_log = 1;
		else if (job->damage.status == DMLS_OK)
			job->damage = lerr;
	}
	if (job->run.njob_logs && load_job_logs(job))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	rc = dmls_analysis_run(&job->analysis, &job->stats, job->has_log ? &job->log : NULL,
			       &job->analysis_error);
	if (rc == DMLS_OK && job->njob_logs)
		rc = dmls_analysis_job_logs(job->analysis, &job->stats, job->job_logs,
					    job->job_log_names, job->njob_logs,
					    &job->analysis_error);
	if (rc != DMLS_OK) {
		dmls_analysis_free(job->analysis);
		job->analysis = NULL;
	} else {
		dmls_job_note_input(job);
	}
	dmls_stats_release_analysis_series(&job->stats); /* read by nothing after */
	if (rc == DMLS_ENOMEM) /* not a property of the data: the job fails */
		return dmls_fail(err, rc, "%s", job->analysis_error.msg);
	return DMLS_OK;
}

void dmls_job_release(dmls_job *job)
{
	if (job->analysis)
		dmls_analysis_free(job->analysis);
	for (size_t i = 0; i < job->nfiles; i++)
		free(job->files[i].path);
	free(job->files);
	if (job->has_log)
		dmls_trainlog_release(&job->log);
	for (size_t i = 0; i < job->njob_logs; i++)
		dmls_trainlog_release(&job->job_logs[i]);
	free(job->job_logs);
	free(job->job_log_names);
	dmls_stats_release(&job->stats);
	dmls_run_release(&job->run);
	memset(job, 0, sizeof(*job));
}
