/*
 * cmd_fit.c - `dmlscope fit DATASET_OR_CSV [--formula F] [--json FILE|-]
 *              [--save MODEL.json] [--table OUT.csv] [--folds K] [--quiet]`.
 *
 * Reads a CSV (header row) or a dataset folder into a table, fits the
 * formula (the study's by default) by OLS, prints a statsmodels-like summary
 * (not when the JSON goes to stdout), warnings on stderr.  Exit codes: 2 for
 * a formula syntax error or bad option, 1 for data the formula cannot use,
 * 3 when a file cannot be read or written.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "dmlscope/model.h"

static const char usage_text[] =
	"usage: dmlscope fit DATASET_OR_CSV [--formula \"y ~ a + C(b) + ...\"] [--json FILE|-]\n"
	"                    [--save MODEL.json] [--table OUT.csv] [--folds K] [--quiet]\n"
	"default formula: mb_per_step ~ model_size_mb + C(framework_backend) + C(batch)\n"
	"                 + C(topology) (+ workers when the data varies it)\n";

struct fit_opts {
	const char *input, *formula, *json, *save, *table;
	int folds, quiet;
};

static int fail_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "dmlscope fit: %s '%s'; see 'dmlscope fit --help'\n", msg, arg);
	return -1;
}

static int parse_args(int argc, char **argv, struct fit_opts *o)
{
	static const struct option longopts[] = {
		{"formula", required_argument, NULL, 'f'}, {"json", required_argument, NULL, 'j'},
		{"save", required_argument, NULL, 's'},    {"folds", required_argument, NULL, 'k'},
		{"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
		{"table", required_argument, NULL, 't'},   {NULL, 0, NULL, 0},
	};
	int c;
	char *end;
	optind = 1;
	opterr = 0;
	o->folds = 5;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o->formula = optarg; break;
		case 'j': o->json = optarg; break;
		case 's': o->save = optarg; break;
		case 't': o->table = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'k':
			o->folds = (int)strtol(optarg, &end, 10);
			if (*end || o->folds < 0 || o->folds > 1000)
				return fail_usage("invalid --folds", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return 1;
		case ':': return fail_usage("option needs a value:", argv[optind - 1]);
		default: return fail_usage("unknown option", argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "dmlscope fit: give one CSV or dataset folder; see "
				"'dmlscope fit --help'\n");
		return -1;
	}
	o->input = argv[optind];
	return 0;
}

static int load_table(const char *input, dmls_table *t, dmls_error *err)
{
	struct stat sb;
	if (stat(input, &sb) == 0 && S_ISDIR(sb.st_mode))
		return dmls_dataset_table(input, t, err);
	return dmls_table_load_csv(t, input, err);
}

static int write_table(const dmls_table *t, const char *path, dmls_error *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return dmls_fail(err, DMLS_EIO, "'%s': %s", path, strerror(errno));
	int st = dmls_table_write_csv(t, f, path, err);
	if (fclose(f) && !st)
		st = dmls_fail(err, DMLS_EIO, "'%s': cannot write", path);
	return st;
}

int cmd_fit(int argc, char **argv)
{
	struct fit_opts o = {0};
	dmls_error err = {0};
	dmls_table t;
	dmls_design d;
	dmls_fit fit;
	char deflt[256];
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : DMLS_EUSAGE;
	if ((rc = load_table(o.input, &t, &err)))
		goto fail;
	if (o.table && (rc = write_table(&t, o.table, &err))) {
		dmls_table_release(&t);
		goto fail;
	}
	if (!o.formula) {
		dmls_default_formula(&t, deflt, sizeof(deflt));
		o.formula = deflt;
	}
	rc = dmls_design_build(&d, o.formula, &t, &err);
	dmls_table_release(&t);
	if (rc)
		goto fail;
	if ((rc = dmls_fit_design(&fit, &d, o.folds, &err))) {
		dmls_design_release(&d);
		goto fail;
	}
	for (size_t i = 0; i < fit.nwarnings && !o.quiet; i++)
		fprintf(stderr, "dmlscope fit: warning: %s\n", fit.warnings[i]);
	if (!(o.json && !strcmp(o.json, "-")) && !o.quiet)
		dmls_fit_print_text(stdout, &d, &fit);
	if (o.json)
		rc = cli_write_json(dmls_fit_to_json(&d, &fit), o.json, "fit", 17);
	if (!rc && o.save && (rc = dmls_model_save(o.save, &d, &fit, &err)))
		fprintf(stderr, "dmlscope fit: %s\n", err.msg);
	dmls_fit_release(&fit);
	dmls_design_release(&d);
	return rc;
fail:
	fprintf(stderr, "dmlscope fit: %s\n", err.msg);
	return rc;
}
