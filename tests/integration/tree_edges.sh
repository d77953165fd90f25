#!/usr/bin/env bash
# A tree is one job when the edges at its cut vertex keep one step
# (src/analysis/jobs_shared.c, same_at_h).
#
# A tree's inner node is a cut vertex: the split at a shared host clocks
# each part on its hosts' sending, and where one part's clock lost steps
# (a lossy path, or busy hosts) the parts read two periods and the tree
# two jobs.  tests/data/tree8-loss1.tar.xz: the testbed's binary tree of 8
# at 1 % loss, split at its root, one subtree clocked at 32 steps of 0.127
# s beside the other's 40 of 0.103: a tree of 5 and a tree of 4.
# tests/data/tree6-clean.tar.xz: a tree of 6 without loss on 2 busy cores:
# a tree of 4 and a tree of 3.  The root's edges into both parts keep one
# step, so the parts are one job: each reads its whole tree, 40 steps of
# its log's period.  tests/data/tree8-loss2.tar.xz: a tree of 8 at 2 %
# loss, a leaf set apart as a job of 2 with its parent (its edge's clock
# counts the reduce up and the broadcast down) beside a tree of 7: the
# leaf's edge keeps the step of its parent's edge to the rest.
set -u
NAME=tree_edges
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run tree8-loss1.tar.xz tree8-loss1
fixture_unpack tree6-clean.tar.xz
fixture_unpack tree8-loss2.tar.xz
fixture_analyze "$run" a
fixture_analyze "$tmp/tree6-clean" b
fixture_analyze "$tmp/tree8-loss2" c
/usr/bin/python3 - "$tmp" "$run" "$tmp/tree6-clean" "$tmp/tree8-loss2" <<'PY'
import json, sys
tmp, runs = sys.argv[1], sys.argv[2:]
fails, said = [], []
for an, run in zip("abc", runs):
    a, t = json.load(open("%s/%s.json" % (tmp, an))), json.load(open(run + "/truth.json"))
    name = "tree of %d (%s)" % (t["ranks"], run.split("/")[-1])
    jobs = [(j["pattern"]["kind"], j["pattern"]["ranks"]) for j in a["jobs"]]
    if jobs != [("tree", t["ranks"])]:
        fails.append("%s: jobs %s (want one tree/%d)" % (name, jobs, t["ranks"]))
        continue
    it = a["jobs"][0]["iterations"]
    if it["count"] is None or abs(it["count"] - t["steps"]) > 1:
        fails.append("%s: count %s for %d" % (name, it["count"], t["steps"]))
    if it["period_s"] is None or abs(it["period_s"] / t["mean_step_s"] - 1) > 0.03:
        fails.append("%s: period %s for the log's %.4f s" % (name, it["period_s"], t["mean_step_s"]))
    said.append("%s: %s x %.4f s (log %.4f)" % (name, it["count"], it["period_s"] or 0, t["mean_step_s"]))
for f in fails:
    print("tree_edges: FAIL:", f)
if not fails:
    print("tree_edges: ok:", "; ".join(said))
sys.exit(1 if fails else 0)
PY
