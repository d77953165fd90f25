/*
 * text.c - the terminal summary of `analyze`: what a person reads in ten
 * seconds.  Sizes in SI units (1 MB = 10^6 bytes), rates in bit/s.
 */
#include "dmlscope/render.h"

#include <math.h>

#include "out/text_int.h"

const char *dmls_fmt_bytes(double v, char *buf, size_t n)
{
	static const char *unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	int u = 0;
	if (!isfinite(v))
		return "n/a";
	while (v >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

const char *dmls_fmt_bps(double v, char *buf, size_t n)
{
	static const char *unit[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
	int u = 0;
	if (!isfinite(v))
		return "n/a";
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, "%.1f %s", v, unit[u]);
	return buf;
}

static void header(const dmls_result *r, FILE *fp)
{
	fprintf(fp, "%s: %zu capture%s, %llu packets, %.3f s\n", r->run.name, r->input.nfiles,
		r->input.nfiles == 1 ? "" : "s", (unsigned long long)r->input.packets,
		r->input.duration_s);
	if (r->has_run)
		fprintf(fp, "  run: %s %s %s batch %s, %s, %s, %s\n", r->run.framework,
			r->run.model, r->run.optimizer, r->run.batch, r->run.backend, r->run.delay,
			r->run.topology);
	if (r->input.truncated || r->input.non_ip || r->input.other || r->input.duplicates ||
	    r->input.filtered)
		fprintf(fp, "  not counted: %lld malformed, %lld non-IP, %lld unknown link type, "
			    "%lld filtered, %lld duplicates (captured at both ends or on two "
			    "interfaces)\n",
			(long long)r->input.truncated, (long long)r->input.non_ip,
			(long long)r->input.other, (long long)r->input.filtered,
			(long long)r->input.duplicates);
	if (r->input.decapsulated)
		fprintf(fp, "  tunneled: %lld packets read on their inner headers (VXLAN, Geneve, "
			    "GRE, IP in IP, ERSPAN)\n",
			(long long)r->input.decapsulated);
}

/* The hosts the result chose to show (all, or the busiest), address order. */
static void hosts(const dmls_result *r, FILE *fp)
{
	const dmls_stats *st = r->stats;
	char a[32], b[32];
	fprintf(fp, "\nhosts (%zu)%*s role     sent (wire)   received     retrans\n", st->nhosts,
		st->nhosts > 9 ? 28 : 29, "");
	for (size_t k = 0; k < r->nshown; k++) {
		const dmls_host *h = &st->hosts[r->shown[k]];
		fprintf(fp, "  %-39s %-8s %-13s %-12s %llu\n", h->name, dmls_role_name(h->role),
			dmls_fmt_bytes((double)h->tx_wire_bytes, a, sizeof(a)),
			dmls_fmt_bytes((double)h->rx_wire_bytes, b, sizeof(b)),
			(unsigned long long)h->tx_retransmissions);
	}
	if (st->nhosts > r->nshown)
		fprintf(fp, "  ... %zu more, less busy (all of them in hosts.csv)\n",
			st->nhosts - r->nshown);
}

static void top_pairs(const dmls_result *r, FILE *fp)
{
	const dmls_stats *st = r->stats;
	if (!st->npairs)
		return;
	fprintf(fp, "\ntop pairs (of %zu)\n", st->npairs);
	char a[32];
	for (size_t i = 0; i < r->ntop_pairs; i++) {
		const dmls_pair *p = &st->pairs[r->top_pairs[i]];
		char label[100];
		snprintf(label, sizeof(label), "%s -> %s", st->hosts[p->src].name,
			 st->hosts[p->dst].name);
		fprintf(fp, "  %-44s %-12s %5.1f %%\n", label,
			dmls_fmt_bytes((double)p->wire_bytes, a, sizeof(a)), r->top_pair_percent[i]);
	}
}

/* What the bounded tables folded into `other`, and coarsened series. */
static void folded(const dmls_result *r, FILE *fp)
{
	const struct {
		const char *what;
		const dmls_result_fold *f;
	} t[] = {{"hosts", &r->limits.hosts}, {"pairs", &r->limits.pairs},
		 {"flows", &r->limits.flows}};
	char a[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].f->folded)
			fprintf(fp, "folded: %lld %s (%s, %lld packets) into other, past the "
				    "cap of %lld\n",
				(long long)t[i].f->folded, t[i].what,
				dmls_fmt_bytes((double)t[i].f->wire_bytes, a, sizeof(a)),
				(long long)t[i].f->packets, (long long)t[i].f->cap);
	if (r->limits.pairs_coarsened || r->limits.hosts_coarsened || r->limits.wire_coarsened)
		fprintf(fp,
			"series coarsened to stay in memory: pairs %g ms, hosts %g ms, total "
			"%g ms bins\n",
			r->limits.pair_bin_s * 1e3, r->limits.host_bin_s * 1e3,
			r->limits.wire_bin_s * 1e3);
}

static void flows_and_rate(const dmls_result *r, FILE *fp)
{
	char a[32], b[32], c[32], d[32];
	fprintf(fp, "\nflows: %lld (5-tuples, one per direction), size p50 %s, p90 %s, max %s\n",
		(long long)r->flows.count, dmls_fmt_bytes((double)r->flows.p50, a, sizeof(a)),
		dmls_fmt_bytes((double)r->flows.p90, b, sizeof(b)),
		dmls_fmt_bytes((double)r->flows.max, c, sizeof(c)));
	fprintf(fp, "volume: %s on the wire, %s payload; throughput mean %s, peak %s (%g ms bins)\n",
		dmls_fmt_bytes((double)r->input.wire_bytes, a, sizeof(a)),
		dmls_fmt_bytes((double)r->input.payload_bytes, b, sizeof(b)),
		isfinite(r->throughput.mean_bps) ? dmls_fmt_bps(r->throughput.mean_bps, c, sizeof(c))
						 : "n/a",
		dmls_fmt_bps(r->throughput.peak_bps, d, sizeof(d)), r->throughput.bin_s * 1e3);
	if (r->flows.retransmissions)
		fprintf(fp, "retransmissions: %lld packets sent again\n",
			(long long)r->flows.retransmissions);
	folded(r, fp);
}

void dmls_render_text(const dmls_result *r, FILE *fp)
{
	header(r, fp);
	if (!r->input.packets) {
		fprintf(fp, "  no IP packets to analyze\n");
		return;
	}
	hosts(r, fp);
	top_pairs(r, fp);
	flows_and_rate(r, fp);
	if (r->has_analysis)
		dmls_render_text_analysis(r, fp);
	else
		fprintf(fp, "\nno traffic analysis: %s\n", r->analysis_error);
}
