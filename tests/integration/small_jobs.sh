#!/usr/bin/env bash
# A small model on many ranks over few steps (src/analysis/jobs.c, is_data).
#
# A clique of 48 with a 200 KB gradient over 20 steps moves 166 kB on each
# pair, under the 256 KiB a pair moves to be data: it read "only control
# traffic".  A butterfly of 48's S/32 edges (125 kB) were under it too: 32
# ranks were a job and the other 16 another.  Many pairs alike (6 or more
# of 16 kB and a quarter of the largest, over 16 packets or more) are data
# now: each reads its kind, its 48 ranks, 20 steps of 0.2 s and S.  Five
# small transfers between four hosts (a copy, a few requests) are still no
# job.
set -u
NAME=small_jobs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$NAME: FAIL: $*"; exit 1; }
for k in clique butterfly; do
	"$DMLSCOPE" generate --pattern $k --workers 48 --gradient-bytes 200KB --iterations 20 \
		--iteration-time 200ms --snaplen 100 -o "$tmp/$k.pcap" >/dev/null 2>&1 ||
		fail "generate $k exit $?"
	"$DMLSCOPE" analyze "$tmp/$k.pcap" --quiet --json "$tmp/$k.json" || fail "analyze $k exit $?"
done
# five TCP transfers of 40 kB (40 segments of 1000 bytes) between 4 hosts
/usr/bin/python3 - "$tmp/few.pcap" <<'PY' || fail "cannot write the transfers"
import struct, sys
out = [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
def pkt(t, src, dst, sport, dport, seq, n):
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 20 + n, 0, 0, 64, 6, 0,
                     bytes([198, 18, 0, src]), bytes([198, 18, 0, dst]))
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, 1, 0x50, 0x18, 65535, 0, 0)
    frame = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00" + ip + tcp + bytes(n)
    sec, usec = divmod(round(t * 1e6), 1000000)
    out.append(struct.pack("<IIII", 1700000000 + sec, usec, len(frame), len(frame)) + frame)
t = 0.0
for i, (a, b) in enumerate([(1, 2), (1, 3), (2, 4), (3, 4), (4, 1)]):
    for s in range(40):
        pkt(t, a, b, 40000 + i, 5000, 1 + 1000 * s, 1000)
        t += 0.001
    t += 0.5
open(sys.argv[1], "wb").write(b"".join(out))
PY
"$DMLSCOPE" analyze "$tmp/few.pcap" --quiet --json "$tmp/few.json" || fail "analyze the transfers exit $?"
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
fails, said = [], []
for kind in ("clique", "butterfly"):
    d = json.load(open("%s/%s.json" % (tmp, kind)))
    p, it, s = d["pattern"], d["iterations"], d["model"]["gradient_bytes"]
    got = (p["kind"], p["ranks"], len(d["jobs"]))
    if got != (kind, 48, 1):
        fails.append("%s: %s/%s in %d job(s) (want %s/48 in one)" % ((kind,) + got + (kind,)))
    if it["count"] != 20 or it["period_s"] is None or abs(it["period_s"] - 0.2) > 0.006:
        fails.append("%s: %s x %s s (want 20 x 0.2 s)" % (kind, it["count"], it["period_s"]))
    if s is None or abs(s - 200000) > 6000:
        fails.append("%s: S %s (want 200000 within 3 %%)" % (kind, s))
    said.append("%s/%s %s x %s s S %s" % (p["kind"], p["ranks"], it["count"], it["period_s"], s))
d = json.load(open(tmp + "/few.json"))
if d["pattern"]["ranks"] or d["jobs"]:
    fails.append("five transfers: %s/%s, %d job(s) (want none)"
                 % (d["pattern"]["kind"], d["pattern"]["ranks"], len(d["jobs"])))
for f in fails:
    print("small_jobs: FAIL:", f)
if not fails:
    print("small_jobs: ok:", " | ".join(said), "| five transfers: no job")
sys.exit(1 if fails else 0)
PY
