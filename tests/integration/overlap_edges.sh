#!/usr/bin/env bash
# Two jobs sharing two hosts, told apart by their edges' periods
# (src/analysis/jobs_shared.c, try_edges; jobs_overlap.c, edge_told).
#
# tests/data/tree5-tree5-shared2.tar.xz: the testbed's two binary trees of
# 5 (TinyCNN, 40 steps) on hosts 1-5 and 4-8, 0.108 and 0.099 s a step; no
# host is a cut vertex between them.  They read as four jobs (a clique of 3,
# stars of 3, a ring of 2), because the byte clocks of the pairs of each
# (jobs_overlap.c's, within 10 %) were one group and the split at a shared
# host read parts whose hosts send for both.  tests/data/rpc4-rpc4-shared2:
# two parameter servers of 3 workers on hosts 1-4 and 3-6 (0.069, 0.065 s)
# read as a clique of 3, a star of 2 and a star of 3.
# tests/data/hier6-ddp4-shared2: a hierarchical job of 6 (groups of 3) on
# hosts 1-6 and a DDP ring of 4 on hosts 5-8 (0.116, 0.082 s) that use the
# pair of hosts 5 and 6 in opposite directions, its clock both ways a mix
# of the two: a ring of 3, a ring of 2 and an "unknown" of 5.  Now each edge's
# clock (its pairs' iterations) groups the edges by period: each job its
# hosts, its kind and rank count, its count and period as its log says.
#
# Generated: two trees of 5 (`dmlscope generate`, 0.5 and 0.45 s a step,
# the second moved 3 hosts up and 100 ports over), merged by time: the
# tree of 0.45 s was a star of 2 and a tree of 4.
set -u
NAME=overlap_edges
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run tree5-tree5-shared2.tar.xz tree5-tree5
fixture_unpack rpc4-rpc4-shared2.tar.xz
fixture_unpack hier6-ddp4-shared2.tar.xz
fixture_analyze "$run" a
fixture_analyze "$tmp/rpc4-rpc4" b
fixture_analyze "$tmp/hier6-ddp4" d
steps=(0.5 0.45)
for k in 0 1; do
	"$DMLSCOPE" generate --pattern tree --workers 5 --gradient-bytes 1MB --iterations 40 \
		--iteration-time "${steps[k]}" --snaplen 100 --seed $((k + 1)) \
		-o "$tmp/g$k.pcap" 2>/dev/null || { echo "$NAME: FAIL: generate exit $?"; exit 1; }
done
# the second job 3 hosts up, its ports (1024 and up) 100 over, 0.123 s later;
# both merged by time into one capture
/usr/bin/python3 - "$SRCDIR/tests/integration/lib" "$tmp/g0.pcap" "$tmp/g1.pcap" "$tmp/g.pcap" <<'PY' ||
import struct, sys
sys.path.insert(0, sys.argv.pop(1))
import pcaprec
def records(path, move):
    d = open(path, "rb").read()
    e, frac, recs = pcaprec.records(d)
    out = []
    for pos, ts, tf, cl, ol in recs:
        pkt = bytearray(d[pos + 16:pos + 16 + cl])
        t = round(ts * frac) + tf
        if move:
            t += round(0.123 * frac)
            for off in (26, 30):  # 198.18.0.x -> 198.18.0.(x + 3)
                if pkt[off:off + 3] == b"\xc6\x12\x00":
                    pkt[off + 3] += 3
            ihl = (pkt[14] & 15) * 4
            for off in (14 + ihl, 16 + ihl):
                p = struct.unpack_from(">H", pkt, off)[0]
                if p >= 1024:
                    struct.pack_into(">H", pkt, off, p + 100)
        out.append((t, struct.pack(e + "II", cl, ol) + bytes(pkt)))
    return d[:24], e, frac, out
hdr, e, frac, a = records(sys.argv[1], False)
_, _, _, b = records(sys.argv[2], True)
with open(sys.argv[3], "wb") as f:
    f.write(hdr)
    for t, rest in sorted(a + b, key=lambda r: r[0]):
        f.write(struct.pack(e + "II", int(t // frac), int(t % frac)) + rest)
PY
	{ echo "$NAME: FAIL: cannot merge the generated captures"; exit 1; }
fixture_analyze "$tmp/g.pcap" c
/usr/bin/python3 - "$tmp" "$run/truth.json" "$tmp/rpc4-rpc4/truth.json" \
	"$tmp/hier6-ddp4/truth.json" <<'PY'
import json, sys
tmp = sys.argv[1]
fails, said = [], []

def check(name, a, want):
    """want: {hosts: (kind, ranks, steps, period)}; the jobs found by hosts."""
    got = {tuple(sorted(j["hosts"])): j for j in a["jobs"]}
    if set(got) != set(want):
        fails.append("%s: jobs %s (want %s)" % (name, sorted(got), sorted(want)))
    for hosts, (kind, ranks, steps, period) in want.items():
        j = got.get(hosts)
        if j is None:
            continue
        p, it = j["pattern"], j["iterations"]
        if (p["kind"], p["ranks"]) != (kind, ranks):
            fails.append("%s %s: %s/%s (want %s/%d)" % (name, hosts, p["kind"], p["ranks"], kind, ranks))
        if it["count"] is None or abs(it["count"] - steps) > 1:
            fails.append("%s %s: count %s (want %d +- 1)" % (name, hosts, it["count"], steps))
        per = it["period_s"]
        if per is None or abs(per - period) > 0.03 * period:
            fails.append("%s %s: period %s s (want %.4f s within 3 %%)" % (name, hosts, per, period))
        said.append("%s %s/%d %s x %.4f s" % (",".join(h.split(".")[-1] for h in hosts), p["kind"],
                                              p["ranks"], it["count"], per or 0))

for name, an, tr in (("trees", "a", sys.argv[2]), ("servers", "b", sys.argv[3]),
                     ("hierarchical", "d", sys.argv[4])):
    t = json.load(open(tr))
    want = {tuple(sorted(h["addr"] for h in j["hosts"])):
            (j["pattern"], j["ranks"], j["steps"], j["mean_step_s"])
            for j in t["jobs"]}
    check(name, json.load(open("%s/%s.json" % (tmp, an))), want)
hosts = lambda lo: tuple(sorted("198.18.0.%d" % h for h in range(lo, lo + 5)))
check("generated", json.load(open(tmp + "/c.json")),
      {hosts(1): ("tree", 5, 40, 0.5), hosts(4): ("tree", 5, 40, 0.45)})
for f in fails:
    print("overlap_edges: FAIL:", f)
if not fails:
    print("overlap_edges: ok:", " | ".join(said))
sys.exit(1 if fails else 0)
PY
