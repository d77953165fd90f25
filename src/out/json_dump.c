/*
 * json_dump.c - a jansson document to a FILE, byte for byte as jansson's
 * json_dumpf(doc, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(p) |
 * JSON_ENSURE_ASCII) writes it, through a buffer written out whenever
 * it holds JBUF_FLUSH bytes (a long capture's lists make megabytes).
 *
 * jansson writes a document a token at a time through a callback and
 * formats every real with snprintf: on a long capture (a list per
 * iteration) that was a fifth of analyze's instructions.  Here a real that
 * holds an integer below 2^53 (byte counts, whole seconds) is written as
 * digits and ".0" without printf, which is what "%.*g" and jansson's
 * fix-up make of it whenever the integer has at most p digits.
 */
#include "dmlscope/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JBUF_FLUSH (1u << 16)

typedef struct jbuf {
	char *p;
	size_t n, cap;
	int oom;  /* out of memory, or a write failed */
	FILE *fp;
} jbuf;

static int room(jbuf *b, size_t k)
{
	if (b->oom)
		return -1;
	if (b->n + k <= b->cap)
		return 0;
	if (b->n >= JBUF_FLUSH) {
		if (fwrite(b->p, 1, b->n, b->fp) != b->n) {
			b->oom = 1;
			return -1;
		}
		b->n = 0;
		if (k <= b->cap)
			return 0;
	}
	size_t cap = b->cap ? b->cap : 1 << 16;
	while (cap < b->n + k)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void put(jbuf *b, const char *s, size_t k)
{
	if (room(b, k))
		return;
	memcpy(b->p + b->n, s, k);
	b->n += k;
}

static void indent(jbuf *b, int depth)
{
	size_t k = 1 + 2 * (size_t)depth;
	if (room(b, k))
		return;
	b->p[b->n] = '\n';
	memset(b->p + b->n + 1, ' ', k - 1);
	b->n += k;
}

/* Digits of v (|v| < 2^63) into s; their count. */
static size_t digits(char *s, unsigned long long v)
{
	char t[24];
	size_t n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	for (size_t i = 0; i < n; i++)
		s[i] = t[n - 1 - i];
	return n;
}

static void integer(jbuf *b, long long v)
{
	char s[24];
	size_t n = 0;
	unsigned long long u = (unsigned long long)v;
	if (v < 0) {
		s[n++] = '-';
		u = 0 - u;
	}
	n += digits(s + n, u);
	put(b, s, n);
}

/* jansson's jsonp_dtostr: "%.*g", ".0" when neither '.' nor 'e', the
 * exponent without '+' and leading zeros. */
static void real(jbuf *b, double v, int precision)
{
	char s[64];
	size_t n;
	double a = fabs(v);
	if (a < 9007199254740992.0 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
		n = 0;
		unsigned long long u = (unsigned long long)a;
		if (v < 0)
			s[n++] = '-';
		n += digits(s + n, u);
		if (n - (v < 0) <= (size_t)precision) {
			s[n++] = '.', s[n++] = '0';
			put(b, s, n);
			return;
		}
	}
	int w = snprintf(s, sizeof(s), "%.*g", precision, v);
	if (w < 0 || (size_t)w >= sizeof(s) - 3) {
		b->oom = 1;
		return;
	}
	n = (size_t)w;
	if (!strchr(s, '.') && !strchr(s, 'e')) {
		s[n++] = '.', s[n++] = '0';
		s[n] = '\0';
	}
	char *e = strchr(s, 'e');
	if (e) {
		char *start = e + 1, *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, n - (size_t)(end - s) + 1);
			n -= (size_t)(end - start);
		}
	}
	put(b, s, n);
}

/* A JSON string, ASCII only: what jansson's dump_string escapes. */
static void string(jbuf *b, const char *str, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	if (room(b, len + 2))
		return;
	b->p[b->n++] = '"';
	const unsigned char *s = (const unsigned char *)str, *end = s + len;
	while (s < end) {
		const unsigned char *run = s;
		while (s < end && *s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\')
			s++;
		put(b, (const char *)run, (size_t)(s - run));
		if (s >= end)
			break;
		unsigned c = *s;
		char esc[16];
		size_t k = 2;
		esc[0] = '\\';
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			s++;
		} else if (c < 0x20) {
			s++;
			switch (c) {
			case '\b': esc[1] = 'b'; break;
			case '\f': esc[1] = 'f'; break;
			case '\n': esc[1] = 'n'; break;
			case '\r': esc[1] = 'r'; break;
			case '\t': esc[1] = 't'; break;
			default:
				esc[1] = 'u', esc[2] = '0', esc[3] = '0';
				esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
				k = 6;
			}
		} else { /* UTF-8 (jansson holds valid UTF-8 only) as \uXXXX */
			unsigned cp, more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
			cp = c & (0x3f >> more);
			s++;
			for (unsigned i = 0; i < more && s < end; i++)
				cp = (cp << 6) | (*s++ & 0x3f);
			unsigned u[2], nu = 1;
			u[0] = cp;
			if (cp >= 0x10000) {
				cp -= 0x10000;
				u[0] = 0xd800 | (cp >> 10), u[1] = 0xdc00 | (cp & 0x3ff), nu = 2;
			}
			k = 0;
			for (unsigned i = 0; i < nu; i++) {
				esc[k++] = '\\', esc[k++] = 'u';
				for (int sh = 12; sh >= 0; sh -= 4)
					esc[k++] = hex[(u[i] >> sh) & 15];
			}
		}
		put(b, esc, k);
	}
	put(b, "\"", 1);
}

static void value(jbuf *b, const json_t *j, int depth, int precision)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		if (json_object_size(j) == 0) {
			put(b, "{}", 2);
			return;
		}
		put(b, "{", 1);
		indent(b, depth + 1);
		size_t left = json_object_size(j);
		const char *key;
		json_t *v;
		json_object_foreach((json_t *)j, key, v) {
			string(b, key, strlen(key));
			put(b, ": ", 2);
			value(b, v, depth + 1, precision);
			if (--left) {
				put(b, ",", 1);
				indent(b, depth + 1);
			} else {
				indent(b, depth);
			}
		}
		put(b, "}", 1);
		return;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(j);
		if (n == 0) {
			put(b, "[]", 2);
			return;
		}
		put(b, "[", 1);
		indent(b, depth + 1);
		for (size_t i = 0; i < n; i++) {
			value(b, json_array_get(j, i), depth + 1, precision);
			if (i + 1 < n) {
				put(b, ",", 1);
				indent(b, depth + 1);
			} else {
				indent(b, depth);
			}
		}
		put(b, "]", 1);
		return;
	}
	case JSON_STRING:
		string(b, json_string_value(j), json_string_length(j));
		return;
	case JSON_INTEGER:
		integer(b, (long long)json_integer_value(j));
		return;
	case JSON_REAL:
		real(b, json_real_value(j), precision);
		return;
	case JSON_TRUE:
		put(b, "true", 4);
		return;
	case JSON_FALSE:
		put(b, "false", 5);
		return;
	default:
		put(b, "null", 4);
	}
}

int dmls_json_dumpf(const json_t *doc, FILE *fp, int precision)
{
	jbuf b = {.fp = fp};
	value(&b, doc, 0, precision > 0 && precision <= 17 ? precision : 17);
	int rc = b.oom ? -1 : 0;
	if (!rc && b.n && fwrite(b.p, 1, b.n, fp) != b.n)
		rc = -1;
	free(b.p);
	return rc;
}
