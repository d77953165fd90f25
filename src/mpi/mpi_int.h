/*
 * mpi_int.h - what the MPI driver's files share (src/mpi): the world,
 * agreeing on an error, blobs and strings between ranks.  Only in the
 * -DDMLS_MPI=ON build; the library never sees MPI.
 */
#ifndef DMLSCOPE_MPI_INT_H
#define DMLSCOPE_MPI_INT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlscope/error.h"

extern int mpi_rank, mpi_size;
extern int mpi_started; /* MPI_Init was called (under a launcher) */

/* Every rank's rc; when any is not DMLS_OK, the worst status, and err
 * (on every rank) the message of the lowest rank that had it. */
int mpi_agree(int rc, dmls_error *err);

/* A blob to rank dest / from rank src (its length first, then the bytes
 * in pieces MPI's int counts can carry).  recv: *buf malloc'd. */
int mpi_send_blob(const uint8_t *buf, size_t len, int dest, int tag);
int mpi_recv_blob(uint8_t **buf, size_t *len, int src, int tag);

/* n strings from root to every rank (*strs and each string malloc'd on
 * the others; root's are read). 0, -1 out of memory. */
int mpi_bcast_strings(char ***strs, size_t *n, int root);

/* Parts of a job (or runs of a dataset) to ranks, the largest first, each
 * to the least loaded rank that can read it (can[i * mpi_size + r]; none
 * can: rank 0, which reports it): owner[i].  Same on every rank. */
void mpi_assign(const uint64_t *size, const uint8_t *can, size_t n, int *owner);

/* With DMLS_MPI_VERBOSE set, rank 0 says on stderr how n items (what:
 * "captures", "runs") were spread: count and bytes per rank. */
void mpi_report(const char *cmd, const char *what, const int *owner, const uint64_t *size,
		size_t n);

#endif
