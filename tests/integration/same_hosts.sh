#!/usr/bin/env bash
# Two real jobs on the same hosts: the testbed's two 4-rank PyTorch DDP
# rings (TinyCNN, 300 steps each), every host running a rank of both
# (tests/data/ddp4x2-same-hosts.tar.xz, 66-byte snaps).  Jobs are found by
# their hosts, so this is one ring of 4 whose steps and S add both jobs'
# (298 iterations, S twice a job's).  Each job opens its own connections,
# so every data pair carries two of like volume: a note says so and names
# both readings (two jobs, or one job's parallel sockets).  A single job
# (the tree of tree_busy, one connection per pair) gets no such note.
set -u
NAME=same_hosts
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4x2-same-hosts.tar.xz ddp4x2-same-hosts
fixture_analyze "$run"
mv "$tmp/a.json" "$tmp/same.json"
/usr/bin/python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
	"$SRCDIR/tests/data/tree8-busy.tar.xz" "$tmp" || { echo "$NAME: FAIL: cannot unpack"; exit 1; }
fixture_analyze "$tmp/pytorch_manual-mobilenetv2-adam-16-gloo-normal-tree"
exec /usr/bin/python3 - "$tmp/same.json" "$tmp/a.json" <<'PY'
import json, sys
same, single = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fails = []
def split_note(a):
    return [n for n in a["notes"] if "like connections" in n]
n = split_note(same)
if not n or not n[0].startswith("4 of 4 data pairs"):
    fails.append("two jobs on the same hosts: no note of 4 of 4 split pairs in %s" % same["notes"])
if same["pattern"]["kind"] != "ring" or same["pattern"]["ranks"] != 4:
    fails.append("two jobs: %s/%s (want ring/4)" % (same["pattern"]["kind"], same["pattern"]["ranks"]))
if split_note(single):
    fails.append("a single job noted as split: %s" % split_note(single))
for f in fails:
    print("same_hosts: FAIL:", f)
if not fails:
    print("same_hosts: ok: %s" % n[0])
sys.exit(1 if fails else 0)
PY
