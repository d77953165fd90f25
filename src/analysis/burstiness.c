/*
 * burstiness.c - network calculus burstiness of a whole byte series.
 *
 * The definitions, their sources and the online algorithm are in burst.h
 * and src/series/burst.c; this feeds a series' non-empty bins, in time
 * order, to a dmls_burst_stream.  Time scales: 100 us, 1 ms, 5 ms, 10 ms,
 * 100 ms, 1 s; drain rates 1, 10, 40 and 100 Gbit/s.
 */
#include <math.h>

#include "dmlscope/analysis.h"

static void push(int64_t bin, uint64_t bytes, void *ctx)
{
	dmls_burst_stream_push(ctx, bin, (double)bytes);
}

void dmls_burst_compute(dmls_burst *b, const dmls_series *s, double span_s)
{
	dmls_burst_stream bs = {.oom = 1};
	if (!s || dmls_series_empty(s) || s->bin_ns <= 0) {
		dmls_burst_stream_result(&bs, 0, b);
		return;
	}
	if (dmls_burst_stream_init(&bs, s->bin_ns)) {
		dmls_burst_stream_release(&bs);
		dmls_burst_stream_result(&bs, 0, b);
		return;
	}
	dmls_series_foreach(s, push, &bs);
	double bin_s = (double)s->bin_ns * 1e-9;
	if (!(span_s >= bin_s))
		span_s = (double)dmls_series_span_bins(s) * bin_s;
	dmls_burst_stream_result(&bs, span_s, b);
	dmls_burst_stream_release(&bs);
}
