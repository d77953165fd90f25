/* cli_util.c - JSON output and option errors shared by the commands. */
#include "cli/cli_util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "dmlscope/decode.h"
#include "dmlscope/error.h"
#include "dmlscope/render.h"

int cli_write_json(json_t *doc, const char *dest, const char *cmd, int precision)
{
	int rc;
	if (!doc) { /* the library could not build it */
		fprintf(stderr, "dmlscope %s: out of memory\n", cmd);
		return DMLS_ENOMEM;
	}
	if (!strcmp(dest, "-")) {
		rc = dmls_json_dumpf(doc, stdout, precision);
		fputc('\n', stdout);
		rc |= fflush(stdout);
	} else {
		FILE *fp = fopen(dest, "w");
		rc = fp ? dmls_json_dumpf(doc, fp, precision) : -1;
		if (fp)
			rc |= fclose(fp);
	}
	json_decref(doc);
	if (rc) {
		fprintf(stderr, "dmlscope %s: '%s': cannot write JSON\n", cmd, dest);
		return DMLS_EIO;
	}
	return 0;
}

int cli_flush_stdout(const char *cmd)
{
	if (fflush(stdout)) {
		fprintf(stderr, "dmlscope %s: cannot write to standard output\n", cmd);
		return DMLS_EIO;
	}
	return 0;
}

int cli_option_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		fprintf(stderr, "dmlscope %s: option '%s' needs a value\n", cmd, argv[optind - 1]);
	else
		fprintf(stderr, "dmlscope %s: unknown option '%s'; see 'dmlscope %s --help'\n", cmd,
			argv[optind - 1], cmd);
	return -1;
}

int cli_tunnels(const char *cmd, const char *arg, unsigned *flags)
{
	if (!strcmp(arg, "inner") || !strcmp(arg, "outer")) {
		*flags = strcmp(arg, "outer") ? 0 : DMLS_DECODE_OUTER;
		return 0;
	}
	fprintf(stderr, "dmlscope %s: invalid --tunnels '%s' (inner or outer)\n", cmd, arg);
	return -1;
}

int cli_csv_dir(const char *cmd, const char *arg)
{
	if (strcmp(arg, "-"))
		return 0;
	fprintf(stderr, "dmlscope %s: --csv takes a folder, not '-' (it writes several files)\n",
		cmd);
	return -1;
}
