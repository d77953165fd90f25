/*
 * tcp_seg.h - build one generated Ethernet/IPv4/TCP frame (tcp_seg.c).
 */
#ifndef DMLS_GEN_TCP_SEG_H
#define DMLS_GEN_TCP_SEG_H

#include <stddef.h>
#include <stdint.h>

#include "dmlscope/gen.h"

#define GEN_TCP_FIN 0x01
#define GEN_TCP_SYN 0x02
#define GEN_TCP_PSH 0x08
#define GEN_TCP_ACK 0x10
#define GEN_FRAME_MAX (14 + 20 + 40 + DMLS_GEN_MSS)

typedef struct gen_tcp_pkt {
	uint32_t src, dst;     /* host indexes */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint32_t tsval, tsecr;
	uint32_t payload;      /* bytes, <= DMLS_GEN_MSS */
	uint16_t ip_id, window;
	uint8_t flags;
} gen_tcp_pkt;

/* Write the frame of pk into buf (GEN_FRAME_MAX bytes); returns its
 * length.  The payload (zeros) is written only up to byte keep of the
 * frame: a capture cut at the snap length never reads the rest. */
size_t gen_tcp_frame(uint8_t *buf, const gen_tcp_pkt *pk, size_t keep);

#endif
