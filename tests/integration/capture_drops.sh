#!/usr/bin/env bash
# Packets the capture dropped (tcpdump's "dropped by kernel", a mirror port
# over its rate): their data reached the receiver, so no retransmission
# fills the sequence gap they leave.  The bundled DDP ring's captures with
# 3 %, 5 % and 20 % of their records dropped at random read with a note
# "the capture missed X MB of TCP data, P %" whose P is within 0.5 point
# of the share of payload dropped, and S low by about as much; the whole
# captures, and the lossy fixture (ddp4-loss2: 2 % loss on the path, 361
# retransmissions, gaps filled), carry no such note.  Before, the dropped
# copies read with S 3-20 % low and nothing said; under 1 % of the
# payload missed, no note.
set -u
NAME=capture_drops
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4-loss2.tar.xz ddp4-loss2
run="$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring"
cat >"$tmp/drop.py" <<'PY'
import random, sys
sys.path.insert(0, sys.argv[4])
import pcaprec
src, out, frac = sys.argv[1], sys.argv[2], float(sys.argv[3])
random.seed(src.rsplit("/", 1)[-1] + sys.argv[3])
d = open(src, "rb").read()
o = bytearray(d[:24])
for pos, _, _, cl, _ in pcaprec.records(d)[2]:
    if random.random() >= frac:
        o += d[pos:pos + 16 + cl]
open(out, "wb").write(o)
PY
fixture_analyze "$run" whole
fixture_analyze "$tmp/ddp4-loss2" lossy
for pct in 3 5 20; do
	mkdir -p "$tmp/d$pct"
	for f in "$run"/*.pcap; do
		/usr/bin/python3 "$tmp/drop.py" "$f" "$tmp/d$pct/$(basename "$f")" "0.$(printf %02d "$pct")" \
			"$SRCDIR/tests/integration/lib"
	done
	fixture_analyze "$tmp/d$pct" "d$pct"
done
/usr/bin/python3 - "$tmp" <<'PY' || exit 1
import json, sys
tmp, fail = sys.argv[1], []
def load(n):
    return json.load(open("%s/%s.json" % (tmp, n)))
def missed(d):
    return [n for n in d["notes"] if n.startswith("the capture missed")]
whole = load("whole")
for n in ("whole", "lossy"):
    if missed(load(n)):
        fail.append("%s: %s" % (n, missed(load(n))))
for pct in (3, 5, 20):
    d = load("d%d" % pct)
    lost = 1 - d["input"]["payload_bytes"] / whole["input"]["payload_bytes"]
    m = missed(d)
    share = float(m[0].split(", ")[1].split(" %")[0]) if m else None
    S = d["model"]["gradient_bytes"]
    print("%d %% of records dropped: payload %.1f %% less, note %s, S %s" % (pct, 100 * lost, share, S))
    if share is None or abs(share - 100 * lost) > 0.5:
        fail.append("%d %%: payload %.2f %% less, note %s" % (pct, 100 * lost, m))
if fail:
    print("capture_drops: FAIL\n  " + "\n  ".join(fail))
    sys.exit(1)
print("capture_drops: ok")
PY
