#include "dmlscope/error.h"

#include <stdarg.h>
#include <stdio.h>

int dmls_fail(dmls_error *err, int status, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->status = status;
	}
	return status;
}

void dmls_error_clear(dmls_error *err)
{
	if (err) {
		err->status = DMLS_OK;
		err->msg[0] = '\0';
	}
}

int dmls_exit_code(int status)
{
	return status == DMLS_ENOMEM ? DMLS_EIO : status;
}
