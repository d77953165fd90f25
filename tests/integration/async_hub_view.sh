#!/usr/bin/env bash
# One host's capture of both directions (tcpdump -i any) in an
# asynchronous job, where the data make a star around the host:
#   gossip4-any: run_job.py --framework async --algorithm gossip --ranks 4
#     --capture any.  Each rank pushes its vector to a random peer after
#     its step; seen from one rank, its peers send only to it, a star's
#     fan-out: each file read "star", an asynchronous server.  But it
#     answers its peers about as slowly as they answer it (the delay from a
#     peer's sending to its own over the other way: 0.77-1.05), where a
#     server answers a push at once: kind unknown, with a note.
#   aps5-any-server: --algorithm aps --ranks 5, the server's file (rank
#     0): it answers each worker at once (0.13): a star it stays.
set -u
NAME=async_hub_view
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run gossip4-any.tar.xz gossip4-any
fixture_unpack aps5-any-server.tar.xz
fixture_analyze_ranks "$run" rank 4
fixture_analyze "$tmp/aps5-any-server/worker-0-tcpdump.pcap" server
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
fails = []
for w in range(4):
    d = json.load(open("%s/rank%d.json" % (tmp, w)))
    p = d["pattern"]
    if p["kind"] != "unknown" or p["ranks"] != 4:
        fails.append("gossip rank %d's capture: %s/%s (want unknown/4)" % (w, p["kind"], p["ranks"]))
    if not any("gossiping or pair-averaging rank" in n for n in d["notes"]):
        fails.append("gossip rank %d's capture: no note: %s" % (w, d["notes"]))
    if d["iterations"]["mode"] != "asynchronous":
        fails.append("gossip rank %d's capture: mode %s" % (w, d["iterations"]["mode"]))
d = json.load(open(tmp + "/server.json"))
if (d["pattern"]["kind"], d["pattern"]["ranks"]) != ("star", 5):
    fails.append("the asynchronous server's capture: %s/%s (want star/5)"
                 % (d["pattern"]["kind"], d["pattern"]["ranks"]))
for f in fails:
    print("async_hub_view: FAIL:", f)
print("async_hub_view: %s" % ("FAIL" if fails else "ok: 4 gossip ranks' captures no star; the server's a star"))
sys.exit(1 if fails else 0)
PY
