/*
 * fuzz_ingest.c - libFuzzer target for the ingest path: the capture reader
 * (pcap, pcapng) on the whole input, the decoder on every record it yields,
 * and the decoder alone on the raw input under each supported link type
 * (so packet bytes are fuzzed even when no file header survives).
 *
 *   CC=clang cmake -S . -B build-fuzz -DDMLS_FUZZ=ON -DDMLS_SANITIZE=ON
 *   cmake --build build-fuzz --target fuzz_ingest
 *   build-fuzz/fuzz_ingest -max_total_time=60 CORPUS_DIR SEED_DIR
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmlscope/capture.h"
#include "dmlscope/decode.h"

static const int linktypes[] = {0, 1, 12, 14, 101, 108, 113, 228, 229, 276};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
