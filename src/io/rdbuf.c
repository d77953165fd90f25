/*
 * rdbuf.c - the readers' window over a buffer or a stream (capture_int.h).
 *
 * Why not libpcap for files: it reads them in small read() calls and cannot
 * read a pcapng whose interfaces differ in link type or snap length (libpcap
 * issues 1078, 1252, 1321).  The window is the caller's whole buffer, or is
 * refilled from a FILE * by 1 MiB freads; records are handed out as
 * pointers into it.  The lowest layer of the reader: the format halves
 * (pcap.c, pcapng.c) read through it, and it calls neither.
 */
#include "io/capture_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int64_t dmls_rd_fill(dmls_reader *r, size_t n, dmls_error *err)
{
	size_t have = r->end - r->start;
	if (have >= n || !r->fp || r->eof)
		return (int64_t)have;
	if (n > r->cap) {
		size_t ncap = r->cap;
		while (ncap < n)
			ncap *= 2;
		uint8_t *nb = malloc(ncap);
		if (!nb)
			return dmls_fail(err, DMLS_ENOMEM, "'%s': out of memory", r->name), -1;
		memcpy(nb, r->buf + r->start, have);
		free(r->own_buf);
		r->own_buf = nb;
		r->cap = ncap;
	} else if (r->start > 0) {
		memmove(r->own_buf, r->own_buf + r->start, have);
	}
	r->buf = r->own_buf;
	r->base += r->start;
	r->start = 0;
	r->end = have;
	while (r->end < n && !r->eof) {
		size_t want = r->cap - r->end;
		size_t got = fread(r->own_buf + r->end, 1, want, r->fp);
		r->end += got;
		if (got < want) {
			if (ferror(r->fp))
				return dmls_fail(err, DMLS_EIO, "'%s': read error: %s", r->name,
						 strerror(errno)), -1;
			r->eof = true;
		}
	}
	return (int64_t)(r->end - r->start);
}

int dmls_rd_skip(dmls_reader *r, uint64_t n, dmls_error *err)
{
	while (n > 0) {
		size_t have = r->end - r->start;
		if (have == 0) {
			int64_t got = dmls_rd_fill(r, n < r->cap ? (size_t)n : r->cap, err);
			if (got < 0)
				return -1;
			if (got == 0)
				return dmls_fail(err, DMLS_EBAD, "'%s': truncated block at byte %llu",
						 r->name, (unsigned long long)dmls_rd_pos(r));
			have = (size_t)got;
		}
		size_t k = have < n ? have : (size_t)n;
		r->start += k;
		n -= k;
	}
	return 0;
}
