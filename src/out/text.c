/*
 * text.c - the terminal summary of `analyze`: what a person reads in ten
 * seconds.  Sizes in SI units (1 MB = 10^6 bytes), rates in bit/s.
 */
#include "dmlscope/render.h"

#include <stdlib.h>
#include <string.h>

static const char *fmt_bytes(double v, char *buf, size_t n)
{
	static const char *unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	int u = 0;
	while (v >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

static const char *fmt_bps(double v, char *buf, size_t n)
{
	static const char *unit[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
	int u = 0;
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, "%.1f %s", v, unit[u]);
	return buf;
}

static void header(const dmls_job *job, FILE *fp)
{
	const dmls_stats *st = &job->stats;
	const dmls_input_counts *c = &job->counts;
	fprintf(fp, "%s: %zu capture%s, %llu packets, %.3f s\n", job->run.name, job->nfiles,
		job->nfiles == 1 ? "" : "s", (unsigned long long)st->packets,
		dmls_stats_duration_s(st));
	if (job->run.attrs.parsed) {
		const dmls_run_attrs *a = &job->run.attrs;
		fprintf(fp, "  run: %s %s %s batch %s, %s, %s, %s\n", a->framework, a->model,
			a->optimizer, a->batch, a->backend, a->delay, a->topology);
	}
	if (c->truncated || c->non_ip || c->other || c->duplicates || c->filtered)
		fprintf(fp, "  not counted: %llu malformed, %llu non-IP, %llu unknown link type, "
			    "%llu filtered, %llu duplicates (captured at both ends)\n",
			(unsigned long long)c->truncated, (unsigned long long)c->non_ip,
			(unsigned long long)c->other, (unsigned long long)c->filtered,
			(unsigned long long)c->duplicates);
}

static int cmp_host_volume_desc(const void *x, const void *y, void *ctx)
{
	const dmls_stats *st = ctx;
	const dmls_host *a = &st->hosts[*(const size_t *)x], *b = &st->hosts[*(const size_t *)y];
	uint64_t va = a->tx_wire_bytes + a->rx_wire_bytes, vb = b->tx_wire_bytes + b->rx_wire_bytes;
	return (va < vb) - (va > vb);
}

static int cmp_host_addr(const void *x, const void *y, void *ctx)
{
	const dmls_stats *st = ctx;
	return memcmp(st->hosts[*(const size_t *)x].addr, st->hosts[*(const size_t *)y].addr, 16);
}

/* Hosts in address order; past MAX_HOSTS_SHOWN, the busiest ones. */
#define MAX_HOSTS_SHOWN 16

static void hosts(const dmls_stats *st, FILE *fp)
{
	static const char *roles[] = {"other", "worker", "server"};
	char a[32], b[32];
	size_t *idx = malloc((st->nhosts ? st->nhosts : 1) * sizeof(*idx));
	if (!idx)
		return;
	for (size_t i = 0; i < st->nhosts; i++)
		idx[i] = i;
	size_t shown = st->nhosts;
	if (shown > MAX_HOSTS_SHOWN) {
		qsort_r(idx, st->nhosts, sizeof(*idx), cmp_host_volume_desc, (void *)st);
		shown = MAX_HOSTS_SHOWN;
	}
	qsort_r(idx, shown, sizeof(*idx), cmp_host_addr, (void *)st);
	fprintf(fp, "\nhosts (%zu)%*s role     sent (wire)   received     retrans\n", st->nhosts,
		st->nhosts > 9 ? 28 : 29, "");
	for (size_t k = 0; k < shown; k++) {
		const dmls_host *h = &st->hosts[idx[k]];
		fprintf(fp, "  %-39s %-8s %-13s %-12s %llu\n", h->name,
			roles[h->role >= 0 && h->role <= 2 ? h->role : 0],
			fmt_bytes((double)h->tx_wire_bytes, a, sizeof(a)),
			fmt_bytes((double)h->rx_wire_bytes, b, sizeof(b)),
			(unsigned long long)h->tx_retransmissions);
	}
	if (st->nhosts > shown)
		fprintf(fp, "  ... %zu more, less busy (all of them in hosts.csv)\n", st->nhosts - shown);
	free(idx);
}

static int cmp_pair_desc(const void *x, const void *y, void *ctx)
{
	const dmls_stats *st = ctx;
	uint64_t a = st->pairs[*(const size_t *)x].wire_bytes;
	uint64_t b = st->pairs[*(const size_t *)y].wire_bytes;
	return (a < b) - (a > b);
}

static void top_pairs(const dmls_stats *st, FILE *fp)
{
	if (!st->npairs)
		return;
	size_t *idx = malloc(st->npairs * sizeof(*idx));
	if (!idx)
		return;
	for (size_t i = 0; i < st->npairs; i++)
		idx[i] = i;
	qsort_r(idx, st->npairs, sizeof(*idx), cmp_pair_desc, (void *)st);
	fprintf(fp, "\ntop pairs (of %zu)\n", st->npairs);
	char a[32];
	for (size_t i = 0; i < st->npairs && i < 8; i++) {
		const dmls_pair *p = &st->pairs[idx[i]];
		char label[100];
		snprintf(label, sizeof(label), "%s -> %s", st->hosts[p->src].name,
			 st->hosts[p->dst].name);
		fprintf(fp, "  %-44s %-12s %5.1f %%\n", label,
			fmt_bytes((double)p->wire_bytes, a, sizeof(a)),
			st->wire_bytes ? 100.0 * (double)p->wire_bytes / (double)st->wire_bytes : 0);
	}
	free(idx);
}

/* What the bounded tables folded into `other`, and coarsened series. */
static void folded(const dmls_stats *st, FILE *fp)
{
	const struct {
		const char *what;
		const dmls_fold *f;
		size_t cap;
	} t[] = {{"hosts", &st->fold_hosts, st->max_hosts},
		 {"pairs", &st->fold_pairs, st->max_pairs},
		 {"flows", &st->fold_flows, st->max_flows}};
	char a[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].f->entries)
			fprintf(fp, "folded: %llu %s (%s, %llu packets) into other, past the "
				    "cap of %zu\n",
				(unsigned long long)t[i].f->entries, t[i].what,
				fmt_bytes((double)t[i].f->wire_bytes, a, sizeof(a)),
				(unsigned long long)t[i].f->packets, t[i].cap);
	if (st->cls[DMLS_CLASS_PAIR].coarsened || st->cls[DMLS_CLASS_HOST].coarsened)
		fprintf(fp, "series coarsened to stay in memory: pairs %g ms, hosts %g ms bins\n",
			(double)st->cls[DMLS_CLASS_PAIR].bin_ns / 1e6,
			(double)st->cls[DMLS_CLASS_HOST].bin_ns / 1e6);
}

static void flows_and_rate(const dmls_stats *st, FILE *fp)
{
	char a[32], b[32], c[32], d[32];
	fprintf(fp, "\nflows: %llu (5-tuples, one per direction), size p50 %s, p90 %s, max %s\n",
		(unsigned long long)st->flows_seen,
		fmt_bytes((double)st->flow_p50_bytes, a, sizeof(a)),
		fmt_bytes((double)st->flow_p90_bytes, b, sizeof(b)),
		fmt_bytes((double)st->flow_max_bytes, c, sizeof(c)));
	double dur = dmls_stats_duration_s(st), bin_s = (double)st->total_wire.bin_ns / 1e9;
	uint64_t peak = st->peak_bin_wire_bytes;
	fprintf(fp, "volume: %s on the wire, %s payload; throughput mean %s, peak %s (%g ms bins)\n",
		fmt_bytes((double)st->wire_bytes, a, sizeof(a)),
		fmt_bytes((double)st->payload_bytes, b, sizeof(b)),
		dur > 0 ? fmt_bps((double)st->wire_bytes * 8 / dur, c, sizeof(c)) : "n/a",
		fmt_bps((double)peak * 8 / bin_s, d, sizeof(d)), bin_s * 1e3);
	if (st->retransmissions)
		fprintf(fp, "retransmissions: %llu TCP segments\n",
			(unsigned long long)st->retransmissions);
	folded(st, fp);
}

void dmls_job_text(const dmls_job *job, FILE *fp)
{
	header(job, fp);
	if (!job->stats.packets) {
		fprintf(fp, "  no IP packets to analyze\n");
		return;
	}
	hosts(&job->stats, fp);
	top_pairs(&job->stats, fp);
	flows_and_rate(&job->stats, fp);
	if (job->analysis)
		dmls_analysis_text(job->analysis, &job->stats, fp);
	else
		fprintf(fp, "\nno traffic analysis: %s\n", job->analysis_error.msg);
}
