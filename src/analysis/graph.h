/*
 * graph.h - the job's data graph, shared by the pattern classifiers
 * (internal to src/analysis).
 *
 * Nodes are the job's hosts in address order (local index 0..n-1, host
 * index in node[]); w[u*n+v] is the payload u sent to v; e[u*n+v] is 1
 * when that pair carries data (at least DMLS_EDGE_FRACTION of the largest
 * pair: the rest is control plane).
 */
#ifndef DMLS_ANALYSIS_GRAPH_H
#define DMLS_ANALYSIS_GRAPH_H

#include <stddef.h>

typedef struct dmls_graph {
	size_t n;
	size_t *node;  /* host index of local node u */
	double *w;     /* n*n payload bytes */
	unsigned char *e; /* n*n data edge */
} dmls_graph;

static inline int g_edge(const dmls_graph *g, size_t u, size_t v)
{
	return g->e[u * g->n + v];
}
static inline int g_uedge(const dmls_graph *g, size_t u, size_t v)
{
	return g->e[u * g->n + v] || g->e[v * g->n + u];
}
static inline double g_w(const dmls_graph *g, size_t u, size_t v)
{
	return g->w[u * g->n + v];
}

/* Classifiers (pattern_shapes.c).  Each returns a confidence in (0,1] when
 * the graph has the shape (filling the order/hubs arrays given, of n
 * entries), or 0. */
double dmls_shape_ring(const dmls_graph *g, size_t *order);
/* *doubling: recursive doubling (the whole vector at each distance). */
double dmls_shape_butterfly(const dmls_graph *g, int *doubling);
double dmls_shape_star(const dmls_graph *g, size_t *hubs, size_t *nhubs);
double dmls_shape_clique(const dmls_graph *g);
double dmls_shape_tree(const dmls_graph *g, size_t *root);
double dmls_shape_hierarchical(const dmls_graph *g, size_t *ngroups);
/* A reduce to the root along one spanning tree and a broadcast from it
 * along another (*root: the busiest node). */
double dmls_shape_two_trees(const dmls_graph *g, size_t *root);

#endif
