/*
 * reader.c - our own capture reader: open, probe the format, hand out records.
 *
 * After libpcap's savefile.c: a table of formats, each with a probe of the
 * first four bytes, an open and a next; the halves (pcap.c, pcapng.c) never
 * call each other or this file, and read through the window (rdbuf.c).
 * A reader that failed stays failed.
 */
#include "io/capture_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


static const dmls_format formats[] = {
	{"pcap", dmls_pcap_check, dmls_pcap_open, dmls_pcap_next, dmls_pcap_linktype},
	{"pcapng", dmls_ng_check, dmls_ng_open, dmls_ng_next, dmls_ng_linktype},
};

static int probe(dmls_reader *r, dmls_error *err)
{
	int64_t have = dmls_rd_fill(r, 4, err);
	if (have < 0)
		return -1;
	if (have == 0 && r->zcut)
		return dmls_fail(err, DMLS_EBAD,
				 "'%s': %s data cut short at byte %llu: nothing decompressed",
				 r->name, dmls_reader_compression(r),
				 (unsigned long long)dmls_reader_pos(r));
	if (have == 0 && dmls_reader_compression(r))
		return dmls_fail(err, DMLS_EBAD, "'%s': empty once decompressed (%s)", r->name,
				 dmls_reader_compression(r));
	if (have == 0)
		return dmls_fail(err, DMLS_EBAD, "'%s': empty file", r->name);
	if (have < 4)
		return dmls_fail(err, DMLS_EBAD, "'%s': not a capture file (too short)", r->name);
	const uint8_t *p = r->buf + r->start;
	uint32_t magic = dmls_rd32(p, false);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].check(magic)) {
			r->fmt = &formats[i];
			return formats[i].open(r, magic, err);
		}
	static const struct {
		uint8_t magic[4];
		size_t len;
		const char *what;
	} packed[] = {{{'B', 'Z', 'h'}, 3, "bzip2: decompress it first (bzip2 -d)"},
		      {{0x02, 0x21, 0x4c, 0x18}, 4, "lz4's legacy format: decompress it first (lz4 -d)"},
		      {{'P', 'K', 3, 4}, 4, "zip: extract the capture first"}};
	for (size_t i = 0; i < sizeof(packed) / sizeof(packed[0]); i++)
		if (!memcmp(p, packed[i].magic, packed[i].len))
			return dmls_fail(err, DMLS_EBAD, "'%s': compressed with %s", r->name,
					 packed[i].what);
	return dmls_fail(err, DMLS_EBAD,
			 "'%s': not a pcap or pcapng capture (magic %02x%02x%02x%02x)", r->name,
			 p[0], p[1], p[2], p[3]);
}

static dmls_reader *reader_new(const char *name, dmls_error *err)
{
	dmls_reader *r = calloc(1, sizeof(*r));
	if (r)
		r->name = strdup(name ? name : "(buffer)");
	if (!r || !r->name) {
		free(r);
		dmls_fail(err, DMLS_ENOMEM, "out of memory");
		return NULL;
	}
	r->linktype = -1;
	return r;
}

static int finish_open(dmls_reader **out, dmls_reader *r, dmls_error *err)
{
	if ((r->fp && dmls_rd_gzip_start(r, err)) || probe(r, err)) {
		dmls_reader_free(r);
		*out = NULL;
		return err ? err->status : DMLS_EBAD;
	}
	*out = r;
	return DMLS_OK;
}

int dmls_reader_open_buffer(dmls_reader **out, const uint8_t *buf, size_t len,
			    const char *name, dmls_error *err)
{
	if (dmls_rd_is_compressed(buf, len)) { /* read as a stream */
		FILE *fp = fmemopen((void *)buf, len, "rb");
		if (!fp)
			return dmls_fail(err, DMLS_ENOMEM, "out of memory");
		int rc = dmls_reader_open_stream(out, fp, name, err);
		if (rc) {
			fclose(fp);
		} else {
			(*out)->mem_fp = fp;
			(*out)->size = len;
		}
		return rc;
	}
	dmls_reader *r = reader_new(name, err);
	if (!r)
		return DMLS_EIO;
	r->buf = buf;
	r->end = len;
	r->eof = true;
	r->size = len;
	return finish_open(out, r, err);
}

int dmls_reader_open_stream(dmls_reader **out, FILE *fp, const char *name,
			    dmls_error *err)
{
	dmls_reader *r = reader_new(name, err);
	if (!r)
		return DMLS_EIO;
	r->fp = fp;
	r->cap = DMLS_READ_CHUNK;
	r->own_buf = malloc(r->cap);
	if (!r->own_buf) {
		dmls_reader_free(r);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	r->buf = r->own_buf;
	return finish_open(out, r, err);
}

int dmls_reader_open_file(dmls_reader **out, const char *path, dmls_error *err)
{
	*out = NULL;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return dmls_fail(err, DMLS_EIO, "'%s': cannot open: %s", path, strerror(errno));
	struct stat stb;
	int have_stat = fstat(fileno(fp), &stb) == 0;
	if (have_stat && S_ISDIR(stb.st_mode)) {
		fclose(fp);
		return dmls_fail(err, DMLS_EIO, "'%s': is a directory", path);
	}
	setvbuf(fp, NULL, _IONBF, 0); /* our own 64 KiB reads: no second copy */
	int rc = dmls_reader_open_stream(out, fp, path, err);
	if (rc) {
		fclose(fp);
		return rc;
	}
	(*out)->own_fp = true;
	if (have_stat && S_ISREG(stb.st_mode))
		(*out)->size = (uint64_t)stb.st_size;
	return DMLS_OK;
}

int dmls_reader_next(dmls_reader *r, dmls_record *rec, dmls_error *err)
{
	if (r->failed)
		return dmls_fail(err, DMLS_EBAD, "'%s': read after an error", r->name), -1;
	int rc = r->fmt->next(r, rec, err);
	if (rc < 0)
		r->failed = true;
	return rc;
}

const char *dmls_reader_format(const dmls_reader *r)
{
	return r->fmt ? r->fmt->name : "pcap";
}

const char *dmls_reader_compression(const dmls_reader *r)
{
	return r->z ? "gzip" : r->xz ? "xz" : r->zst ? "zstd" : r->lz4 ? "lz4" : NULL;
}

int dmls_reader_linktype(const dmls_reader *r)
{
	return r->fmt ? r->fmt->linktype(r) : -1;
}

uint32_t dmls_reader_interfaces(const dmls_reader *r)
{
	return r->nifaces > 1 ? r->nifaces : 1;
}

const char *dmls_reader_name(const dmls_reader *r)
{
	return r->name;
}

uint64_t dmls_reader_pos(const dmls_reader *r)
{
	return dmls_rd_file_pos(r);
}

uint64_t dmls_reader_size(const dmls_reader *r)
{
	return r->size;
}

void dmls_reader_free(dmls_reader *r)
{
	if (!r)
		return;
	if (r->own_fp && r->fp)
		fclose(r->fp);
	dmls_rd_gzip_free(r);
	free(r->own_buf);
	free(r->ifaces);
	free(r->name);
	free(r);
}
