#!/usr/bin/env bash
# Idle gaps: a capture holding two sessions of one job a week apart, plus
# one packet stamped ten years later, has no period at the scale of its
# span.  The iterations come from the busiest stretch (30 of 0.2 s, the
# gradient size of one step), with a note saying the rest was cut away.
# A pause that is long (15 minutes) but shorter than half the span (two
# 20-minute sessions around it) is part of the job: every iteration of both
# sessions is counted and nothing is cut, with bursts of 40 ms or of one
# packet (shorter than a bin of the decimated series).
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
py=/usr/bin/python3

# gen.py OUT STEP_S PACKETS_PER_EDGE SPACING_S SESSIONS...(start_s:iterations) [FAR_S]
cat >"$tmp/gen.py" <<'PY'
import struct, sys
out, step, per_edge, gap = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
sessions = [tuple(float(x) for x in s.split(":")) for s in sys.argv[5:] if ":" in s]
far = [float(s) for s in sys.argv[5:] if ":" not in s]
seq = {}
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    def pkt(t, s, d, n):
        q = seq.get((s, d), 0); seq[(s, d)] = q + n
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + n, 1, 0, 64, 6, 0,
                         bytes([198, 18, 0, s]), bytes([198, 18, 0, d]))
        tcp = struct.pack(">HHIIBBHHH", 40000 + s, 29500, q, 0, 0x50, 0x18, 65535, 0, 0)
        data = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp
        sec = int(t); us = int(round((t - sec) * 1e6))
        f.write(struct.pack("<IIII", sec, us, len(data), len(data) + n) + data)
    base = 1.7e9
    for t0, iters in sessions:
        for it in range(int(iters)):
            for k in range(per_edge):
                for r in range(4):
                    pkt(base + t0 + it * step + k * gap + r * 1e-5, r + 1, (r + 1) % 4 + 1, 1400)
    for t in far:
        pkt(base + t, 1, 2, 100)
PY
# check JSON COUNT PERIOD_S CUT(0|1)
check() {
	$py - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); it = d["iterations"]
count, period, cut = int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
noted = any("busiest stretch" in n for n in d["notes"])
ok = it["count"] == count and abs(it["period_s"] - period) <= 0.01 * period and noted == cut
print(("ok  " if ok else "FAIL"), sys.argv[1].split("/")[-1], "count", it["count"], "of", count,
      "period", it["period_s"], "of", period, "cut note", noted, "wanted", cut)
sys.exit(0 if ok else 1)
PY
}

$py "$tmp/gen.py" "$tmp/week.pcap" 0.2 20 0.0005 0:30 604800:30 315360000
"$DMLSCOPE" analyze "$tmp/week.pcap" --quiet --json "$tmp/week.json" ||
	{ echo "FAIL week: exit $?"; fail=1; }
check "$tmp/week.json" 30 0.2 1 || fail=1
$py - "$tmp/week.json" <<'PY' || fail=1
import json, sys
S = json.load(open(sys.argv[1]))["model"].get("gradient_bytes")
want = 20 * 1400 * 4 / 6  # a ring of 4 sends 2 (N-1) / N S per worker per step
ok = S is not None and abs(S - want) <= 0.01 * want
print("ok  " if ok else "FAIL", "week: gradient size", S, "of", want)
sys.exit(0 if ok else 1)
PY

$py "$tmp/gen.py" "$tmp/pause.pcap" 1 5 0.01 0:1200 2100:1200
"$DMLSCOPE" analyze "$tmp/pause.pcap" --quiet --json "$tmp/pause.json" ||
	{ echo "FAIL pause: exit $?"; fail=1; }
$py - "$tmp/pause.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1])); it = d["iterations"]
noted = any("busiest stretch" in n for n in d["notes"])
ok = (it["count"] == 2400 and abs(it["period_median_s"] - 1.0) <= 0.01 and not noted and
      abs(it["acf_period_s"] - 1.0) <= 0.01)
print("ok  " if ok else "FAIL", "pause:", it["method"], "count", it["count"], "median period",
      it["period_median_s"], "autocorrelation period", it["acf_period_s"], "cut note", noted)
sys.exit(0 if ok else 1)
PY
# Single-packet bursts (shorter than a bin of the decimated series) and the
# same pause: the byte clock must not drown in the pause's length, and the
# time autocorrelation must give the step, not 4 steps.
$py "$tmp/gen.py" "$tmp/spiky.pcap" 1 1 0.0005 0:1200 2100:1200
"$DMLSCOPE" analyze "$tmp/spiky.pcap" --quiet --json "$tmp/spiky.json" ||
	{ echo "FAIL spiky: exit $?"; fail=1; }
$py - "$tmp/spiky.json" <<'PY' || fail=1
import json, sys
it = json.load(open(sys.argv[1]))["iterations"]
ok = (it["method"] == "byte-clock" and it["count"] == 2400 and
      abs(it["acf_period_s"] - 1.0) <= 0.01)
print("ok  " if ok else "FAIL", "spiky: ", it["method"], "count", it["count"], "autocorrelation period",
      it["acf_period_s"])
sys.exit(0 if ok else 1)
PY
[ $fail = 0 ] && echo "idle_gap: sessions a week apart cut to the busiest, a long pause kept"
exit $fail
