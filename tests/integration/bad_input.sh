#!/usr/bin/env bash
# Bad input gets one clear line naming the file, the documented exit code,
# and the results that could be computed before the damage.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
py=/usr/bin/python3

# A small valid pcap: 20 UDP packets 198.18.0.1 -> 198.18.0.2, 100 payload bytes each.
$py - "$tmp/good.pcap" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(20):
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 128, i, 0, 64, 17, 0,
                         bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2]))
        udp = struct.pack("!HHHH", 5000, 6000, 108, 0)
        frame = bytes(12) + b"\x08\x00" + ip + udp + bytes(100)
        f.write(struct.pack("<IIII", 1000 + i, 0, len(frame), len(frame)) + frame)
PY

# expect NAME WANT_RC PATTERN -- ARGS...: run analyze, check rc, one stderr line matching PATTERN
expect() {
	local name=$1 want=$2 pat=$3; shift 4
	"$DMLSCOPE" analyze "$@" --quiet --json "$tmp/$name.json" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	local lines; lines=$(wc -l <"$tmp/err")
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, expected $want ($(cat "$tmp/err"))"; fail=1
	elif [ "$want" != 0 ] && { [ "$lines" != 1 ] || ! grep -Eq "$pat" "$tmp/err"; }; then
		echo "FAIL $name: stderr should be one line matching '$pat':"; cat "$tmp/err"; fail=1
	elif grep -q "runtime error\|AddressSanitizer" "$tmp/err"; then
		echo "FAIL $name: sanitizer report"; fail=1
	else
		echo "ok   $name: exit $rc: $(head -c 200 "$tmp/err")"
	fi
}
packets() { $py -c 'import json,sys; print(json.load(open(sys.argv[1]))["input"]["packets"])' "$1"; }

expect good 0 "" -- "$tmp/good.pcap"
: >"$tmp/empty.pcap"
expect empty 1 "empty.pcap'.*empty" -- "$tmp/empty.pcap"
echo "this is not a capture at all, just some text" >"$tmp/text.pcap"
expect not_capture 1 "text.pcap'" -- "$tmp/text.pcap"
head -c $(( $(stat -c %s "$tmp/good.pcap") - 30 )) "$tmp/good.pcap" >"$tmp/trunc.pcap"
expect truncated 1 "trunc.pcap'.*trunc" -- "$tmp/trunc.pcap"
[ -f "$tmp/truncated.json" ] && [ "$(packets "$tmp/truncated.json")" = 19 ] \
	|| { echo "FAIL truncated: the 19 packets before the damage are not reported"; fail=1; }
head -c 10 "$tmp/good.pcap" >"$tmp/hdr.pcap"
expect corrupt_header 1 "hdr.pcap'" -- "$tmp/hdr.pcap"
# absurd caplen in the 3rd record
$py - "$tmp/good.pcap" "$tmp/caplen.pcap" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
rec = 16 + 142
off = 24 + 2 * rec + 8
b[off:off + 4] = (0x7fffffff).to_bytes(4, "little")
open(sys.argv[2], "wb").write(b)
PY
expect absurd_caplen 1 "caplen.pcap'" -- "$tmp/caplen.pcap"
[ -f "$tmp/absurd_caplen.json" ] && [ "$(packets "$tmp/absurd_caplen.json")" = 2 ] \
	|| { echo "FAIL absurd_caplen: the 2 packets before the damage are not reported"; fail=1; }
# unknown link type 147 (user 0)
$py - "$tmp/good.pcap" "$tmp/linktype.pcap" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[20:24] = (147).to_bytes(4, "little")
open(sys.argv[2], "wb").write(b)
PY
expect unknown_linktype 1 "linktype.pcap'.*link type 147 is not one dmlscope reads" -- "$tmp/linktype.pcap"
# captured with a snap length of 36 bytes (editcap -s 36): every IP packet
# cut inside its UDP ports, and one ARP record whole
$py - "$tmp/good.pcap" "$tmp/snap36.pcap" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
out, pos = bytearray(b[:24]), 24
out[16:20] = struct.pack("<I", 36)
while pos + 16 <= len(b):
    s, u, cl, ol = struct.unpack_from("<IIII", b, pos)
    out += struct.pack("<IIII", s, u, min(cl, 36), ol) + b[pos + 16:pos + 16 + min(cl, 36)]
    pos += 16 + cl
arp = bytes(12) + b"\x08\x06" + bytes(28)
out += struct.pack("<IIII", 2000, 0, len(arp), len(arp)) + arp
open(sys.argv[2], "wb").write(out)
PY
expect snap36 1 "snap36.pcap'.*20 of 21 records too short or malformed to decode \\(a snap length" -- "$tmp/snap36.pcap"
# TCP over IPv6 captured with a snap length of 64 (Ethernet 14 + IPv6 40
# + 10 bytes of TCP: its data offset, byte 12, is cut): read, the payload
# estimated with a 32-byte header (this one's), said in a note; at 60 (6
# bytes of TCP, not its sequence number) nothing decodes
for snap in 64 60; do
$py - "$tmp/v6snap$snap.pcap" $snap <<'PY'
import struct, sys
snap = int(sys.argv[2])
out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snap, 1))
src, dst = bytes(15) + b"\x01", bytes(15) + b"\x02"
for i in range(20):
    tcp = struct.pack("!HHIIBBHHH", 40000, 29500, 1000 + 1448 * i, 1, 8 << 4, 0x18, 500, 0, 0)
    frame = (b"\x02" * 6 + b"\x04" * 6 + b"\x86\xdd" +
             struct.pack("!IHBB", 0x60000000, 32 + 1448, 6, 64) + src + dst + tcp + bytes(12 + 1448))
    out += struct.pack("<IIII", 1700000000 + i, 0, snap, len(frame)) + frame[:snap]
open(sys.argv[1], "wb").write(out)
PY
done
expect v6snap64 0 "" -- "$tmp/v6snap64.pcap"
$py - "$tmp/v6snap64.json" <<'PY' && echo "ok   v6snap64: 20 packets, payload 28960, a note" || { echo "FAIL v6snap64"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
i = d["input"]
assert (i["packets"], i["payload_bytes"], i["tcp_headers_cut"]) == (20, 20 * 1448, 20), i
assert d["flows"]["retransmissions"] == 0, d["flows"]
assert any("20 of 20 TCP headers before their data offset" in n for n in d["notes"]), d["notes"]
PY
expect v6snap60 1 "v6snap60.pcap'.*every record is too short or malformed to decode \\(a snap length.*first 8 bytes" -- "$tmp/v6snap60.pcap"
# the same with a whole UDP packet after them: that one is analyzed, exit
# 0, and a note says the other 20 were not counted
cp "$tmp/v6snap60.pcap" "$tmp/v6mixed.pcap"
$py - "$tmp/v6mixed.pcap" <<'PY'
import struct, sys
src, dst = bytes(15) + b"\x01", bytes(15) + b"\x02"
frame = (b"\x02" * 6 + b"\x04" * 6 + b"\x86\xdd" + struct.pack("!IHBB", 0x60000000, 8 + 20, 17, 64) +
         src + dst + struct.pack("!HHHH", 5000, 6000, 28, 0) + bytes(20))
open(sys.argv[1], "ab").write(struct.pack("<IIII", 1700000030, 0, 60, len(frame)) + frame[:60])
PY
expect v6mixed 0 "" -- "$tmp/v6mixed.pcap"
$py - "$tmp/v6mixed.json" <<'PY' && echo "ok   v6mixed: 1 packet, a note of the 20 others" || { echo "FAIL v6mixed"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["input"]["packets"] == 1 and d["input"]["skipped"]["truncated"] == 20, d["input"]
assert any(n.startswith("20 of 21 records too short or malformed to decode, not counted")
           for n in d["notes"]), d["notes"]
PY
cp "$tmp/good.pcap" "$tmp/unreadable.pcap"; chmod 000 "$tmp/unreadable.pcap"
if [ "$(id -u)" != 0 ]; then
	expect unreadable 3 "unreadable.pcap'" -- "$tmp/unreadable.pcap"
fi
expect missing_file 3 "nope.pcap'" -- "$tmp/nope.pcap"
expect missing_folder 3 "nofolder'" -- "$tmp/nofolder"
mkdir "$tmp/emptyrun"
expect folder_without_captures 1 "emptyrun'" -- "$tmp/emptyrun"
expect bad_bin 2 "bin" -- "$tmp/good.pcap" --bin fast
expect bad_filter 2 "filter" -- "$tmp/good.pcap" --filter "tcp and and"
expect bad_option 2 "" -- "$tmp/good.pcap" --frobnicate
"$DMLSCOPE" analyze "$tmp/good.pcap" --csv /proc/forbidden/x --quiet 2>"$tmp/err"; rc=$?
[ $rc = 3 ] && echo "ok   unwritable_csv: exit 3" || { echo "FAIL unwritable_csv: exit $rc"; fail=1; }
expect csv_stdout 2 "takes a folder" -- "$tmp/good.pcap" --csv -
"$DMLSCOPE" analyze "$tmp/good.pcap" --csv "$tmp/new/deep/dir" --quiet 2>"$tmp/err"; rc=$?
[ $rc = 0 ] && [ -s "$tmp/new/deep/dir/hosts.csv" ] && echo "ok   csv_new_dirs: made" ||
	{ echo "FAIL csv_new_dirs: exit $rc $(cat "$tmp/err")"; fail=1; }
# one good and one truncated capture of the same job: both read, exit 1
expect mixed 1 "trunc.pcap'" -- "$tmp/good.pcap" "$tmp/trunc.pcap"

# generate --like a damaged run: the damage named, not a calibration it
# caused; with the job given, a warning and the file
gen() { "$DMLSCOPE" generate --like "$@" -o "$tmp/g.csv" >"$tmp/out" 2>"$tmp/err"; }
gen "$tmp/caplen.pcap"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "caplen.pcap'.*caplen" "$tmp/err" &&
	echo "ok   like_corrupt: exit 1: $(cat "$tmp/err")" ||
	{ echo "FAIL like_corrupt: exit $rc: $(cat "$tmp/err")"; fail=1; }
gen "$tmp/empty.pcap"; rc=$?
[ $rc = 1 ] && grep -q "empty.pcap'.*empty" "$tmp/err" && echo "ok   like_empty: exit 1" ||
	{ echo "FAIL like_empty: exit $rc: $(cat "$tmp/err")"; fail=1; }
gen "$tmp/trunc.pcap" --pattern ring --workers 2 --gradient-bytes 1MB --iterations 2; rc=$?
[ $rc = 0 ] && [ -s "$tmp/g.csv" ] && grep -q "warning: '.*trunc.pcap'.*truncated" "$tmp/err" &&
	echo "ok   like_truncated: exit 0, $(head -1 "$tmp/err")" ||
	{ echo "FAIL like_truncated: exit $rc: $(cat "$tmp/err")"; fail=1; }
# A train log whose Batch times go backwards: the run is still analyzed;
# no step time (null, never negative or nan) and a note naming the line.
run="$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring"
cp -r "$run" "$tmp/bw"
$py - "$tmp/bw/train_history.log" <<'PY'
import sys
p = sys.argv[1]
rows = open(p).read().split("\n")
a, b = rows[3].split(","), rows[4].split(",")
a[2], b[2] = b[2], a[2]
rows[3], rows[4] = ",".join(a), ",".join(b)
open(p, "w").write("\n".join(rows))
PY
"$DMLSCOPE" analyze "$tmp/bw" --json "$tmp/bw.json" >"$tmp/bw.txt" 2>"$tmp/err"; rc=$?
if [ $rc = 0 ] && $py - "$tmp/bw.json" <<'PY' && grep -q "^train log: 10 steps, no step time$" "$tmp/bw.txt" &&
import json, sys
d = json.load(open(sys.argv[1]))
t = d["train_log"]
assert all(t[k] is None for k in ("mean_step_s", "steady_step_s", "median_step_s",
                                  "mb_per_step", "period_error")), t
assert any("go backwards at its line 5" in n for n in d["notes"]), d["notes"]
PY
	! grep -qi nan "$tmp/bw.txt"; then
	echo "ok   log_backwards: step times null, the line noted"
else
	echo "FAIL log_backwards: exit $rc: $(cat "$tmp/err")"; grep -i "train log\|backwards" "$tmp/bw.txt"; fail=1
fi
exit $fail
