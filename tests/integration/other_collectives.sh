#!/usr/bin/env bash
# Open MPI jobs that average their gradient with other collectives than an
# all-reduce (testbed: run_job.py --framework mpi --model tinycnn --steps
# 20 --epochs 2, --algorithm zero or rootreduce):
# - rootreduce, 4 and 8 ranks: Reduce to rank 0 up a binomial tree, Bcast
#   from it to every rank.  Two spanning trees, S on each of their 2(N-1)
#   edges: a tree rooted at rank 0, S exact (they read unknown, S null);
# - zero, 3 ranks: Reduce_scatter_block (a reduce down a chain, a scatter)
#   then Allgather: every pair used at 1/4 to 1 of the heaviest edge.  It
#   read as a clique with S 1.25 times the gradient (0.68 MB for 0.55);
#   no shape fits, so S is withheld with a note.
# Each keeps its 40 steps at the log's period.
set -u
NAME=other_collectives
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run mpi-zero-3-tinycnn.tar.xz mpi-zero-3-tinycnn
fixture_unpack mpi-rootreduce-4-tinycnn.tar.xz
fixture_unpack mpi-rootreduce-8-tinycnn.tar.xz
for r in mpi-zero-3-tinycnn mpi-rootreduce-4-tinycnn mpi-rootreduce-8-tinycnn; do
	fixture_analyze "$tmp/$r" "$r"
done
/usr/bin/python3 - "$tmp" <<'PY' || exit 1
import json, sys
tmp = sys.argv[1]
fail = []
for run, kind in (("mpi-zero-3-tinycnn", "unknown"), ("mpi-rootreduce-4-tinycnn", "tree"),
                  ("mpi-rootreduce-8-tinycnn", "tree")):
    d = json.load(open("%s/%s.json" % (tmp, run)))
    t = json.load(open("%s/%s/truth.json" % (tmp, run)))
    p, it, S = d["pattern"], d["iterations"], d["model"]["gradient_bytes"]
    got = "%s, %s of %s s, S %s" % (p["kind"], it["count"], it["period_s"], S)
    if p["kind"] != kind:
        fail.append("%s: %s, want %s" % (run, got, kind))
    if it["count"] != t["steps"] or abs(it["period_s"] / t["mean_step_s"] - 1) > 0.03:
        fail.append("%s: %s, want %d of %.4f s" % (run, got, t["steps"], t["mean_step_s"]))
    if kind == "tree":
        if S is None or abs(S / t["gradient_bytes"] - 1) > 0.02 or p["hubs"] != ["198.18.0.1"]:
            fail.append("%s: %s, root %s, want S %d, root 198.18.0.1"
                        % (run, got, p["hubs"], t["gradient_bytes"]))
    elif S is not None or "communication pattern not recognized among 3 hosts" not in d["notes"]:
        fail.append("%s: %s, notes %s: want S withheld with a note" % (run, got, d["notes"]))
for f in fail:
    print("other_collectives: FAIL %s" % f)
sys.exit(1 if fail else 0)
PY
echo "$NAME: reduce + broadcast of 4 and 8 ranks trees with S exact, reduce-scatter + all-gather of 3 withheld"
