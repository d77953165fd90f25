#!/usr/bin/python3
"""A bulk transfer between two hosts of a job is not the job's traffic.

A steady TCP stream (a checkpoint copied off, a dataset streamed in, an
iperf) is added to a real run's captures, as each worker's
`tcpdump src <own ip>` would hold it: the sender's segments in its file,
the receiver's acknowledgements in its own.  Counted as the job's, 100
Mbit/s between two ranks of the bundled DDP ring of 4 that are not
neighbours made the ring a star with two hubs (S 13.5 MB for 9.0), 500
Mbit/s left the job one iteration; between two workers of a parameter
server of 6 (at 2 % loss), or two nodes of a tree of 8, it cut the job in
two or three before any job was analyzed; from a rank to a host of no job
(a checkpoint written to a storage server) it made that host a fifth rank
(pattern unknown).  The stream must be left out of
the split, the pattern, the steps and S: one job, the clean run's pattern,
ranks and count, period and S within 1 %, a note saying so, while the
hosts' totals keep every byte of it.  The clean runs get no such note.

A stream that runs on and off (a checkpoint written for seconds every so
often) is left out the same way: 300 Mbit/s 2 s on, 3 s off between two
workers of the parameter server of 6 made it 5 of 6 ranks, pattern
unknown, iterations withheld; 3 s on, 4 s off between two nodes of the
tree of 8, two jobs; 2 Gbit/s 0.5 s on, 0.5 s off beside the ring, a star
with two hubs.  At 2 Gbit/s between two ranks of the DDP ring (not
neighbours) the receiver's acknowledgements, left in the series of a pair
that carries nothing else, were a tenth of a ring edge's bytes a step:
an edge, a star with two hubs.  From a rank of the ring to its predecessor
they ride the ring edge the other way and fill its pauses: a period 1 %
short at 2 Gbit/s.  A DDP ring of 6 at 2 % loss, whose steps its ranks'
clocks tell, read the stream sender's clock on its whole sending: its
iterations withheld.

A stream from a rank along its job's edge (to its ring successor), read
from that rank's own capture: the edge is the rank's one data pair, so
no other pair of the job was there to compare the stream with, and the
stream (300 Mbit/s beside the bundled ring, or a DDP ring of 4 at 10 ms
pacing) read as a second job on the same hosts, the top level one of
0.01 s steps, or two jobs.  Its connection is compared with the job's
connection on the same pair.  A parameter server's worker's own file
with a stream to another worker: its job moved a twentieth of the
stream's bytes, under the 5 % a job must move for a stream to be told;
16 MiB is a job too.

usage: background.py DMLSCOPE WORKDIR [+]RUN:SRC:DST:MBIT_S[:ON_S:OFF_S]...
  (SRC and DST: the last octets of two hosts, 198.18.0.x; DST may be a
  host without a capture: its acknowledgements are then not in the run;
  ON_S, OFF_S: the stream runs ON_S seconds, then pauses OFF_S, in turn;
  +: the sender's own file too, against its clean file's reading)
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys

SEG = 1448


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    assert struct.unpack("<I", data[:4])[0] == 0xA1B2C3D4, "little-endian usec pcap expected"
    recs, i = [], 24
    while i + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack("<IIII", data[i:i + 16])
        recs.append((sec * 10**6 + usec, data[i:i + 16 + incl]))
        i += 16 + incl
    return data[:24], recs


def frame(src, dst, sport, dport, seq, ack, flags, payload):
    ip = lambda o: bytes([198, 18, 0, o])
    mac = lambda o: bytes([2, 0, 0, 0, 0, o])
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, ack, 0x50, flags, 65535, 0, 0)
    iph = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + payload, 0, 0x4000, 64, 6, 0, ip(src), ip(dst))
    return mac(dst) + mac(src) + b"\x08\x00" + iph + tcp, 54 + payload


def with_stream(run, out, src, dst, mbps, on=0.0, off=0.0):
    """run's captures with a steady stream src -> dst (hosts' last octets)
    over the run's span, or one that runs `on` seconds and pauses `off`
    seconds in turn; returns the stream's payload bytes."""
    os.makedirs(out)
    files = sorted(glob.glob(os.path.join(run, "worker-*.pcap")))
    caps = {f: read_pcap(f) for f in files}
    t0 = min(r[1][0][0] for r in caps.values())
    t1 = max(r[1][-1][0] for r in caps.values())
    gap = SEG * 8 / mbps  # microseconds
    seg, acks, t, seq, n = [], [], float(t0), 1, 0
    while t < t1:
        into = (t - t0) % ((on + off) * 1e6) if on > 0 and off > 0 else 0
        if on > 0 and off > 0 and into >= on * 1e6:  # off: to the next start
            t += (on + off) * 1e6 - into
            continue
        fr, orig = frame(src, dst, 40000, 5001, seq, 1, 0x18, SEG)
        seg.append((int(t), fr, orig))
        seq = (seq + SEG) & 0xffffffff
        n += 1
        if n % 2 == 0:
            fr, orig = frame(dst, src, 5001, 40000, 1, seq, 0x10, 0)
            acks.append((int(t) + 30, fr, orig))
        t += gap
    for f, (hdr, recs) in caps.items():
        host = int(os.path.basename(f).split("-")[1]) + 1
        extra = seg if host == src else acks if host == dst else []
        recs = recs + [(ts, struct.pack("<IIII", ts // 10**6, ts % 10**6, len(fr), orig) + fr)
                       for ts, fr, orig in extra]
        recs.sort(key=lambda r: r[0])
        with open(os.path.join(out, os.path.basename(f)), "wb") as w:
            w.write(hdr + b"".join(r[1] for r in recs))
    for f in glob.glob(os.path.join(run, "*")):
        if not f.endswith(".pcap"):
            shutil.copy(f, out)
    return n * SEG


def analyze(dmls, path):
    r = subprocess.run([dmls, "analyze", path, "--quiet", "--json", "-"],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"{path}: exit {r.returncode}: {r.stderr.strip()}"
    return json.loads(r.stdout)


def sent(doc, addr):
    return next(h["tx_payload_bytes"] for h in doc["hosts"] if h["addr"] == addr)


def own_file(dmls, run, out, src):
    """The sender's own file with the stream reads as its clean file: one
    job, its kind, ranks and count, period and S within 1 %, the note."""
    name = f"worker-{src - 1}-tcpdump.pcap"
    clean, doc = analyze(dmls, os.path.join(run, name)), analyze(dmls, os.path.join(out, name))
    p, q = clean["pattern"], doc["pattern"]
    it, got = clean["iterations"], doc["iterations"]
    s, g = clean["model"]["gradient_bytes"], doc["model"]["gradient_bytes"]
    assert len(clean["jobs"]) == 1 and it["count"] >= 8, f"{name}: the clean file"
    errs = []
    if (len(doc["jobs"]), q["kind"], q["ranks"]) != (1, p["kind"], p["ranks"]):
        errs.append(f"{name}: {len(doc['jobs'])} job(s), {q['kind']}/{q['ranks']}")
    if got["count"] != it["count"]:
        errs.append(f"{name}: count {got['count']} for {it['count']}")
    if not got["period_s"] or abs(got["period_s"] / it["period_s"] - 1) > 0.01:
        errs.append(f"{name}: period {got['period_s']} for {it['period_s']}")
    if (s is None) != (g is None) or (s and abs(g / s - 1) > 0.01):
        errs.append(f"{name}: S {g} for {s}")
    if not any("steady connection" in n for n in doc["notes"]):
        errs.append(f"{name}: no note: {doc['notes']}")
    return errs


def main():
    dmls, work, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
    fails = 0
    for i, case in enumerate(cases):
        on = off = 0.0
        own = case.startswith("+")
        case = case.lstrip("+")
        if case.count(":") >= 5:
            case, on, off = case.rsplit(":", 2)
            on, off = float(on), float(off)
        run, src, dst, mbps = case.rsplit(":", 3)
        src, dst, mbps = int(src), int(dst), float(mbps)
        clean = analyze(dmls, run)
        it, s, p = clean["iterations"], clean["model"]["gradient_bytes"], clean["pattern"]
        assert p["jobs"] == 1 and it["count"] >= 8 and s, f"{run}: the clean run"
        assert not any("steady connection" in n for n in clean["notes"]), clean["notes"]
        out = os.path.join(work, str(i))
        extra = with_stream(run, out, src, dst, mbps, on, off)
        doc = analyze(dmls, out)
        got, q = doc["iterations"], doc["pattern"]
        g = doc["model"]["gradient_bytes"]
        errs = []
        if (q["jobs"], q["kind"], q["ranks"]) != (1, p["kind"], p["ranks"]):
            errs.append(f"{q['jobs']} job(s), {q['kind']}/{q['ranks']}")
        if got["count"] != it["count"]:
            errs.append(f"count {got['count']} for {it['count']}")
        if not got["period_s"] or abs(got["period_s"] / it["period_s"] - 1) > 0.01:
            errs.append(f"period {got['period_s']} for {it['period_s']}")
        if not g or abs(g / s - 1) > 0.01:
            errs.append(f"S {g} for {s}")
        if not any("steady connection" in n for n in doc["notes"]):
            errs.append(f"no note: {doc['notes']}")
        a = f"198.18.0.{src}"
        if sent(doc, a) != sent(clean, a) + extra:
            errs.append(f"{a} sent {sent(doc, a)}, not {sent(clean, a)} + {extra}")
        if own:
            errs += own_file(dmls, run, out, src)
        duty = f" ({on:g} s on, {off:g} s off)" if on > 0 and off > 0 else ""
        print(f"background: {os.path.basename(run)}, {mbps:g} Mbit/s{duty} .{src} -> .{dst}: "
              f"{q['jobs']} job(s), {q['kind']}/{q['ranks']}, {got['count']} x {got['period_s']} s, "
              f"S {g}" + (": FAIL: " + "; ".join(errs) if errs else ""))
        fails += bool(errs)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
