/* addr.c - text form of the 16-byte addresses dmlscope keys hosts by. */
#include "dmlscope/decode.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static const uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool dmls_addr_is_v4(const uint8_t addr[16])
{
	return memcmp(addr, v4_prefix, sizeof(v4_prefix)) == 0;
}

bool dmls_addr_is_local(const uint8_t a[16])
{
	static const uint8_t zero[16] = {0};
	if (dmls_addr_is_v4(a))
		return a[12] >= 224 || (a[12] == 169 && a[13] == 254) || /* multicast, broadcast */
		       (a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] == 0);
	return !memcmp(a, zero, 16) || a[0] == 0xff || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80);
}

void dmls_addr_format(const uint8_t addr[16], char *buf, unsigned len)
{
	if (dmls_addr_is_v4(addr)) {
		snprintf(buf, len, "%u.%u.%u.%u", addr[12], addr[13], addr[14], addr[15]);
		return;
	}
	/* inet_ntop follows RFC 5952 (lowercase, longest zero run compressed) */
	if (!inet_ntop(AF_INET6, addr, buf, len) && len)
		buf[0] = '\0';
}
