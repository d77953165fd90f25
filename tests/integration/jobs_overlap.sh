#!/usr/bin/env bash
# Two real jobs on overlapping hosts (the testbed's DDP rings of 4,
# TinyCNN, 40 steps, on hosts 0-3 and 2-5; 2 busy cores):
# tests/data/ddp4-ddp4-overlap.tar.xz.  No host is a cut vertex (hosts 2
# and 3 are in both), both move the same bytes a pair, and both rings
# send 3 -> 2 over a connection each: it was one "hierarchical" job of 6,
# asynchronous, no count, no S.  Now two jobs (src/analysis/jobs_overlap.c):
# each job's hosts, ring of 4, its count, period and S as its own log says.
set -u
NAME=jobs_overlap
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4-ddp4-overlap.tar.xz ddp4-ddp4-overlap
fixture_analyze "$run"
exec /usr/bin/python3 - "$tmp/a.json" "$run/truth.json" <<'PY'
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fails = []
want = {tuple(sorted(h["addr"] for h in j["hosts"])): j for j in t["jobs"]}
got = {tuple(sorted(j["hosts"])): j for j in a["jobs"]}
if set(got) != set(want):
    fails.append("jobs %s (want %s)" % (sorted(got), sorted(want)))
for hosts, tj in want.items():
    j = got.get(hosts)
    if j is None:
        continue
    p, it = j["pattern"], j["iterations"]
    if (p["kind"], p["ranks"]) != ("ring", 4):
        fails.append("%s: %s/%s (want ring/4)" % (hosts, p["kind"], p["ranks"]))
    if it["count"] is None or abs(it["count"] - tj["steps"]) > 1:
        fails.append("%s: count %s (want %d +- 1)" % (hosts, it["count"], tj["steps"]))
    per = it["period_s"]
    if per is None or abs(per - tj["mean_step_s"]) > 0.05 * tj["mean_step_s"]:
        fails.append("%s: period %s s (log %.4f s, want within 5 %%)" % (hosts, per, tj["mean_step_s"]))
    S = j["model"]["gradient_bytes"]
    if S is None or abs(S - tj["gradient_bytes"]) > 0.03 * tj["gradient_bytes"]:
        fails.append("%s: S %s (want %d within 3 %%)" % (hosts, S, tj["gradient_bytes"]))
for f in fails:
    print("jobs_overlap: FAIL:", f)
if not fails:
    print("jobs_overlap: ok: %d jobs, %s" % (len(got), "; ".join(
        "%s ring/4 %s x %.4f s" % (",".join(h[-1] for h in k), v["iterations"]["count"],
                                   v["iterations"]["period_s"]) for k, v in sorted(got.items()))))
sys.exit(1 if fails else 0)
PY
