/*
 * cmd_predict.c - `dmlscope predict MODEL.json key=value... [--json FILE|-]`.
 *
 * Loads a model saved by `fit --save`, builds the row for the given
 * variables and prints the prediction with its 95 % confidence interval
 * (of the mean) and prediction interval (of one new job).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "dmlscope/model.h"
#include "model/json_num.h"

static const char usage_text[] =
	"usage: dmlscope predict MODEL.json VAR=VALUE... [--json FILE|-]\n"
	"MODEL.json comes from 'dmlscope fit --save'; give every variable it uses\n";

static json_t *prediction_json(const dmls_model *m, const dmls_prediction *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "response", json_string(m->d.fm.response.code));
	json_object_set_new(o, "mean", json_num(p->mean));
	json_object_set_new(o, "se_mean", json_num(p->se_mean));
	json_object_set_new(o, "se_obs", json_num(p->se_obs));
	json_object_set_new(o, "ci_low", json_num(p->ci_low));
	json_object_set_new(o, "ci_high", json_num(p->ci_high));
	json_object_set_new(o, "pi_low", json_num(p->pi_low));
	json_object_set_new(o, "pi_high", json_num(p->pi_high));
	json_object_set_new(o, "df_resid", json_num(p->df));
	json_object_set_new(
		o, "back_transformed",
		p->back ? json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "variable", m->d.fm.response.var,
				    "value", json_num(p->y), "ci_low", json_num(p->y_ci_low),
				    "ci_high", json_num(p->y_ci_high), "pi_low",
				    json_num(p->y_pi_low), "pi_high", json_num(p->y_pi_high))
			: json_null());
	return o;
}

int cmd_predict(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *json = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			fprintf(stderr, "dmlscope predict: bad option '%s'; see 'dmlscope predict "
					"--help'\n", argv[optind - 1]);
			return DMLS_EUSAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "dmlscope predict: no model given; see 'dmlscope predict --help'\n");
		return DMLS_EUSAGE;
	}
	dmls_error err = {0};
	dmls_model m;
	dmls_prediction p;
	int rc = dmls_model_load(&m, argv[optind], &err);
	if (!rc) {
		rc = dmls_model_predict(&m, (const char *const *)argv + optind + 1,
					(size_t)(argc - optind - 1), &p, &err);
		if (!rc && !(json && !strcmp(json, "-"))) {
			printf("%s = %.6g\n", m.d.fm.response.code, p.mean);
			printf("95%% confidence interval of the mean: [%.6g, %.6g]\n", p.ci_low,
			       p.ci_high);
			printf("95%% prediction interval:             [%.6g, %.6g]\n", p.pi_low,
			       p.pi_high);
			if (p.back) {
				printf("in %s's own units: %.6g%s\n", m.d.fm.response.var, p.y,
				       m.d.fm.response.fn == DMLS_FN_LOG ||
						       m.d.fm.response.fn == DMLS_FN_LOG10 ||
						       m.d.fm.response.fn == DMLS_FN_LOG2
					       ? " (the median: the inverse of a mean log)"
					       : "");
				printf("  95%% confidence interval: [%.6g, %.6g]\n", p.y_ci_low,
				       p.y_ci_high);
				printf("  95%% prediction interval: [%.6g, %.6g]\n", p.y_pi_low,
				       p.y_pi_high);
			}
		}
		if (!rc && json)
			rc = cli_write_json(prediction_json(&m, &p), json, "predict", 17);
		dmls_model_release(&m);
	}
	if (rc && err.msg[0])
		fprintf(stderr, "dmlscope predict: %s\n", err.msg);
	return rc;
}
