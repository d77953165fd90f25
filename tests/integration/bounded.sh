#!/usr/bin/env bash
# Bounded memory, checked by what it must not change (no timing, no memory
# numbers here: those are in make bench):
#  - a SYN flood from 30 000 distinct sources through caps of 64 hosts and
#    256 flows: totals exact, kept + folded = total, the matrix the kept
#    hosts (63 busiest at most) plus `other` and summing to the total, the
#    one real flow in the flood kept exact;
#  - the same capture from standard input gives the same document;
#  - a long sparse job (a step a second for 40 minutes, dmlscope generate):
#    every iteration found (within 1 %), the gradient size exact;
#  - bad caps are usage errors.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
py=/usr/bin/python3

$py - "$tmp/flood.pcap" <<'PY'
import struct, sys
n = 30000
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 96, 1))
    for i in range(n):
        if i % 10 == 0:  # the real flow: 198.18.0.2:5000 -> 198.18.0.1:6000, 1000 B
            src, sp, dp, pay = bytes([198, 18, 0, 2]), 5000, 6000, 1000
        else:            # a scan packet from its own source
            src, sp, dp, pay = bytes([10, (i >> 16) & 255, (i >> 8) & 255, i & 255]), 40000, 80, 0
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + pay, i & 0xffff, 0, 64, 6, 0,
                         src, bytes([198, 18, 0, 1]))
        tcp = struct.pack("!HHIIBBHHH", sp, dp, i * 1000, 0, 0x50, 0x10, 1024, 0, 0)
        frame = bytes(12) + b"\x08\x00" + ip + tcp
        cap = frame[:96]
        f.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000,
                            len(cap), len(frame) + pay))
        f.write(cap)
PY

"$DMLSCOPE" analyze "$tmp/flood.pcap" --max-hosts 64 --max-flows 256 --quiet \
	--json "$tmp/flood.json" || { echo "FAIL flood: exit $?"; fail=1; }
"$DMLSCOPE" analyze - --max-hosts 64 --max-flows 256 --quiet --json "$tmp/stdin.json" \
	<"$tmp/flood.pcap" || { echo "FAIL flood from stdin: exit $?"; fail=1; }
$py - "$tmp/flood.json" "$tmp/stdin.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
n, real = 30000, 3000
wire = real * 1054 + (n - real) * 54
bad = []
def check(name, ok):
    if not ok:
        bad.append(name)
check("packets exact", d["input"]["packets"] == n)
check("wire bytes exact", d["input"]["wire_bytes"] == wire)
lim = d["limits"]
check("caps", lim["hosts"]["cap"] == 64 and lim["flows"]["cap"] == 256)
check("kept within caps", lim["hosts"]["kept"] <= 64 and lim["pairs"]["kept"] <= 256
      and lim["flows"]["kept"] <= 256)
tx = sum(h["tx_packets"] for h in d["hosts"])
check("hosts kept + folded = total", tx + lim["hosts"]["folded_packets"] == n)
check("something folded", lim["hosts"]["folded"] > 0 and lim["flows"]["folded"] > 0)
m = d["matrix"]
check("matrix: the kept hosts (63 at most) and other",
      len(m["hosts"]) == min(len(d["hosts"]), 63) + 1 and m["hosts"][-1] == "other")
check("matrix sums to the total", sum(map(sum, m["wire_bytes"])) == wire)
check("flow count", d["flows"]["count"] == n - real + 1)
check("the real flow exact", d["flows"]["size_quantiles"]["max"] == real * 1054)
h2 = [h for h in d["hosts"] if h["addr"] == "198.18.0.2"]
check("the real sender exact", h2 and h2[0]["tx_packets"] == real)
s = json.load(open(sys.argv[2]))
s["input"]["files"][0]["path"] = d["input"]["files"][0]["path"]
check("stdin gives the same document", s == d)
for b in bad:
    print("FAIL flood:", b)
sys.exit(1 if bad else 0)
PY

"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes 40kB --iterations 2400 \
	--iteration-time 1s --snaplen 100 -o "$tmp/long.pcap" >/dev/null 2>&1 ||
	{ echo "FAIL generate: exit $?"; fail=1; }
"$DMLSCOPE" analyze "$tmp/long.pcap" --quiet --json "$tmp/long.json" ||
	{ echo "FAIL long: exit $?"; fail=1; }
$py - "$tmp/long.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
it, S = d["iterations"]["count"], d["model"]["gradient_bytes"]
ok = abs(it - 2400) <= 24 and S is not None and abs(S - 40000) <= 400
if not ok:
    print(f"FAIL long: {it} iterations of 2400, S {S} of 40000")
sys.exit(0 if ok else 1)
PY

for cap in 0 15 abc 1e9 -5; do
	"$DMLSCOPE" analyze "$tmp/flood.pcap" --max-flows "$cap" --quiet >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ]; then
		echo "FAIL --max-flows $cap: exit $rc, $(cat "$tmp/err")"; fail=1
	fi
done
[ $fail = 0 ] && echo "bounded: flood folded with exact totals, stdin, long job, bad caps"
exit $fail
