#!/usr/bin/python3
"""Fit the same tables with statsmodels and `dmlscope fit --json -`, compare.

Usage: fit_statsmodels.py DMLSCOPE WORKDIR
Every number (coefficients, standard errors, t, p, intervals, R2, adjusted
R2, F and its p, log-likelihood, AIC, BIC, condition number, df, residual
diagnostics, k-fold CV) must agree to a relative 1e-6; predictions from a
saved model must agree with statsmodels' get_prediction().  Exit 0 when all
agree, 1 otherwise, 77 when statsmodels is missing.
"""
import json
import math
import os
import subprocess
import sys

try:
    import numpy as np
    import pandas as pd
    import statsmodels.formula.api as smf
    import statsmodels.stats.api as sms
    from statsmodels.stats.stattools import durbin_watson, jarque_bera
    from numpy import log  # noqa: F401  (lets patsy evaluate "log(x)")
except ImportError as e:
    print("skip: %s" % e)
    sys.exit(77)

REL = 1e-6
ABS = 1e-9
failures = []


def close(a, b, scale=1.0):
    if a is None:
        return b is None or not math.isfinite(b)
    if b is None or not math.isfinite(b):
        return False
    return abs(a - b) <= REL * max(abs(a), abs(b)) + ABS * scale


NCHECK = [0]


def check(case, what, ours, theirs, scale=1.0):
    NCHECK[0] += 1
    if not close(ours, theirs, scale):
        failures.append("%s: %s: dmlscope %r, statsmodels %r" % (case, what, ours, theirs))


def cv_numpy(X, y, folds):
    """The same k-fold CV as dmlscope: row i held out in fold i mod k."""
    n = len(y)
    folds = min(folds, n)
    pred = np.empty(n)
    idx = np.arange(n)
    for f in range(folds):
        tr = idx % folds != f
        b = np.linalg.lstsq(X[tr], y[tr], rcond=None)[0]
        pred[~tr] = X[~tr] @ b
    rmse = math.sqrt(np.mean((y - pred) ** 2))
    nz = y != 0
    mape = 100 * np.mean(np.abs((y[nz] - pred[nz]) / y[nz])) if nz.any() else None
    return rmse, mape


def run_fit(dmlscope, csv, formula, extra=()):
    cmd = [dmlscope, "fit", csv, "--json", "-"] + list(extra)
    if formula is not None:
        cmd += ["--formula", formula]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr))
    return json.loads(p.stdout)


def compare(dmlscope, case, csv, formula, cli_formula="same"):
    df = pd.read_csv(csv)
    m = smf.ols(formula, df).fit()
    ours = run_fit(dmlscope, csv, formula if cli_formula == "same" else cli_formula)
    names = [c["name"] for c in ours["coefficients"]]
    if names != list(m.params.index):
        failures.append("%s: columns %s, statsmodels %s" % (case, names, list(m.params.index)))
        return
    check(case, "n", ours["n"], m.nobs)
    check(case, "k", ours["k"], len(m.params))
    check(case, "rank", ours["rank"], np.linalg.matrix_rank(m.model.exog))
    check(case, "df_resid", ours["df_resid"], m.df_resid)
    check(case, "df_model", ours["df_model"], m.df_model)
    check(case, "k_constant", ours["k_constant"], m.k_constant)
    ci = m.conf_int(0.05)
    ys = float(np.max(np.abs(m.model.endog)))
    for j, c in enumerate(ours["coefficients"]):
        nm = c["name"]
        bse = m.bse.iloc[j]
        check(case, nm + " coef", c["coef"], m.params.iloc[j], ys)
        check(case, nm + " std_err", c["std_err"], bse, ys)
        check(case, nm + " t", c["t"], m.tvalues.iloc[j])
        check(case, nm + " p", c["p"], m.pvalues.iloc[j])
        check(case, nm + " ci_low", c["ci_low"], ci.iloc[j, 0], ys)
        check(case, nm + " ci_high", c["ci_high"], ci.iloc[j, 1], ys)
    for key, val in [("r2", m.rsquared), ("adj_r2", m.rsquared_adj), ("f_stat", m.fvalue),
                     ("f_p", m.f_pvalue), ("log_likelihood", m.llf), ("aic", m.aic),
                     ("bic", m.bic), ("scale", m.scale), ("ssr", m.ssr)]:
        check(case, key, ours[key], float(val))
    if ours["rank"] == ours["k"]:
        check(case, "condition_number", ours["condition_number"], m.condition_number)
    resid = m.resid.values
    jb, jbp, skew, kurt = jarque_bera(resid)
    dg = ours["diagnostics"]
    check(case, "jarque_bera", dg["jarque_bera"], jb)
    check(case, "jb_p", dg["jb_p"], jbp)
    check(case, "skew", dg["skew"], skew)
    check(case, "kurtosis", dg["kurtosis"], kurt)
    check(case, "durbin_watson", dg["durbin_watson"], durbin_watson(resid))
    if len(resid) >= 8:
        om, omp = sms.omni_normtest(resid)
        check(case, "omnibus", dg["omnibus"], om)
        check(case, "omnibus_p", dg["omnibus_p"], omp)
    rmse, mape = cv_numpy(m.model.exog, m.model.endog, 5)
    check(case, "cv.rmse", ours["cv"]["rmse"], rmse)
    check(case, "cv.mape", ours["cv"]["mape"], mape)
    return m


def compare_predict(dmlscope, case, csv, formula, settings, work):
    df = pd.read_csv(csv)
    m = smf.ols(formula, df).fit()
    path = os.path.join(work, case + ".model.json")
    p = subprocess.run([dmlscope, "fit", csv, "--formula", formula, "--save", path,
                        "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("%s: fit --save: %s" % (case, p.stderr.strip()))
        return
    kv = ["%s=%s" % (k, v) for k, v in settings.items()]
    p = subprocess.run([dmlscope, "predict", path] + kv + ["--json", "-"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("%s: predict: %s" % (case, p.stderr.strip()))
        return
    ours = json.loads(p.stdout)
    row = pd.DataFrame({k: [v] for k, v in settings.items()})
    sf = m.get_prediction(row).summary_frame(alpha=0.05).iloc[0]
    for key, col in [("mean", "mean"), ("se_mean", "mean_se"), ("ci_low", "mean_ci_lower"),
                     ("ci_high", "mean_ci_upper"), ("pi_low", "obs_ci_lower"),
                     ("pi_high", "obs_ci_upper")]:
        check(case + " predict", key, ours[key], float(sf[col]))


def tables(work):
    rng = np.random.default_rng(20240607)
    out = {}

    # The study's table: 48 runs, 4 models, 5 framework_backends, 3 batches,
    # 3 topologies, 2..8 workers.
    sizes = {"mobilenetv2": 14.0, "densenet201": 80.0, "resnet50": 98.0, "resnet101": 170.0}
    fbs = ["tensorflow_grpc", "tensorflow_nccl", "horovod_mpi", "horovod_gloo", "kungfu_sync"]
    rows = []
    for i in range(48):
        model = list(sizes)[i % 4]
        fb = fbs[(i // 4) % 5]
        batch = [64, 128, 512][i % 3]
        topo = ["ring", "star", "tree"][(i // 3) % 3]
        workers = [2, 4, 8][(i // 7) % 3]
        y = (2 * sizes[model] * (workers - 1) / workers * (1 + 0.2 * fbs.index(fb))
             * (1.0 if batch == 64 else 0.9 if batch == 128 else 0.7)
             + (5 if topo == "star" else 0) + rng.normal(0, 8))
        rows.append(dict(run="run%02d" % i, mb_per_step=y, model_size_mb=sizes[model],
                         framework_backend=fb, batch=batch, topology=topo, workers=workers))
    study = pd.DataFrame(rows)
    out["study"] = study

    n = 40
    x = rng.normal(10, 3, n)
    z = rng.uniform(1, 5, n)
    a = rng.choice(list("abc"), n)
    b = rng.choice(["u", "v"], n)
    s = rng.choice([0.5, 1.5, 2.0], n)
    y = 3 + 0.7 * x - 0.4 * z + (a == "b") * 2 + (b == "v") * 1 + rng.normal(0, 1, n)
    base = pd.DataFrame(dict(y=y, x=x, z=z, a=a, b=b, s=s, one="k", x2=2 * x,
                             pos=np.exp(rng.normal(0, 1, n)) * 100))
    out["base"] = base
    # Rank-deficient by a categorical nested in another (c is a function of a).
    nested = base.copy()
    nested["c"] = nested["a"].map({"a": "p", "b": "q", "c": "q"})
    out["nested"] = nested
    # Missing cells: rows dropped.
    miss = base.copy()
    miss.loc[3, "x"] = np.nan
    miss.loc[7, "a"] = np.nan
    out["missing"] = miss
    paths = {}
    for name, df in out.items():
        paths[name] = os.path.join(work, name + ".csv")
        df.to_csv(paths[name], index=False)
    return paths


CASES = [
    ("study_default", "study",
     "mb_per_step ~ model_size_mb + C(framework_backend) + C(batch) + C(topology) + workers",
     None),
    ("study_noworkers", "study",
     "mb_per_step ~ model_size_mb + C(framework_backend) + C(batch) + C(topology)", "same"),
    ("numeric", "base", "y ~ x + z", "same"),
    ("categorical", "base", "y ~ x + a + C(b)", "same"),
    ("float_levels", "base", "y ~ x + C(s)", "same"),
    ("one_level", "base", "y ~ x + C(one)", "same"),
    ("one_level_noint", "base", "y ~ C(one) + x - 1", "same"),
    ("rank_dup_column", "base", "y ~ x + x2 + z", "same"),
    ("rank_nested", "nested", "y ~ x + C(a) + C(c)", "same"),
    ("no_intercept", "base", "y ~ x + z - 1", "same"),
    ("no_intercept_cat", "base", "y ~ 0 + C(a) + x", "same"),
    ("inter_num_num", "base", "y ~ x + z + x:z", "same"),
    ("inter_num_cat", "base", "y ~ x + C(a) + x:C(a)", "same"),
    ("inter_num_cat_alone", "base", "y ~ z + x:C(a)", "same"),
    ("inter_cat_cat", "base", "y ~ a:b", "same"),
    ("inter_star", "base", "y ~ a*b + x", "same"),
    ("inter_cat_cat_main", "base", "y ~ C(a) + C(b) + C(a):C(b) + x", "same"),
    ("log_np", "base", "y ~ np.log(pos) + x", "same"),
    ("log_bare", "base", "np.log(y) ~ log(pos) + z", "same"),
    ("missing_rows", "missing", "y ~ x + C(a) + z", "same"),
]


def main():
    dmlscope, work = sys.argv[1], sys.argv[2]
    paths = tables(work)
    for case, table, formula, cli in CASES:
        try:
            compare(dmlscope, case, paths[table], formula, cli)
        except Exception as e:  # a crash or a refusal is a failure too
            failures.append("%s: %s" % (case, e))
    compare_predict(dmlscope, "predict_study", paths["study"],
                    "mb_per_step ~ model_size_mb + C(framework_backend) + C(batch) + "
                    "C(topology) + workers",
                    dict(model_size_mb=120.0, framework_backend="horovod_mpi", batch=128,
                         topology="ring", workers=6), work)
    compare_predict(dmlscope, "predict_log", paths["base"], "y ~ np.log(pos) + x:C(a) + b",
                    dict(pos=50.0, x=9.5, a="c", b="u"), work)
    for f in failures:
        print("FAIL " + f)
    print("%d cases, %d numbers compared, %d mismatches" % (len(CASES) + 2, NCHECK[0], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
