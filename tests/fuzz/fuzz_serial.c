/*
 * fuzz_serial.c - libFuzzer target for reading a serialized state
 * (serial.h): what one MPI rank receives from another.  The input is
 * either a blob as it is, or a patch over a valid blob (bytes XORed into
 * its body at an offset, the body cut short, the check made right again
 * so the structure itself is tested).  A blob that reads is merged into a
 * state of the same origin, finished, analyzed and rendered: whatever
 * passes the checks must be safe to use.
 *
 *   CC=clang cmake -S . -B build-fuzz -DDMLS_FUZZ=ON -DDMLS_SANITIZE=ON
 *   cmake --build build-fuzz --target fuzz_serial
 *   build-fuzz/fuzz_serial -max_total_time=60
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"
#include "dmlscope/render.h"
#include "dmlscope/result.h"
#include "dmlscope/serial.h"
#include "dmlscope/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define T0 1000000000LL

/* A small mergeable state: two TCP flows, one RoCEv2 flow, an ICMP packet,
 * over a few milliseconds. */
static int make_good(uint8_t **buf, size_t *len)
{
	dmls_stats_limits lim = {.mergeable = 1};
	dmls_stats st;
	dmls_stats_init_limits(&st, 0, &lim);
	dmls_stats_set_origin(&st, T0);
	for (int i = 0; i < 40; i++) {
		dmls_pkt p;
		memset(&p, 0, sizeof(p));
		p.ts_ns = T0 + i * 250000LL;
		p.af = 4;
		p.proto = i % 10 == 9 ? 1 : i % 3 == 2 ? 17 : 6;
		p.src[10] = p.src[11] = p.dst[10] = p.dst[11] = 0xff;
		p.src[12] = p.dst[12] = 198, p.src[13] = p.dst[13] = 18;
		p.src[15] = (uint8_t)(1 + i % 2), p.dst[15] = (uint8_t)(2 - i % 2 + 1);
		p.sport = (uint16_t)(40000 + i % 3), p.dport = 29400;
		p.wire_bytes = 1514, p.ip_bytes = 1500, p.payload_bytes = 1448;
		p.tcp_seq = (uint32_t)(i * 1448);
		if (p.proto == 17) { /* RoCEv2 writes: the flow keeps a queue pair */
			p.dport = DMLS_ROCE_PORT, p.roce = true, p.bth_opcode = 0x0a;
			p.bth_qp = 0x123, p.bth_psn = (uint32_t)i;
		}
		dmls_stats_add(&st, &p);
	}
	dmls_error err;
	int rc = dmls_stats_serialize(&st, buf, len, &err);
	dmls_stats_release(&st);
	return rc;
}

static void use(const dmls_stats *got)
{
	dmls_stats_limits lim = {.mergeable = 1};
	dmls_stats st;
	dmls_stats_init_limits(&st, 0, &lim);
	dmls_stats_set_origin(&st, got->t0_ns);
	dmls_error err;
	dmls_analysis *a = NULL;
	if (dmls_stats_merge(&st, got) == 0 && dmls_stats_finish(&st) == 0 &&
	    dmls_analysis_run(&a, &st, NULL, &err) != 0)
		a = NULL;
	dmls_result res;
	if (st.finished && dmls_result_init_stats(&res, &st, a) == DMLS_OK)
		json_decref(dmls_render_json(&res));
	if (st.finished)
		dmls_result_release(&res);
	if (a)
		dmls_analysis_free(a);
	dmls_stats_release(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *good;
	static size_t good_len;
	if (!good && make_good(&good, &good_len))
		abort();
	uint8_t *blob = NULL;
	size_t len = size;
	if (size < 4 || data[0] % 4 == 0) { /* a blob as it is */
		blob = malloc(size ? size : 1);
		memcpy(blob, data, size);
	} else { /* a patch: offset, cut, then bytes XORed in */
		size_t body = good_len - 32;
		size_t off = ((size_t)data[1] << 8 | data[2]) % body;
		size_t cut = data[0] % 4 == 2 ? data[3] % (body - off + 1) : 0;
		len = good_len - cut;
		blob = malloc(len);
		memcpy(blob, good, 24 + off);
		memcpy(blob + 24 + off, good + 24 + off + cut, good_len - 24 - off - cut);
		for (size_t i = 4; i < size && 24 + off + (i - 4) < len - 8; i++)
			blob[24 + off + (i - 4)] ^= data[i];
		uint64_t b = len - 32, check = dmls_serial_check(blob + 24, b);
		for (int i = 0; i < 8; i++)
			blob[16 + i] = (uint8_t)(b >> (8 * i)), blob[len - 8 + i] = (uint8_t)(check >> (8 * i));
	}
	dmls_stats st;
	dmls_error err;
	dmls_stats_limits lim = {.mergeable = 1};
	if (dmls_stats_deserialize(&st, blob, len, &lim, &err) == DMLS_OK)
		use(&st);
	dmls_stats_release(&st);
	free(blob);
	return 0;
}
