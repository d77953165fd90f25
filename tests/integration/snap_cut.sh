#!/usr/bin/env bash
# TCP headers cut by the snap length before their data offset (TCP over
# IPv6 behind Ethernet at `tcpdump -s 64` keeps 10 bytes of it): real runs
# rewritten as IPv6 (snap_cut.py), whole and with 10 bytes of each TCP
# header, read alike: the same pattern, steps and period, S and payload
# within 0.1 %, every packet counted in input.tcp_headers_cut with a note,
# retransmissions within 10 % and never more (a retransmitted segment
# under 28 bytes is not told from an overestimated length).  The runs:
# a DDP ring of 4 at 2 % loss (its own captures, Ethernet), a clique of 5
# captured with -i any (Linux cooked v2, both ends of every packet: the
# duplicates are found without flags), an Open MPI butterfly of 8.  Before
# the estimate, the cut copies read "every record is too short".
# Then two runs back to back (the bundled sample's captures, and the clique
# of 5's, each followed 20-30 s later by its packets again on the same
# ports with new initial sequence numbers, without the log): the cut copies
# read as the whole, 2 runs, the busiest's steps, the same retransmissions.
# Without a SYN to see, the second run's numbers were taken for
# retransmissions of the first (5560 for 82; a clique read as 72 steps of
# 0.459 s for 36 of 0.063).
set -u
NAME=snap_cut
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4-loss2.tar.xz ddp4-loss2
fixture_unpack clique5-any.tar.xz
fixture_unpack mpi8-rab.tar.xz
runs="ddp4-loss2 clique5-any mpi8-rab"
cp -r "$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring" "$tmp/sample"
again() { # again RUN SECONDS NAME: RUN and RUN again, whole and cut, no log
	/usr/bin/python3 "$SRCDIR/tests/integration/snap_cut.py" "$tmp/$1" "$tmp/$3-v6" 0 "$2" &&
		/usr/bin/python3 "$SRCDIR/tests/integration/snap_cut.py" "$tmp/$1" "$tmp/$3-cut" 10 "$2" ||
		{ echo "$NAME: FAIL: cannot rewrite $1"; exit 1; }
	rm -f "$tmp/$3-v6/train_history.log" "$tmp/$3-cut/train_history.log"
	fixture_analyze "$tmp/$3-v6" "$3-v6"
	fixture_analyze "$tmp/$3-cut" "$3-cut"
}
again sample 20 sample-again
again clique5-any 30 clique5-again
for r in $runs; do
	/usr/bin/python3 "$SRCDIR/tests/integration/snap_cut.py" "$tmp/$r" "$tmp/$r-v6" &&
		/usr/bin/python3 "$SRCDIR/tests/integration/snap_cut.py" "$tmp/$r" "$tmp/$r-cut" 10 ||
		{ echo "$NAME: FAIL: cannot rewrite $r"; exit 1; }
	fixture_analyze "$tmp/$r-v6" "$r-v6"
	fixture_analyze "$tmp/$r-cut" "$r-cut"
done
/usr/bin/python3 - "$tmp" $runs sample-again clique5-again <<'PY' || exit 1
import json, sys
tmp, fail = sys.argv[1], []
def near(a, b, tol):
    return a == b or (a is not None and b is not None and abs(a - b) <= tol * abs(b))
for run in sys.argv[2:]:
    w = json.load(open("%s/%s-v6.json" % (tmp, run)))
    c = json.load(open("%s/%s-cut.json" % (tmp, run)))
    def row(d):
        return (d["pattern"]["kind"], d["iterations"]["count"], d["iterations"]["period_s"],
                d["model"]["gradient_bytes"], d["input"]["packets"], d["input"]["payload_bytes"],
                d["flows"]["retransmissions"], d["input"]["tcp_headers_cut"])
    rw, rc = row(w), row(c)
    print("%s: whole %s, cut %s" % (run, rw, rc))
    ok = (rw[0] == rc[0] != "unknown" and rw[1] == rc[1] and near(rc[2], rw[2], 0.001) and
          near(rc[3], rw[3], 0.001) and rw[4] == rc[4] and near(rc[5], rw[5], 0.001) and
          0.9 * rw[6] <= rc[6] <= rw[6] and rw[7] == 0 and rc[7] > 0.95 * rc[4] and
          w["iterations"]["runs"] == c["iterations"]["runs"] == (2 if "again" in run else 1))
    if not ok:
        fail.append("%s: whole %s, cut %s" % (run, rw, rc))
    if not any("TCP headers before their data offset" in n for n in c["notes"]):
        fail.append("%s: no note of the cut headers: %s" % (run, c["notes"]))
if fail:
    print("snap_cut: FAIL\n  " + "\n  ".join(fail))
    sys.exit(1)
print("snap_cut: captures ok")
PY

# A live capture cut so (watch --snaplen 64 on the loopback of a network
# namespace made here, TCP over IPv6 between two sockets): the same note
# and count, the payload within 16 bytes of what was sent (the handshake's
# and the close's headers, 40 bytes each, read as 32), and a segment more
# for each retransmission a loaded machine may bring about.  Skipped without
# root or namespaces.
if [ "$(id -u)" = 0 ] && ip netns add "dmlssc$$" 2>/dev/null; then
	ns="dmlssc$$"
	trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT
	ip netns exec "$ns" ip link set lo up
	ip netns exec "$ns" "$DMLSCOPE" watch -i lo --snaplen 64 --duration 8 \
		--filter "ip6 and tcp port 29531" --json "$tmp/live.json" >"$tmp/live.out" 2>&1 &
	wpid=$!
	# capturing once its first interval line is out (1 s, or more on a
	# loaded machine)
	for i in $(seq 200); do [ -s "$tmp/live.out" ] && break; sleep 0.1; done
	ip netns exec "$ns" /usr/bin/python3 - <<'PY'
import socket, sys, threading
try:
    srv = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    srv.bind(("::1", 29531))
except OSError as e:
    print("snap_cut: live capture skipped (no IPv6 loopback: %s)" % e)
    sys.exit(77)
srv.listen(1)
got = []
def rx():
    c, _ = srv.accept()
    n = 0
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        n += len(b)
    got.append(n)
t = threading.Thread(target=rx); t.start()
s = socket.create_connection(("::1", 29531))
for i in range(10):
    s.sendall(b"x" * 300000)
s.close(); t.join()
assert got == [3000000], got
PY
	sent=$?
	wait "$wpid" || { echo "$NAME: FAIL: watch exit $?: $(tail -2 "$tmp/live.out")"; exit 1; }
	[ $sent = 77 ] && { echo "snap_cut: ok"; exit 0; }
	[ $sent = 0 ] || { echo "$NAME: FAIL: no traffic"; exit 1; }
	/usr/bin/python3 - "$tmp/live.json" <<'PY' || { echo "$NAME: FAIL: live capture"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
i = d["input"]
# a loaded machine may make TCP resend a segment on the loopback (a probe
# when the receiver is late): its bytes were on the wire twice, counted so
# (a loopback segment is 64 KiB at most)
resent = d["flows"]["retransmissions"]
ok = (i["packets"] > 0 and i["tcp_headers_cut"] == i["packets"] and
      3000000 <= i["payload_bytes"] <= 3000000 + 16 + 65536 * resent and
      any("TCP headers before their data offset" in n for n in d["notes"]))
print("snap_cut: live: %d packets, payload %d, cut %d, notes %s" % (
    i["packets"], i["payload_bytes"], i["tcp_headers_cut"], d["notes"]))
sys.exit(0 if ok else 1)
PY
else
	echo "snap_cut: live capture skipped (needs root and network namespaces)"
fi
echo "snap_cut: ok"
