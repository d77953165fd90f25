#!/usr/bin/env bash
# One host's own capture of both directions (tcpdump -i any, Linux cooked
# v2) whose edges make a star around it, where the job is not a star:
#   clique5-any: run_job.py --framework manual --algorithm clique --ranks 5
#     --capture any; each rank exchanges with every other at once (a
#     direct reduce-scatter, then all-gather).  Each file had been read as
#     the whole job, a parameter server of 5 (confidence 1, S 40 % of its
#     value: 2 S/N a spoke) with a note that the hub exchanges at once, so
#     it is no server.  Now a partial view (the other ranks' exchanges with
#     each other are not in it), a clique of 5, S within 3 %, every step.
#   tree7-any-root: the same with --algorithm tree --ranks 7, rank 0's
#     file (the root): its two children push, it answers, as a server's
#     workers do; "star/3", confidence 1.  But the other 4 ranks reach it
#     on the rendezvous store's port its children use too: the job reaches
#     past the star.  Now a partial view of 7 ranks, kind unknown.
# The parameter server's own capture stays a star (tree_node_view.sh).
set -u
NAME=one_host_view
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run clique5-any.tar.xz clique5-any
fixture_unpack tree7-any-root.tar.xz
fixture_analyze_ranks "$run" rank 5
fixture_analyze "$tmp/tree7-any-root/worker-0-tcpdump.pcap" root
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
fails = []
t = json.load(open(tmp + "/clique5-any/truth.json"))
S, steps, step_s = t["gradient_bytes"], t["steps"], t["log_mean_step_s"]
for w in range(5):
    d = json.load(open("%s/rank%d.json" % (tmp, w)))
    p, it, g = d["pattern"], d["iterations"], d["model"]["gradient_bytes"]
    what = "clique rank %d's capture" % w
    if (p["kind"], p["ranks"], p["partial"]) != ("clique", 5, True):
        fails.append("%s: %s/%s partial %s (want clique/5, partial)" % (what, p["kind"], p["ranks"], p["partial"]))
    if g is None or abs(g / S - 1) > 0.03:
        fails.append("%s: S %s (want %d within 3 %%)" % (what, g, S))
    if it["count"] is None or abs(it["count"] - steps) > 1:
        fails.append("%s: %s steps (want %d within 1)" % (what, it["count"], steps))
    if it["period_s"] is None or abs(it["period_s"] / step_s - 1) > 0.03:
        fails.append("%s: period %s (want %.4f within 3 %%)" % (what, it["period_s"], step_s))
d = json.load(open(tmp + "/root.json"))
p = d["pattern"]
if p["kind"] == "star" or p["ranks"] != 7 or not p["partial"]:
    fails.append("tree root's capture: %s/%s partial %s (want 7 ranks, partial, no star)"
                 % (p["kind"], p["ranks"], p["partial"]))
for f in fails:
    print("one_host_view: FAIL:", f)
print("one_host_view: %s" % ("FAIL" if fails else "ok: 5 clique ranks' captures a clique of 5; the tree's root 7 ranks, partial"))
sys.exit(1 if fails else 0)
PY
