/*
 * mpi_comm.c - the MPI world of dmlscope (cli_mpi.h, mpi_int.h): starting
 * only under a launcher, agreeing on errors, moving blobs and strings,
 * and spreading work over ranks largest first (LPT scheduling: Graham,
 * "Bounds on multiprocessing timing anomalies", SIAM J. Appl. Math.
 * 17(2), 1969, within 4/3 of the best makespan).
 */
#include "mpi/mpi_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_mpi.h"

int mpi_rank = 0, mpi_size = 1;
int mpi_started;

/* Started by mpirun/mpiexec (Open MPI, MPICH/Hydra, PMIx) or srun. */
static int under_launcher(void)
{
	static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE",
				     "PMI_RANK", "SLURM_STEP_ID", NULL};
	for (int i = 0; vars[i]; i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}

int cli_mpi_init(int *argc, char ***argv)
{
	if (!under_launcher())
		return 0;
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return -1;
	mpi_started = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
	return 0;
}

void cli_mpi_finalize(void)
{
	if (mpi_started)
		MPI_Finalize();
	mpi_started = 0;
}

int cli_mpi_is_root(void)
{
	return mpi_rank == 0;
}

int mpi_agree(int rc, dmls_error *err)
{
	int worst = rc;
	MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (worst == DMLS_OK)
		return DMLS_OK;
	int mine = rc == worst ? mpi_rank : INT_MAX, first = mine;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	MPI_Bcast(err, (int)sizeof(*err), MPI_BYTE, first, MPI_COMM_WORLD);
	return worst;
}

#define PIECE (1u << 30)

int mpi_send_blob(const uint8_t *buf, size_t len, int dest, int tag)
{
	uint64_t n = len;
	MPI_Send(&n, 1, MPI_UINT64_T, dest, tag, MPI_COMM_WORLD);
	for (size_t off = 0; off < len; off += PIECE) {
		size_t k = len - off < PIECE ? len - off : PIECE;
		MPI_Send(buf + off, (int)k, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
	}
	return 0;
}

int mpi_recv_blob(uint8_t **buf, size_t *len, int src, int tag)
{
	uint64_t n;
	MPI_Recv(&n, 1, MPI_UINT64_T, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	*len = (size_t)n;
	*buf = malloc(n ? n : 1);
	for (size_t off = 0; off < n; off += PIECE) {
		size_t k = n - off < PIECE ? n - off : PIECE;
		/* without memory the bytes still have to be taken off the wire */
		if (*buf)
			MPI_Recv(*buf + off, (int)k, MPI_BYTE, src, tag, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		else {
			uint8_t *tmp = malloc(k);
			MPI_Recv(tmp, (int)k, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			free(tmp);
		}
	}
	return *buf ? 0 : -1;
}

int mpi_bcast_strings(char ***strs, size_t *n, int root)
{
	uint64_t count = *n, bytes = 0;
	MPI_Bcast(&count, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
	if (mpi_rank == root)
		for (size_t i = 0; i < count; i++)
			bytes += strlen((*strs)[i]) + 1;
	MPI_Bcast(&bytes, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
	char *all = malloc(bytes ? bytes : 1);
	int ok = all != NULL, allok;
	if (ok && mpi_rank == root)
		for (size_t i = 0, off = 0; i < count; i++) {
			size_t l = strlen((*strs)[i]) + 1;
			memcpy(all + off, (*strs)[i], l);
			off += l;
		}
	MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!allok) {
		free(all);
		return -1;
	}
	MPI_Bcast(all, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
	if (mpi_rank != root) {
		*n = count;
		*strs = calloc(count ? count : 1, sizeof(**strs));
		for (size_t i = 0, off = 0; *strs && i < count; i++) {
			(*strs)[i] = strdup(all + off);
			off += strlen(all + off) + 1;
		}
	}
	free(all);
	return mpi_rank == root || *strs ? 0 : -1;
}

static const uint64_t *sort_size;
static int by_size_desc(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (sort_size[x] != sort_size[y])
		return sort_size[x] < sort_size[y] ? 1 : -1;
	return (x > y) - (x < y);
}

void mpi_assign(const uint64_t *size, const uint8_t *can, size_t n, int *owner)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	uint64_t *load = calloc((size_t)mpi_size, sizeof(*load));
	if (!order || !load) { /* round robin, still the same everywhere */
		for (size_t i = 0; i < n; i++)
			owner[i] = (int)(i % (size_t)mpi_size);
		free(order);
		free(load);
		return;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_size = size;
	qsort(order, n, sizeof(*order), by_size_desc);
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		int best = -1;
		for (int r = 0; r < mpi_size; r++)
			if (can[i * (size_t)mpi_size + (size_t)r] && (best < 0 || load[r] < load[best]))
				best = r;
		owner[i] = best < 0 ? 0 : best;
		load[owner[i]] += size[i] + 1;
	}
	free(order);
	free(load);
}

void mpi_report(const char *cmd, const char *what, const int *owner, const uint64_t *size,
		size_t n)
{
	if (mpi_rank || !getenv("DMLS_MPI_VERBOSE"))
		return;
	fprintf(stderr, "dmlscope %s: %zu %s over %d ranks:", cmd, n, what, mpi_size);
	for (int r = 0; r < mpi_size; r++) {
		size_t k = 0;
		uint64_t bytes = 0;
		for (size_t i = 0; i < n; i++)
			if (owner[i] == r)
				k++, bytes += size[i];
		fprintf(stderr, "%s rank %d %zu (%.1f MB)", r ? "," : "", r, k, (double)bytes / 1e6);
	}
	fputc('\n', stderr);
}
