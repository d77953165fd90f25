/*
 * rank_clocks.c - the ranks' own clocks, two at a time.
 *
 * Each rank's clock (dmls_iterations_find_clock) reads the shared stats
 * and makes its own series and transforms, so the clocks of a job's ranks
 * are independent: on real runs they are 13 % of a whole analyze (the
 * byte clock's autocorrelations of 2^17 bins).  With st->analysis_threads
 * >= 2 (job.c sets it when the pass ran in two threads) a second thread
 * takes hosts from the same counter; each result lands at its host's
 * place, so the output does not depend on who made it.  period.c's plan
 * cache is the only state the clocks share; it takes a lock.  The second
 * thread's start and join are dmls_work_in_two, which connections.c's
 * clocks use too.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"

void dmls_work_in_two(const dmls_stats *st, size_t n, void *(*work)(void *), void *arg)
{
	pthread_t tid;
	int second = st->analysis_threads >= 2 && n >= 2 &&
		     pthread_create(&tid, NULL, work, arg) == 0;
	work(arg);
	if (second)
		pthread_join(tid, NULL);
}

typedef struct clock_work {
	dmls_iterations *its;
	const dmls_stats *st;
	const size_t *h, *pairs;
	size_t n, np;
	size_t next;      /* the next host to take (atomic) */
	int *rc;          /* per host */
	dmls_error *errs; /* per host */
} clock_work;

static void *clock_worker(void *arg)
{
	clock_work *w = arg;
	size_t *mine = malloc((w->np ? w->np : 1) * sizeof(size_t));
	for (size_t i; (i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n;) {
		if (!mine) {
			w->rc[i] = dmls_fail(&w->errs[i], DMLS_ENOMEM, "out of memory");
			continue;
		}
		size_t nm = 0;
		for (size_t k = 0; w->pairs && k < w->np; k++)
			if (w->st->pairs[w->pairs[k]].src == w->h[i])
				mine[nm++] = w->pairs[k];
		dmls_error_clear(&w->errs[i]);
		w->rc[i] = dmls_iterations_find_clock(&w->its[i], w->st, w->h[i], nm ? mine : NULL,
						      nm, &w->errs[i]);
	}
	free(mine);
	return NULL;
}

int dmls_iterations_find_clocks(dmls_iterations *its, const dmls_stats *st, const size_t *h,
				size_t n, const size_t *pairs, size_t np, dmls_error *err)
{
	if (n == 0)
		return 0;
	int *rc = calloc(n, sizeof(int));
	dmls_error *errs = calloc(n, sizeof(dmls_error));
	if (!rc || !errs) {
		free(rc);
		free(errs);
		return dmls_fail(err, DMLS_ENOMEM, "out of memory");
	}
	memset(its, 0, n * sizeof(*its));
	clock_work w = {its, st, h, pairs, n, np, 0, rc, errs};
	dmls_work_in_two(st, n, clock_worker, &w);
	int out = 0;
	for (size_t i = 0; i < n; i++)
		if (rc[i] && !out) {
			out = rc[i];
			*err = errs[i];
		}
	if (out) /* the sequential loop stopped at the first failure */
		for (size_t i = 0; i < n; i++)
			if (!rc[i])
				dmls_iterations_release(&its[i]);
	free(rc);
	free(errs);
	return out;
}
