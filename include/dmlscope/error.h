/*
 * error.h - status codes and the caller-owned error message.
 *
 * Every library function that can fail returns an int status and, when it
 * fails, fills a dmls_error that the caller owns (usually on its stack).
 * The status values 1 to 3 double as the CLI's documented exit codes
 * (doc/contract.md): the CLI prints err.msg and exits with err.status,
 * except DMLS_ENOMEM, which it reports with the I/O error's exit code 3
 * (dmls_exit_code).  The library never prints and never exits.
 *
 * Out of memory is always DMLS_ENOMEM with the message "out of memory"
 * (optionally prefixed by the file or followed by where it happened), never
 * DMLS_EBAD or DMLS_EIO, so callers can tell it from bad data and I/O.
 *
 * Messages follow git's CodingGuidelines: lowercase, no full stop, the file
 * or value in quotes: "'run1/worker-0.pcap': truncated record at byte 1234".
 */
#ifndef DMLSCOPE_ERROR_H
#define DMLSCOPE_ERROR_H

enum dmls_status {
	DMLS_OK = 0,     /* success */
	DMLS_EBAD = 1,   /* input was read but is bad or unusable */
	DMLS_EUSAGE = 2, /* usage error (bad option, bad value) */
	DMLS_EIO = 3,    /* cannot open, cannot read, cannot write */
	DMLS_ENOMEM = 4, /* out of memory (exit code 3, see dmls_exit_code) */
};

typedef struct dmls_error {
	int status;
	char msg[512];
} dmls_error;

/* Fill err (may be NULL) with status and a printf-style message; returns status. */
int dmls_fail(dmls_error *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reset err to DMLS_OK with an empty message. */
void dmls_error_clear(dmls_error *err);

/* The documented exit code (doc/contract.md) for a status: DMLS_OK to
 * DMLS_EIO are their own code, DMLS_ENOMEM is 3 (as an I/O error). */
int dmls_exit_code(int status);

#endif
