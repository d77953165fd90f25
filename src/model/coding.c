/*
 * coding.c - patsy's redundancy-free coding of terms into design columns.
 *
 * This is patsy's algorithm (patsy/redundancy.py and build.py,
 * _make_subterm_infos, pick_contrasts_for_term), so that our columns, their
 * order and their names are exactly patsy's:
 *
 *  1. Terms go into buckets by the set of numeric factors they hold; the
 *     bucket with no numeric factor comes first, the others in order of first
 *     appearance; within a bucket terms are sorted (stably) by degree.
 *  2. Within a bucket, a term with categorical factors c1..cm is expanded into
 *     all subsets of {c1..cm} in "reduced" (treatment, first level dropped)
 *     coding, shortest first: a:b -> 1 + a- + b- + a-:b-.  Subsets already used
 *     by an earlier term of the bucket are dropped.
 *  3. Greedily from the left, a longer subterm absorbs a shorter one it
 *     contains with one factor fewer, turning that factor to full coding:
 *     a- + a-:b- -> a+:b-.
 *  4. Each remaining subterm gives the product of its factors' columns, the
 *     left-most factor varying fastest (R's order).  Names join factor names
 *     with ':'; a categorical factor adds "[T.level]" (treatment) or "[level]"
 *     (full); no factor at all is "Intercept".
 */
#include "dmlscope/model.h"

#include <stdlib.h>
#include <string.h>

typedef struct xsub {
	uint64_t cat;   /* categorical factors in this subterm */
	uint64_t full;  /* those with full-rank coding */
} xsub;

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

/* patsy _Subterm.can_absorb: long is short plus one reduced factor. */
static int can_absorb(const xsub *lng, const xsub *sht)
{
	return popcount64(lng->cat) - popcount64(sht->cat) == 1 &&
	       (sht->cat & ~lng->cat) == 0 && (lng->full & sht->cat) == sht->full;
}

static void simplify(xsub *s, size_t *n)
{
	for (;;) {
		int changed = 0;
		for (size_t i = 0; i < *n && !changed; i++)
			for (size_t j = i + 1; j < *n && !changed; j++)
				if (can_absorb(&s[j], &s[i])) {
					uint64_t diff = s[j].cat & ~s[i].cat;
					s[j].full = s[i].full | diff;
					memmove(&s[i], &s[i + 1], (*n - i - 1) * sizeof(*s));
					(*n)--;
					changed = 1;
				}
		if (!changed)
			return;
	}
}

/* Subsets of m items as bit sets over positions, shortest first, then
 * lexicographic by positions (patsy _subsets_sorted). */
static int subset_cmp(unsigned a, unsigned b)
{
	int la = popcount64(a), lb = popcount64(b);
	if (la != lb)
		return la - lb;
	while (a && b) { /* same length: compare ascending positions */
		int pa = __builtin_ctz(a), pb = __builtin_ctz(b);
		if (pa != pb)
			return pa - pb;
		a &= a - 1;
		b &= b - 1;
	}
	return 0;
}

/* Expand one term into its subterms (steps 2 and 3). */
static size_t term_subterms(const dmls_formula *fm, const dmls_term *t, uint64_t *used,
			    size_t *nused, xsub *out)
{
	size_t cats[DMLS_MAX_TERM_FACTORS], m = 0, n = 0;
	for (size_t i = 0; i < t->nf; i++)
		if (fm->factors[t->f[i]].categorical)
			cats[m++] = t->f[i];
	unsigned order[1u << DMLS_MAX_TERM_FACTORS];
	unsigned nsets = 1u << m;
	for (unsigned s = 0; s < nsets; s++)
		order[s] = s;
	for (unsigned i = 1; i < nsets; i++) /* insertion sort: at most 256 */
		for (unsigned j = i; j > 0 && subset_cmp(order[j - 1], order[j]) > 0; j--) {
			unsigned tmp = order[j];
			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	for (unsigned s = 0; s < nsets; s++) {
		uint64_t mask = 0;
		for (size_t k = 0; k < m; k++)
			if ((order[s] >> k) & 1)
				mask |= (uint64_t)1 << cats[k];
		size_t u;
		for (u = 0; u < *nused; u++)
			if (used[u] == mask)
				break;
		if (u < *nused)
			continue;
		used[(*nused)++] = mask;
		out[n].cat = mask;
		out[n].full = 0;
		n++;
	}
	simplify(out, &n);
	return n;
}

static uint64_t numeric_mask(const dmls_formula *fm, const dmls_term *t)
{
	uint64_t m = 0;
	for (size_t i = 0; i < t->nf; i++)
		if (!fm->factors[t->f[i]].categorical)
			m |= (uint64_t)1 << t->f[i];
	return m;
}

/* Order terms by bucket, then degree (step 1); fills idx. */
static void order_terms(const dmls_formula *fm, size_t *idx)
{
	size_t n = 0;
	uint64_t *buckets = malloc((fm->nterms + 1) * sizeof(*buckets));
	size_t nb = 0;
	if (!buckets) { /* fall back to formula order */
		for (size_t i = 0; i < fm->nterms; i++)
			idx[i] = i;
		return;
	}
	buckets[nb++] = 0;
	for (size_t i = 0; i < fm->nterms; i++) {
		uint64_t b = numeric_mask(fm, &fm->terms[i]);
		size_t j;
		for (j = 0; j < nb; j++)
			if (buckets[j] == b)
				break;
		if (j == nb)
			buckets[nb++] = b;
	}
	for (size_t b = 0; b < nb; b++)
		for (size_t deg = 0; deg <= DMLS_MAX_TERM_FACTORS; deg++)
			for (size_t i = 0; i < fm->nterms; i++)
				if (fm->terms[i].nf == deg &&
				    numeric_mask(fm, &fm->terms[i]) == buckets[b])
					idx[n++] = i;
	free(buckets);
}

static size_t subterm_columns(const dmls_formula *fm, const dmls_subterm *s)
{
	size_t c = 1;
	for (size_t i = 0; i < s->nf; i++) {
		const dmls_factor *f = &fm->factors[s->f[i]];
		if (f->categorical)
			c *= s->full[i] ? f->nlevels : (f->nlevels ? f->nlevels - 1 : 0);
	}
	return c;
}

/* Level index of factor i of subterm s for column combination c. */
static size_t combo_level(const dmls_formula *fm, const dmls_subterm *s, size_t c, size_t i)
{
	for (size_t j = 0; j < s->nf; j++) {
		const dmls_factor *f = &fm->factors[s->f[j]];
		if (!f->categorical)
			continue;
		size_t ncol = s->full[j] ? f->nlevels : f->nlevels - 1;
		size_t col = c % ncol;
		c /= ncol;
		if (j == i)
			return s->full[j] ? col : col + 1;
	}
	return 0;
}

static char *column_name(const dmls_formula *fm, const dmls_subterm *s, size_t c)
{
	size_t cap = 16, len = 0;
	for (size_t i = 0; i < s->nf; i++) {
		const dmls_factor *f = &fm->factors[s->f[i]];
		cap += strlen(f->code) + 8;
		if (f->categorical)
			cap += strlen(f->levels[combo_level(fm, s, c, i)]);
	}
	char *name = malloc(cap);
	if (!name)
		return NULL;
	if (s->nf == 0)
		return strcpy(name, "Intercept");
	for (size_t i = 0; i < s->nf; i++) {
		const dmls_factor *f = &fm->factors[s->f[i]];
		len += (size_t)snprintf(name + len, cap - len, "%s%s", i ? ":" : "", f->code);
		if (f->categorical)
			len += (size_t)snprintf(name + len, cap - len, "[%s%s]",
						s->full[i] ? "" : "T.",
						f->levels[combo_level(fm, s, c, i)]);
	}
	return name;
}

int dmls_design_code(dmls_design *d, dmls_error *err)
{
	const dmls_formula *fm = &d->fm;
	size_t *idx = malloc((fm->nterms + 1) * sizeof(*idx));
	size_t nsets = 1;
	for (size_t ti = 0; ti < fm->nterms; ti++)
		nsets += (size_t)1 << fm->terms[ti].nf;
	uint64_t *used = malloc(nsets * sizeof(*used));
	xsub xs[1u << DMLS_MAX_TERM_FACTORS];
	size_t cap = 0;
	if (!idx || !used)
		goto oom;
	order_terms(fm, idx);
	d->has_intercept = fm->intercept;
	uint64_t bucket = ~(uint64_t)0;
	size_t nused = 0;
	for (size_t ti = 0; ti < fm->nterms; ti++) {
		const dmls_term *t = &fm->terms[idx[ti]];
		uint64_t b = numeric_mask(fm, t);
		if (b != bucket) {
			bucket = b;
			nused = 0;
		}
		size_t nx = term_subterms(fm, t, used, &nused, xs);
		for (size_t k = 0; k < nx; k++) {
			if (d->nsub == cap) {
				cap = cap ? 2 * cap : 16;
				dmls_subterm *n = realloc(d->subs, cap * sizeof(*n));
				if (!n)
					goto oom;
				d->subs = n;
			}
			dmls_subterm *s = &d->subs[d->nsub++];
			memset(s, 0, sizeof(*s));
			for (size_t i = 0; i < t->nf; i++) {
				const dmls_factor *f = &fm->factors[t->f[i]];
				uint64_t bit = (uint64_t)1 << t->f[i];
				if (f->categorical && !(xs[k].cat & bit))
					continue;
				s->full[s->nf] = (xs[k].full & bit) != 0;
				s->f[s->nf++] = t->f[i];
			}
		}
	}
	free(idx);
	free(used);
	idx = NULL;
	used = NULL;
	d->ncols = 0;
	for (size_t k = 0; k < d->nsub; k++)
		d->ncols += subterm_columns(fm, &d->subs[k]);
	d->names = calloc(d->ncols ? d->ncols : 1, sizeof(*d->names));
	if (!d->names)
		goto oom;
	for (size_t k = 0, col = 0; k < d->nsub; k++)
		for (size_t c = 0; c < subterm_columns(fm, &d->subs[k]); c++)
			if (!(d->names[col++] = column_name(fm, &d->subs[k], c)))
				goto oom;
	return DMLS_OK;
oom:
	free(idx);
	free(used);
	return dmls_fail(err, DMLS_ENOMEM, "out of memory");
}

void dmls_design_row(const dmls_design *d, const double *num, const size_t *level, double *x)
{
	const dmls_formula *fm = &d->fm;
	size_t col = 0;
	for (size_t k = 0; k < d->nsub; k++) {
		const dmls_subterm *s = &d->subs[k];
		size_t nc = subterm_columns(fm, s);
		for (size_t c = 0; c < nc; c++) {
			double v = 1.0;
			for (size_t i = 0; i < s->nf; i++) {
				size_t fi = s->f[i];
				if (!fm->factors[fi].categorical)
					v *= num[fi];
				else if (level[fi] != combo_level(fm, s, c, i))
					v = 0.0;
			}
			x[col++] = v;
		}
	}
}
