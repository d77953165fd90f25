#!/usr/bin/env bash
# One rank's own capture of a recursive-doubling butterfly: the testbed's
# mpi4py Allreduce over Open MPI, 8 ranks, recursive doubling, 40 steps
# (tests/data/mpi8-doubling.tar.xz, 66-byte snaps).  A rank sends the
# whole vector, S, to its 3 partners in turn; seen alone, that fans out
# evenly like a parameter server's hub, and 5 of the 8 files were called
# a star (confidence 0.5), their first step dropped as the workers'
# initial pull.  Its partners come in the same order every step, with the
# rank waiting between them: a butterfly, every step counted, S = its
# bytes per step / 3.  The other 3 files (ranks 0, 3 and 7) were taken
# for asynchronous servers, kind, period and S withheld: waiting 11-44 ms
# for each partner in turn, a rank's edges kept unsteady offsets, as two
# clocks do; the same order every step makes them one.  All 8 are a
# butterfly now.  A parameter server's hub alone (the bundled RPC
# sample's server) is still a star: it sends to its workers back to back,
# in the order their pushes came.
set -u
NAME=doubling_rank
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run mpi8-doubling.tar.xz mpi8-recursive_doubling
fixture_analyze "$run" folder
fixture_analyze_ranks "$run" rank 8
hub=$(ls -d "$SRCDIR"/samples/*tensorpipe*star 2>/dev/null | head -1)
[ -n "$hub" ] || { echo "$NAME: FAIL: no RPC star sample under samples/"; exit 1; }
fixture_analyze "$hub/worker-0-tcpdump.pcap" hub
/usr/bin/python3 - "$tmp" "$run/truth.json" <<'PY'
import json, sys
tmp, truth = sys.argv[1], json.load(open(sys.argv[2]))
S, steps = truth["gradient_bytes"], truth["steps"]
fails, butterflies = [], 0
def load(name):
    return json.load(open("%s/%s.json" % (tmp, name)))
folder = load("folder")
if (folder["pattern"]["kind"], folder["pattern"]["ranks"]) != ("butterfly", 8):
    fails.append("folder: %s/%s (want butterfly/8)" % (folder["pattern"]["kind"], folder["pattern"]["ranks"]))
for w in range(8):
    a = load("rank%d" % w)
    kind, it, g = a["pattern"]["kind"], a["iterations"]["count"], a["model"]["gradient_bytes"]
    if kind == "unknown":
        continue  # withheld: allowed
    if kind != "butterfly":
        fails.append("worker-%d: %s (want butterfly or withheld)" % (w, kind))
        continue
    butterflies += 1
    notes = [n for n in a["notes"] if "recursive-doubling" in n]
    if not notes or "3 partners" not in notes[0]:
        fails.append("worker-%d: no note of its 3 partners in %s" % (w, a["notes"]))
    if not 0 < a["pattern"]["confidence"] <= 0.6:
        fails.append("worker-%d: confidence %s (want low, one rank's view)" % (w, a["pattern"]["confidence"]))
    if it is None or abs(it - steps) > 1:
        fails.append("worker-%d: %s iterations (want %d within 1)" % (w, it, steps))
    if g is None or abs(g / S - 1) > 0.03:
        fails.append("worker-%d: S %s (want %d within 3 %%)" % (w, g, S))
if butterflies < 8:
    fails.append("%d of 8 rank files a butterfly (want 8)" % butterflies)
hub = load("hub")
if hub["pattern"]["kind"] != "star":
    fails.append("the RPC sample's server alone: %s (want star)" % hub["pattern"]["kind"])
for f in fails:
    print("doubling_rank: FAIL:", f)
print("doubling_rank: %s (%d rank files a butterfly)" % ("FAIL" if fails else "ok", butterflies))
sys.exit(1 if fails else 0)
PY
