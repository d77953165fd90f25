#!/usr/bin/env bash
# Synchronous jobs over a path losing 2 % of packets, read from their
# captures alone, without the train log that lossy_multiple.sh gives them
# (testbed: run_job.py --model tinycnn --steps 40 --loss 2).  Stalls
# shuffle the order in which the ranks send, and the job's byte clock took
# several steps for one, every iteration's bytes alike, where the ranks'
# own clocks kept no step with it: a clique of 5 read 19 iterations of
# 0.376 s for 40 of 0.165 s (its ranks' clocks agreeing neither with it nor
# with each other), a DDP ring of 4 read 9 of 0.571 s for 40 of 0.121 s
# (its ranks' 0.12, 0.24, 0.57 and 0.57 s), S doubled or more; a DDP ring
# of 6 whose capture begins 40 % into the run (a capture started after the
# job) read 14 of 0.366 s for about 24 of 0.168 s.  Only the log had
# caught the first two.  Now count, period and S are right or withheld
# with a note, never a multiple; and the runs whose ranks' clocks keep the
# job's step read as before (the DDP ring of 6 whole, an RPC star of 6:
# 40 steps each).
set -u
NAME=lossy_ranks_apart
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run clique5-loss2.tar.xz clique5-loss2
fixture_unpack ddp4-loss2.tar.xz
fixture_unpack ddp6-loss2.tar.xz
fixture_unpack rpc6-loss2.tar.xz
# the captures alone (no train log), and the ring of 6 from 40 % of its span
/usr/bin/python3 - "$SRCDIR/tests/integration/lib" "$tmp" <<'PY' || { echo "$NAME: FAIL: cannot copy the captures"; exit 1; }
import glob, os, shutil, sys
sys.path.insert(0, sys.argv[1])
import pcaprec
tmp = sys.argv[2]
for run in ("clique5-loss2", "ddp4-loss2", "ddp6-loss2", "rpc6-loss2"):
    os.makedirs("%s/bare-%s" % (tmp, run))
    for f in glob.glob("%s/%s/*.pcap" % (tmp, run)):
        shutil.copy(f, "%s/bare-%s/" % (tmp, run))
def records(path):
    d = open(path, "rb").read()
    _, per_s, recs = pcaprec.records(d)
    return d, [(s + f / per_s, pos, 16 + cl) for pos, s, f, cl, _ in recs]
files = sorted(glob.glob("%s/ddp6-loss2/*.pcap" % tmp))
recs = {f: records(f) for f in files}
ts = [t for d, r in recs.values() for t, _, _ in r]
cut = min(ts) + 0.4 * (max(ts) - min(ts))
os.makedirs("%s/late-ddp6-loss2" % tmp)
for f, (d, r) in recs.items():
    with open("%s/late-ddp6-loss2/%s" % (tmp, os.path.basename(f)), "wb") as o:
        o.write(d[:24])
        for t, pos, n in r:
            if t >= cut:
                o.write(d[pos:pos + n])
open("%s/late-cut" % tmp, "w").write(repr(cut))
PY
for run in clique5-loss2 ddp4-loss2 ddp6-loss2 rpc6-loss2; do
	fixture_analyze "$tmp/bare-$run" "bare-$run"
done
fixture_analyze "$tmp/late-ddp6-loss2" late-ddp6-loss2
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
cut = float(open("%s/late-cut" % tmp).read())
out, fails = [], []
for name, run, must in (("bare-clique5-loss2", "clique5-loss2", False),
                        ("bare-ddp4-loss2", "ddp4-loss2", False),
                        ("late-ddp6-loss2", "ddp6-loss2", False),
                        ("bare-ddp6-loss2", "ddp6-loss2", True),
                        ("bare-rpc6-loss2", "rpc6-loss2", True)):
    d = json.load(open("%s/%s.json" % (tmp, name)))
    t = json.load(open("%s/%s/truth.json" % (tmp, run)))
    st = [x for x in t["step_times"] if name.startswith("bare") or x >= cut]
    want_n, want_p = len(st), (st[-1] - st[0]) / (len(st) - 1)
    it, g = d["iterations"], d["model"]["gradient_bytes"]
    if it["period_s"] is None:
        if must:
            fails.append("%s: withheld, want %d of %.4f s" % (name, want_n, want_p))
        elif it["count"] is not None or g is not None:
            fails.append("%s: period null but count %s, S %s" % (name, it["count"], g))
        elif not any("agree on no step" in n for n in d["notes"]):
            fails.append("%s: withheld without the note: %s" % (name, d["notes"]))
        else:
            out.append("%s withheld" % name)
        continue
    if (abs(it["count"] - want_n) > 1 or abs(it["period_s"] / want_p - 1) > 0.05 or
            g is None or abs(g / t["gradient_bytes"] - 1) > 0.05):
        fails.append("%s: %s of %.4f s, S %s, for %d of %.4f s, S %d"
                     % (name, it["count"], it["period_s"], g, want_n, want_p,
                        t["gradient_bytes"]))
        continue
    out.append("%s %d of %.4f s" % (name, it["count"], it["period_s"]))
if fails:
    sys.exit("lossy_ranks_apart: FAIL: " + "; ".join(fails))
print("lossy_ranks_apart: ok: " + "; ".join(out))
PY
