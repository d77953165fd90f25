/*
 * sink.h - one statistic of the one pass behind one small interface.
 *
 * Like iperf3's struct protocol, a sink is a table of functions: add one
 * decoded packet, finish after the last one, merge a partial state of the
 * same sink (the packets of another file, or of another rank's share), and
 * release.  dmls_stats holds the sinks' states and feeds every packet to
 * each sink in turn (src/flow/stats.c lists them); adding a statistic is
 * adding a sink, not a line in dmls_stats_add.
 *
 * Merging is exact: two partial states merged equal the state of all
 * their packets fed to one dmls_stats, for every sink, when both were made
 * with the same options and time origin (dmls_stats_set_origin) and as
 * mergeable (dmls_stats_limits.mergeable, which keeps the 100 us bins of
 * the burstiness sink as a series instead of only its running maxima), and
 * while no table reached its cap (which entries fold depends on the order
 * they came in; totals stay exact either way).  A merged state also lists
 * its hosts, pairs and flows in one pass's order: each entry keeps its
 * birth (stats.h, dmls_born) and finish sorts the tables by it.
 * Packets captured at both ends are counted once by dmls_input across the
 * files it merges, not across merged states.
 */
#ifndef DMLSCOPE_SINK_H
#define DMLSCOPE_SINK_H

struct dmls_stats;
struct dmls_pkt;

typedef struct dmls_sink {
	const char *name;
	/* 0, or -1 when out of memory */
	int (*add)(struct dmls_stats *st, const struct dmls_pkt *p);
	/* after the last packet (may be NULL) */
	int (*finish)(struct dmls_stats *st);
	/* dst += src; 0, -1 out of memory */
	int (*merge)(struct dmls_stats *dst, const struct dmls_stats *src);
	/* may be NULL */
	void (*release)(struct dmls_stats *st);
} dmls_sink;

#endif
