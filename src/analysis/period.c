/*
 * period.c - the period of a binned byte series from its autocorrelation.
 *
 * The sample autocorrelation r(k) = c(k)/c(0), c(k) = (1/n) sum (x_t - m)
 * (x_{t+k} - m) (the biased estimator, Box & Jenkins, "Time Series
 * Analysis", ch. 2), computed with a zero-padded FFT (Wiener-Khinchin:
 * the inverse transform of |X|^2; padding to >= 2n makes it linear, not
 * circular), by FFTW (Frigo & Johnson, Proc. IEEE 93(2), 2005), see below.
 * The biased estimator shrinks r(k) by (n-k)/n, which
 * favours the fundamental over its multiples.
 *
 * Peak picking: past the main lobe (the first lag where r < 0.5, i.e. a
 * burst's own width), candidate peaks are lags that hold the maximum of r
 * within +-w (w = the main lobe's width, so noise and jitter make no
 * peaks), up to n/2 (two periods at least).  The period is the first
 * candidate reaching 0.8 of the best candidate (sub-periods such as
 * gradient buckets inside one iteration are weaker than the iteration),
 * refined by a parabola through its three lags.  Returns the period in
 * bins (fractional) and r at it corrected to unbiased (r * n / (n - k)),
 * or 0 when nothing periodic stands out (best candidate below 0.1).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <fftw3.h>

#include "analysis/period.h"

/*
 * The transform of m real points is one complex transform of m/2 points
 * (even samples as the real part, odd as the imaginary) and a pass that
 * unpacks it with the twiddles W^k = e^{-2 pi i k / m} (Press et al.,
 * "Numerical Recipes", 3rd ed., 12.3.2); the way back packs the power
 * spectrum the same way.  FFTW plans complex transforms of a new size in
 * 0.1-0.4 ms up to 2^15 points, where a real-to-complex plan costs 3-7 ms
 * (several times the whole packet pass of a short capture), and runs them
 * 3-8x faster than GSL's radix-2 routines.
 *
 * A plan computes its own twiddles, a sine and a cosine each, when made:
 * 3.3 ms for 2^17 points (2^16: 1.5 ms), a tenth of the CPU of analysing
 * a 10-minute capture (20 MB), where 2^15 take 0.17 ms.  So a transform of
 * more than 2^SPLIT_LOG2 complex points runs its first s radix-2 stages
 * here, with the twiddles of the quarter table below (decimation in
 * frequency: 2^s blocks of 2^SPLIT_LOG2 points, each transformed by
 * FFTW), and leaves its output in the blocks' order (X_n in block
 * bitrev(n mod 2^s), at n >> s); the power spectrum is read and written
 * there, and the inverse takes that order in (decimation in time: the
 * blocks' transforms, then the stages) and gives the natural one out.
 * The same sums, to a few ulp of the twiddles (test_stats_util checks
 * them against the direct sums).
 *
 * Plans and twiddles are kept by size for the life of the process: every
 * search of the iterations (one per job, per part) asks for the same few
 * power-of-two sizes.  A plan is made on the first buffer of its size and
 * run on any other (fftw_execute_dft: buffers from fftw_alloc share the
 * plan's alignment).  Sizes above 2^KEEP_LOG2 are planned and dropped per
 * dmls_fft.  FFTW's planner is not thread-safe, so making, keeping and
 * dropping plans (and their buffers) holds plan_lock; running one
 * (fftw_execute_dft) is thread-safe (rank_clocks.c runs two at once).
 */
#define KEEP_LOG2 24
#define SPLIT_LOG2 15 /* largest complex transform planned whole */
static struct {
	fftw_plan fwd;
	double *tw; /* cos, sin pairs of 2 pi k / m, k = 0..m/4 */
} kept[KEEP_LOG2 + 1];
static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;

static int log2_of(size_t m)
{
	int k = 0;
	while (((size_t)1 << k) < m)
		k++;
	return k;
}

static void drop_kit(fftw_plan fwd, double *tw)
{
	if (fwd)
		fftw_destroy_plan(fwd);
	free(tw);
}

static void release_locked(dmls_fft *f)
{
	if (f->m && log2_of(f->m) > KEEP_LOG2)
		drop_kit(f->split ? NULL : f->fwd, f->tw); /* a split's plan is kept */
	fftw_free(f->c);
	*f = (dmls_fft){0};
}

void dmls_fft_release(dmls_fft *f)
{
	pthread_mutex_lock(&plan_lock);
	release_locked(f);
	pthread_mutex_unlock(&plan_lock);
}

/*
 * cos and sin of 2 pi k / m for k = 0..q (q = m/4) in two levels: k = a + b,
 * a a multiple of 64, b below 64, and W(k) the product of W(a) and W(b),
 * each from cos and sin (a few ulp together; 2^12 calls of sin and cos for
 * 2^18 points).  The table holds W(b) for b < 64, then W(a) for the
 * multiples: 2 KiB and q / 4 bytes, where a table of every k took 4 m
 * bytes (1 MiB for 2^18 points, and as much again for each size kept),
 * and the unpacking works the product out as it goes (tw_at), the same
 * operations in the same order, so the same bits.
 */
#define TW_FINE 64
static double *twiddles(size_t m)
{
	size_t q = m / 4, na = q / TW_FINE + 1;
	double *tw = malloc(2 * (TW_FINE + na) * sizeof(double));
	if (!tw)
		return NULL;
	double step = 2 * M_PI / (double)m;
	for (size_t b = 0; b < TW_FINE; b++)
		tw[2 * b] = cos(step * (double)b), tw[2 * b + 1] = sin(step * (double)b);
	for (size_t i = 0; i < na; i++) {
		double a = (double)(i * TW_FINE);
		tw[2 * (TW_FINE + i)] = cos(step * a), tw[2 * (TW_FINE + i) + 1] = sin(step * a);
	}
	return tw;
}

/* cos and sin of 2 pi k / m (k <= m/4) from the two-level table. */
static inline void tw_at(const double *tw, size_t k, double *cosk, double *sink)
{
	const double *f = tw + 2 * (k % TW_FINE), *a = tw + 2 * (TW_FINE + k / TW_FINE);
	double c = a[0], s = a[1];
	*cosk = c * f[0] - s * f[1];
	*sink = s * f[0] + c * f[1];
}

/* The kept plan of a complex transform of 2^(k-1) points (k <= KEEP_LOG2,
 * k - 1 <= SPLIT_LOG2), made on c (of that many points or more) if none. */
static fftw_plan kept_plan(int k, fftw_complex *c)
{
	if (!kept[k].fwd) {
		/* FFTW_ESTIMATE plans without touching the array */
		fftw_plan fwd = fftw_plan_dft_1d(1 << (k - 1), c, c, FFTW_FORWARD, FFTW_ESTIMATE);
		double *tw = fwd ? twiddles((size_t)1 << k) : NULL;
		if (!tw) {
			drop_kit(fwd, tw);
			return NULL;
		}
		kept[k].fwd = fwd, kept[k].tw = tw;
	}
	return kept[k].fwd;
}

/* Plans, twiddles and buffers for m real points (a power of two, >= 4). */
static int ready_locked(dmls_fft *f, size_t m)
{
	release_locked(f);
	if (m > INT32_MAX || m < 4)
		return -1;
	size_t h = m / 2;
	f->c = fftw_alloc_complex(h);
	if (!f->c)
		return release_locked(f), -1;
	int k = log2_of(m), split = k - 1 > SPLIT_LOG2 ? k - 1 - SPLIT_LOG2 : 0;
	fftw_plan fwd = kept_plan(k - split, f->c); /* the blocks' plan when split */
	if (!fwd)
		return release_locked(f), -1;
	double *tw = !split ? kept[k].tw : k <= KEEP_LOG2 && kept[k].tw ? kept[k].tw : twiddles(m);
	if (!tw)
		return release_locked(f), -1;
	if (split && k <= KEEP_LOG2)
		kept[k].tw = tw; /* kept[k].fwd stays NULL: the plan is kept[k - split]'s */
	f->fwd = fwd, f->tw = tw, f->m = m, f->split = (unsigned)split;
	return 0;
}

static int fft_ready(dmls_fft *f, size_t m)
{
	if (f->m == m)
		return 0;
	pthread_mutex_lock(&plan_lock);
	int rc = ready_locked(f, m);
	pthread_mutex_unlock(&plan_lock);
	return rc;
}

/* Where a transform of h points split in s stages (above) holds X_n: in
 * block bitrev(n mod 2^s) of q = h / 2^s points, at n >> s. */
static inline size_t held_at(size_t n, unsigned s, size_t q)
{
	size_t r = n & (((size_t)1 << s) - 1), b = 0;
	for (unsigned i = 0; i < s; i++, r >>= 1)
		b = b << 1 | (r & 1);
	return b * q + (n >> s);
}

/* W_h^j = e^{-2 pi i j / h} (j < h / 2) from the quarter table of m = 2h
 * points (2 pi k / m, k <= m / 4; past it, cos and sin of the angle less
 * pi / 2, turned). */
static inline void w_at(const double *tw, size_t h, size_t j, double *wr, double *wi)
{
	size_t k = 2 * j;
	double co, si;
	if (k <= h / 2) {
		tw_at(tw, k, &co, &si);
		*wr = co, *wi = -si;
	} else {
		tw_at(tw, k - h / 2, &co, &si); /* cos(a + pi/2) = -sin a, sin(a + pi/2) = cos a */
		*wr = -si, *wi = -co;
	}
}

/* FFTW's plan on each of the 2^split blocks of c (h points; one block,
 * the whole, unsplit). */
static void run_blocks(const dmls_fft *f, fftw_complex *c, size_t h)
{
	size_t q = h >> f->split;
	for (size_t base = 0; base < h; base += q)
		fftw_execute_dft(f->fwd, c + base, c + base);
}

/* The forward transform of c (h points, zero from used on) in place:
 * FFTW's plan, or split (above): s stages by decimation in frequency, then
 * each block's plan; the output in the blocks' order.  An autocorrelation's
 * points fill half of c at most (zero-padded to twice their number): the
 * first stage then reads no zeros, a stays and b becomes a W (the same bits
 * as a + 0 and (a - 0) W for points that are not -0). */
static void transform_forward(const dmls_fft *f, fftw_complex *c, size_t h, size_t used)
{
	unsigned s = f->split, t = 0;
	if (s > 0 && used <= h / 2) {
		size_t half = h / 2;
		memset(c + used, 0, (half - used) * sizeof(fftw_complex));
		for (size_t j = 0; j < half; j++) {
			double wr, wi, dr = c[j][0], di = c[j][1];
			w_at(f->tw, h, j, &wr, &wi);
			c[j + half][0] = dr * wr - di * wi, c[j + half][1] = dr * wi + di * wr;
		}
		t = 1;
	} else {
		memset(c + used, 0, (h - used) * sizeof(fftw_complex));
	}
	for (; t < s; t++) {
		size_t n = h >> t, half = n / 2;
		for (size_t j = 0; j < half; j++) {
			double wr, wi;
			w_at(f->tw, h, j << t, &wr, &wi);
			for (size_t base = 0; base < h; base += n) {
				double *a = c[base + j], *b = c[base + j + half];
				double dr = a[0] - b[0], di = a[1] - b[1];
				a[0] += b[0], a[1] += b[1];
				b[0] = dr * wr - di * wi, b[1] = dr * wi + di * wr;
			}
		}
	}
	run_blocks(f, c, h);
}

/* The forward transform of c held in the blocks' order (a split one's
 * output): each block's plan, then the s stages by decimation in time;
 * the output in the natural order, c[0..keep) of it at least (the last
 * stage makes no more when keep <= h / 2: an autocorrelation reads the
 * lags below its number of points).  Unsplit, FFTW's plan. */
static void transform_from_blocks(const dmls_fft *f, fftw_complex *c, size_t h, size_t keep)
{
	unsigned s = f->split;
	run_blocks(f, c, h);
	for (unsigned t = s; t-- > 0;) {
		size_t n = h >> t, half = n / 2;
		if (t == 0 && keep <= half) { /* one block of h: a = a + W b, no b */
			for (size_t j = 0; j < keep; j++) {
				double wr, wi, *a = c[j], *b = c[j + half];
				w_at(f->tw, h, j, &wr, &wi);
				a[0] += b[0] * wr - b[1] * wi, a[1] += b[0] * wi + b[1] * wr;
			}
			break;
		}
		for (size_t j = 0; j < half; j++) {
			double wr, wi;
			w_at(f->tw, h, j << t, &wr, &wi);
			for (size_t base = 0; base < h; base += n) {
				double *a = c[base + j], *b = c[base + j + half];
				double orr = b[0] * wr - b[1] * wi, oi = b[0] * wi + b[1] * wr;
				b[0] = a[0] - orr, b[1] = a[1] - oi;
				a[0] += orr, a[1] += oi;
			}
		}
	}
}

/*
 * The power spectrum, in place: c = FFT_h(z) of the m = 2h real points
 * packed as z_j = x_{2j} + i x_{2j+1} becomes the packed power spectrum
 * whose inverse FFT_h holds r_{2j} + i r_{2j+1} (Wiener-Khinchin, P even).
 * Z_k and Z_{h-k} give P_k and P_{h-k} of the real transform X:
 *   E = (Z_k + conj Z_{h-k}) / 2, O = (Z_k - conj Z_{h-k}) / 2i,
 *   X_k = E + W^k O, X_{h-k} = conj(E - W^k O),
 * and the same two powers give back c_k = Ev + i Od, Ev = P_k + P_{h-k},
 * Od = (P_k - P_{h-k}) conj(W^k), and c_{h-k} alike: one pass over the
 * pairs (k, h - k), no buffer.  W^k = e^{-2 pi i k / m} from the quarter
 * table tw (2k <= h: cos and -sin of 2 pi k / m, tw_at).
 *
 * c is written with its real and imaginary parts swapped: the inverse
 * transform of c is the forward one of swap(c), swapped back (FFTW itself
 * makes its backward plans so), so one plan a size serves both ways.
 */
static void power_in_place(fftw_complex *c, const double *tw, size_t h, unsigned split)
{
	size_t q = h >> split;
	for (size_t k = 0; k <= h / 2; k++) {
		size_t j = k ? h - k : 0, ck = held_at(k, split, q), cj = held_at(j, split, q);
		double ar = c[ck][0], ai = c[ck][1], br = c[cj][0], bi = -c[cj][1];
		double er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);
		double orr = 0.5 * (ai - bi), oi = -0.5 * (ar - br);
		double wr, wi;
		tw_at(tw, k, &wr, &wi);
		wi = -wi;
		double tr = wr * orr - wi * oi, ti = wr * oi + wi * orr;
		double pk = (er + tr) * (er + tr) + (ei + ti) * (ei + ti);
		double ph = (er - tr) * (er - tr) + (ei - ti) * (ei - ti); /* P_{h-k} */
		double ev = pk + ph, od = pk - ph;
		c[ck][1] = ev + od * wi; /* i * od * (wr - i wi) = od wi + i od wr */
		c[ck][0] = od * wr;
		if (k > 0 && 2 * k < h) { /* c_{h-k}: W^{h-k} = -conj(W^k) */
			c[cj][1] = ev - od * wi;
			c[cj][0] = od * wr;
		}
	}
}

/* The transform size of an autocorrelation of n points: zero-padded to
 * 2n or more, a power of two. */
static size_t acf_size(size_t n)
{
	size_t m = 4;
	while (m < 2 * n)
		m <<= 1;
	return m;
}

double *dmls_fft_points(dmls_fft *f, size_t n)
{
	return n && !fft_ready(f, acf_size(n)) ? (double *)f->c : NULL;
}

double *dmls_fft_scratch(dmls_fft *f, size_t n)
{
	return f->c && n <= f->m ? (double *)f->c : NULL; /* m / 2 complex: m doubles */
}

/* r[0..n) of x[0..n) in place in f's buffer (as doubles; x may be that
 * buffer, dmls_fft_points); NULL when out of memory or the series is flat. */
static const double *autocorr(dmls_fft *f, const double *x, size_t n)
{
	size_t m = acf_size(n);
	if (n == 0 || fft_ready(f, m)) /* x in f's buffer: the size is ready */
		return NULL;
	size_t h = m / 2;
	fftw_complex *c = f->c;
	double mean = 0;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t j = 0; j < n / 2; j++)
		c[j][0] = x[2 * j] - mean, c[j][1] = x[2 * j + 1] - mean;
	size_t used = n / 2;
	if (n % 2)
		c[used][0] = x[n - 1] - mean, c[used][1] = 0, used++;
	transform_forward(f, c, h, used);
	power_in_place(c, f->tw, h, f->split);
	/* the inverse, swapped: c[j] = r_{2j+1} + i r_{2j} */
	transform_from_blocks(f, c, h, used);
	if (!(c[0][1] > 0))
		return NULL;
	double *r = (double *)c, inv0 = 1.0 / c[0][1];
	for (size_t j = 0; 2 * j < n; j++) {
		double even = c[j][1], odd = c[j][0];
		r[2 * j] = even * inv0, r[2 * j + 1] = odd * inv0;
	}
	return r;
}

/* r[0..n) from x[0..n); returns 0 or -1 (memory, flat series). */
int dmls_autocorr(dmls_fft *fft, const double *x, size_t n, double *r)
{
	dmls_fft local = {0}, *f = fft ? fft : &local;
	const double *a = autocorr(f, x, n);
	if (a)
		memcpy(r, a, n * sizeof(*r));
	if (f == &local)
		dmls_fft_release(&local);
	return a ? 0 : -1;
}

/* Whether lag k (k0 < k < kmax) is a candidate peak of r: a local maximum
 * of r > 0 holding the maximum of r within +-w (the first lag on a tie). */
static int candidate(const double *r, size_t n, size_t k, size_t w)
{
	if (r[k] <= 0 || r[k] < r[k - 1] || r[k] < r[k + 1])
		return 0;
	size_t lo = k > w ? k - w : 0, hi = k + w < n ? k + w : n - 1;
	for (size_t j = lo; j <= hi; j++)
		if (r[j] > r[k] || (r[j] == r[k] && j < k))
			return 0;
	return 1;
}

/* Whether lag k's double holds a peak too (r at least LATTICE_SHARE of
 * r[k] within +-2 % of 2k, at least a bin either way), or 2k is past the
 * lags a period can be read at (kmax). */
#define LATTICE_SHARE 0.25
static int lattice(const double *r, size_t k, size_t kmax)
{
	size_t w = 2 * k / 50 > 1 ? 2 * k / 50 : 1;
	if (2 * k + w >= kmax)
		return 1;
	for (size_t j = 2 * k - w; j <= 2 * k + w; j++)
		if (r[j] >= LATTICE_SHARE * r[k])
			return 1;
	return 0;
}

/* A candidate peak (candidate), with its double when need_lattice. */
static int usable(const double *r, size_t n, size_t k, size_t w, size_t kmax, int need_lattice)
{
	return candidate(r, n, k, w) && (!need_lattice || lattice(r, k, kmax));
}

static double period_acf(dmls_fft *fft, const double *x, size_t n, double *peak, int need_lattice)
{
	*peak = NAN;
	if (n < 8)
		return 0;
	dmls_fft local = {0}, *f = fft ? fft : &local;
	const double *r = autocorr(f, x, n);
	double lag = 0;
	if (!r)
		goto out;
	size_t k0 = 1;
	while (k0 < n / 2 && r[k0] >= 0.5)
		k0++;
	size_t w = k0 > 1 ? k0 : 2, kmax = n / 2;
	/* two passes over the candidates: the best, then the first near it */
	double best = 0;
	for (size_t k = k0 + 1; k + 1 <= kmax; k++)
		if (r[k] > best && usable(r, n, k, w, kmax, need_lattice))
			best = r[k];
	if (best < 0.1)
		goto out;
	for (size_t k = k0 + 1; k + 1 <= kmax; k++) {
		if (r[k] < 0.8 * best || !usable(r, n, k, w, kmax, need_lattice))
			continue;
		double a = r[k - 1], b = r[k], c = r[k + 1];
		double den = a - 2 * b + c, off = den < 0 ? 0.5 * (a - c) / den : 0;
		lag = (double)k + (fabs(off) < 1 ? off : 0);
		*peak = fmin(1.0, b * (double)n / (double)(n - k));
		break;
	}
out:
	if (f == &local)
		dmls_fft_release(&local);
	return lag;
}

double dmls_period_acf(dmls_fft *fft, const double *x, size_t n, double *peak)
{
	return period_acf(fft, x, n, peak, 0);
}

double dmls_period_acf_lattice(dmls_fft *fft, const double *x, size_t n, double *peak)
{
	return period_acf(fft, x, n, peak, 1);
}
