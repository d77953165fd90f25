/*
 * merge_cost.c - what merging partial states costs, by their size (make
 * bench, bench/mpi.sh; the model of doc/mpi.md).
 *
 * For N flows between H = N/8 (at least 16) hosts, 8 packets per flow
 * spread over 10 s: two parts of one job (each with all the hosts and
 * pairs, and half the flows: each flow's packets at one part) are built;
 * then timed, best of R: serializing one (dmls_stats_serialize), reading
 * it back (dmls_stats_deserialize), merging it into the other
 * (dmls_stats_merge).  One line per N: blob bytes and the three times.
 * Also the one pass's own cost per packet on the same packets (add).
 *
 *   build/bench_merge [N...]      (default 1000 10000 100000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dmlscope/serial.h"
#include "dmlscope/stats.h"

#define T0 1700000000000000000LL
#define SPAN_NS 10000000000LL

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void host(uint8_t a[16], uint32_t h)
{
	memset(a, 0, 16);
	a[10] = a[11] = 0xff;
	a[12] = 198, a[13] = (uint8_t)(18 + (h >> 16)), a[14] = (uint8_t)(h >> 8), a[15] = (uint8_t)h;
}

/* Packets k of flow f in time order over the span: one part holds the
 * flows of its parity. */
static double build(dmls_stats *st, size_t nflows, int part, uint64_t *npk)
{
	dmls_stats_limits lim = {.max_hosts = 1 << 20, .max_flows = 1 << 22, .mergeable = 1};
	dmls_stats_init_limits(st, 0, &lim);
	dmls_stats_set_origin(st, T0);
	uint32_t nh = (uint32_t)(nflows / 8 < 16 ? 16 : nflows / 8);
	dmls_pkt p;
	memset(&p, 0, sizeof(p));
	p.af = 4, p.proto = 6, p.wire_bytes = 1514, p.ip_bytes = 1500, p.payload_bytes = 1448;
	double t = now();
	*npk = 0;
	for (int k = 0; k < 8; k++)
		for (size_t f = (size_t)part; f < nflows; f += 2) {
			host(p.src, (uint32_t)(f % nh));
			host(p.dst, (uint32_t)((f / nh + 1 + f) % nh));
			p.sport = (uint16_t)(32768 + f / nh), p.dport = 29400;
			p.ts_ns = T0 + (int64_t)((k * nflows + f) * (SPAN_NS / 8 / (int64_t)nflows));
			p.tcp_seq = (uint32_t)(k * 1448);
			if (dmls_stats_add(st, &p))
				return -1;
			(*npk)++;
		}
	return now() - t;
}

static void one(size_t nflows, int reps)
{
	dmls_stats a, b;
	uint64_t na, nb;
	double ta = build(&a, nflows, 0, &na), tb = build(&b, nflows, 1, &nb);
	double best_s = 1e9, best_d = 1e9, best_m = 1e9;
	size_t len = 0;
	dmls_error err;
	for (int r = 0; r < reps; r++) {
		uint8_t *buf;
		double t = now();
		if (dmls_stats_serialize(&b, &buf, &len, &err))
			exit(1);
		double ts = now() - t;
		dmls_stats back, dst;
		dmls_stats_limits lim = {.max_hosts = 1 << 20, .max_flows = 1 << 22, .mergeable = 1};
		t = now();
		if (dmls_stats_deserialize(&back, buf, len, &lim, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			exit(1);
		}
		double td = now() - t;
		/* a copy of a to merge into, so every repetition merges the same */
		uint8_t *abuf;
		size_t alen;
		dmls_stats_serialize(&a, &abuf, &alen, &err);
		dmls_stats_deserialize(&dst, abuf, alen, &lim, &err);
		t = now();
		if (dmls_stats_merge(&dst, &back))
			exit(1);
		double tm = now() - t;
		best_s = ts < best_s ? ts : best_s;
		best_d = td < best_d ? td : best_d;
		best_m = tm < best_m ? tm : best_m;
		free(buf);
		free(abuf);
		dmls_stats_release(&back);
		dmls_stats_release(&dst);
	}
	printf("%8zu flows %6zu hosts %8zu pairs  state %9.2f MB  serialize %8.2f ms  "
	       "deserialize %8.2f ms  merge %8.2f ms  one pass %5.0f ns/packet\n",
	       nflows, b.nhosts, b.npairs, (double)len / 1e6, best_s * 1e3, best_d * 1e3,
	       best_m * 1e3, (ta + tb) / (double)(na + nb) * 1e9);
	dmls_stats_release(&a);
	dmls_stats_release(&b);
}

int main(int argc, char **argv)
{
	static const size_t def[] = {1000, 10000, 100000};
	if (argc < 2)
		for (size_t i = 0; i < sizeof(def) / sizeof(*def); i++)
			one(def[i], 3);
	for (int i = 1; i < argc; i++)
		one((size_t)strtoull(argv[i], NULL, 10), 3);
	return 0;
}
