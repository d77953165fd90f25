/*
 * runfolder.c - the study's run folders and train_history.log.
 *
 * A run folder is taken as is: every *.pcap / *.pcapng / *.cap file in it
 * (the study's worker-<i>-tcpdump.pcap), its train_history.log when present
 * (and, in a run of several jobs, each job's job-<k>/train_history.log)
 * and the seven attributes in its name.  The log is a small CSV
 * (Type,ID,Timestamp,Loss,Accuracy) parsed strictly: a malformed line is an
 * error naming the file and line, never a silently skipped row.
 */
#include "dmlscope/runfolder.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/grow.h"

static int log_push(dmls_trainlog *log, const dmls_log_row *r)
{
	if (dmls_grow((void **)&log->rows, &log->cap, log->nrows, sizeof(*log->rows), 64))
		return -1;
	log->rows[log->nrows++] = *r;
	return 0;
}

/* Parse a number field; empty gives NAN. Returns 0 or -1 if not a number. */
static int parse_num(const char *s, double *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		*out = NAN;
		return 0;
	}
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	return (end == s || *end || errno == ERANGE) ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void log_summarize(dmls_trainlog *log)
{
	double *d = NULL, prev = NAN, second = NAN;
	size_t nd = 0;
	log->mean_step_s = log->steady_step_s = log->median_step_s = NAN;
	log->first_step_s = log->last_step_s = NAN;
	if (log->steps)
		d = malloc(log->steps * sizeof(*d));
	for (size_t i = 0; i < log->nrows; i++) {
		const dmls_log_row *r = &log->rows[i];
		if (r->is_epoch)
			continue;
		if (isnan(log->first_step_s))
			log->first_step_s = r->ts_s;
		log->last_step_s = r->ts_s;
		if (!isnan(prev) && isnan(second))
			second = r->ts_s;
		if (d && !isnan(prev))
			d[nd++] = r->ts_s - prev;
		prev = r->ts_s;
	}
	if (log->backwards_line) /* no step time means anything */
		nd = 0;
	else if (log->steps >= 2)
		log->mean_step_s = (log->last_step_s - log->first_step_s) / (double)(log->steps - 1);
	log->steady_step_s = log->mean_step_s;
	if (log->steps >= DMLS_STEADY_FROM && !log->backwards_line)
		log->steady_step_s = (log->last_step_s - second) / (double)(log->steps - 2);
	if (nd) {
		qsort(d, nd, sizeof(*d), cmp_double);
		log->median_step_s = nd % 2 ? d[nd / 2] : (d[nd / 2 - 1] + d[nd / 2]) / 2;
	}
	free(d);
}

/* Split line at commas into at most max fields (in place). */
static int split_csv(char *line, char **f, int max)
{
	int n = 0;
	f[n++] = line;
	for (char *p = line; *p; p++)
		if (*p == ',') {
			*p = '\0';
			if (n == max)
				return max + 1;
			f[n++] = p + 1;
		}
	return n;
}

static int parse_row(dmls_trainlog *log, char *line, const char *name, size_t lineno,
		     dmls_error *err)
{
	char *f[5];
	int n = split_csv(line, f, 5);
	if (n != 5)
		return dmls_fail(err, DMLS_EBAD, "'%s': line %zu: expected 5 fields, found %d",
				 name, lineno, n);
	dmls_log_row r = {0};
	if (!strcmp(f[0], "Batch"))
		r.is_epoch = 0;
	else if (!strcmp(f[0], "Epoch"))
		r.is_epoch = 1;
	else
		return dmls_fail(err, DMLS_EBAD, "'%s': line %zu: unknown row type '%s'", name,
				 lineno, f[0]);
	double id;
	if (parse_num(f[1], &id) || isnan(id) || parse_num(f[2], &r.ts_s) || isnan(r.ts_s) ||
	    parse_num(f[3], &r.loss) || parse_num(f[4], &r.accuracy))
		return dmls_fail(err, DMLS_EBAD, "'%s': line %zu: not a number", name, lineno);
	r.id = (long)id;
	if (!r.is_epoch) { /* last_step_s: the Batch row before (log_summarize sets it again) */
		if (log->steps && r.ts_s < log->last_step_s && !log->backwards_line)
			log->backwards_line = lineno;
		log->last_step_s = r.ts_s;
	}
	if (log_push(log, &r))
		return dmls_fail(err, DMLS_ENOMEM, "'%s': out of memory", name);
	if (r.is_epoch)
		log->epochs++;
	else
		log->steps++;
	return DMLS_OK;
}

int dmls_trainlog_parse(dmls_trainlog *log, const char *buf, size_t len, const char *name,
			dmls_error *err)
{
	memset(log, 0, sizeof(*log));
	size_t pos = 0, lineno = 0;
	char line[1024];
	while (pos < len) {
		size_t e = pos;
		while (e < len && buf[e] != '\n')
			e++;
		size_t l = e - pos;
		lineno++;
		if (l && buf[pos + l - 1] == '\r')
			l--;
		if (l >= sizeof(line)) {
			dmls_trainlog_release(log);
			return dmls_fail(err, DMLS_EBAD, "'%s': line %zu too long", name, lineno);
		}
		memcpy(line, buf + pos, l);
		line[l] = '\0';
		pos = e + 1;
		if (lineno == 1) {
			if (strncmp(line, "Type,ID,Timestamp", 17)) {
				dmls_trainlog_release(log);
				return dmls_fail(err, DMLS_EBAD,
						 "'%s': not a train_history.log (header "
						 "'Type,ID,Timestamp,Loss,Accuracy' expected)",
						 name);
			}
			continue;
		}
		if (!l)
			continue;
		if (parse_row(log, line, name, lineno, err)) {
			dmls_trainlog_release(log);
			return err ? err->status : DMLS_EBAD;
		}
	}
	if (lineno == 0)
		return dmls_fail(err, DMLS_EBAD, "'%s': empty train log", name);
	log_summarize(log);
	return DMLS_OK;
}

int dmls_trainlog_load(dmls_trainlog *log, const char *path, dmls_error *err)
{
	memset(log, 0, sizeof(*log));
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return dmls_fail(err, DMLS_EIO, "'%s': %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += n;
		if (len == cap) {
			char *nb = cap < (1u << 30) ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	int rd_err = ferror(fp);
	fclose(fp);
	if (!buf || rd_err) {
		free(buf);
		return dmls_fail(err, DMLS_EIO, "'%s': cannot read", path);
	}
	int rc = dmls_trainlog_parse(log, buf, len, path, err);
	free(buf);
	return rc;
}

void dmls_trainlog_release(dmls_trainlog *log)
{
	free(log->rows);
	memset(log, 0, sizeof(*log));
}

/* Copy s into dst of size n, cutting it if needed. */
static void copy_field(char *dst, size_t n, const char *s)
{
	size_t l = strlen(s);
	if (l >= n)
		l = n - 1;
	memcpy(dst, s, l);
	dst[l] = '\0';
}

int dmls_run_attrs_parse(dmls_run_attrs *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	char *f[8];
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", name);
	int n = 0;
	f[n++] = buf;
	for (char *p = buf; *p && n < 8; p++)
		if (*p == '-') {
			*p = '\0';
			f[n++] = p + 1;
		}
	if (n != 7)
		return -1;
	for (int i = 0; i < 7; i++)
		if (!*f[i])
			return -1;
	copy_field(a->framework, sizeof(a->framework), f[0]);
	copy_field(a->model, sizeof(a->model), f[1]);
	copy_field(a->optimizer, sizeof(a->optimizer), f[2]);
	copy_field(a->batch, sizeof(a->batch), f[3]);
	copy_field(a->backend, sizeof(a->backend), f[4]);
	copy_field(a->delay, sizeof(a->delay), f[5]);
	copy_field(a->topology, sizeof(a->topology), f[6]);
	a->parsed = 1;
	return 0;
}

int dmls_is_run_folder(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_capture_name(const char *n)
{
	const char *dot = strrchr(n, '.');
	return n[0] != '.' && dot &&
	       (!strcmp(dot, ".pcap") || !strcmp(dot, ".pcapng") || !strcmp(dot, ".cap"));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *path_join(const char *dir, const char *name)
{
	size_t l = strlen(dir) + strlen(name) + 2;
	char *p = malloc(l);
	if (p)
		snprintf(p, l, "%s%s%s", dir, (*dir && dir[strlen(dir) - 1] == '/') ? "" : "/",
			 name);
	return p;
}

static int add_capture(dmls_run *run, char *path)
{
	char **n = realloc(run->captures, (run->ncaptures + 1) * sizeof(*n));
	if (!n || !path) {
		free(path);
		if (n)
			run->captures = n;
		return -1;
	}
	run->captures = n;
	run->captures[run->ncaptures++] = path;
	return 0;
}

/* k of a subfolder named job-<k> (digits only, k < 10^6), else -1. */
static long job_folder(const char *name)
{
	if (strncmp(name, "job-", 4) || !name[4] || strlen(name + 4) > 6)
		return -1;
	for (const char *c = name + 4; *c; c++)
		if (!isdigit((unsigned char)*c))
			return -1;
	return strtol(name + 4, NULL, 10);
}

/* Folder dir's job-<k>/train_history.log (a regular file) into the run's
 * job logs, its k in ks: 0, or -1 when out of memory. */
static int add_job_log(dmls_run *run, long *ks, const char *dir, const char *sub, long k)
{
	struct stat sb;
	char *f = path_join(dir, sub), *log = f ? path_join(f, "train_history.log") : NULL;
	free(f);
	if (!log)
		return -1;
	if (run->njob_logs >= DMLS_RUN_MAX_JOB_LOGS || stat(log, &sb) || !S_ISREG(sb.st_mode)) {
		free(log);
		return 0;
	}
	if (!run->job_logs && !(run->job_logs = calloc(DMLS_RUN_MAX_JOB_LOGS, sizeof(char *)))) {
		free(log);
		return -1;
	}
	size_t i = run->njob_logs++; /* in order of k */
	for (; i > 0 && ks[i - 1] > k; i--)
		run->job_logs[i] = run->job_logs[i - 1], ks[i] = ks[i - 1];
	run->job_logs[i] = log, ks[i] = k;
	return 0;
}

static int open_folder(dmls_run *run, const char *dir, dmls_error *err)
{
	long ks[DMLS_RUN_MAX_JOB_LOGS];
	DIR *d = opendir(dir);
	if (!d)
		return dmls_fail(err, DMLS_EIO, "'%s': %s", dir, strerror(errno));
	struct dirent *e;
	int rc = DMLS_OK;
	while ((e = readdir(d)) && rc == DMLS_OK) {
		if (is_capture_name(e->d_name)) {
			if (add_capture(run, path_join(dir, e->d_name)))
				rc = dmls_fail(err, DMLS_ENOMEM, "'%s': out of memory", dir);
		} else if (!strcmp(e->d_name, "train_history.log")) {
			run->log_path = path_join(dir, e->d_name);
		} else if (!strcmp(e->d_name, "truth.json")) {
			run->truth_path = path_join(dir, e->d_name);
		} else if (job_folder(e->d_name) >= 0 &&
			   add_job_log(run, ks, dir, e->d_name, job_folder(e->d_name))) {
			rc = dmls_fail(err, DMLS_ENOMEM, "'%s': out of memory", dir);
		}
	}
	closedir(d);
	if (rc)
		return rc;
	if (!run->ncaptures)
		return dmls_fail(err, DMLS_EBAD, "'%s': no capture files (*.pcap, *.pcapng) in folder",
				 dir);
	qsort(run->captures, run->ncaptures, sizeof(char *), cmp_str);
	return DMLS_OK;
}

int dmls_run_open(dmls_run *run, const char *const *inputs, size_t n, dmls_error *err)
{
	memset(run, 0, sizeof(*run));
	if (!n)
		return dmls_fail(err, DMLS_EUSAGE, "no input given");
	int rc = DMLS_OK;
	if (n == 1 && dmls_is_run_folder(inputs[0])) {
		run->path = strdup(inputs[0]);
		char *tmp = strdup(inputs[0]);
		size_t l = strlen(tmp);
		while (l > 1 && tmp[l - 1] == '/')
			tmp[--l] = '\0';
		const char *base = strrchr(tmp, '/');
		run->name = strdup(base ? base + 1 : tmp);
		free(tmp);
		dmls_run_attrs_parse(&run->attrs, run->name);
		rc = open_folder(run, run->path, err);
	} else {
		for (size_t i = 0; i < n && rc == DMLS_OK; i++) {
			struct stat sb;
			if (!strcmp(inputs[i], "-")) { /* standard input */
				if (add_capture(run, strdup(inputs[i])))
					rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
			} else if (stat(inputs[i], &sb))
				rc = dmls_fail(err, DMLS_EIO, "'%s': %s", inputs[i], strerror(errno));
			else if (S_ISDIR(sb.st_mode))
				rc = dmls_fail(err, DMLS_EUSAGE,
					       "'%s': a run folder must be the only input", inputs[i]);
			else if (add_capture(run, strdup(inputs[i])))
				rc = dmls_fail(err, DMLS_ENOMEM, "out of memory");
		}
		if (rc == DMLS_OK) {
			const char *b = strrchr(inputs[0], '/');
			run->name = strdup(b ? b + 1 : inputs[0]);
		}
	}
	if (rc)
		dmls_run_release(run);
	return rc;
}

void dmls_run_release(dmls_run *run)
{
	for (size_t i = 0; i < run->ncaptures; i++)
		free(run->captures[i]);
	free(run->captures);
	free(run->path);
	free(run->name);
	free(run->log_path);
	free(run->truth_path);
	for (size_t i = 0; i < run->njob_logs; i++)
		free(run->job_logs[i]);
	free(run->job_logs);
	memset(run, 0, sizeof(*run));
}
