/*
 * burst.h - burstiness in network calculus terms, computed online.
 *
 * For the cumulative arrival function A(t) (bytes up to t):
 *   E(tau)   = sup_t A(t + tau) - A(t), the most bytes in any window of
 *              length tau: the tightest arrival curve at tau (Cruz, "A
 *              calculus for network delay, part I", IEEE Trans. Inf.
 *              Theory 37(1), 1991; Le Boudec & Thiran, "Network Calculus",
 *              Springer LNCS 2050, 2001, sec. 1.2 and 1.4.1).
 *   PtM(tau) = E(tau) / (mean rate * tau), peak-to-mean at time scale tau.
 *   B_max(r) = sup_t sup_{s<=t} A(t) - A(s) - r (t - s), the largest backlog
 *              of a queue served at constant rate r (Le Boudec & Thiran,
 *              Thm. 1.4.1), by the Lindley recursion
 *              q_k = max(0, q_{k-1} + a_k - r * bin) (Lindley 1952).
 *
 * A dmls_burst_stream takes the non-empty bins of a byte series in time
 * order and keeps, for every time scale, the window of the last tau as a
 * FIFO of non-empty bins (two pointers over one ring): each bin is pushed
 * once and leaves each window once, so the cost is O(time scales) per
 * non-empty bin and the memory is the bins of the longest window (1 s),
 * whatever the length of the capture.  Windows are whole bins
 * (round(tau / bin)), so E(tau) is exact up to one bin's bytes; a time
 * scale shorter than the bin is unknown (NAN).
 */
#ifndef DMLSCOPE_BURST_H
#define DMLSCOPE_BURST_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/series.h"

#define DMLS_NTAU 6
#define DMLS_NRATE 4
extern const double dmls_burst_tau_s[DMLS_NTAU];     /* 100us 1ms 5ms 10ms 100ms 1s */
extern const double dmls_burst_rate_bps[DMLS_NRATE]; /* 1, 10, 40, 100 Gbit/s */

/* NAN where unknown (tau shorter than the bin, or longer than the span for
 * peak_to_mean). */
typedef struct dmls_burst {
	double mean_bps;                      /* bits per second over the span */
	double max_window_bytes[DMLS_NTAU];   /* E(tau) */
	double peak_to_mean[DMLS_NTAU];       /* E(tau) / (mean rate * tau) */
	double max_backlog_bytes[DMLS_NRATE]; /* B_max(r) */
} dmls_burst;

/* A non-empty bin and its bytes: one entry of the ring, both in one
 * cache line (a push writes the tail's and reads each window's head). */
typedef struct dmls_burst_slot {
	int64_t bin;
	double v;
} dmls_burst_slot;

typedef struct dmls_burst_stream {
	int64_t bin_ns;
	int64_t w[DMLS_NTAU];        /* window in bins, 0 when tau < bin */
	int w0;                      /* the first time scale of a window (w > 0) */
	double drain[DMLS_NRATE];    /* bytes each rate drains in a bin */
	size_t cap;                  /* ring size (power of two) */
	dmls_burst_slot *ring;       /* the non-empty bins of the longest window */
	uint64_t head[DMLS_NTAU];    /* oldest entry inside each window */
	uint64_t tail;               /* entries pushed so far */
	double sum[DMLS_NTAU], best[DMLS_NTAU];
	double q[DMLS_NRATE], qbest[DMLS_NRATE];
	int64_t last_bin;            /* last bin pushed */
	double total;                /* bytes pushed */
	int oom;
} dmls_burst_stream;

/* bin_ns > 0.  0, or -1 when out of memory. */
int dmls_burst_stream_init(dmls_burst_stream *b, int64_t bin_ns);
void dmls_burst_stream_release(dmls_burst_stream *b);
/* One non-empty bin, bins in increasing order.  A bin at or before the
 * last one, within the longest window, is added to the last one (packets
 * a little out of order); one before that (a clock stepped back) starts
 * every window again from it, so the bytes after the step are not all
 * piled into one bin. */
void dmls_burst_stream_push(dmls_burst_stream *b, int64_t bin, double bytes);

/* The open bin of an online count, [end - bin_ns, end), moves on for a
 * packet at ts at or past its end, and for one from before the longest
 * window (1 s) before it: a clock stepped back, which the stream then takes
 * as a new time line.  A packet late by less joins the open bin. */
#define DMLS_BURST_MAX_TAU_NS 1000000000LL /* dmls_burst_tau_s' last */
static inline int dmls_open_bin_moves(int64_t ts, int64_t end, int64_t bin_ns)
{
	/* end is INT64_MIN only before the first packet, and then ts >= end;
	 * ts < end: end - ts is exact in 64 unsigned bits */
	return ts >= end ||
	       (uint64_t)end - (uint64_t)ts > (uint64_t)(bin_ns + DMLS_BURST_MAX_TAU_NS);
}
/* The result, for a span of span_s seconds (<= 0: the bins' own span is
 * unknown here, so PtM is NAN). */
void dmls_burst_stream_result(const dmls_burst_stream *b, double span_s, dmls_burst *out);
/* Burstiness of a whole series (any bin width), over span_s seconds (< one
 * bin: the series' own span). */
void dmls_burst_compute(dmls_burst *b, const dmls_series *s, double span_s);

#endif
