/*
 * csv.c - `analyze --csv DIR`: tables pandas loads as they are.
 *
 * One header row, comma separated, no index column, times in seconds from
 * the first packet (t_s) unless named *_unix_s, bytes as integers.
 */
#include "dmlscope/render.h"

#include <string.h>

#include "out/csv_int.h"

static int close_out(FILE *fp, const char *dir, const char *name, dmls_error *err)
{
	int bad = ferror(fp);
	if (fclose(fp) || bad)
		return dmls_fail(err, DMLS_EIO, "'%s/%s': write error", dir, name);
	return DMLS_OK;
}

static double rel_s(const dmls_stats *st, int64_t ns)
{
	return (double)(ns - st->first_ns) / 1e9;
}

static void write_hosts(const dmls_result *r, FILE *fp)
{
	const dmls_stats *st = r->stats;
	fprintf(fp, "addr,role,tx_packets,tx_wire_bytes,tx_payload_bytes,rx_packets,"
		    "rx_wire_bytes,rx_payload_bytes,tx_retransmissions\n");
	for (size_t i = 0; i < st->nhosts; i++) {
		const dmls_host *h = &st->hosts[i];
		fprintf(fp, "%s,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", h->name,
			dmls_role_name(h->role),
			(unsigned long long)h->tx_packets, (unsigned long long)h->tx_wire_bytes,
			(unsigned long long)h->tx_payload_bytes, (unsigned long long)h->rx_packets,
			(unsigned long long)h->rx_wire_bytes,
			(unsigned long long)h->rx_payload_bytes,
			(unsigned long long)h->tx_retransmissions);
	}
}

static void write_matrix(const dmls_result *r, FILE *fp)
{
	const dmls_stats *st = r->stats;
	fprintf(fp, "src,dst,packets,wire_bytes,payload_bytes,first_s,last_s\n");
	for (size_t i = 0; i < st->npairs; i++) {
		const dmls_pair *p = &st->pairs[i];
		fprintf(fp, "%s,%s,%llu,%llu,%llu,%.9f,%.9f\n", st->hosts[p->src].name,
			st->hosts[p->dst].name, (unsigned long long)p->packets,
			(unsigned long long)p->wire_bytes, (unsigned long long)p->payload_bytes,
			rel_s(st, p->first_ns), rel_s(st, p->last_ns));
	}
}

static void write_flows(const dmls_result *r, FILE *fp)
{
	const dmls_stats *st = r->stats;
	fprintf(fp, "flow,src,dst,sport,dport,proto,packets,wire_bytes,payload_bytes,"
		    "retransmissions,first_s,last_s,duration_s\n");
	for (size_t i = 0; i < st->nflows; i++) {
		const dmls_flow *f = &st->flows[i];
		fprintf(fp, "%zu,%s,%s,%u,%u,%s,%llu,%llu,%llu,%llu,%.9f,%.9f,%.9f\n", i,
			st->hosts[f->src].name, st->hosts[f->dst].name, f->sport, f->dport,
			f->proto == 6 ? "tcp" : "udp", (unsigned long long)f->packets,
			(unsigned long long)f->wire_bytes, (unsigned long long)f->payload_bytes,
			(unsigned long long)f->retransmissions, rel_s(st, f->first_ns),
			rel_s(st, f->last_ns), (double)(f->last_ns - f->first_ns) / 1e9);
	}
}

/* Empirical CDF of flow sizes: one row per distinct size. */
static void write_flow_cdf(const dmls_result *r, FILE *fp)
{
	const uint64_t *v = r->flow_sizes;
	size_t n = r->nflow_sizes;
	fprintf(fp, "wire_bytes,cdf\n");
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || v[i + 1] != v[i])
			fprintf(fp, "%llu,%.9f\n", (unsigned long long)v[i], (double)(i + 1) / (double)n);
}

typedef struct series_rows {
	FILE *fp;
	double off, bin_s;
	const char *src, *dst; /* NULL: a flow's activity */
	size_t flow;
} series_rows;

static void series_row(int64_t bin, uint64_t b, void *ctx)
{
	const series_rows *r = ctx;
	double t = r->off + (double)bin * r->bin_s;
	if (r->src)
		fprintf(r->fp, "%.6f,%s,%s,%llu,%.1f\n", t, r->src, r->dst, (unsigned long long)b,
			(double)b * 8 / r->bin_s);
	else
		fprintf(r->fp, "%zu,%.3f,%llu\n", r->flow, t, (unsigned long long)b);
}

/* The aggregate dense: every bin from the first to the last, zeros too. */
#define DENSE_MAX_ROWS (1 << 24)
typedef struct dense_rows {
	series_rows r;
	int64_t next; /* the first bin not written yet */
} dense_rows;

static void dense_row(int64_t bin, uint64_t b, void *ctx)
{
	dense_rows *d = ctx;
	for (; d->next < bin; d->next++)
		series_row(d->next, 0, &d->r);
	series_row(bin, b, &d->r);
	d->next = bin + 1;
}

/* Throughput per bin, long format: the aggregate (`*,*`) in every bin from
 * the first packet's to the last's, zeros included (up to 2^24 rows; past
 * that, a span of years, only its bins with traffic), so that its mean is
 * the mean throughput; each host pair only in the bins it sent in (a
 * missing pair row is zero), or a pair table would grow with pairs x time. */
static void write_series(const dmls_result *res, FILE *fp)
{
	const dmls_stats *st = res->stats;
	series_rows r = {fp, res->limits.series_t0_s, res->limits.wire_bin_s, "*", "*", 0};
	fprintf(fp, "t_s,src,dst,wire_bytes,bps\n");
	const dmls_series *tw = &st->total_wire;
	if (st->packets && dmls_series_span_bins(tw) <= DENSE_MAX_ROWS) {
		dense_rows d = {r, tw->min_bin};
		dmls_series_foreach(tw, dense_row, &d);
	} else if (st->packets) {
		dmls_series_foreach(tw, series_row, &r);
	}
	for (size_t i = 0; i < st->npairs; i++) {
		const dmls_pair *p = &st->pairs[i];
		r.src = st->hosts[p->src].name;
		r.dst = st->hosts[p->dst].name;
		r.bin_s = (double)p->series.bin_ns / 1e9;
		dmls_series_foreach(&p->series, series_row, &r);
	}
}

static void write_activity(const dmls_result *res, FILE *fp)
{
	const dmls_stats *st = res->stats;
	series_rows r = {fp, res->limits.series_t0_s, 0, NULL, NULL, 0};
	fprintf(fp, "flow,t_s,wire_bytes\n");
	for (size_t i = 0; i < st->nflows; i++) {
		r.flow = i;
		r.bin_s = (double)st->flows[i].activity.bin_ns / 1e9;
		dmls_series_foreach(&st->flows[i].activity, series_row, &r);
	}
}

int dmls_render_csv(const dmls_result *r, const char *dir, dmls_error *err)
{
	static const struct {
		const char *name;
		void (*write)(const dmls_result *, FILE *);
	} tables[] = {
		{"hosts.csv", write_hosts},       {"matrix.csv", write_matrix},
		{"flows.csv", write_flows},       {"flow_cdf.csv", write_flow_cdf},
		{"series.csv", write_series},     {"flow_activity.csv", write_activity},
	};
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		FILE *fp = dmls_open_out(dir, tables[i].name, err);
		if (!fp)
			return err ? err->status : DMLS_EIO;
		tables[i].write(r, fp);
		if (close_out(fp, dir, tables[i].name, err))
			return DMLS_EIO;
	}
	if (r->has_analysis)
		return dmls_render_csv_analysis(r, dir, err);
	return DMLS_OK;
}
