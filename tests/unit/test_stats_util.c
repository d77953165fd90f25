/* test_stats_util.c - the analysis' helpers: selection agrees with sorting,
 * the FFT autocorrelation with the sum that defines it */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/period.h"

static void test_select_equals_sort(void **state)
{
	(void)state;
	srand(3);
	for (int t = 0; t < 20000; t++) {
		size_t n = 1 + (size_t)(rand() % 60);
		double a[64], b[64];
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] = (double)(rand() % 7); /* many ties */
		double q = (rand() % 101) / 100.0;
		double x = dmls_quantile(a, n, q), y = dmls_quantile_select(b, n, q);
		assert_true(fabs(x - y) < 1e-12);
	}
	assert_true(isnan(dmls_quantile_select(NULL, 0, 0.5)));
}

/* Two sequences of values held in arrays, walked for dmls_rank_select. */
typedef struct two_seqs {
	const uint64_t *v[2];
	size_t n[2];
	int walks;
} two_seqs;

static void walk_two(void *ctx, dmls_rank_emit emit, void *sel)
{
	two_seqs *w = ctx;
	w->walks++;
	for (size_t i = 0; i < w->n[0] || i < w->n[1]; i++) /* interleaved */
		for (unsigned q = 0; q < 2; q++)
			if (i < w->n[q])
				emit(sel, q, w->v[q][i]);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Every rank of two sequences at once, against sorting: ties, zeros,
 * values of 1 to 64 bits (the top bit set too), a bound above the
 * largest; the passes are as many as the bound's 11-bit digits. */
static void test_rank_select_equals_sort(void **state)
{
	(void)state;
	srand(5);
	for (int t = 0; t < 400; t++) {
		uint64_t a[2][300], sorted[2][300], top[2] = {0, 0};
		size_t n[2] = {1 + (size_t)(rand() % 300), 1 + (size_t)(rand() % 300)};
		unsigned bits = 1 + (unsigned)(rand() % 64);
		for (unsigned q = 0; q < 2; q++) {
			for (size_t i = 0; i < n[q]; i++) {
				uint64_t r = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
				r = rand() % 4 ? r : (uint64_t)(rand() % 5); /* ties */
				a[q][i] = bits == 64 ? r | (rand() % 2 ? 1ull << 63 : 0) : r & ((1ull << bits) - 1);
				top[q] = a[q][i] > top[q] ? a[q][i] : top[q];
			}
			memcpy(sorted[q], a[q], n[q] * sizeof(uint64_t));
			qsort(sorted[q], n[q], sizeof(uint64_t), cmp_u64);
		}
		dmls_rank_ask ask[6];
		for (int k = 0; k < 6; k++) {
			unsigned q = (unsigned)k % 2;
			uint64_t bound = top[q] + (top[q] < UINT64_MAX / 2 && rand() % 2 ? top[q] : 0);
			ask[k] = (dmls_rank_ask){q, (uint64_t)(rand() % (int)n[q]), bound};
		}
		ask[0].rank = 0, ask[2].rank = n[0] - 1; /* the smallest and the largest */
		two_seqs w = {{a[0], a[1]}, {n[0], n[1]}, 0};
		uint64_t out[6];
		assert_int_equal(dmls_rank_select(walk_two, &w, ask, 6, out), 0);
		for (int k = 0; k < 6; k++)
			assert_true(out[k] == sorted[ask[k].seq][ask[k].rank]);
		unsigned most = 0;
		for (int k = 0; k < 6; k++) {
			unsigned b = 0;
			while (b < 64 && ask[k].max >> b)
				b++;
			most = b > most ? b : most;
		}
		assert_int_equal(w.walks, (int)((most + 10) / 11));
	}
}

/* r(k) = sum (x_t - m)(x_{t+k} - m) / sum (x_t - m)^2, directly */
static void direct_acf(const double *x, size_t n, double *r)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (size_t k = 0; k < n; k++) {
		double s = 0;
		for (size_t t = 0; t + k < n; t++)
			s += (x[t] - m) * (x[t + k] - m);
		r[k] = s;
	}
	for (size_t k = n; k-- > 0;)
		r[k] /= r[0];
}

static void test_autocorr_equals_sum(void **state)
{
	(void)state;
	srand(5);
	dmls_fft kept = {0};
	static const size_t sizes[] = {2, 3, 5, 8, 9, 63, 64, 65, 100, 257, 1000, 1500, 4099};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		double *x = malloc(n * sizeof(double)), *a = malloc(n * sizeof(double)),
		       *b = malloc(n * sizeof(double));
		assert_non_null(x);
		for (size_t i = 0; i < n; i++) /* bursts every 7 bins plus noise */
			x[i] = (i % 7 == 0 ? 1000.0 : 0.0) + (double)(rand() % 100);
		direct_acf(x, n, a);
		/* with a kept dmls_fft (sizes change) and without one */
		for (int round = 0; round < 2; round++) {
			assert_int_equal(dmls_autocorr(round ? NULL : &kept, x, n, b), 0);
			for (size_t k = 0; k < n; k++)
				assert_true(fabs(a[k] - b[k]) < 1e-9);
		}
		free(x), free(a), free(b);
	}
	double flat[16] = {0};
	double r[16];
	assert_int_equal(dmls_autocorr(&kept, flat, 16, r), -1); /* no variance */
	dmls_fft_release(&kept);
}

/* Transforms of more than 2^15 complex points run their first radix-2
 * stages outside FFTW (period.c, split): 1, 2 and 4 such stages agree
 * with the direct sums at lags across the whole range, kept and not. */
static void test_autocorr_split(void **state)
{
	(void)state;
	srand(7);
	dmls_fft kept = {0};
	static const size_t sizes[] = {40000, 70001, 300000};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		double *x = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
		assert_non_null(x);
		assert_non_null(b);
		for (size_t i = 0; i < n; i++) /* bursts every 1001 bins, a slow swell, noise */
			x[i] = (i % 1001 < 3 ? 5000.0 : 0.0) + 100.0 * sin((double)i * 1e-4) +
			       (double)(rand() % 100);
		double m = 0, c0 = 0;
		for (size_t i = 0; i < n; i++)
			m += x[i];
		m /= (double)n;
		for (size_t i = 0; i < n; i++)
			c0 += (x[i] - m) * (x[i] - m);
		for (int round = 0; round < 2; round++) {
			assert_int_equal(dmls_autocorr(round ? NULL : &kept, x, n, b), 0);
			for (size_t i = 0; i < 200; i++) {
				size_t k = i < 100 ? i * 997 % n : (size_t)rand() % n;
				double sum = 0;
				for (size_t t = 0; t + k < n; t++)
					sum += (x[t] - m) * (x[t + k] - m);
				assert_true(fabs(sum / c0 - b[k]) < 1e-9);
			}
		}
		free(x), free(b);
	}
	dmls_fft_release(&kept);
}

/* Bursts of two gossiping ranks of a real 3-rank run (testbed, 16 pushes
 * each; the log's mean steps 0.0919 and 0.1225 s): 9 bursts found of 16
 * requests, missed inside the span and at its ends. */
static void test_period_of_missed(void **state)
{
	(void)state;
	static const double r1[] = {1.193, 1.309, 1.397, 1.581, 1.749, 1.953, 2.213, 2.305, 2.570};
	static const double r2[] = {1.833, 2.100, 2.340, 2.465, 2.581, 2.701, 2.825, 2.941, 3.059};
	assert_true(fabs(dmls_period_of_missed(r1, 9, 16) / 0.0919 - 1) < 0.03);
	assert_true(fabs(dmls_period_of_missed(r2, 9, 16) / 0.1225 - 1) < 0.03);
	/* a pair-averaging rank without a pace (testbed, 3 ranks, 40 steps;
	 * its log: 0.0323 s a step): 34 bursts, intervals' CV 0.5, every
	 * count fits alike (best 0.27); requests merged inside the span, so
	 * the span over 39 steps (the best fit, 33 steps: +17 %) */
	static const double irregular[] = {
		0.000, 0.058, 0.149, 0.195, 0.213, 0.231, 0.247, 0.293, 0.335, 0.375,
		0.396, 0.421, 0.467, 0.504, 0.522, 0.607, 0.651, 0.689, 0.723, 0.763,
		0.798, 0.831, 0.856, 0.911, 0.946, 1.031, 1.071, 1.094, 1.140, 1.182,
		1.202, 1.223, 1.251, 1.270};
	assert_true(fabs(dmls_period_of_missed(irregular, 34, 40) - 1.270 / 39) < 1e-12);
	assert_true(fabs(dmls_period_of_missed(irregular, 34, 40) / 0.0323 - 1) < 0.02);
	/* nothing missed: the plain span over the steps */
	static const double even[] = {0, 1, 2, 3, 4};
	assert_true(fabs(dmls_period_of_missed(even, 5, 5) - 1) < 1e-12);
	assert_true(isnan(dmls_period_of_missed(even, 1, 3)));
}

/* dmls_period_of_extra: 39 bursts of a pair-averaging rank with 36
 * requests (make validate, 8 ranks; its log: 0.1762 s a step, the first
 * interval left out, 0.1769 with it), whose steps shorten as the job goes
 * (median interval 0.151 s): the answers taken for requests sit by a
 * request, so the span is the requests'.  Three answers after the last of
 * 40 requests 0.1 s apart stretch the span: the median. */
static void test_period_of_extra(void **state)
{
	(void)state;
	static const double t[] = {
		2.398, 2.615, 2.968, 3.098, 3.113, 3.317, 3.523, 3.673, 3.913, 4.109,
		4.262, 4.551, 4.703, 4.928, 5.073, 5.335, 5.461, 5.634, 5.773, 5.797,
		5.871, 6.046, 6.257, 6.459, 6.656, 6.891, 7.032, 7.149, 7.271, 7.446,
		7.563, 7.736, 7.874, 7.998, 8.137, 8.264, 8.411, 8.539, 8.643};
	size_t k = sizeof(t) / sizeof(t[0]);
	double span = (t[k - 1] - t[0]) / 35;
	double p = dmls_period_of_extra(t, k, 36, span);
	assert_true(fabs(p - span) < 1e-12);
	assert_true(fabs(p / 0.1762 - 1) < 0.05);
	double late[43];
	for (int i = 0; i < 40; i++)
		late[i] = 0.1 * i;
	late[40] = 4.4, late[41] = 5.1, late[42] = 6.2;
	span = late[42] / 39;
	assert_true(fabs(dmls_period_of_extra(late, 43, 40, span) - 0.1) < 1e-9);
	/* a pair-averaging rank beside a DDP job (testbed; its log: 0.0821 s
	 * a step): 43 bursts of 40 requests, no answer by a request, neither
	 * end stretched: the span (the median, 0.072 s, is 12 % short) */
	static const double inside[] = {
		0.000, 0.073, 0.144, 0.226, 0.302, 0.357, 0.369, 0.411, 0.465, 0.503,
		0.577, 0.644, 0.708, 0.768, 0.789, 0.841, 0.905, 0.930, 0.989, 1.053,
		1.169, 1.305, 1.358, 1.499, 1.546, 1.637, 1.731, 1.831, 1.901, 2.068,
		2.167, 2.304, 2.358, 2.456, 2.529, 2.651, 2.746, 2.837, 2.913, 2.991,
		3.109, 3.147, 3.205};
	span = 3.205 / 39;
	assert_true(fabs(dmls_period_of_extra(inside, 43, 40, span) - span) < 1e-12);
	assert_true(fabs(dmls_period_of_extra(inside, 43, 40, span) / 0.0821 - 1) < 0.01);
	/* those requests followed by 3 answers after the last, at the pace of
	 * the other ranks' requests: the tail stretched, the span without it */
	double tail[43];
	memcpy(tail, inside, 40 * sizeof(double));
	tail[40] = 3.4, tail[41] = 3.7, tail[42] = 4.0;
	assert_true(fabs(dmls_period_of_extra(tail, 43, 40, 4.0 / 39) - inside[39] / 39) < 1e-12);
	/* a pair-averaging rank at 2 % loss (testbed, 5 ranks; its log: 0.0558
	 * s a step): 44 bursts of 41 requests, the last two answers 0.03 s
	 * apart, 0.82 s after its last step: the span without them (the
	 * median, 0.035 s, was 30 % short) */
	static const double lossy[] = {
		2.485, 2.556, 2.587, 2.686, 2.731, 2.784, 2.971, 2.993, 3.019, 3.044, 3.076,
		3.087, 3.110, 3.256, 3.323, 3.329, 3.376, 3.412, 3.451, 3.527, 3.554, 3.597,
		3.643, 3.676, 3.698, 3.747, 3.797, 3.820, 3.883, 3.917, 3.943, 4.009, 4.036,
		4.284, 4.359, 4.398, 4.443, 4.527, 4.561, 4.595, 4.621, 4.666, 5.489, 5.516};
	span = (5.516 - 2.485) / 40;
	assert_true(fabs(dmls_period_of_extra(lossy, 44, 41, span) - (4.666 - 2.485) / 40) < 1e-12);
	assert_true(fabs(dmls_period_of_extra(lossy, 44, 41, span) / 0.0558 - 1) < 0.03);
	/* another rank of that job (its log: 0.0802 s a step): 44 bursts of
	 * 41 requests, 28 answers 0.02 s apart inside its span, none beyond
	 * an end: the span (the median interval, 0.026 s, was 68 % short) */
	static const double dense[] = {
		2.451, 2.510, 2.569, 2.811, 3.015, 3.049, 3.271, 3.372, 4.060, 4.195, 4.330,
		4.416, 4.447, 4.474, 4.494, 4.520, 4.542, 4.563, 4.592, 4.607, 4.636, 4.657,
		4.682, 4.705, 4.727, 4.749, 4.772, 4.793, 4.815, 4.839, 4.861, 4.882, 4.907,
		4.929, 4.951, 4.973, 4.994, 5.015, 5.250, 5.279, 5.487, 5.543, 5.573, 5.606};
	span = (5.606 - 2.451) / 40;
	assert_true(fabs(dmls_period_of_extra(dense, 44, 41, span) - span) < 1e-12);
	assert_true(fabs(dmls_period_of_extra(dense, 44, 41, span) / 0.0802 - 1) < 0.03);
}

/* dmls_period_of_even: the fastest rank of a 7-rank pair averaging
 * (testbed, 0.01 s pace; its log: 30 steps of 0.0520 s) gave 30 bursts
 * for its 30 requests, the last an answer to a slower rank 0.88 s after
 * its own last step and two requests run together inside: the span over
 * 29 steps was 58 % long, the 29 others over 30 requests are within 1 %.
 * Bursts that end within six medians of the next stay as they are. */
static void test_period_of_even(void **state)
{
	(void)state;
	static const double t[] = {
		1.263, 1.332, 1.391, 1.422, 1.476, 1.528, 1.587, 1.635, 1.675, 1.723,
		1.779, 1.826, 1.892, 1.926, 1.974, 2.007, 2.133, 2.183, 2.240, 2.282,
		2.315, 2.383, 2.413, 2.495, 2.544, 2.607, 2.642, 2.725, 2.771, 3.647};
	size_t k = sizeof(t) / sizeof(t[0]);
	double span = (t[k - 1] - t[0]) / (double)(k - 1);
	assert_true(span / 0.0520 - 1 > 0.5);
	assert_true(fabs(dmls_period_of_even(t, k, span) / 0.0520 - 1) < 0.01);
	/* the same bursts reversed in time: the lone one at the start */
	double r[30];
	for (size_t i = 0; i < k; i++)
		r[i] = 10.0 - t[k - 1 - i];
	assert_true(fabs(dmls_period_of_even(r, k, span) / 0.0520 - 1) < 0.01);
	/* a stall of five medians at the end is a step: the span stays */
	double stall[30];
	for (size_t i = 0; i < k; i++)
		stall[i] = 0.05 * (double)i + (i == k - 1 ? 0.2 : 0);
	double s = stall[k - 1] / (double)(k - 1);
	assert_true(fabs(dmls_period_of_even(stall, k, s) - s) < 1e-12);
	assert_true(fabs(dmls_period_of_even(t, 3, 0.5) - 0.5) < 1e-12);
	/* the same lone answer where requests were missed (kc > k): a 5-rank
	 * pair averaging's fastest rank at 2 % loss (its log: 41 steps of
	 * 0.0357 s), 37 bursts for 41 requests, the last 1.8 s after the rest:
	 * +126 % with it, within 3 % without */
	static const double missed[] = {
		3.067, 3.120, 3.168, 3.192, 3.222, 3.245, 3.265, 3.284, 3.303, 3.321,
		3.341, 3.361, 3.383, 3.622, 3.642, 3.665, 3.694, 3.718, 3.739, 3.753,
		3.785, 3.804, 3.847, 3.913, 3.950, 4.190, 4.230, 4.254, 4.284, 4.310,
		4.342, 4.378, 4.402, 4.425, 4.446, 4.465, 6.248};
	assert_true(dmls_period_of_missed(missed, 37, 41) / 0.0357 - 1 > 1.0);
	assert_true(fabs(dmls_period_of_requests(missed, 37, 41) / 0.0357 - 1) < 0.03);
	/* and the answer of the even count above, through the same entry */
	assert_true(fabs(dmls_period_of_requests(t, k, k) / 0.0520 - 1) < 0.01);
}

/* A spacing that recurs inside each period is not a period: the byte
 * clock's gap histogram of a 2-rank resnet50 DDP ring held two gaps 8.8 MB
 * apart in every 189 MB step, and that lag's autocorrelation (0.18) came
 * within 0.8 of the step's (0.21), so the first strong peak was a twentieth
 * of a step.  Here: a pair of gaps 9 bins apart in every step of 200 bins,
 * the steps jittered by up to +-4 bins; the plain search takes the pair's
 * spacing, the lattice search the step. */
static void test_period_lattice(void **state)
{
	(void)state;
	const size_t n = 8192, P = 200;
	double *x = calloc(n, sizeof(double));
	assert_non_null(x);
	uint32_t seed = 12345;
	for (size_t s = 0; s + 1 < n / P; s++) {
		seed = seed * 1103515245u + 12345u;
		long j = (long)((seed >> 16) % 9) - 4;
		size_t at = s * P + 20 + (size_t)(j + 4);
		for (int t = -3; t <= 3; t++) { /* a triangle, as the histogram spreads */
			x[at + t + 3] += 4 - abs(t);
			x[at + 9 + t + 3] += 4 - abs(t);
		}
	}
	double pk1, pk2;
	double plain = dmls_period_acf(NULL, x, n, &pk1);
	double lat = dmls_period_acf_lattice(NULL, x, n, &pk2);
	assert_true(fabs(plain - 9) < 1.5);
	assert_true(fabs(lat - (double)P) < 0.05 * (double)P);
	free(x);
}

/* dmls_byteclock_starts on x[0..n) (on at 1 byte) with a transform of
 * its own: the starts' count; *B the bytes per iteration. */
static size_t byteclock(const double *x, size_t n, size_t *starts, double *B)
{
	dmls_fft fft = {0};
	double peak;
	size_t ns = dmls_byteclock_starts(&fft, (dmls_bins){NULL, x}, n, 1.0, starts, B, &peak);
	dmls_fft_release(&fft);
	return ns;
}

/* dmls_byteclock_starts where the bytes per step creep (1000 to 1105
 * over 36 steps, each a burst of 5 bins then 15 idle): the fold's phase
 * fits part of the run, and the steps before the first anchor are tracked
 * back from it, not lost (forward only: 32 of the 36). */
static void test_byteclock_creep(void **state)
{
	(void)state;
	enum { STEPS = 36, BURST = 5, GAP = 15 };
	size_t n = STEPS * (BURST + GAP), starts[STEPS * (BURST + GAP)];
	double *x = calloc(n, sizeof(double)), B = 0;
	assert_non_null(x);
	for (int k = 0; k < STEPS; k++)
		for (int b = 0; b < BURST; b++)
			x[k * (BURST + GAP) + b] = (1000.0 + 3.0 * k) / BURST;
	size_t ns = byteclock(x, n, starts, &B);
	assert_true(ns >= STEPS - 1 && ns <= STEPS);
	for (size_t i = 1; i < ns; i++) /* every start at a burst's first bin */
		assert_int_equal(starts[i] % (BURST + GAP), 0);
	free(x);
}

/* dmls_byteclock_starts over 60000 steps (an hour of 60 ms steps): more
 * than its gap histogram (2^17 bins) resolves, two bins a step, where the
 * peak came at a multiple of the step (11 of them on such a job).  B comes
 * from the first gaps, and every step is tracked. */
static void test_byteclock_many_steps(void **state)
{
	(void)state;
	enum { STEPS = 60000, BURST = 3, GAP = 7 };
	size_t n = STEPS * (BURST + GAP);
	size_t *starts = malloc((n + 3) * sizeof(size_t)); /* more than period.h asks */
	double *x = calloc(n, sizeof(double)), B = 0;
	assert_non_null(x);
	assert_non_null(starts);
	uint32_t seed = 7;
	for (int k = 0; k < STEPS; k++) {
		seed = seed * 1103515245u + 12345u;
		int len = 1 + (int)((seed >> 16) % BURST); /* 1 to 3 bins of one step's bytes */
		for (int b = 0; b < len; b++)
			x[(size_t)k * (BURST + GAP) + (size_t)b] = 1000.0 / len;
	}
	size_t ns = byteclock(x, n, starts, &B);
	assert_true(ns >= STEPS - 1 && ns <= STEPS);
	assert_true(fabs(B / 1000.0 - 1) < 0.001);
	free(x);
	free(starts);
}

/* dmls_byteclock_starts over a long capture whose bytes per step drift
 * against their mean: exact for the first quarter, then 0.2 % more a step
 * and now and then 1 % (retransmissions, at a rate that changes), while
 * each step holds a short hole at a random place.  The whole capture's
 * fold then places the step boundaries where the early steps hold only
 * holes: on a real hour of DDP (70000 steps) the first anchor was such a
 * hole half a step off, and the first 11 s came out as one "iteration".
 * The phase comes from the last 32 steps, and every step is found from
 * the first. */
static void byteclock_drift(uint32_t seed, int lossy)
{
	enum { STEPS = 4000, DATA = 10, GAP = 8 };
	size_t n = (size_t)STEPS * (DATA + GAP);
	size_t *starts = malloc((n + 3) * sizeof(size_t)); /* more than period.h asks */
	double *x = calloc(n, sizeof(double)), B = 0;
	assert_non_null(x);
	assert_non_null(starts);
	for (size_t k = 0; k < STEPS; k++) {
		double *st = x + k * (DATA + GAP);
		seed = seed * 1103515245u + 12345u;
		size_t hole = 2 + (seed >> 16) % 6; /* bins hole, hole + 1 empty */
		for (size_t b = 0; b < DATA; b++)
			st[b] = b == hole || b == hole + 1 ? 0 : 125;
		seed = seed * 1103515245u + 12345u;
		if (lossy) /* 3 % more in a third of the steps, from the start */
			st[DATA - 1] += (seed >> 16) % 3 == 0 ? 30 : 0;
		else if (k >= STEPS / 4)
			st[DATA - 1] += (seed >> 16) % 100 == 0 ? 12 : 2;
	}
	size_t ns = byteclock(x, n, starts, &B);
	assert_true(fabs(B / (lossy ? 1010.0 : 1000.0) - 1) < 0.01);
	assert_int_equal(ns, STEPS);
	for (size_t i = 0; i < ns; i++) /* every start at a step's first bin */
		assert_int_equal(starts[i], i * (DATA + GAP));
	free(x);
	free(starts);
}

static void test_byteclock_drift(void **state)
{
	(void)state;
	byteclock_drift(1, 0); /* the whole capture's phase: 15 steps missed */
	byteclock_drift(3, 0);
	byteclock_drift(11, 0);
	/* a lossy path's steps wander by 1.4 % of B a step: over 256 steps
	 * the window's fold smeared (4 and 15 starts on holes) */
	byteclock_drift(19, 1);
	byteclock_drift(25, 1);
}

/* The bytes before the first step boundary: an iteration when they are
 * one (0.75 B to 1.25 B), else warm-up.  Rank 0 of a real DDP ring sends
 * the initial broadcast of the parameters, 1.33 B, as one burst before
 * its first step: counted, its per-rank files had one iteration more than
 * the log's steps. */
static size_t byteclock_prefix(double prefix)
{
	enum { STEPS = 36, DATA = 4, GAP = 12 };
	size_t n = (size_t)(STEPS + 1) * (DATA + GAP);
	size_t *starts = malloc((n + 3) * sizeof(size_t)); /* more than period.h asks */
	double *x = calloc(n, sizeof(double)), B = 0;
	assert_non_null(x);
	assert_non_null(starts);
	for (size_t b = 0; b < DATA; b++)
		x[b] = prefix / DATA;
	for (size_t k = 1; k <= STEPS; k++)
		for (size_t b = 0; b < DATA; b++)
			x[k * (DATA + GAP) + b] = 250;
	size_t ns = byteclock(x, n, starts, &B);
	assert_true(fabs(B / 1000.0 - 1) < 0.01);
	assert_int_equal(starts[ns - 1], STEPS * (DATA + GAP));
	free(x);
	free(starts);
	return ns;
}

static void test_byteclock_warmup(void **state)
{
	(void)state;
	assert_int_equal(byteclock_prefix(1330), 36); /* rank 0's broadcast */
	assert_int_equal(byteclock_prefix(2600), 36);
	assert_int_equal(byteclock_prefix(500), 36); /* a ring's broadcast */
	assert_int_equal(byteclock_prefix(1000), 37); /* a step */
	assert_int_equal(byteclock_prefix(800), 37);  /* a step cut by the capture */
}

/* A step that carries 0.3 B more than the others (a burst of
 * retransmissions after a timeout) moves every later boundary by 0.3 B,
 * out of tracking's +-25 % window: every step on the far side of it was
 * lost.  An empty window is searched again over +-50 % for a gap as long
 * as the family's median (3000 steps of a real DDP ring over a lossy path: 2997 and 2999
 * of 3000 on two ranks' files, now 3000 on each). */
static void byteclock_shift(size_t steps)
{
	enum { DATA = 4, GAP = 12 };
	size_t n = steps * (DATA + GAP);
	size_t *starts = malloc((n + 3) * sizeof(size_t)); /* more than period.h asks */
	double *x = calloc(n, sizeof(double)), B = 0;
	assert_non_null(x);
	assert_non_null(starts);
	for (size_t k = 0; k < steps; k++)
		for (size_t b = 0; b < DATA; b++)
			x[k * (DATA + GAP) + b] = 250 + (k == steps / 2 && b == 1 ? 300 : 0);
	size_t ns = byteclock(x, n, starts, &B);
	assert_int_equal(ns, steps);
	for (size_t i = 0; i < ns; i++)
		assert_int_equal(starts[i], i * (DATA + GAP));
	free(x);
	free(starts);
}

/* 400 steps: a long capture, tracked back from its last steps.  (200, a
 * short one, finds 99: there the wider search tiled steps of S or 3 S in
 * no order, test_uneven_withheld.) */
static void test_byteclock_shift(void **state)
{
	(void)state;
	byteclock_shift(400);
}

/* Steps run back to back, without their compute gap, now and then (a
 * rank that waited for stalled partners through its compute: a real
 * Rabenseifner rank's file on a lossy path lost 9 of 400 steps into their
 * neighbours).  Every 40th step here: its iteration holds 2 B, and is
 * split where its bytes reach B. */
static void test_byteclock_back_to_back(void **state)
{
	(void)state;
	enum { STEPS = 200, DATA = 4, GAP = 12 };
	size_t n = (size_t)STEPS * (DATA + GAP), at = 0;
	size_t *starts = malloc((n + 3) * sizeof(size_t)), *want = malloc(STEPS * sizeof(size_t));
	double *x = calloc(n, sizeof(double)), B = 0;
	assert_non_null(x);
	assert_non_null(starts);
	assert_non_null(want);
	for (size_t k = 0; k < STEPS; k++) {
		want[k] = at;
		for (size_t b = 0; b < DATA; b++)
			x[at++] = 250;
		at += k % 40 == 17 ? 0 : GAP;
	}
	size_t ns = byteclock(x, n, starts, &B);
	assert_int_equal(ns, STEPS);
	for (size_t i = 0; i < ns; i++)
		assert_int_equal(starts[i], want[i]);
	free(x);
	free(starts);
	free(want);
}

/* dmls_byteclock_starts with an evaluation pause every EVERY steps (26x
 * a step's gap): weighed by their length the pauses were the histogram,
 * and 36 "iterations" of 100 steps came out of a ring's hour with a 5 s
 * pause every 100 steps of 0.2 s.  Here a pause every 150 steps, and
 * every 40 with two short gaps inside each step besides (pauses under 1 %
 * of the gaps: PAUSE_QUANTILE). */
static void byteclock_pauses(int every, int inner)
{
	enum { STEPS = 2000, BURST = 6, GAP = 15, PAUSE = 400 };
	size_t n = (size_t)STEPS * (BURST + GAP) + (size_t)(STEPS / every + 1) * PAUSE, at = 0;
	size_t *starts = malloc((n + 3) * sizeof(size_t)); /* more than period.h asks */
	size_t *want = malloc(STEPS * sizeof(size_t));
	double *x = calloc(n, sizeof(double)), B = 0;
	assert_non_null(x);
	assert_non_null(starts);
	assert_non_null(want);
	for (int k = 0; k < STEPS; k++) {
		want[k] = at;
		for (int b = 0; b < BURST; b++) /* inner: bins 1 and 3 of a step empty */
			x[at + (size_t)b] = inner && (b == 1 || b == 3) ? 0 : 1000.0 / (inner ? 4 : BURST);
		at += BURST + GAP + ((k + 1) % every == 0 ? PAUSE : 0);
	}
	size_t ns = byteclock(x, n, starts, &B);
	assert_true(fabs(B / 1000.0 - 1) < 0.01);
	assert_true(ns >= STEPS - 1 && ns <= STEPS);
	for (size_t i = 1; i < ns; i++) /* every start at a step's first bin */
		assert_int_equal(starts[i], want[STEPS - ns + i]);
	free(x);
	free(starts);
	free(want);
}

static void test_byteclock_pauses(void **state)
{
	(void)state;
	byteclock_pauses(150, 0);
	byteclock_pauses(40, 1);
}

/* The wander of dmls_clock_compare. */
static double wander_of(const double *ref, size_t nr, const double *e, size_t n, double P)
{
	double spread, lock, w;
	dmls_clock_compare(ref, nr, e, n, P, &spread, &lock, &w);
	return w;
}

/* dmls_clock_compare's wander: ends at noisy offsets about one value (one job's two
 * parts) against ends drifting (a 3 % longer step) or random-walking (two
 * jobs' clocks): the offsets' step-to-step changes over their spread. */
static void test_clock_wander(void **state)
{
	(void)state;
	enum { N = 30 };
	double ref[N], same[N], drift[N], walk[N], t = 0.3;
	unsigned r = 12345;
	for (int k = 0; k < N; k++) {
		r = r * 1103515245u + 12345u;
		double u = ((double)((r >> 16) & 0x7fff) / 32767.0 - 0.5) * 0.3; /* +-0.15 */
		ref[k] = k;
		same[k] = k + 0.3 + u;
		drift[k] = 0.3 + 1.03 * k;
		t += k ? 1 + u : 0;
		walk[k] = t;
	}
	double w = wander_of(ref, N, same, N, 1.0);
	assert_true(w >= 0.9);
	w = wander_of(ref, N, drift, N, 1.0);
	assert_true(w < 0.3);
	w = wander_of(ref, N, walk, N, 1.0);
	assert_true(w < 0.7);
	assert_true(isnan(wander_of(ref, N, same, 2, 1.0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_equals_sort),
		cmocka_unit_test(test_rank_select_equals_sort),
		cmocka_unit_test(test_autocorr_equals_sum),
		cmocka_unit_test(test_autocorr_split),
		cmocka_unit_test(test_period_of_missed),
		cmocka_unit_test(test_period_of_extra),
		cmocka_unit_test(test_period_of_even),
		cmocka_unit_test(test_period_lattice),
		cmocka_unit_test(test_byteclock_creep),
		cmocka_unit_test(test_byteclock_many_steps),
		cmocka_unit_test(test_byteclock_pauses),
		cmocka_unit_test(test_byteclock_drift),
		cmocka_unit_test(test_byteclock_warmup),
		cmocka_unit_test(test_byteclock_shift),
		cmocka_unit_test(test_byteclock_back_to_back),
		cmocka_unit_test(test_clock_wander),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
