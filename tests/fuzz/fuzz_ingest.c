/*
 * fuzz_ingest.c - libFuzzer target for the ingest path and what follows it:
 * the capture reader (pcap, pcapng) on the whole input, the decoder on every
 * record it yields, the decoder alone on the raw input under each supported
 * link type (so packet bytes are fuzzed even when no file header survives),
 * and the whole pipeline on the input cut in two captures "of one job":
 * merge on time, dedup across the two, the sinks with tiny table caps (so
 * folding runs), then the analysis, its result and the JSON document.
 *
 *   CC=clang cmake -S . -B build-fuzz -DDMLS_FUZZ=ON -DDMLS_SANITIZE=ON
 *   cmake --build build-fuzz --target fuzz_ingest
 *   build-fuzz/fuzz_ingest -max_total_time=60 CORPUS_DIR SEED_DIR
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/analysis.h"
#include "dmlscope/capture.h"
#include "dmlscope/decode.h"
#include "dmlscope/input.h"
#include "dmlscope/render.h"
#include "dmlscope/result.h"
#include "dmlscope/stats.h"

static const int linktypes[] = {0, 1, 12, 14, 101, 108, 113, 197, 228, 229, 239, 242, 258, 276};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two captures from one input: the cut is the position of the second
 * capture's magic number, when there is one past the start. */
static void pipeline(const uint8_t *data, size_t size)
{
	size_t cut = size;
	for (size_t i = 24; i + 4 <= size && cut == size; i++)
		if ((data[i] == 0xd4 && data[i + 1] == 0xc3 && data[i + 2] == 0xb2) ||
		    (data[i] == 0x0a && data[i + 1] == 0x0d && data[i + 2] == 0x0d && data[i + 3] == 0x0a))
			cut = i;
	dmls_source sc[2] = {{"a", NULL, data, cut}, {"b", NULL, data + cut, size - cut}};
	dmls_input *in;
	dmls_error err;
	if (dmls_input_open_sources(&in, sc, cut < size ? 2 : 1, NULL, &err))
		return;
	dmls_stats st;
	dmls_stats_limits lim = {.max_hosts = 8, .max_flows = 16};
	dmls_stats_init_limits(&st, 0, &lim);
	dmls_pkt p;
	while (dmls_input_next(in, &p) == 1 && dmls_stats_add(&st, &p) == 0)
		;
	dmls_input_free(in);
	dmls_analysis *a = NULL;
	if (dmls_stats_finish(&st) == 0 && dmls_analysis_run(&a, &st, NULL, &err) != 0)
		a = NULL;
	dmls_result res;
	if (dmls_result_init_stats(&res, &st, a) == DMLS_OK)
		json_decref(dmls_render_json(&res));
	dmls_result_release(&res);
	if (a)
		dmls_analysis_free(a);
	dmls_stats_release(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dmls_reader *r;
	dmls_error err;
	dmls_pkt pkt;
	if (dmls_reader_open_buffer(&r, data, size, "fuzz", &err) == 0) {
		dmls_record rec;
		while (dmls_reader_next(r, &rec, &err) == 1) {
			/* a tight copy, so ASan sees any read past caplen */
			uint8_t *copy = malloc(rec.caplen ? rec.caplen : 1);
			memcpy(copy, rec.data, rec.caplen);
			(void)dmls_decode(rec.linktype, copy, rec.caplen, rec.origlen, &pkt);
			free(copy);
		}
		dmls_reader_free(r);
	}
	pipeline(data, size);
	if (size >= 1 && size <= 512) {
		uint8_t *copy = malloc(size - 1 ? size - 1 : 1);
		memcpy(copy, data + 1, size - 1);
		int lt = linktypes[data[0] % (sizeof(linktypes) / sizeof(linktypes[0]))];
		uint32_t origlen = (uint32_t)(size - 1) + (data[0] >> 4) * 1000u;
		(void)dmls_decode(lt, copy, (uint32_t)(size - 1), origlen, &pkt);
		free(copy);
	}
	return 0;
}
