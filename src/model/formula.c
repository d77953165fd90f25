/*
 * formula.c - patsy/R model formulas: "y ~ a + C(b) + a:b - 1".
 *
 * Grammar (a subset of patsy's, with its precedence: ':' over '*' over '+ -'):
 *
 *   formula := factor '~' sum
 *   sum     := ['-'] prod (('+' | '-') prod)*
 *   prod    := inter ('*' inter)*          a*b = a + b + a:b
 *   inter   := atom (':' atom)*            the pairwise product of terms
 *   atom    := '(' sum ')' | '0' | '1' | factor
 *   factor  := name | C(name) | fn(name)   fn: log exp sqrt log10 log2, with or
 *                                          without "np."
 *
 * A term is a set of factors (a:b is b:a, a:a is a) kept in the order first
 * written; repeated terms count once.  The right side starts with an implicit
 * intercept: "- 1" or "+ 0" remove it, "+ 1" or "- 0" put it back (patsy docs,
 * "Intercept handling").  The parser knows nothing about data: whether a
 * factor is numeric or categorical is decided when it meets a table.
 */
#include "dmlscope/model.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct tlist {
	size_t n, cap;
	dmls_term *t;
	int zero;            /* the atom was "0" */
} tlist;

typedef struct parser {
	const char *s, *p;
	dmls_formula *fm;
	dmls_error *err;
	int failed;
} parser;

static int pfail(parser *ps, const char *what)
{
	if (!ps->failed) {
		ps->failed = 1;
		if (*ps->p)
			dmls_fail(ps->err, DMLS_EUSAGE, "bad formula '%s': %s at '%s'", ps->s,
				  what, ps->p);
		else
			dmls_fail(ps->err, DMLS_EUSAGE, "bad formula '%s': %s at the end",
				  ps->s, what);
	}
	return -1;
}

/* Out of memory while parsing: not the formula's fault, so not a usage error. */
static int poom(parser *ps)
{
	if (!ps->failed) {
		ps->failed = 1;
		dmls_fail(ps->err, DMLS_ENOMEM, "out of memory");
	}
	return -1;
}

static void skip_ws(parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int tl_has(const tlist *l, uint64_t mask)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->t[i].mask == mask)
			return 1;
	return 0;
}

static int tl_add(tlist *l, const dmls_term *t)
{
	if (tl_has(l, t->mask))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		dmls_term *n = realloc(l->t, cap * sizeof(*n));
		if (!n)
			return -1;
		l->t = n;
		l->cap = cap;
	}
	l->t[l->n++] = *t;
	return 0;
}

static void tl_remove(tlist *l, uint64_t mask)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->t[i].mask == mask) {
			memmove(&l->t[i], &l->t[i + 1], (l->n - i - 1) * sizeof(*l->t));
			l->n--;
			return;
		}
}

static const struct {
	const char *name;
	int fn;
} fns[] = {
	{"log", DMLS_FN_LOG},     {"np.log", DMLS_FN_LOG},     {"log10", DMLS_FN_LOG10},
	{"np.log10", DMLS_FN_LOG10}, {"log2", DMLS_FN_LOG2}, {"np.log2", DMLS_FN_LOG2},
	{"exp", DMLS_FN_EXP},     {"np.exp", DMLS_FN_EXP},     {"sqrt", DMLS_FN_SQRT},
	{"np.sqrt", DMLS_FN_SQRT},
};

/* Read a dotted name into buf; 0 when there is none. */
static size_t read_name(parser *ps, char *buf, size_t cap, int dots)
{
	size_t n = 0;
	const char *p = ps->p;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_' || (dots && *p == '.')) {
		if (n + 1 < cap)
			buf[n++] = *p;
		p++;
	}
	buf[n] = '\0';
	ps->p = p;
	return n;
}

/* Find or add the factor with this code; its index or -1. */
static long intern_factor(parser *ps, const dmls_factor *f)
{
	dmls_formula *fm = ps->fm;
	for (size_t i = 0; i < fm->nfactors; i++)
		if (!strcmp(fm->factors[i].code, f->code))
			return (long)i;
	if (fm->nfactors == DMLS_MAX_FACTORS)
		return pfail(ps, "too many factors");
	dmls_factor *n = realloc(fm->factors, (fm->nfactors + 1) * sizeof(*n));
	if (!n)
		return poom(ps);
	fm->factors = n;
	n[fm->nfactors] = *f;
	n[fm->nfactors].code = strdup(f->code);
	n[fm->nfactors].var = strdup(f->var);
	return (long)fm->nfactors++;
}

/* factor := name | C(name) | fn(name); fills f (code and var on the stack). */
static int parse_factor(parser *ps, dmls_factor *f, char *code, char *var)
{
	char fname[64];
	memset(f, 0, sizeof(*f));
	skip_ws(ps);
	if (!read_name(ps, fname, sizeof(fname), 1))
		return pfail(ps, "expected a variable name");
	skip_ws(ps);
	if (*ps->p != '(') {
		if (strchr(fname, '.'))
			return pfail(ps, "unknown name");
		strcpy(code, fname);
		strcpy(var, fname);
		f->code = code;
		f->var = var;
		return 0;
	}
	if (!strcmp(fname, "C")) {
		f->forced = 1;
	} else {
		size_t i;
		for (i = 0; i < sizeof(fns) / sizeof(*fns); i++)
			if (!strcmp(fns[i].name, fname))
				break;
		if (i == sizeof(fns) / sizeof(*fns))
			return pfail(ps, "unknown function (C, log, log10, log2, exp, sqrt)");
		f->fn = fns[i].fn;
	}
	ps->p++;
	skip_ws(ps);
	if (!read_name(ps, var, 64, 0))
		return pfail(ps, "expected a variable name");
	skip_ws(ps);
	if (*ps->p != ')')
		return pfail(ps, "expected ')'");
	ps->p++;
	snprintf(code, 160, "%s(%s)", fname, var);
	f->code = code;
	f->var = var;
	return 0;
}

static int parse_sum(parser *ps, tlist *out);

static int parse_atom(parser *ps, tlist *out)
{
	skip_ws(ps);
	memset(out, 0, sizeof(*out));
	dmls_term t = {0};
	if (*ps->p == '(') {
		ps->p++;
		if (parse_sum(ps, out))
			return -1;
		skip_ws(ps);
		if (*ps->p != ')')
			return pfail(ps, "expected ')'");
		ps->p++;
		return 0;
	}
	if (*ps->p == '0' || *ps->p == '1') {
		int zero = *ps->p == '0';
		ps->p++;
		if (isalnum((unsigned char)*ps->p) || *ps->p == '.')
			return pfail(ps, "only 0 and 1 may stand alone");
		out->zero = zero;
		return zero ? 0 : tl_add(out, &t);
	}
	dmls_factor f;
	char code[160], var[64];
	if (parse_factor(ps, &f, code, var))
		return -1;
	long i = intern_factor(ps, &f);
	if (i < 0)
		return -1;
	t.nf = 1;
	t.f[0] = (size_t)i;
	t.mask = (uint64_t)1 << i;
	return tl_add(out, &t);
}

/* a:b for term lists: every pair, factors merged in order. */
static int interact(parser *ps, tlist *a, const tlist *b)
{
	tlist r = {0};
	if (a->zero || b->zero)
		return pfail(ps, "0 cannot be part of an interaction");
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++) {
			dmls_term t = a->t[i];
			for (size_t k = 0; k < b->t[j].nf; k++) {
				size_t f = b->t[j].f[k];
				if (t.mask & ((uint64_t)1 << f))
					continue;
				if (t.nf == DMLS_MAX_TERM_FACTORS) {
					free(r.t);
					return pfail(ps, "interaction of too many factors");
				}
				t.f[t.nf++] = f;
				t.mask |= (uint64_t)1 << f;
			}
			if (tl_add(&r, &t)) {
				free(r.t);
				return poom(ps);
			}
		}
	free(a->t);
	*a = r;
	return 0;
}

static int parse_inter(parser *ps, tlist *out)
{
	if (parse_atom(ps, out))
		return -1;
	for (;;) {
		skip_ws(ps);
		if (*ps->p != ':')
			return 0;
		ps->p++;
		tlist b;
		int rc = parse_atom(ps, &b);
		if (!rc)
			rc = interact(ps, out, &b);
		free(b.t);
		if (rc)
			return -1;
	}
}

static int parse_prod(parser *ps, tlist *out)
{
	if (parse_inter(ps, out))
		return -1;
	for (;;) {
		skip_ws(ps);
		if (*ps->p != '*' || ps->p[1] == '*') {
			if (*ps->p == '*')
				return pfail(ps, "'**' is not supported");
			return 0;
		}
		ps->p++;
		tlist b, ab = {0};
		int rc = parse_inter(ps, &b);
		if (!rc) { /* a*b = a + b + a:b */
			for (size_t i = 0; !rc && i < out->n; i++)
				rc = tl_add(&ab, &out->t[i]);
			rc = rc ? rc : interact(ps, &ab, &b);
			for (size_t i = 0; !rc && i < b.n; i++)
				rc = tl_add(out, &b.t[i]);
			for (size_t i = 0; !rc && i < ab.n; i++)
				rc = tl_add(out, &ab.t[i]);
		}
		free(b.t);
		free(ab.t);
		if (rc)
			return poom(ps);
	}
}

/* Apply "+ b" or "- b" to acc, with patsy's intercept rules. */
static int combine(tlist *acc, tlist *b, int minus)
{
	dmls_term one = {0};
	if (b->zero) {
		if (minus)
			return tl_add(acc, &one);
		tl_remove(acc, 0);
		return 0;
	}
	for (size_t i = 0; i < b->n; i++) {
		if (minus)
			tl_remove(acc, b->t[i].mask);
		else if (tl_add(acc, &b->t[i]))
			return -1;
	}
	return 0;
}

static int parse_sum(parser *ps, tlist *out)
{
	int minus = 0;
	skip_ws(ps);
	if (*ps->p == '-') {
		minus = 1;
		ps->p++;
	}
	for (;;) {
		tlist b;
		if (parse_prod(ps, &b)) {
			free(b.t);
			return -1;
		}
		int rc = combine(out, &b, minus);
		free(b.t);
		if (rc)
			return poom(ps);
		skip_ws(ps);
		if (*ps->p != '+' && *ps->p != '-')
			return 0;
		minus = *ps->p == '-';
		ps->p++;
	}
}

int dmls_formula_parse(dmls_formula *fm, const char *text, dmls_error *err)
{
	parser ps = {text, text, fm, err, 0};
	tlist rhs = {0};
	dmls_term one = {0};
	char code[160], var[64];
	dmls_factor y;

	memset(fm, 0, sizeof(*fm));
	if (!(fm->text = strdup(text)))
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	if (parse_factor(&ps, &y, code, var))
		goto fail;
	fm->response = y;
	fm->response.code = strdup(code);
	fm->response.var = strdup(var);
	skip_ws(&ps);
	if (*ps.p != '~') {
		pfail(&ps, "expected '~'");
		goto fail;
	}
	ps.p++;
	if (tl_add(&rhs, &one) || parse_sum(&ps, &rhs))
		goto fail;
	skip_ws(&ps);
	if (*ps.p) {
		pfail(&ps, "unexpected text");
		goto fail;
	}
	fm->terms = rhs.t;
	fm->nterms = rhs.n;
	fm->intercept = tl_has(&rhs, 0);
	if (!fm->response.code || !fm->response.var)
		goto fail;
	return DMLS_OK;
fail:
	free(rhs.t);
	fm->terms = NULL;
	if (!ps.failed)
		dmls_fail(err, DMLS_ENOMEM, "out of memory");
	dmls_formula_release(fm);
	return err ? err->status : DMLS_EUSAGE;
}

void dmls_factor_release(dmls_factor *f)
{
	free(f->code);
	free(f->var);
	for (size_t i = 0; f->levels && i < f->nlevels; i++)
		free(f->levels[i]);
	free(f->levels);
	free(f->level_num);
	memset(f, 0, sizeof(*f));
}

void dmls_formula_release(dmls_formula *fm)
{
	free(fm->text);
	dmls_factor_release(&fm->response);
	for (size_t i = 0; i < fm->nfactors; i++)
		dmls_factor_release(&fm->factors[i]);
	free(fm->factors);
	free(fm->terms);
	memset(fm, 0, sizeof(*fm));
}
