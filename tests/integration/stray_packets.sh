#!/usr/bin/env bash
# A packet or two stamped far from the job: the bundled DDP ring of 4's
# captures (without its log), with a copy of one rank's packet stamped a
# day or a week before the job and another a day or a week after, read as
# the captures alone (a ring, 10 of 0.3155 s, S 9.00 MB) with a note of
# the stretch kept.  Before, a rank's series reached the stray packet: a
# pure acknowledgement a week after gave "1 iteration, S 93 MB" (its
# payload series' range reached it, with no bytes to cut at), a data
# packet a day before and after gave the same (neither gap half the
# span), and an hour before and after a period 0.7 % off, with no note.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
run="$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring"
lib="$SRCDIR/tests/integration/lib"
[ -d "$run" ] || { echo "stray_packets: FAIL: no sample at $run"; exit 1; }
# stray.py IN OUT BEFORE_S AFTER_S INDEX: IN with record INDEX stamped
# BEFORE_S earlier at its start and record -1-INDEX AFTER_S later at its end
cat >"$tmp/stray.py" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[6])
import pcaprec
src, out, before, after, idx = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
d = open(src, "rb").read()
recs = [d[pos:pos + 16 + cl] for pos, _, _, cl, _ in pcaprec.records(d)[2]]
def shift(r, dt):
    s = struct.unpack_from("<I", r)[0]
    return struct.pack("<I", s + dt) + r[4:]
o = bytearray(d[:24])
if before:
    o += shift(recs[idx], -before)
o += b"".join(recs)
if after:
    o += shift(recs[-1 - idx], after)
open(out, "wb").write(o)
PY
# case NAME BEFORE_S AFTER_S INDEX: rank 0's capture gets the early copy,
# rank 3's the late one
case_() {
	local name=$1 d="$tmp/$1"
	mkdir -p "$d"
	cp "$run"/worker-1-tcpdump.pcap "$run"/worker-2-tcpdump.pcap "$d"/
	/usr/bin/python3 "$tmp/stray.py" "$run/worker-0-tcpdump.pcap" "$d/worker-0-tcpdump.pcap" "$2" 0 "$4" "$lib"
	/usr/bin/python3 "$tmp/stray.py" "$run/worker-3-tcpdump.pcap" "$d/worker-3-tcpdump.pcap" 0 "$3" "$4" "$lib"
	"$DMLSCOPE" analyze "$d" --quiet --json "$tmp/$name.json" ||
		{ echo "FAIL $name: exit $?"; fail=1; return; }
	/usr/bin/python3 - "$tmp/$name.json" "$name" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
p, it, S = d["pattern"], d["iterations"], d["model"]["gradient_bytes"]
got = "%s, %s of %s s, S %s" % (p["kind"], it["count"], it["period_s"], S)
ok = (p["kind"] == "ring" and it["count"] == 10 and it["period_s"] is not None and
      abs(it["period_s"] / 0.31554 - 1) < 0.01 and S is not None and abs(S / 8995212 - 1) < 0.01 and
      any(n.startswith("iterations of the busiest stretch only") for n in d["notes"]))
print("%s %s: %s" % ("ok  " if ok else "FAIL", sys.argv[2], got))
sys.exit(0 if ok else 1)
PY
}
case_ ack_week_after 0 604800 0      # rank 3's last record (a pure ACK) a week after
case_ syn_week_before 604800 0 0     # rank 0's first (its SYN) a week before
case_ data_day_both 86400 86400 400  # data packets a day before and after
case_ data_hour_both 3600 3600 400   # an hour before and after
[ $fail = 0 ] && echo "stray_packets: ok" || echo "stray_packets: FAIL"
exit $fail
