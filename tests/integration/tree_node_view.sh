#!/usr/bin/env bash
# A tree's inner node seen alone is a tree, not a parameter server.  The
# fixtures (testbed, tcpdump -i any: both directions, Linux cooked v2):
#   tree6-any-nodes: run_job.py --framework manual --algorithm tree --ranks 6
#     --capture any; ranks 1 and 2's files.  Each holds a node's edges to
#     its parent (rank 0) and its children: a star to the volume graph,
#     read as a server with its workers (confidence 1); but the node sends
#     up to its parent before the parent sends down, where its children
#     send first: a tree rooted at the parent, with a note that it may
#     reach past the ranks seen, its rank count null (it gave the 3 or 4
#     seen, for 6), S as truth.json's.
#   rpc8-any-server: run_job.py --framework rpc --ranks 8 --capture any; the
#     server's file: every worker pushes before it pulls, so a star it stays.
set -u
NAME=tree_node_view
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run tree6-any-nodes.tar.xz tree6-any-nodes
fixture_unpack rpc8-any-server.tar.xz
fixture_analyze "$run/worker-1-tcpdump.pcap" node1
fixture_analyze "$run/worker-2-tcpdump.pcap" node2
fixture_analyze "$tmp/rpc8-any-server/worker-0-tcpdump.pcap" server
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
t = json.load(open(tmp + "/tree6-any-nodes/truth.json"))
root = next(h["addr"] for h in t["hosts"] if h["rank"] == 0)
for v in ("node1", "node2"):
    d = json.load(open("%s/%s.json" % (tmp, v)))
    p = d["pattern"]
    if p["kind"] != "tree" or p["hubs"] != [root]:
        sys.exit("tree_node_view: FAIL: %s: %s (hubs %s), want a tree rooted at %s"
                 % (v, p["kind"], p["hubs"], root))
    if p["ranks"] is not None:
        sys.exit("tree_node_view: FAIL: %s: ranks %s, want null (the tree reaches past the %d seen)"
                 % (v, p["ranks"], len(p["members"])))
    if not any(n.startswith("tree, not a server") for n in d["notes"]):
        sys.exit("tree_node_view: FAIL: %s: no note on the tree seen from its node: %s" % (v, d["notes"]))
    S = d["model"]["gradient_bytes"]
    if S is None or abs(S / t["gradient_bytes"] - 1) > 0.03:
        sys.exit("tree_node_view: FAIL: %s: S %s for %d" % (v, S, t["gradient_bytes"]))
d = json.load(open(tmp + "/server.json"))
if d["pattern"]["kind"] != "star":
    sys.exit("tree_node_view: FAIL: the parameter server's own capture reads %s" % d["pattern"]["kind"])
print("tree_node_view: ok: ranks 1 and 2's files trees rooted at %s, S within 3 %%; the server's a star" % root)
PY
