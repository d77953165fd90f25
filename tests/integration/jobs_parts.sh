#!/usr/bin/env bash
# Parts of one job found as two jobs are said to be maybe one.  The
# fixture (testbed: a DDP ring on hosts 0-4 beside a tree of 5 on hosts 3-7,
# run_job.py --job framework=ddp,hosts=0-4 --job
# framework=manual,algorithm=tree,hosts=3-7) reads the tree, split at its
# inner node by the split at shared hosts, as a star of 3 and a pair, each
# with a confident pattern, 40 iterations and S; the two keep one step (one
# period, a fixed offset, lock 1) and their hosts touch, so each gets the
# note "in lockstep with job N ...: maybe both are parts of one job" and
# half its pattern's confidence.  Jobs that are what truth.json says, here
# and in two runs of two rings each (one period or two), get no such note.
set -u
NAME=jobs_parts
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp5-tree5-parts.tar.xz ddp5-tree5-parts
fixture_unpack ddp4-ddp4-overlap.tar.xz
fixture_unpack ddp3-ddp3-one-period.tar.xz
for r in ddp5-tree5-parts ddp4-ddp4-overlap ddp3-ddp3-one-period; do
	fixture_analyze "$tmp/$r" "$r"
done
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def load(r):
    return json.load(open("%s/%s.json" % (tmp, r))), json.load(open("%s/%s/truth.json" % (tmp, r)))
def parts(d):
    return [j for j in d["jobs"] if any("maybe both are parts of one job" in n for n in j["notes"])]
d, t = load("ddp5-tree5-parts")
tree = {h["addr"] for h in t["jobs"][1]["hosts"]}
p = parts(d)
if len(p) < 2 or any(not set(j["hosts"]) <= tree for j in p):
    sys.exit("jobs_parts: FAIL: parts of the tree flagged: %s (tree %s; jobs %s)"
             % ([j["hosts"] for j in p], sorted(tree), [(j["hosts"], j["pattern"]["kind"]) for j in d["jobs"]]))
if any(j["pattern"]["confidence"] > 0.5 for j in p):
    sys.exit("jobs_parts: FAIL: a flagged part keeps confidence %s" % [j["pattern"]["confidence"] for j in p])
for r in ("ddp5-tree5-parts", "ddp4-ddp4-overlap", "ddp3-ddp3-one-period"):
    d, t = load(r)
    truth = [sorted(h["addr"] for h in j["hosts"]) for j in t["jobs"]]
    bad = [j["hosts"] for j in parts(d) if sorted(j["hosts"]) in truth]
    if bad:
        sys.exit("jobs_parts: FAIL: %s: whole jobs flagged as parts: %s" % (r, bad))
print("jobs_parts: ok: the tree's %d parts (%s) flagged, confidence halved; no whole job flagged"
      % (len(p), "; ".join("%s %s" % (j["pattern"]["kind"], ",".join(h.split(".")[-1] for h in j["hosts"])) for j in p)))
PY
