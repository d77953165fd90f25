#!/usr/bin/env bash
# Runs back to back: two or three runs of a job on the same four hosts, a
# second of silence between them, each opening its connections anew (a SYN
# between hosts that already exchanged data; in RoCEv2, a UDP 5-tuple seen
# first).  The iterations and the
# period are the busiest run's, with a note, whether the runs use new ports
# or replay the same ones.  Three controls split nothing: the same runs
# whose connections stay open through the silence (a pause for an
# evaluation), a job that opens a connection for every step, and a
# rendezvous before the job's own connections.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
py=/usr/bin/python3

# gen.py OUT RUN... with RUN = start_s:step_s:iterations:packets_per_edge:ports:syn[:udp]
# (ports: the client ports' base; syn 1 opens the run's connections, 2 opens
# one for every step; udp: RoCEv2 writes, UDP to 4791 from the ports, a
# queue pair's 5-tuple seen first when its run starts, no handshake)
cat >"$tmp/gen.py" <<'PY'
import struct, sys
out = sys.argv[1]
runs = [s.split(":") for s in sys.argv[2:]]
seq = {}
pkts = []
def roce(t, s, d, sport, n):
    psn = seq[(s, d, sport)] = seq.get((s, d, sport), -1) + 1  # the queue pair's next
    bth = struct.pack(">BBHB", 0x0A, 0x40, 0xFFFF, 0) + sport.to_bytes(3, "big") + \
        bytes([0x80]) + (psn & 0xFFFFFF).to_bytes(3, "big")
    udp = struct.pack(">HHHH", sport, 4791, 8 + len(bth) + n, 0) + bth
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + n, psn & 0xFFFF, 0, 64, 17, 0,
                     bytes([198, 18, 0, s]), bytes([198, 18, 0, d]))
    pkts.append((t, b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + udp, n))
def pkt(t, s, d, sport, dport, n, flags):
    key = (s, d, sport, dport)
    if flags & 0x02:
        seq[key] = 1000
    q = seq.get(key, 0); seq[key] = q + n + (1 if flags & 0x02 else 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + n, 1, 0, 64, 6, 0,
                     bytes([198, 18, 0, s]), bytes([198, 18, 0, d]))
    tcp = struct.pack(">HHIIBBHHH", sport, dport, q, 0, 0x50, flags, 65535, 0, 0)
    pkts.append((t, b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp, n))
def handshake(t, r, port):
    s, d = r + 1, (r + 1) % 4 + 1
    pkt(t, s, d, port, 29500, 0, 0x02)
    pkt(t + 1e-5, d, s, 29500, port, 0, 0x12)
    pkt(t + 2e-5, s, d, port, 29500, 0, 0x10)
base = 1.7e9
for spec in runs:
    t0, step, iters, per_edge, ports, syn = (float(spec[0]), float(spec[1]), int(spec[2]),
                                             int(spec[3]), int(spec[4]), int(spec[5]))
    udp = spec[6:] == ["udp"]
    for it in range(iters):
        ts = base + t0 + it * step
        for r in range(4):
            port = ports + r + (it * 4 if syn == 2 else 0)
            if not udp and (syn == 2 or (syn == 1 and it == 0)):
                handshake(ts - 0.002, r, port)
        for k in range(per_edge):
            for r in range(4):
                port = ports + r + (it * 4 if syn == 2 else 0)
                if udp:
                    roce(ts + k * 0.0005 + r * 1e-5, r + 1, (r + 1) % 4 + 1, port, 1400)
                else:
                    pkt(ts + k * 0.0005 + r * 1e-5, r + 1, (r + 1) % 4 + 1, port, 29500, 1400,
                        0x18)
pkts.sort(key=lambda p: p[0])
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for t, data, n in pkts:
        sec = int(t); us = int(round((t - sec) * 1e6))
        f.write(struct.pack("<IIII", sec, us, len(data), len(data) + n) + data)
PY
# check JSON COUNT PERIOD_S RUNS (0: no runs note)
check() {
	$py - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); it = d["iterations"]
count, period, runs = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
note = [n for n in d["notes"] if "runs back to back" in n]
got = int(note[0].split()[0]) if note else 0
# the keys agree with the note, and the busiest run holds the iterations
times = [(u["start_s"], u["end_s"]) for u in it["run_times"]]
keys = it["runs"] == max(got, 1) and (
    (it["run_start_s"] is None and it["run_end_s"] is None and times == []) if got == 0 else
    (it["run_start_s"] <= it["starts_s"][0] and it["end_s"] <= it["run_end_s"] + 0.01 and
     len(times) == got and (it["run_start_s"], it["run_end_s"]) in times and
     all(a < b for a, b in times) and all(times[i][1] < times[i + 1][0]
                                           for i in range(len(times) - 1))))
# runs.csv: the top level job's rows are run_times, the busiest marked
rows = [l.strip().split(",") for l in open(sys.argv[5])][1:]
csv = ([(float(r[2]), float(r[3]), float(r[4]), r[5]) for r in rows if r[0] == "0"] ==
       [(u["start_s"], u["end_s"], u["wire_bytes"], "1" if u["busiest"] else "0")
        for u in it["run_times"]] and
       [u["busiest"] for u in it["run_times"]].count(True) == (1 if got else 0) and
       all((u["start_s"], u["end_s"]) == (it["run_start_s"], it["run_end_s"])
           for u in it["run_times"] if u["busiest"]))
# the note names the busiest run's span, as the keys do
span = got == 0 or "t = %.3f to %.3f s" % (it["run_start_s"], it["run_end_s"]) in note[0]
ok = (it["count"] == count and it["period_s"] is not None and
      abs(it["period_s"] - period) <= 0.01 * period and got == runs and keys and csv and span)
print(("ok  " if ok else "FAIL"), sys.argv[1].split("/")[-1], "count", it["count"], "of", count,
      "period", it["period_s"], "of", period, "runs noted", got, "of", runs, "keys",
      it["runs"], it["run_start_s"], it["run_end_s"], "runs.csv", csv, "note's span", span)
sys.exit(0 if ok else 1)
PY
}
run() { # NAME COUNT PERIOD RUNS RUN...
	local name=$1 count=$2 period=$3 runs=$4
	shift 4
	$py "$tmp/gen.py" "$tmp/$name.pcap" "$@"
	"$DMLSCOPE" analyze "$tmp/$name.pcap" --quiet --json "$tmp/$name.json" --csv "$tmp/$name" ||
		{ echo "FAIL $name: exit $?"; fail=1; return; }
	check "$tmp/$name.json" "$count" "$period" "$runs" "$tmp/$name/runs.csv" || fail=1
}

# 30 steps of 0.2 s, a second of silence, 12 heavier steps of 0.5 s: new ports
run fresh 12 0.5 2 0:0.2:30:20:40000:1 7:0.5:12:80:41000:1
# the same ports again (a run replayed), and a third run like the first
run replay 12 0.5 3 0:0.2:30:20:40000:1 7:0.5:12:80:40000:1 14.5:0.2:30:20:40000:1
# unsplit NAME WHAT RUN...: no runs noted
unsplit() {
	local name=$1 what=$2
	shift 2
	$py "$tmp/gen.py" "$tmp/$name.pcap" "$@"
	"$DMLSCOPE" analyze "$tmp/$name.pcap" --quiet --json "$tmp/$name.json" ||
		{ echo "FAIL $name: exit $?"; fail=1; return; }
	$py - "$tmp/$name.json" "$name: $what" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
note = [n for n in d["notes"] if "runs back to back" in n]
print("ok  " if not note else "FAIL", sys.argv[2] + ", runs noted:", note)
sys.exit(1 if note else 0)
PY
}

# RoCEv2 runs: no handshake, the second run's queue pairs on new source ports
run roce 12 0.5 2 0:0.2:30:20:40000:1:udp 7:0.5:12:80:41000:1:udp

# controls: connections kept through the silence; a connection every step
# (0.6 s steps, each a burst and a silence with a new connection)
unsplit kept "connections open through the silence" 0:0.2:30:20:40000:1 7:0.5:12:80:40000:0
unsplit roce_kept "queue pairs kept through the silence" 0:0.2:30:20:40000:1:udp \
	7:0.5:12:80:40000:1:udp
run per_step 20 0.6 0 0:0.6:20:20:40000:2
# a rendezvous (5 small exchanges, under 1 % of the job's bytes), a second
# of silence, then the job's connections: one run, nothing cut
unsplit rendezvous "a small part before the job" 0:0.1:5:1:40000:1 1.5:0.2:30:20:41000:1

[ $fail = 0 ] && echo "runs: the busiest of runs back to back, a pause or a connection a step splits nothing"
exit $fail
