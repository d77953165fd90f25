/*
 * cli_mpi.h - the commands' view of MPI (doc/mpi.md).
 *
 * In a build with -DDMLS_MPI=ON, launched by mpirun (or a batch system's
 * launcher), `analyze` and `compare` spread their work over the ranks
 * (src/mpi); rank 0 renders what the plain build would, the other ranks
 * print nothing.  Without MPI in the build, or outside a launcher, these
 * are the library's own calls and rank 0 is the only rank.
 */
#ifndef DMLSCOPE_CLI_MPI_H
#define DMLSCOPE_CLI_MPI_H

#include "dmlscope/compare.h"
#include "dmlscope/job.h"

#ifdef DMLS_MPI
/* MPI_Init when started by a launcher (else nothing); 0 or -1. */
int cli_mpi_init(int *argc, char ***argv);
void cli_mpi_finalize(void);
/* This process renders (rank 0, or no MPI). */
int cli_mpi_is_root(void);
/* dmls_job_analyze over all ranks: the job on rank 0, a released job on
 * the others.  Collective; every rank returns the same status. */
int cli_mpi_job_analyze(dmls_job *job, const char *const *inputs, size_t n,
			const dmls_job_opts *opts, dmls_error *err);
/* dmls_compare_runs over all ranks: the rows on rank 0. */
int cli_mpi_compare_runs(dmls_compare *c, const char *const *inputs, size_t n,
			 const dmls_job_opts *opts, dmls_error *err);
#else
static inline int cli_mpi_init(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}
static inline void cli_mpi_finalize(void) {}
static inline int cli_mpi_is_root(void)
{
	return 1;
}
static inline int cli_mpi_job_analyze(dmls_job *job, const char *const *inputs, size_t n,
				      const dmls_job_opts *opts, dmls_error *err)
{
	return dmls_job_analyze(job, inputs, n, opts, err);
}
static inline int cli_mpi_compare_runs(dmls_compare *c, const char *const *inputs, size_t n,
				       const dmls_job_opts *opts, dmls_error *err)
{
	return dmls_compare_runs(c, inputs, n, opts, err);
}
#endif

#endif
