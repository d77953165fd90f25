/*
 * cursor.h - bounds-checked, endian-aware reads from untrusted packet bytes.
 *
 * After tcpdump's extract.h (GET_BE_U_2 and friends): packet bytes are read
 * only through these accessors, which check the offset against the captured
 * length first and report failure instead of reading past the end.  Every
 * offset is relative to the start of the record's data; the cursor itself
 * is immutable, so a decoder passes offsets around, not pointers.
 *
 *   dmls_cursor c = { data, caplen };
 *   uint16_t type;
 *   if (!dmls_cur_be16(&c, 12, &type)) return DMLS_DEC_TRUNCATED;
 */
#ifndef DMLS_DECODE_CURSOR_H
#define DMLS_DECODE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct dmls_cursor {
	const uint8_t *p;
	size_t len;
} dmls_cursor;

/* True if n bytes at off are present. */
static inline bool dmls_cur_has(const dmls_cursor *c, size_t off, size_t n)
{
	return off <= c->len && n <= c->len - off;
}

static inline bool dmls_cur_u8(const dmls_cursor *c, size_t off, uint8_t *v)
{
	if (!dmls_cur_has(c, off, 1))
		return false;
	*v = c->p[off];
	return true;
}

static inline bool dmls_cur_be16(const dmls_cursor *c, size_t off, uint16_t *v)
{
	if (!dmls_cur_has(c, off, 2))
		return false;
	*v = (uint16_t)(c->p[off] << 8 | c->p[off + 1]);
	return true;
}

static inline bool dmls_cur_le16(const dmls_cursor *c, size_t off, uint16_t *v)
{
	if (!dmls_cur_has(c, off, 2))
		return false;
	*v = (uint16_t)(c->p[off] | c->p[off + 1] << 8);
	return true;
}

static inline bool dmls_cur_be32(const dmls_cursor *c, size_t off, uint32_t *v)
{
	if (!dmls_cur_has(c, off, 4))
		return false;
	const uint8_t *q = c->p + off;
	*v = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
	return true;
}

static inline bool dmls_cur_le32(const dmls_cursor *c, size_t off, uint32_t *v)
{
	if (!dmls_cur_has(c, off, 4))
		return false;
	const uint8_t *q = c->p + off;
	*v = (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 | (uint32_t)q[1] << 8 | q[0];
	return true;
}

/* Copy n bytes at off into dst. */
static inline bool dmls_cur_copy(const dmls_cursor *c, size_t off, void *dst, size_t n)
{
	if (!dmls_cur_has(c, off, n))
		return false;
	memcpy(dst, c->p + off, n);
	return true;
}

#endif
