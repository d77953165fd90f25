/*
 * test_reader.c - the capture reader on hand-built files: pcap in micro-
 * and nanoseconds and both byte orders, the modified-pcap magic, pcapng
 * with two interfaces of different link types and timestamp resolutions,
 * SPB/legacy PB, skipped blocks, two sections of opposite byte order;
 * damage (truncated last record, absurd caplen, corrupt blocks) delivers
 * the good records first; empty and non-capture files; the buffered FILE *
 * path across the 1 MiB refill boundary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "dmlscope/capture.h"
#include "ingest_util.h"

static const uint8_t PKT[60] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

/* Read all records of d; returns the count, *rc the last reader status. */
static int read_all(const dbuf *d, dmls_record *recs, int max, int *rc, dmls_error *err)
{
	dmls_reader *r;
	if (dmls_reader_open_buffer(&r, d->b, d->n, "t.pcap", err))
		return -1;
	int n = 0;
	dmls_record rec;
	while ((*rc = dmls_reader_next(r, &rec, err)) == 1) {
		if (n < max)
			recs[n] = rec, recs[n].data = NULL;
		n++;
	}
	dmls_reader_free(r);
	return n;
}

static void test_pcap_variants(void **st)
{
	for (int v = 0; v < 4; v++) {
		dbuf d = {.be = v & 1};
		bool ns = v & 2;
		pcap_hdr(&d, ns ? 0xa1b23c4d : 0xa1b2c3d4, 113 | 0x04000000 /* FCS bits */);
		pcap_rec(&d, 1700000000, 5, PKT, 60, 1514);
		pcap_rec(&d, 1700000001, 999, PKT, 10, 10);
		pcap_rec(&d, 1700000002, 0, PKT, 0, 64);
		dmls_reader *r;
		dmls_error err;
		assert_int_equal(dmls_reader_open_buffer(&r, d.b, d.n, "x.pcap", &err), 0);
		assert_string_equal(dmls_reader_format(r), "pcap");
		assert_int_equal(dmls_reader_linktype(r), 113);
		dmls_record rec;
		assert_int_equal(dmls_reader_next(r, &rec, &err), 1);
		assert_int_equal(rec.ts_ns, 1700000000LL * 1000000000 + (ns ? 5 : 5000));
		assert_int_equal(rec.caplen, 60);
		assert_int_equal(rec.origlen, 1514);
		assert_int_equal(rec.linktype, 113);
		assert_memory_equal(rec.data, PKT, 60);
		assert_int_equal(dmls_reader_next(r, &rec, &err), 1);
		assert_int_equal(rec.ts_ns, 1700000001LL * 1000000000 + (ns ? 999 : 999000));
		assert_int_equal(dmls_reader_next(r, &rec, &err), 1);
		assert_int_equal(rec.caplen, 0);
		assert_int_equal(dmls_reader_next(r, &rec, &err), 0);
		dmls_reader_free(r);
		dbuf_free(&d);
	}
}

static void test_pcap_modified_magic(void **st)
{
	dbuf d = {0};
	pcap_hdr(&d, 0xa1b2cd34, 1);
	pcap_rec(&d, 10, 20, NULL, 0, 0);
	put(&d, NULL, 8); /* ifindex, protocol, pkt_type, pad: after the usual 16 */
	dmls_record recs[2];
	int rc;
	dmls_error err;
	assert_int_equal(read_all(&d, recs, 2, &rc, &err), 1);
	assert_int_equal(rc, 0);
	assert_int_equal(recs[0].ts_ns, 10LL * 1000000000 + 20000);
	dbuf_free(&d);
}

static void test_pcap_damage(void **st)
{
	dbuf d = {0};
	dmls_record recs[4];
	dmls_error err;
	int rc;
	pcap_hdr(&d, 0xa1b2c3d4, 1);
	pcap_rec(&d, 1, 0, PKT, 60, 60);
	pcap_rec(&d, 2, 0, PKT, 60, 60);
	size_t good = d.n;
	pcap_rec(&d, 3, 0, PKT, 60, 60);
	/* last record cut inside its data */
	d.n -= 7;
	assert_int_equal(read_all(&d, recs, 4, &rc, &err), 2);
	assert_int_equal(rc, -1);
	assert_int_equal(err.status, DMLS_EBAD);
	assert_string_equal(err.msg, "'t.pcap': truncated record 3 at byte 176");
	/* cut inside its header */
	d.n = good + 5;
	assert_int_equal(read_all(&d, recs, 4, &rc, &err), 2);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.msg, "truncated record 3"));
	/* absurd caplen */
	d.n = good;
	pcap_rec(&d, 3, 0, NULL, 0, 0);
	d.b[good + 8] = 0, d.b[good + 9] = 0, d.b[good + 10] = 0x10, d.b[good + 11] = 0;
	assert_int_equal(read_all(&d, recs, 4, &rc, &err), 2);
	assert_int_equal(rc, -1);
	assert_string_equal(err.msg, "'t.pcap': absurd caplen 1048576 in record 3 at byte 176");
	/* corrupt header */
	d.b[4] = 9;
	assert_int_equal(read_all(&d, recs, 4, &rc, &err), -1);
	assert_int_equal(err.status, DMLS_EBAD);
	assert_non_null(strstr(err.msg, "corrupt pcap header"));
	d.n = 20;
	assert_int_equal(read_all(&d, recs, 4, &rc, &err), -1);
	assert_non_null(strstr(err.msg, "truncated pcap file header"));
	dbuf_free(&d);
}

static void test_empty_and_garbage(void **st)
{
	dbuf d = {0};
	dmls_record recs[1];
	dmls_error err;
	int rc;
	put(&d, NULL, 0);
	assert_int_equal(read_all(&d, recs, 1, &rc, &err), -1);
	assert_int_equal(err.status, DMLS_EBAD);
	assert_string_equal(err.msg, "'t.pcap': empty file");
	put(&d, "hello, world\n", 13);
	assert_int_equal(read_all(&d, recs, 1, &rc, &err), -1);
	assert_int_equal(err.status, DMLS_EBAD);
	assert_string_equal(err.msg, "'t.pcap': not a pcap or pcapng capture (magic 68656c6c)");
	d.n = 2;
	assert_int_equal(read_all(&d, recs, 1, &rc, &err), -1);
	assert_non_null(strstr(err.msg, "not a capture file"));
	dmls_reader *r;
	assert_int_equal(dmls_reader_open_file(&r, "/nonexistent/x.pcap", &err), DMLS_EIO);
	assert_non_null(strstr(err.msg, "'/nonexistent/x.pcap': cannot open"));
	assert_int_equal(dmls_reader_open_file(&r, "/tmp", &err), DMLS_EIO);
	assert_string_equal(err.msg, "'/tmp': is a directory");
	dbuf_free(&d);
}

/* Section 1 (this byte order): Ethernet at microseconds, SLL2 at
 * nanoseconds; a skipped block; EPB, SPB, PB. */
static void ng_section(dbuf *d)
{
	ng_shb(d);
	ng_idb(d, 1, 96, -1);
	ng_idb(d, 276, 0, 9);
	ng_epb(d, 0, 1700000000123456ULL, PKT, 60, 1514);
	/* an Interface Statistics Block: skipped */
	put_f32(d, 5), put_f32(d, 24), put_f32(d, 0), put_f32(d, 0), put_f32(d, 0), put_f32(d, 24);
	ng_epb(d, 1, 1700000000123456789ULL, PKT, 13, 70);
	/* SPB: interface 0, origlen 200, caplen = min(held, snaplen 96) */
	put_f32(d, 3), put_f32(d, 16 + 100), put_f32(d, 200), put(d, PKT, 60), put(d, NULL, 40),
		put_f32(d, 116);
	/* legacy PB on interface 1 */
	put_f32(d, 2), put_f32(d, 32 + 4), put_f16(d, 1), put_f16(d, 0);
	put_f32(d, 0), put_f32(d, 1000), put_f32(d, 3), put_f32(d, 3), put(d, PKT, 4), put_f32(d, 36);
}

static void check_ng_section(const dmls_record *rec)
{
	assert_int_equal(rec[0].ts_ns, 1700000000123456000LL);
	assert_int_equal(rec[0].linktype, 1);
	assert_int_equal(rec[0].iface, 0);
	assert_int_equal(rec[0].caplen, 60);
	assert_int_equal(rec[0].origlen, 1514);
	assert_int_equal(rec[1].ts_ns, 1700000000123456789LL);
	assert_int_equal(rec[1].linktype, 276);
	assert_int_equal(rec[1].iface, 1);
	assert_int_equal(rec[1].caplen, 13);
	assert_int_equal(rec[2].linktype, 1);
	assert_int_equal(rec[2].caplen, 96);
	assert_int_equal(rec[2].origlen, 200);
	assert_int_equal(rec[3].linktype, 276);
	assert_int_equal(rec[3].ts_ns, 1000);
	assert_int_equal(rec[3].caplen, 3);
}

static void test_pcapng(void **st)
{
	dbuf d = {0};
	ng_section(&d);
	d.be = 1; /* a second section in the other byte order */
	ng_section(&d);
	ng_shb(&d); /* a third: power-of-two resolution (2^-10 s) */
	ng_idb(&d, 101, 0, 0x80 | 10);
	ng_epb(&d, 0, 3 * 1024 + 512, PKT, 20, 20);
	dmls_reader *r;
	dmls_error err;
	assert_int_equal(dmls_reader_open_buffer(&r, d.b, d.n, "t.pcapng", &err), 0);
	assert_string_equal(dmls_reader_format(r), "pcapng");
	assert_int_equal(dmls_reader_linktype(r), 1);
	dmls_record rec[9];
	int n = 0, rc;
	while (n < 9 && (rc = dmls_reader_next(r, &rec[n], &err)) == 1)
		n++;
	assert_int_equal(n, 9);
	assert_int_equal(dmls_reader_next(r, &rec[0], &err), 0);
	check_ng_section(rec);
	check_ng_section(rec + 4);
	assert_int_equal(rec[8].linktype, 101);
	assert_int_equal(rec[8].ts_ns, 3500000000LL);
	dmls_reader_free(r);
	dbuf_free(&d);
}

static void test_pcapng_damage(void **st)
{
	dbuf d = {0};
	dmls_record recs[8];
	dmls_error err;
	int rc;
	ng_shb(&d);
	ng_idb(&d, 1, 0, -1);
	ng_epb(&d, 0, 1, PKT, 60, 60);
	size_t good = d.n;
	ng_epb(&d, 0, 2, PKT, 60, 60);
	d.n -= 10;
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 1);
	assert_int_equal(rc, -1);
	assert_string_equal(err.msg, "'t.pcap': truncated record 2 at byte 140");
	/* unknown interface */
	d.n = good;
	ng_epb(&d, 5, 2, PKT, 60, 60);
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 1);
	assert_non_null(strstr(err.msg, "unknown interface 5"));
	/* caplen past the block */
	d.n = good;
	ng_epb(&d, 0, 2, PKT, 8, 60);
	d.b[good + 20] = 200;
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 1);
	assert_non_null(strstr(err.msg, "corrupt record 2"));
	/* absurd caplen */
	d.b[good + 22] = 0x10;
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 1);
	assert_non_null(strstr(err.msg, "absurd caplen"));
	/* trailing length differs */
	d.n = good;
	ng_epb(&d, 0, 2, PKT, 8, 60);
	d.b[d.n - 4] = 44;
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 1);
	assert_non_null(strstr(err.msg, "trailing length"));
	/* block length not a multiple of 4 */
	d.b[good + 4] = 41;
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 1);
	assert_non_null(strstr(err.msg, "corrupt block"));
	/* a timestamp past 2116 (2^64 - 1 microseconds wrapped to 1677 once),
	 * and one at nanoseconds past it: corrupt, and said so */
	d.n = good;
	ng_epb(&d, 0, UINT64_MAX, PKT, 60, 60);
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 1);
	assert_non_null(strstr(err.msg, "timestamp out of range (before 1824 or after 2116) in record 2"));
	d.n = good;
	ng_epb(&d, 0, ((uint64_t)1 << 62) / 1000 + 1, PKT, 60, 60);
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 1);
	assert_non_null(strstr(err.msg, "timestamp out of range"));
	d.n = good;
	ng_epb(&d, 0, ((uint64_t)1 << 62) / 1000, PKT, 60, 60); /* the last one read */
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), 2);
	assert_int_equal(recs[1].ts_ns, ((int64_t)1 << 62) / 1000 * 1000);
	/* bad byte-order magic */
	d.n = good;
	ng_epb(&d, 0, 2, PKT, 8, 60);
	d.b[good + 4] = 41;
	d.b[8] = 0;
	assert_int_equal(read_all(&d, recs, 8, &rc, &err), -1);
	assert_non_null(strstr(err.msg, "corrupt section header"));
	dbuf_free(&d);
}

/* 30000 records through a FILE *: records straddle the 1 MiB refills. */
static void test_stream_large(void **st)
{
	dbuf d = {0};
	pcap_hdr(&d, 0xa1b2c3d4, 1);
	uint8_t data[97];
	for (uint32_t i = 0; i < 30000; i++) {
		memset(data, (int)(i & 0xff), sizeof(data));
		pcap_rec(&d, i, 0, data, 50 + i % 48, 1500);
	}
	char *path = temp_file(&d);
	assert_non_null(path);
	dmls_reader *r;
	dmls_error err;
	assert_int_equal(dmls_reader_open_file(&r, path, &err), 0);
	assert_string_equal(dmls_reader_name(r), path);
	dmls_record rec;
	uint32_t n = 0;
	while (dmls_reader_next(r, &rec, &err) == 1) {
		assert_int_equal(rec.ts_ns, (int64_t)n * 1000000000);
		assert_int_equal(rec.caplen, 50 + n % 48);
		assert_int_equal(rec.data[0], n & 0xff);
		assert_int_equal(rec.data[rec.caplen - 1], n & 0xff);
		n++;
	}
	assert_int_equal(n, 30000);
	dmls_reader_free(r);
	/* the same through a caller's stream */
	FILE *fp = fopen(path, "rb");
	assert_int_equal(dmls_reader_open_stream(&r, fp, "s", &err), 0);
	n = 0;
	while (dmls_reader_next(r, &rec, &err) == 1)
		n++;
	assert_int_equal(n, 30000);
	dmls_reader_free(r);
	fclose(fp);
	unlink(path);
	free(path);
	dbuf_free(&d);
}

/* pcapng through a FILE *: a 3 MiB block to skip (name resolution) and a
 * 2 MiB one to hold (an IDB with big comments) across the refills, and
 * if_tsoffset. */
static void test_pcapng_stream(void **st)
{
	dbuf d = {.be = 1};
	ng_shb(&d);
	uint32_t big = 3u << 20;
	put_f32(&d, 4), put_f32(&d, big), put(&d, NULL, big - 12), put_f32(&d, big);
	/* IDB with if_tsoffset = 100 s, then 32 comments of 64 KiB */
	uint32_t ilen = 20 + 12 + 32 * (4 + 0xfffc) + 4;
	put_f32(&d, 1), put_f32(&d, ilen), put_f16(&d, 1), put_f16(&d, 0), put_f32(&d, 0);
	put_f16(&d, 14), put_f16(&d, 8), put_f32(&d, 0), put_f32(&d, 100);
	for (int k = 0; k < 32; k++)
		put_f16(&d, 1), put_f16(&d, 0xfffc), put(&d, NULL, 0xfffc);
	put_f32(&d, 0), put_f32(&d, ilen);
	for (uint32_t i = 0; i < 20000; i++)
		ng_epb(&d, 0, i, PKT, 60, 60);
	char *path = temp_file(&d);
	dmls_reader *r;
	dmls_error err;
	assert_int_equal(dmls_reader_open_file(&r, path, &err), 0);
	assert_int_equal(dmls_reader_linktype(r), 1);
	dmls_record rec;
	uint32_t n = 0;
	int rc;
	while ((rc = dmls_reader_next(r, &rec, &err)) == 1) {
		assert_int_equal(rec.ts_ns, 100000000000LL + n * 1000LL);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 20000);
	dmls_reader_free(r);
	unlink(path);
	free(path);
	dbuf_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcap_variants),
		cmocka_unit_test(test_pcap_modified_magic),
		cmocka_unit_test(test_pcap_damage),
		cmocka_unit_test(test_empty_and_garbage),
		cmocka_unit_test(test_pcapng),
		cmocka_unit_test(test_pcapng_damage),
		cmocka_unit_test(test_stream_large),
		cmocka_unit_test(test_pcapng_stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
