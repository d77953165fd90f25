#!/usr/bin/env bash
# A real 8-rank tree all-reduce (reduce to the root, broadcast back; the
# testbed's manual tree, MobileNetV2, 24 steps) on 8 ranks sharing 2 cores:
# tests/data/tree8-busy.tar.xz, the run folder as make-dataset made it.
# Two things went wrong on it.  A leaf's edge carries two bursts a step
# (reduce up, broadcast down), so its clock counts 48 for the tree's 24 and
# the job was split into two "jobs" at an inner node; and the job's byte
# clock tiled each step into units of S (one edge's transfer after
# another: 242 "iterations" of 0.076 s), which withheld the period and,
# on windows of 0.076 s, made the pattern "pairwise".  Now: one job of 8
# ranks, a tree, its steps counted and timed like the log's.
set -u
NAME=tree_busy
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run tree8-busy.tar.xz pytorch_manual-mobilenetv2-adam-16-gloo-normal-tree
fixture_analyze "$run"
/usr/bin/python3 - "$tmp/a.json" "$run/truth.json" <<'PY'
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p, it, log = a["pattern"], a["iterations"], a["train_log"]
fails = []
if p["jobs"] != 1 or p["ranks"] != 8:
    fails.append("%s jobs, %s ranks (want 1 job of 8)" % (p["jobs"], p["ranks"]))
if p["kind"] != "tree":
    fails.append("kind %s (want tree)" % p["kind"])
if it["count"] is None or abs(it["count"] - t["steps"]) > 1:
    fails.append("count %s (want %d +- 1)" % (it["count"], t["steps"]))
want = log["steady_step_s"]
if it["period_s"] is None or abs(it["period_s"] - want) > 0.03 * want:
    fails.append("period %s s (want the log's steady step %.4f s within 3 %%)" % (it["period_s"], want))
g = a["model"]["gradient_bytes"]
if g is None or abs(g - t["gradient_bytes"]) > 0.03 * t["gradient_bytes"]:
    fails.append("S %s (want %d within 3 %%)" % (g, t["gradient_bytes"]))
for f in fails:
    print("tree_busy: FAIL:", f)
if not fails:
    print("tree_busy: ok: 1 job, tree/8, %d steps of %.4f s (log %.4f s), S %.0f" %
          (it["count"], it["period_s"], want, g))
sys.exit(1 if fails else 0)
PY
