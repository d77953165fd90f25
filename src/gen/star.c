/*
 * star.c - a parameter server's iteration laid out (schedule.c calls it for
 * a star with push groups or a push gap, as generate --like calibrates
 * them from a run, calibrate.c): its workers push when their own compute
 * ends, in groups, or one by one with the quiets of the run between them,
 * and the server answers once every push is in.
 */
#include <math.h>

#include "gen/gen_int.h"
#include "gen/layout.h"

/* Iteration k's plan into p, its pushes first: their number into *npush,
 * and the turn of the workers' order this iteration into *off.  0, or -1
 * when out of memory. */
static int plan_pushes(gen_plan *p, const dmls_gen_job *job, uint32_t k, size_t *npush,
		       uint64_t *off)
{
	if (gen_plan_iteration(p, job, k))
		return -1;
	*npush = 0;
	while (*npush < p->n && p->x[*npush].phase == DMLS_GEN_PUSH)
		(*npush)++;
	*off = gen_hash(job->seed, GEN_R_ITER, k, 3) % (uint32_t)job->workers;
	return 0;
}

/*
 * Iteration k of a star whose server answers as soon as the last push is in
 * (--like, push_gap_ns > 0; calibrate.c): the W workers push one after the
 * other, each on its own at line rate, in an order that turns every
 * iteration; a push gap (a quiet the analysis keeps inside one burst)
 * after each push, and the server's replies to every worker together at
 * line rate a push gap (at least its update) after the last push.  Each of
 * these W quiets is instead a bucket gap (at least update_ns: a quiet the
 * analysis sees between two bursts) with probability push_groups / W, so
 * an iteration is push_groups + 1 bursts on average, and the iterations
 * differ as a run's do: some are one tight burst (the run's busiest 10
 * ms), others spread over three or four.  Steps: the pushes, then the
 * replies.
 */
static int64_t lay_star_chain(layout *L, gen_plan *p, uint32_t k, int64_t t0, int store)
{
	const dmls_gen_job *job = &L->s->job;
	uint32_t W = (uint32_t)job->workers, hubs = (uint32_t)job->servers;
	double pb = fmin(1, job->push_groups / W);
	int64_t big = job->bucket_gap_ns > job->update_ns ? job->bucket_gap_ns : job->update_ns;
	size_t npush, i = 0;
	uint64_t off;
	if (plan_pushes(p, job, k, &npush, &off))
		return -1;
	int64_t t = t0;
	for (uint32_t j = 0; j <= W; j++) {
		if (j > 0) { /* the quiet before push j, or before the replies */
			int64_t q = gen_u01(job->seed, GEN_R_ITER, k, 256 + j) < pb
					    ? big : job->push_gap_ns;
			t += j == W && q < GEN_SERVER_UPDATE_NS ? GEN_SERVER_UPDATE_NS : q;
		}
		if (j == W)
			break;
		size_t first = i; /* worker (j + off) mod W's pushes (one per server) */
		for (size_t m = i; m < npush; m++) {
			if ((p->x[m].src - hubs + W - off) % W == j) {
				gen_xfer x = p->x[m];
				p->x[m] = p->x[i];
				p->x[i++] = x;
			}
		}
		if (i == first)
			continue;
		t = gen_lay_paced(L, p->x + first, i - first, k, j, t, 0, store);
		if (t < 0)
			return -1;
	}
	return gen_lay_paced(L, p->x + npush, p->n - npush, k, W, t, 0, store);
}

/*
 * Iteration k of a star whose workers push at different times (--like: a
 * run whose pushes came as push_groups bursts, its workers' compute ending
 * at different times): the W workers in G groups (floor or ceil of
 * push_groups, at most W), which worker in which group turning every
 * iteration; each group's pushes paced to last a bucket span, a gap after
 * each (gen_bucket_spans: they fit in the room); the server's replies to
 * every worker go out together at line rate one gap (its update) after the
 * last push.  Steps: the groups, then the replies.  With a push gap, the
 * workers push one by one instead (lay_star_chain, above).
 *
 * A star whose busiest 10 ms hold more than its replies (dense_fraction f >
 * 1/2: the replies are half an iteration's bytes) had workers pushing just
 * before the server answered: the last group is then (f - 1/2) / (1/2) of
 * the workers (floor or ceil, at least one; all of them when G is 1),
 * pushing at line rate, and the server's update after it is shortened so
 * that it and the replies fit in 9 ms (GEN_DENSE_NS, less a 10 % margin),
 * the gap at most; the G - 1 other groups push first as above.
 */
int64_t gen_lay_star(layout *L, gen_plan *p, uint32_t k, int64_t t0, int store)
{
	const dmls_gen_job *job = &L->s->job;
	uint32_t W = (uint32_t)job->workers, hubs = (uint32_t)job->servers;
	double span[64], gap;
	if (job->push_gap_ns > 0)
		return lay_star_chain(L, p, k, t0, store);
	uint32_t G = gen_count_of(job, job->push_groups, k, 2), last = 0;
	G = G < 1 ? 1 : G > W ? W : G > 64 ? 64 : G;
	if (job->dense_fraction > 0.5) {
		double share = fmin(1, (job->dense_fraction - 0.5) / 0.5);
		last = gen_count_of(job, share * W, k, 4);
		last = last && G == 1 ? W : last > W ? W : last;
	}
	uint32_t early = W - last, Ge = last ? (early ? G - 1 : 0) : G;
	Ge = Ge > early && last ? early : Ge;
	gen_bucket_spans(job, k, Ge + (last > 0), (double)job->bucket_room_ns, span, &gap);
	size_t npush, i = 0;
	uint64_t off;
	if (plan_pushes(p, job, k, &npush, &off))
		return -1;
	int64_t t = t0, R = 0, u = 0;
	if (last) { /* the update, the replies: the last pushes fit before them in 9 ms */
		R = gen_lay_paced(L, p->x + npush, p->n - npush, k, Ge + 1, 0, 0, 0);
		if (R < 0)
			return -1;
		u = job->update_ns ? job->update_ns : (int64_t)gap;
	}
	for (uint32_t g = 0; g < Ge + (last > 0); g++) {
		size_t first = i; /* group g's pushes to the front of the rest */
		for (size_t m = i; m < npush; m++) {
			uint64_t w = (p->x[m].src - hubs + off) % W;
			uint32_t of = w >= early ? Ge : (uint32_t)(w * Ge / early);
			if (of == g) {
				gen_xfer x = p->x[m];
				p->x[m] = p->x[i];
				p->x[i++] = x;
			}
		}
		if (i == first)
			continue;
		double sp = span[g];
		if (g == Ge) { /* the last group: paced to fit, else at line rate */
			int64_t room = (int64_t)(0.9 * GEN_DENSE_NS) - R - u;
			sp = room > 0 && sp > (double)room ? (double)room : room > 0 ? sp : 0;
		}
		t = gen_lay_paced(L, p->x + first, i - first, k, g, t, sp, store);
		if (t < 0)
			return -1;
		t += g < Ge ? (int64_t)gap : u;
	}
	uint32_t G1 = Ge + (last > 0);
	if (!last && (int64_t)gap < GEN_SERVER_UPDATE_NS)
		t += GEN_SERVER_UPDATE_NS - (int64_t)gap;
	else if (last && u < GEN_SERVER_UPDATE_NS)
		t += GEN_SERVER_UPDATE_NS - u;
	return gen_lay_paced(L, p->x + npush, p->n - npush, k, G1, t, 0, store);
}
