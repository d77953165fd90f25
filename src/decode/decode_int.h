/*
 * decode_int.h - between the link-layer and the IP halves of the decoder
 * (src/decode/link.c, src/decode/ip.c).  Not a public API.
 */
#ifndef DMLS_DECODE_INT_H
#define DMLS_DECODE_INT_H

#include "decode/cursor.h"
#include "dmlscope/decode.h"

/* Decode the IP packet at offset l3 of c (version from its first nibble;
 * want is 4, 6, or 0 for either).  origlen is the record's original length;
 * l3 is the link header length.  *l4 is set to the offset of the header
 * after the IP headers (0 for a non-first fragment, which has none): where a
 * tunnel's own header starts.  Returns a dmls_decode_status. */
int dmls_decode_ip(const dmls_cursor *c, size_t l3, int want, uint32_t origlen,
		   dmls_pkt *out, size_t *l4);

#endif
