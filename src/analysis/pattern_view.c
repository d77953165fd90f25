/*
 * pattern_view.c - what part of the job the capture saw.
 *
 * The study captured each worker's outgoing packets (`tcpdump src <own
 * ip>`), one file per worker; given all of them the capture holds every
 * rank's sending.  Users also hand over one worker's file, a few of them,
 * or one host's capture of both directions.  Then some ranks are seen only
 * as destinations, and the volume graph has their rows empty: a ring of 4
 * seen from one rank is one edge (a "2-rank ring"), a parameter server seen
 * from its hub is a fan-out.
 *
 * Observed: a host's sending is in the capture when it sent data (at least
 * DMLS_MIN_DATA_BYTES of payload: a rank seen only through its requests to
 * the rendezvous store is not observed) and at least OBS_SHARE of what it
 * received (every collective makes a rank send
 * about what it receives: a ring 2(N-1)/N S each way, a server W S each
 * way, a worker S each way; a rank whose sending was not captured shows a
 * few acknowledgements or control replies against megabytes received).
 *
 * One host's capture of both directions (every packet from or to it, 3
 * or more hosts): only that host is observed; the others' edges to it are
 * seen whole (a ring predecessor's), their other sending not at all, so a
 * star there is only called one when the hub's edges are balanced (a
 * butterfly's partners differ 2:1).  A star centered on its one hub with
 * balanced edges is whole: spokes talk to hubs only, so the hub's capture
 * holds every rank's sending (the same packets as every rank's file).
 *
 * On a partial view (some rank of the data graph not observed):
 *   - the graph keeps only the observed senders' edges (the threshold is
 *     DMLS_EDGE_FRACTION of their largest pair) and is classified on what
 *     they show:
 *       star  the hubs (observed hosts sending data to 2 or more ranks, or
 *             hosts receiving data from 2 or more) are at most half of the
 *             ranks, no edge joins two spokes, an observed hub sends to
 *             every spoke, an observed spoke to every hub, the edges'
 *             volumes within STAR_BALANCE of each other;
 *       ring  every observed sender sends data to exactly one rank, no
 *             rank receives from two, no cycle short of all ranks; the
 *             order is the longest chain seen.  One sender with one data
 *             peer (no chain of 3 seen) is also what a parameter
 *             server's worker shows: it is
 *             a ring only when that sender also moved bulk (at least
 *             DMLS_MIN_DATA_BYTES) to another host (a collective's
 *             broadcast: DDP's initial parameters); else the kind is
 *             unknown (lone_sender);
 *       anything else is unknown (trees, cliques, butterflies cannot be
 *       told from a part of their edges), but a clique's rank seen alone
 *       looks like a star's hub until its steps are known
 *       (dmls_pattern_clique_rank, below), and so does a rank of a
 *       recursive-doubling butterfly (dmls_pattern_doubling_rank);
 *   - ranks: every host of the data graph (a ring rank seen only as a
 *     receiver is still a rank) plus every host an observed rank exchanged
 *     payload with (the rendezvous store, Gloo's full mesh of connections,
 *     the initial broadcast: the job's other ranks, whose data edges the
 *     capture misses);
 *   - pairs: the observed senders' data edges, the series iterations are
 *     found on (a host's whole sending would count a one-off broadcast to
 *     the ranks it does not exchange gradients with as an iteration);
 *   - confidence is scaled by 0.5 + 0.5 observed / ranks.
 * Without a partial view nothing changes (observed = ranks).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "analysis/endpoints.h"
#include "analysis/period.h"

#define OBS_SHARE 0.1
#define STAR_BALANCE 0.7 /* a partial star: hub edges within this ratio */
#define VIEW_MIN_BULK (256.0 * 1024)

int dmls_host_observed(const dmls_stats *st, size_t h)
{
	const dmls_host *x = &st->hosts[h];
	return (double)x->tx_payload_bytes >= VIEW_MIN_BULK &&
	       (double)x->tx_payload_bytes >= OBS_SHARE * (double)x->rx_payload_bytes;
}

static int cmp_host_addr(const void *a, const void *b, const dmls_stats *st)
{
	return memcmp(st->hosts[*(const size_t *)a].addr, st->hosts[*(const size_t *)b].addr, 16);
}

static void sort_hosts(const dmls_stats *st, size_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) /* insertion sort, n is small */
		for (size_t j = i; j > 0 && cmp_host_addr(&v[j - 1], &v[j], st) > 0; j--) {
			size_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

typedef struct view {
	size_t n;
	size_t center;        /* local index of the capturing host, n if none */
	const size_t *node;   /* host indexes */
	unsigned char *obs;   /* n */
	unsigned char *e;     /* n*n: observed sender u sends data to v */
	double *w;            /* n*n payload */
} view;

static size_t out_deg(const view *v, size_t u)
{
	size_t d = 0;
	for (size_t x = 0; x < v->n; x++)
		d += v->e[u * v->n + x];
	return d;
}

static size_t in_deg(const view *v, size_t x)
{
	size_t d = 0;
	for (size_t u = 0; u < v->n; u++)
		d += v->e[u * v->n + x];
	return d;
}

static double balance(const view *v)
{
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < v->n * v->n; i++)
		if (v->e[i]) {
			lo = v->w[i] < lo ? v->w[i] : lo;
			hi = v->w[i] > hi ? v->w[i] : hi;
		}
	return hi > 0 ? lo / hi : 0;
}

/* Star on the observed edges; fills hubs (host indexes). */
static double view_star(const view *v, size_t *hubs, size_t *nhubs)
{
	size_t n = v->n, k = 0;
	unsigned char *hub = calloc(n, 1);
	double c = 0;
	if (!hub || n < 3)
		goto out;
	for (size_t u = 0; u < n; u++)
		if ((v->obs[u] && out_deg(v, u) >= 2) || in_deg(v, u) >= 2)
			hub[u] = 1, k++;
	if (k == 0 || k > n / 2)
		goto out;
	for (size_t u = 0; u < n; u++)
		for (size_t x = 0; x < n; x++) {
			if (u == x)
				continue;
			int ux = v->e[u * n + x];
			if (!hub[u] && !hub[x] && ux)
				goto out; /* spoke to spoke */
			if (v->obs[u] && hub[u] != hub[x] && !ux)
				goto out; /* an observed hub misses a spoke, or a spoke a hub */
		}
	*nhubs = 0;
	for (size_t u = 0; u < n; u++)
		if (hub[u])
			hubs[(*nhubs)++] = v->node[u];
	double bal = balance(v);
	if (bal < STAR_BALANCE)
		goto out; /* a hub's partners at different volumes: halving, not a star */
	c = 0.8 * (0.6 + 0.4 * bal);
out:
	free(hub);
	return c;
}

/* Ring on the observed edges; fills order (host indexes) with the longest
 * chain seen. */
static double view_ring(const view *v, size_t *order, size_t *norder)
{
	size_t n = v->n, best = 0, best_from = 0;
	for (size_t u = 0; u < n; u++) {
		if (v->obs[u] && out_deg(v, u) != 1)
			return 0;
		if (in_deg(v, u) > 1)
			return 0;
	}
	for (size_t s = 0; s < n; s++) {
		if (in_deg(v, s) != 0)
			continue;
		size_t len = 1, u = s;
		for (;;) {
			size_t next = n;
			for (size_t x = 0; x < n; x++)
				if (v->e[u * n + x])
					next = x;
			if (next == n || len > n)
				break;
			u = next, len++;
		}
		if (len > best)
			best = len, best_from = s;
	}
	if (best < 2)
		return 0; /* only cycles: a ring of the observed hosts alone */
	size_t u = best_from;
	*norder = 0;
	for (size_t i = 0; i < best; i++) {
		order[(*norder)++] = v->node[u];
		for (size_t x = 0; x < n; x++)
			if (v->e[u * n + x]) {
				u = x;
				break;
			}
	}
	return 0.6 + 0.4 * balance(v);
}

/* Did host h send at least VIEW_MIN_BULK to a host other than skip? */
static int other_bulk(const dmls_stats *st, size_t h, size_t skip)
{
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (pr->src == h && pr->dst != skip && pr->dst != h &&
		    (double)pr->payload_bytes >= VIEW_MIN_BULK)
			return 1;
	}
	return 0;
}

static int classify_view(dmls_pattern *p, const dmls_stats *st, view *v)
{
	size_t n = v->n, nobs = 0, lone = n;
	for (size_t u = 0; u < n; u++)
		if (v->obs[u])
			nobs++, lone = u;
	double c;
	p->nhubs = p->norder = p->ngroups = 0;
	p->lone_sender = 0;
	if ((c = view_star(v, p->hubs, &p->nhubs)) > 0) {
		p->kind = DMLS_PAT_STAR;
	} else if ((c = view_ring(v, p->order, &p->norder)) > 0) {
		p->kind = DMLS_PAT_RING;
		if (nobs == 1 && p->norder < 3) { /* a chain of 3 is no star spoke */
			size_t peer = n;
			for (size_t x = 0; x < n; x++)
				if (v->e[lone * n + x])
					peer = x;
			/* a host in two jobs: its other bulk may be the other job's */
			if (peer == n || p->center_jobs > 1 ||
			    !other_bulk(st, v->node[lone], v->node[peer])) {
				p->kind = DMLS_PAT_UNKNOWN;
				p->lone_sender = 1;
				p->norder = 0;
				c = 0;
			}
		}
	} else {
		p->kind = DMLS_PAT_UNKNOWN;
		c = 0;
	}
	p->confidence = c;
	return 0;
}

/* Close m[0..n) over the observed ranks' contacts: every host an observed
 * rank exchanged payload with is a rank, and when that host is observed
 * too, its contacts are (a ring seen from ranks 0 and 2 is two disjoint
 * data edges, joined by the mesh of control connections). */
static size_t add_contacts(const dmls_stats *st, size_t *m, size_t n, unsigned char *in,
			   const unsigned char *obs_host, unsigned port)
{
	for (size_t i = 0; i < n; i++)
		in[m[i]] = 1;
	if (port) { /* connections on demand: the contacts on the service port
		     * only (a launcher is reached on another) */
		for (size_t k = 0; k < st->nflows; k++) {
			const dmls_flow *f = &st->flows[k];
			if (f->src >= st->nhosts || f->dst >= st->nhosts || dmls_flow_hidden(st, k) ||
			    (f->sport != port && f->dport != port))
				continue;
			if (obs_host[f->src] && !in[f->dst])
				in[f->dst] = 1, m[n++] = f->dst;
			else if (obs_host[f->dst] && !in[f->src])
				in[f->src] = 1, m[n++] = f->src;
		}
		return n;
	}
	for (int grew = 1; grew;) {
		grew = 0;
		for (size_t k = 0; k < st->npairs; k++) {
			const dmls_pair *pr = &st->pairs[k];
			if (pr->packets == 0 || pr->src == pr->dst)
				continue;
			size_t a = pr->src, b = pr->dst, add = st->nhosts;
			if (in[a] && obs_host[a] && !in[b])
				add = b;
			else if (in[b] && obs_host[b] && !in[a])
				add = a;
			if (add < st->nhosts) {
				in[add] = 1;
				m[n++] = add;
				grew = 1;
			}
		}
	}
	return n;
}

/* A pair of the link only (dmls_addr_is_local: neighbour discovery, MLD,
 * DHCP, mDNS), which a capture on an interface (tcpdump -i any) holds
 * besides its host's traffic. */
static int link_only(const dmls_stats *st, const dmls_pair *pr)
{
	return dmls_addr_is_local(st->hosts[pr->src].addr) ||
	       dmls_addr_is_local(st->hosts[pr->dst].addr);
}

/* The host every packet of the capture comes from or goes to (one host's
 * capture of both directions), or st->nhosts.  Pairs of the link only do
 * not count: a worker's capture on every interface (the testbed's
 * --capture any) holds its neighbour discovery and MLD, which took its
 * parameter server's star seen from one worker for a whole job of 2. */
size_t dmls_view_center(const dmls_stats *st)
{
	if (st->nhosts < 3 || st->npairs == 0)
		return st->nhosts;
	size_t a = st->nhosts, b = st->nhosts, third = st->nhosts;
	for (size_t k = 0; k < st->npairs && a == st->nhosts; k++)
		if (st->pairs[k].packets && !link_only(st, &st->pairs[k]))
			a = st->pairs[k].src, b = st->pairs[k].dst;
	if (a == st->nhosts)
		return st->nhosts;
	int a_ok = 1, b_ok = 1;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (pr->packets == 0 || link_only(st, pr))
			continue;
		a_ok = a_ok && (pr->src == a || pr->dst == a);
		b_ok = b_ok && (pr->src == b || pr->dst == b);
		if (pr->src != a && pr->src != b)
			third = pr->src;
		if (pr->dst != a && pr->dst != b)
			third = pr->dst;
	}
	if (third == st->nhosts)
		return st->nhosts; /* 2 hosts: both ends are the capture's */
	return a_ok ? a : b_ok ? b : st->nhosts;
}

static int cmp_desc(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a < b) - (a > b);
}

/* Do the center's data edges (>= thr) halve from one partner to the next,
 * as a butterfly's do (S/2, S/4, ... to distance N/2, N/4, ...)? */
static int halving(const dmls_stats *st, size_t center, double thr)
{
	double *v = malloc((st->npairs ? st->npairs : 1) * sizeof(double));
	size_t n = 0;
	if (!v)
		return 1;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (pr->src == center && pr->dst != center && (double)pr->payload_bytes >= thr)
			v[n++] = (double)pr->payload_bytes;
	}
	qsort(v, n, sizeof(double), cmp_desc);
	int h = n >= 2;
	for (size_t i = 0; i + 1 < n && h; i++)
		h = v[i + 1] / v[i] >= 0.4 && v[i + 1] / v[i] <= 0.6;
	free(v);
	return h;
}

/* Does a host outside the star exchange payload with the center on a
 * listening port of the center's that a spoke reaches too (a rendezvous
 * store, one runtime's port)?  Then the job reaches past the star: a
 * tree's root sees its two children as spokes and the other ranks only
 * through the store it serves.  A service the center runs besides (ssh,
 * an exporter) listens on a port of its own.  (An inner node's other
 * contacts come through Gloo's mesh, a listener per pair; its timing tells
 * it from a server: dmls_pattern_star_node.) */
static int reaches_past(const dmls_pattern *p, const dmls_stats *st, size_t center)
{
	size_t nh = st->nhosts, ne = 0;
	size_t *local = calloc(nh ? nh : 1, sizeof(size_t)); /* every host: 0 < 1 */
	unsigned char *member = calloc(nh ? nh : 1, 1);
	dmls_endpoint *e = NULL;
	int past = 0;
	if (!local || !member || dmls_endpoints_list(st, local, 1, &e, &ne) < 0)
		goto out;
	for (size_t i = 0; i < p->ranks; i++)
		member[p->members[i]] = 1;
	for (size_t i = 0, j; i < ne && !past; i = j) {
		int spoke = 0, other = 0;
		for (j = i; j < ne && e[j].host == e[i].host && e[j].port == e[i].port; j++) {
			if (e[j].host != center || e[j].remotes < 2 || e[j].rhost == center)
				continue;
			if (member[e[j].rhost])
				spoke = 1;
			else if (st->flows[e[j].flow].payload_bytes > 0)
				other = 1;
		}
		past = spoke && other;
	}
out:
	free(local);
	free(member);
	free(e);
	return past;
}

/* A star whose one hub is the center, its edges both ways with every
 * spoke and not halving from one spoke to the next (a butterfly's center;
 * spokes of an asynchronous server differ with their speed): every rank's
 * sending is in a hub's capture (spokes talk to hubs only), the view is
 * whole, the same packets as a capture of every rank.  Not when the hub
 * of one job (jobs: the center's) exchanges with its spokes at once
 * (dmls_hub_exchanges: a collective's rank, whose spokes may exchange
 * among themselves, as a clique's do), nor when that job reaches past the
 * star (reaches_past).  (A host in two jobs: its parts are cut by their
 * steps, a star of what is left is no job's view.) */
static int whole_star(const dmls_pattern *p, const dmls_stats *st, size_t center, size_t jobs)
{
	if (p->kind != DMLS_PAT_STAR || p->nhubs != 1 || p->hubs[0] != center)
		return 0;
	if (jobs < 2 &&
	    (dmls_hub_exchanges(st, center, p->members, p->ranks) || reaches_past(p, st, center)))
		return 0;
	double lo = INFINITY, hi = 0;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (pr->src == pr->dst || (pr->src != center && pr->dst != center))
			continue;
		hi = fmax(hi, (double)pr->payload_bytes);
	}
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		if (pr->src == pr->dst || (pr->src != center && pr->dst != center) ||
		    (double)pr->payload_bytes < DMLS_EDGE_FRACTION * hi)
			continue;
		lo = fmin(lo, (double)pr->payload_bytes);
	}
	if (!(hi > 0) || (lo / hi < STAR_BALANCE && halving(st, center, DMLS_EDGE_FRACTION * hi)))
		return 0;
	for (size_t i = 0; i < p->ranks; i++) { /* a spoke pushes and pulls */
		size_t u = p->members[i];
		if (u == center)
			continue;
		long up = dmls_stats_find_pair(st, (uint32_t)u, (uint32_t)center);
		long down = dmls_stats_find_pair(st, (uint32_t)center, (uint32_t)u);
		int e_up = up >= 0 && (double)st->pairs[up].payload_bytes >= DMLS_EDGE_FRACTION * hi;
		int e_down =
			down >= 0 && (double)st->pairs[down].payload_bytes >= DMLS_EDGE_FRACTION * hi;
		if (e_up != e_down)
			return 0; /* one way only: a ring's neighbours */
	}
	return 1;
}

/* Do the observed ranks' bulk transfers go to a service port (below the
 * ephemeral range, 32768 on Linux), as MPI's TCP transport does (Open
 * MPI's btl_tcp listens from port 1024)?  Such ranks connect on demand, to
 * the peers their collective needs: a rank's contacts are not all the
 * ranks (and the launcher is among them).  Gloo connects a full mesh
 * between ephemeral ports.  One side of every bulk flow (the rank
 * connected to it, or accepted on it) must be that one port.  Returns the
 * port, or 0. */
static unsigned service_port(const dmls_stats *st, const unsigned char *obs_host)
{
	unsigned port = 0;
	for (size_t k = 0; k < st->nflows; k++) {
		const dmls_flow *f = &st->flows[k];
		if (f->src >= st->nhosts || !obs_host[f->src] || dmls_flow_hidden(st, k) ||
		    (double)f->payload_bytes < DMLS_MIN_DATA_BYTES)
			continue;
		unsigned svc = f->dport && f->dport < 32768   ? f->dport /* it connected */
			       : f->sport && f->sport < 32768 ? f->sport /* it accepted */
							      : 0;
		if (svc == 0 || (port && svc != port))
			return 0;
		port = svc;
	}
	return port;
}

int dmls_pattern_view(dmls_pattern *p, const dmls_stats *st, const size_t *in_jobs)
{
	free(p->observed);
	free(p->pairs);
	p->observed = p->pairs = NULL;
	p->nobserved = p->npairs = 0;
	p->partial = p->lone_sender = 0;
	p->center_jobs = 0;
	p->ndata = p->ranks;
	if (p->ranks == 0)
		return 0;
	size_t nh = st->nhosts, n = p->ranks;
	unsigned char *obs_host = calloc(nh, 1), *in = calloc(nh, 1);
	size_t *m = malloc(nh * sizeof(size_t)), *local = malloc(nh * sizeof(size_t));
	view v = {0};
	int rc = -1;
	p->observed = malloc(nh * sizeof(size_t));
	if (!obs_host || !in || !m || !local || !p->observed)
		goto out;
	size_t nobs = 0;
	size_t center = dmls_view_center(st);
	if (center < nh && whole_star(p, st, center, in_jobs ? in_jobs[center] : 0))
		center = nh;
	for (size_t h = 0; h < nh; h++) /* one host's capture: the others only towards it */
		obs_host[h] = (unsigned char)((center == nh || h == center) &&
					      dmls_host_observed(st, h));
	for (size_t u = 0; u < n; u++)
		nobs += obs_host[p->members[u]];
	rc = 0;
	if (nobs == n) { /* the whole job's sending: nothing changes */
		memcpy(p->observed, p->members, n * sizeof(size_t));
		p->nobserved = n;
		goto out;
	}
	p->partial = 1;
	p->service_port = service_port(st, obs_host);
	rc = -1;
	/* ranks: the data graph's hosts and the observed ranks' contacts */
	memcpy(m, p->members, n * sizeof(size_t));
	p->center_jobs = center < nh && in_jobs ? in_jobs[center] : 0;
	if (p->center_jobs < 2)
		n = add_contacts(st, m, n, in, obs_host, p->service_port);
	sort_hosts(st, m, n);
	size_t *hubs = realloc(p->hubs, n * sizeof(size_t));
	if (hubs)
		p->hubs = hubs;
	size_t *order = realloc(p->order, n * sizeof(size_t));
	if (order)
		p->order = order;
	free(p->members);
	p->members = m;
	m = NULL;
	p->ranks = n;
	v = (view){n, n, p->members, calloc(n, 1), calloc(n * n, 1), calloc(n * n, sizeof(double))};
	p->pairs = malloc((st->npairs ? st->npairs : 1) * sizeof(size_t));
	if (!hubs || !order || !v.obs || !v.e || !v.w || !p->pairs)
		goto out;
	for (size_t i = 0; i < nh; i++)
		local[i] = n;
	v.center = n;
	for (size_t u = 0; u < n; u++) {
		if (p->members[u] == center)
			v.center = u;
		local[p->members[u]] = u;
		v.obs[u] = obs_host[p->members[u]];
		if (v.obs[u])
			p->observed[p->nobserved++] = p->members[u];
	}
	/* the observed senders' data edges: DMLS_EDGE_FRACTION of their largest */
	double maxv = 0, maxall = 0;
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		size_t a = local[pr->src], b = local[pr->dst];
		maxall = fmax(maxall, (double)pr->payload_bytes);
		if (a == n || b == n || a == b || (!v.obs[a] && b != v.center))
			continue; /* seen: an observed host's sending, all sent to the center */
		v.w[a * n + b] = (double)pr->payload_bytes;
		maxv = fmax(maxv, v.w[a * n + b]);
	}
	p->edges = 0;
	int outside = 0; /* a data pair outside the ranks: another job */
	for (size_t k = 0; k < st->npairs; k++) {
		const dmls_pair *pr = &st->pairs[k];
		size_t a = local[pr->src], b = local[pr->dst];
		if (a == n && b == n && pr->src != pr->dst &&
		    (double)pr->payload_bytes >= DMLS_EDGE_FRACTION * maxall)
			outside = 1;
		if (a == n || b == n || a == b || maxv <= 0 ||
		    v.w[a * n + b] < DMLS_EDGE_FRACTION * maxv)
			continue;
		v.e[a * n + b] = 1;
		if (v.obs[a]) /* iterations count the observed senders' edges */
			p->pairs[p->npairs++] = k;
		p->edges++;
	}
	if (!outside)
		p->components = 1; /* the observed ranks' edges were one job */
	classify_view(p, st, &v);
	p->confidence *= 0.5 + 0.5 * (double)p->nobserved / (double)n;
	rc = 0;
out:
	free(obs_host);
	free(in);
	free(m);
	free(local);
	free(v.obs);
	free(v.e);
	free(v.w);
	return rc;
}

/*
 * One rank's sending that fans out evenly to every peer is what a star's
 * hub sends, and what a rank of a clique sends (a direct reduce-scatter
 * then all-gather: it sends each peer that peer's chunk, then its own
 * reduced chunk, S/N each, twice a step).  The hub sends each spoke one
 * burst a step (the parameters), which the network may cut into pieces
 * of any size; the clique's rank two of the same size.  So per iteration
 * (the middle ones, up to CLIQUE_STEPS) and data edge (the first
 * CLIQUE_EDGES): are its bytes two like bursts (two_bursts; runs of bins
 * holding at least CLIQUE_SHARE of the edge's busiest bin)?  When most
 * are, a clique: the
 * testbed's manual clique of 5 gave each rank's file "star/5" and S 40 %
 * of its value (the hub's bytes per spoke are 2 S/N there, not S).  On
 * a clique its rank is a worker, and S = its bytes per step N / 2(N-1).  Pair
 * bins coarser than the bursts' gap (a long capture's) merge them: then
 * the star stands.  Bursts closer than a bin merge too: a manual clique of
 * 3 sent each peer its two chunks of S/3 1-5 ms apart, and its ranks' files
 * had 41-57 % of their edges' steps in two bursts, where the RPC hubs'
 * files had at most 23 % (37 % on 16 edge-steps of the bundled sample).
 * From CLIQUE_UNSURE to CLIQUE_MOST, over CLIQUE_UNSURE_SEEN edge-steps or
 * more, it is neither: kind unknown, S withheld, with a note
 * (p->hub_or_clique), where the star's S was a third short.
 */
#define CLIQUE_STEPS 64
#define CLIQUE_EDGES 16 /* the first so many data edges */
#define CLIQUE_SHARE 0.1
#define CLIQUE_TWO 0.8
#define CLIQUE_EVEN 0.6
#define CLIQUE_THIRD 0.1
#define CLIQUE_MOST 0.5 /* of the edges' steps */
#define CLIQUE_UNSURE 0.3 /* from here to CLIQUE_MOST: neither */
#define CLIQUE_UNSURE_SEEN 32 /* edges' steps that make the share sure */

/* Does edge series s move its bytes in bins [a, b) as two bursts of like
 * size (runs of bins of at least floor_bytes, apart by a quieter bin; the
 * two largest carry CLIQUE_TWO of the bytes, the smaller at least
 * CLIQUE_EVEN of the larger, no third over CLIQUE_THIRD)?  A transfer the
 * network paces comes in pieces of any size. */
static int two_bursts(const dmls_series *s, int64_t a, int64_t b, double floor_bytes)
{
	double run = 0, total = 0, r[3] = {0, 0, 0}; /* the three largest runs */
	for (int64_t k = a; k <= b; k++) {
		double x = k < b ? (double)dmls_series_get(s, k) : 0;
		total += x;
		if (x >= floor_bytes) {
			run += x;
			continue;
		}
		if (run > r[2]) { /* a run ended: keep the three largest */
			r[2] = run;
			for (int i = 2; i > 0 && r[i] > r[i - 1]; i--) {
				double t = r[i];
				r[i] = r[i - 1];
				r[i - 1] = t;
			}
		}
		run = 0;
	}
	return total > 0 && r[0] + r[1] >= CLIQUE_TWO * total && r[1] >= CLIQUE_EVEN * r[0] &&
	       r[2] <= CLIQUE_THIRD * total;
}

static void peak_of(int64_t bin, uint64_t bytes, void *ctx)
{
	(void)bin;
	uint64_t *m = ctx;
	if (bytes > *m)
		*m = bytes;
}

int dmls_pattern_clique_rank(dmls_pattern *p, const dmls_stats *st, const double *bounds_s,
			     size_t count)
{
	if (!p->partial || p->kind != DMLS_PAT_STAR || p->nobserved != 1 || p->nhubs != 1 ||
	    p->hubs[0] != p->observed[0] || count < 6)
		return 0;
	size_t hub = p->hubs[0], ne = 0, nv = 0;
	size_t from = count > CLIQUE_STEPS + 2 ? (count - CLIQUE_STEPS) / 2 : 1;
	size_t to = from + CLIQUE_STEPS < count - 1 ? from + CLIQUE_STEPS : count - 1;
	double *v = malloc((to - from) * (p->npairs ? p->npairs : 1) * sizeof(double));
	if (!v)
		return -1;
	for (size_t i = 0; i < p->npairs; i++) {
		const dmls_pair *pr = &st->pairs[p->pairs[i]];
		if (pr->src != hub || ne == CLIQUE_EDGES)
			continue;
		ne++;
		const dmls_series *s = &pr->series;
		uint64_t peak = 0;
		dmls_series_foreach(s, peak_of, &peak);
		double bin_s = (double)s->bin_ns * 1e-9;
		double off_s = (double)(s->t0_ns - st->t0_ns) * 1e-9;
		for (size_t k = from; k < to; k++)
			v[nv++] = two_bursts(s, (int64_t)floor((bounds_s[k] - off_s) / bin_s),
					     (int64_t)floor((bounds_s[k + 1] - off_s) / bin_s),
					     CLIQUE_SHARE * (double)peak);
	}
	double two = 0; /* the share of edges' steps in two like bursts */
	for (size_t i = 0; i < nv; i++)
		two += v[i];
	double share = nv ? two / (double)nv : 0;
	free(v);
	if (ne < 2 || share < CLIQUE_UNSURE || (share < CLIQUE_MOST && nv < CLIQUE_UNSURE_SEEN))
		return 0;
	if (share < CLIQUE_MOST) { /* neither: kind and S withheld */
		p->kind = DMLS_PAT_UNKNOWN;
		p->confidence = 0;
		p->hub_or_clique = share;
	} else {
		p->kind = DMLS_PAT_CLIQUE;
	}
	p->nhubs = 0;
	return 1;
}

/*
 * One rank's sending to two or more partners in turn, in the same order
 * every step, waiting between them, is a rank of a recursive-doubling
 * butterfly (MPI's all-reduce of small vectors: the whole vector, S, to
 * partner rank^1, then rank^2, rank^4, a stage starting when the last
 * one's partner data came); seen alone it is the same fan-out of like
 * edges as a star's hub.  A hub sends to its workers back to back once
 * their pushes are in, and in the order the pushes came: the testbed's
 * parameter servers (RPC over TensorPipe) changed the order every few
 * steps, with a median 0.02-0.4 ms between two workers' sends, where
 * Open MPI's recursive-doubling ranks (4, 6 and 8 of them) kept one order
 * in 95-100 % of the steps, 7-24 ms apart (dmls_edges_in_turn).  So per
 * iteration (the middle ones, up to ORDER_STEPS) and data edge: its
 * bytes' mean bin, and the bins where its first and last ORDER_TAIL of
 * bytes are reached.  The order is fixed when for every two edges at
 * least ORDER_SEEN of the steps tell them apart and ORDER_SHARE of those
 * put the same one first; the rank waits when the median quiet time
 * between one edge's bytes and the next one's, over the steps and the
 * edges in that order, is at least one bin, and at most ORDER_REST of the
 * median pause from a step's last edge to the next step's first: the
 * doubling ranks waited 0.08-0.30 of that pause, where a rank of pair
 * averaging on a round-robin schedule with byes (one partner a step, in
 * turn: the same order) waits a whole step, 0.43-1.35 of it: its clock,
 * broken only at its byes, spans N steps.  Edges in turn within a step keep
 * one clock (clock_view.c, one_at_a_time): rank 0 of 8 waited 11-44 ms,
 * and its edges' offsets spread like two jobs' clocks.  A star's hub seen
 * alone that serves one spoke a step in turn serves one at a time.
 */
#define ORDER_STEPS 64
#define ORDER_EDGES 16
#define ORDER_SHARE 0.9
#define ORDER_SEEN 0.5
#define ORDER_REST 0.4

typedef struct {
	double at;           /* mean bin (fractional); NAN: no bytes */
	int64_t first, last; /* bins of its first and last ORDER_TAIL of bytes */
} edge_step;

/* An edge's bytes in series s over bins [a, b): their mean bin and the
 * bins where the first and the last ORDER_TAIL of them are reached (a
 * stray packet at either end moves neither). */
#define ORDER_TAIL 0.1
static edge_step edge_in(const dmls_series *s, int64_t a, int64_t b)
{
	edge_step x = {NAN, 0, 0};
	double sum = 0, w = 0, run = 0;
	for (int64_t j = a; j < b; j++) {
		double v = (double)dmls_series_get(s, j);
		sum += v, w += v * (double)j;
	}
	if (!(sum > 0))
		return x;
	x.at = w / sum;
	x.first = x.last = -1;
	for (int64_t j = a; j < b; j++) {
		run += (double)dmls_series_get(s, j);
		if (x.first < 0 && run >= ORDER_TAIL * sum)
			x.first = j;
		if (run >= (1 - ORDER_TAIL) * sum) {
			x.last = j;
			break;
		}
	}
	return x;
}

/* Whether the edges' steps x[k * ne + e] keep one order; rank[e]: the
 * place of edge e in it; *share: the least share of steps agreeing. */
static int fixed_order(const edge_step *x, size_t steps, size_t ne, size_t *rank, double *share)
{
	*share = 1;
	for (size_t e = 0; e < ne; e++)
		rank[e] = 0;
	for (size_t e = 0; e < ne; e++)
		for (size_t f = e + 1; f < ne; f++) {
			size_t first = 0, second = 0;
			for (size_t k = 0; k < steps; k++) {
				double u = x[k * ne + e].at, v = x[k * ne + f].at;
				first += u < v, second += v < u;
			}
			size_t told = first + second, most = first > second ? first : second;
			if (told == 0 || (double)told < ORDER_SEEN * (double)steps ||
			    (double)most < ORDER_SHARE * (double)told)
				return 0;
			rank[first > second ? f : e]++;
			if ((double)most / (double)told < *share)
				*share = (double)most / (double)told;
		}
	unsigned char seen[ORDER_EDGES] = {0}; /* no cycle: the places are 0..ne-1 */
	for (size_t e = 0; e < ne; e++) {
		if (rank[e] >= ne || seen[rank[e]])
			return 0;
		seen[rank[e]] = 1;
	}
	return 1;
}

int dmls_edges_in_turn(const dmls_stats *st, const size_t *edge, size_t ne,
		       const double *bounds_s, size_t count, double *share)
{
	*share = 0;
	if (ne < 2 || count < 6)
		return 0;
	ne = ne < ORDER_EDGES ? ne : ORDER_EDGES;
	size_t from = count > ORDER_STEPS + 2 ? (count - ORDER_STEPS) / 2 : 1;
	size_t to = from + ORDER_STEPS < count - 1 ? from + ORDER_STEPS : count - 1;
	size_t steps = to - from, ng = 0, rank[ORDER_EDGES], by[ORDER_EDGES];
	edge_step *x = malloc(steps * ne * sizeof(*x));
	double *gap = malloc(steps * ne * sizeof(double)), *rest = malloc(steps * sizeof(double));
	size_t nr = 0;
	int turn = 0;
	if (!x || !gap || !rest) {
		free(x);
		free(gap);
		free(rest);
		return -1;
	}
	for (size_t e = 0; e < ne; e++) {
		const dmls_series *s = &st->pairs[edge[e]].series;
		double bin_s = (double)s->bin_ns * 1e-9;
		double off_s = (double)(s->t0_ns - st->t0_ns) * 1e-9;
		for (size_t k = from; k < to; k++)
			x[(k - from) * ne + e] =
				edge_in(s, (int64_t)floor((bounds_s[k] - off_s) / bin_s),
					(int64_t)floor((bounds_s[k + 1] - off_s) / bin_s));
	}
	if (!fixed_order(x, steps, ne, rank, share))
		goto out;
	for (size_t e = 0; e < ne; e++)
		by[rank[e]] = e;
	for (size_t k = 0; k < steps; k++)
		for (size_t r = 0; r + 1 < ne; r++) {
			const edge_step *a = &x[k * ne + by[r]], *b = &x[k * ne + by[r + 1]];
			if (!isnan(a->at) && !isnan(b->at))
				gap[ng++] = (double)(b->first - a->last - 1);
		}
	for (size_t k = 0; k + 1 < steps; k++) { /* from a step's last edge to the next's first */
		const edge_step *a = &x[k * ne + by[ne - 1]], *b = &x[(k + 1) * ne + by[0]];
		if (!isnan(a->at) && !isnan(b->at))
			rest[nr++] = (double)(b->first - a->last - 1);
	}
	double wait = ng ? dmls_median(gap, ng) : NAN, pause = nr ? dmls_median(rest, nr) : NAN;
	turn = !(wait >= 1) ? 0 : wait <= ORDER_REST * pause ? 1 : 2;
out:
	free(x);
	free(gap);
	free(rest);
	return turn;
}

int dmls_pattern_doubling_rank(dmls_pattern *p, const dmls_stats *st, const double *bounds_s,
			       size_t count)
{
	if (!p->partial || p->kind != DMLS_PAT_STAR || p->nobserved != 1 || p->nhubs != 1 ||
	    p->hubs[0] != p->observed[0])
		return 0;
	size_t hub = p->hubs[0], ne = 0, edge[ORDER_EDGES];
	for (size_t i = 0; i < p->npairs && ne < ORDER_EDGES; i++)
		if (st->pairs[p->pairs[i]].src == hub)
			edge[ne++] = p->pairs[i];
	double share;
	int turn = dmls_edges_in_turn(st, edge, ne, bounds_s, count, &share);
	if (turn != 1)
		return turn < 0 ? -1 : 0;
	p->kind = DMLS_PAT_BUTTERFLY;
	p->doubling = 1;
	p->partners = ne;
	p->nhubs = 0;
	p->confidence *= share;
	return 1;
}
