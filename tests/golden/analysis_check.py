#!/usr/bin/python3
"""Check `dmlscope analyze --json` of real runs against their truth.json.

usage: analysis_check.py RUN_DIR ANALYSIS.json [RUN_DIR ANALYSIS.json ...]
       analysis_check.py --jobs RUN_DIR OUT_DIR [RUN_DIR OUT_DIR ...]

--jobs (make validate): every job of every run, see jobs_check.py: OUT_DIR
holds folder.json (the analysis of the run folder) and <capture>.json for
each capture file analyzed alone.  Without --jobs (the golden test of
make check, one row per run, the largest job only):

For each run: pattern kind and ranks equal, every host's role equal,
iterations.period_s within 3 % of the log's mean step time
(the Batch rows' times in truth.json, step_times, with the first interval
left out from 4 steps on, as period_s leaves it out: jobs_check.steady_step) and model.gradient_bytes within 3 % of truth.json gradient_bytes.
Runs whose truth.json holds the plan of a hand-made all-reduce
(expected_pair_bytes_per_step: testbed's pytorch_manual butterfly, tree,
hierarchical) also need model.observed_iteration_bytes within 3 % of the
plan's bytes per step (all pairs); for a hierarchical run, whose S depends
on the groups' algorithms, a null gradient_bytes is accepted when those
bytes agree.
Prints one table row per run (run, truth, found, error) and exits 1 when a
run fails.
"""
import json
import os
import sys

from jobs_check import job_step

TOL = 0.03


def rel(got, want):
    if got is None or not want:
        return None
    return (got - want) / want


def check(run, out):
    t = json.load(open(os.path.join(run, "truth.json")))
    try:
        a = json.load(open(out))
    except (OSError, ValueError) as e:
        return [os.path.basename(run.rstrip("/")), "-", "-", f"no analysis: {e}"], False
    p, it, m = a.get("pattern", {}), a.get("iterations", {}), a.get("model", {})
    errs = []
    if p.get("kind") != t["pattern"]:
        errs.append(f"kind {p.get('kind')}")
    if p.get("ranks") != t["ranks"]:
        errs.append(f"ranks {p.get('ranks')}")
    roles = {h["addr"]: h.get("role") for h in a.get("hosts", [])}
    for h in t.get("hosts", []):
        if h["addr"] in roles and roles[h["addr"]] != h["role"]:
            errs.append(f"role {h['addr']} {roles[h['addr']]}")
    ep = rel(it.get("period_s"), job_step(t))
    es = rel(m.get("gradient_bytes"), t.get("gradient_bytes"))
    plan = t.get("expected_pair_bytes_per_step")
    eb = rel(m.get("observed_iteration_bytes"), sum(x[2] for x in plan)) if plan else None
    if ep is None or abs(ep) > TOL:
        errs.append("period")
    if plan and (eb is None or abs(eb) > TOL):
        errs.append("bytes per iteration")
    if es is None and t["pattern"] == "hierarchical" and eb is not None:
        pass  # S unknown for hierarchical; the bytes above were checked
    elif es is None or abs(es) > TOL:
        errs.append("S")
    truth = "%s/%d %.3fs %.2fMB" % (t["pattern"], t["ranks"], job_step(t) or 0,
                                    t["gradient_bytes"] / 1e6)
    fmt = lambda v, f: f % v if v is not None else "null"
    found = "%s/%s %s %s (%s it)" % (p.get("kind"), p.get("ranks"),
                                     fmt(it.get("period_s"), "%.3fs"),
                                     fmt(None if m.get("gradient_bytes") is None
                                         else m["gradient_bytes"] / 1e6, "%.2fMB"),
                                     it.get("count"))
    err = "period %s S %s" % (fmt(None if ep is None else 100 * ep, "%+.1f%%"),
                              fmt(None if es is None else 100 * es, "%+.1f%%"))
    if plan:
        err += " bytes/it %s" % fmt(None if eb is None else 100 * eb, "%+.1f%%")
    if errs:
        err += "  FAIL: " + ", ".join(errs)
    return [os.path.basename(run.rstrip("/")), truth, found, err], not errs


def main(argv):
    if len(argv) > 1 and argv[1] == "--jobs":
        import jobs_check
        return jobs_check.main(argv[1:])
    if len(argv) < 3 or len(argv) % 2 == 0:
        print(__doc__, file=sys.stderr)
        return 2
    rows, ok = [["run", "truth", "found", "error"]], True
    for i in range(1, len(argv), 2):
        row, good = check(argv[i], argv[i + 1])
        rows.append(row)
        ok = ok and good
    w = [max(len(r[c]) for r in rows) for c in range(4)]
    for r in rows:
        print("  ".join(r[c].ljust(w[c]) for c in range(4)).rstrip())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
