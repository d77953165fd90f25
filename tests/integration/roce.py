"""RoCEv2 retransmissions (roce.sh): a capture written here, its truth known
by construction, and (with tshark) the rule applied again to tshark's own
decoding of the base transport headers.

usage: roce.py DMLSCOPE WORKDIR
"""
import json
import shutil
import struct
import subprocess
import sys

dmls, work = sys.argv[1], sys.argv[2]
cap = work + "/roce.pcap"

A, B, C = "198.18.0.1", "198.18.0.2", "198.18.0.3"


def ip4(s):
    return bytes(int(x) for x in s.split("."))


def frame(src, dst, sport, opcode, qp, psn, payload=1024):
    bth = struct.pack(">BBHB", opcode, 0x40, 0xFFFF, 0) + qp.to_bytes(3, "big") + \
        bytes([0x80]) + psn.to_bytes(3, "big")
    udp_payload = bth + bytes(payload) + bytes(4)  # ICRC
    udp = struct.pack(">HHHH", sport, 4791, 8 + len(udp_payload), 0) + udp_payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     ip4(src), ip4(dst)) + udp
    return b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip


WRITE, ACK, READ_RESP, UD_SEND, SEND = 0x0A, 0x11, 0x10, 0x64, 0x04
pkts = []  # (frame, truth: is it a retransmission)
# A -> B, queue pair 0x123: writes 100..199, a go-back-N from 150, then 200..209
for psn in list(range(100, 200)) + list(range(150, 200)) + list(range(200, 210)):
    pkts.append((frame(A, B, 49152, WRITE, 0x123, psn), False))
for i in range(100, 150):
    pkts[i] = (pkts[i][0], True)
# the same 5-tuple, another queue pair, its own PSNs: not judged
for psn in (5, 6, 7):
    pkts.append((frame(A, B, 49152, WRITE, 0x999, psn), False))
# B -> A: acknowledgements repeat a PSN (a NAK's), read responses too
for psn in (100, 120, 149, 149, 149, 199):
    pkts.append((frame(B, A, 49153, ACK, 0x456, psn, payload=0), False))
for psn in (300, 301, 300, 301):
    pkts.append((frame(B, A, 49153, READ_RESP, 0x456, psn), False))
# C -> B, unreliable datagrams: PSNs backwards, never sent again
for psn in (10, 9, 8):
    pkts.append((frame(C, B, 50000, UD_SEND, 0x777, psn), False))
# C -> A, sends across the PSN wrap, then one sent again
for psn in (0xFFFFFE, 0xFFFFFF, 0, 1):
    pkts.append((frame(C, A, 50001, SEND, 0x888, psn), False))
pkts.append((frame(C, A, 50001, SEND, 0x888, 0xFFFFFF), True))

want = sum(1 for _, r in pkts if r)
with open(cap, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i, (fr, _) in enumerate(pkts):
        f.write(struct.pack("<IIII", 1700000000, i * 10, len(fr), len(fr)) + fr)

fails = []
out = subprocess.run([dmls, "analyze", cap, "--quiet", "--json", "-"], capture_output=True)
if out.returncode != 0:
    sys.exit("roce: FAIL: analyze exit %d: %s" % (out.returncode, out.stderr.decode()))
d = json.loads(out.stdout)
got = d["loss"]["retransmissions"]
if got != want:
    fails.append("loss.retransmissions %s, want %d" % (got, want))
by_flow = {(f["src"], f["sport"]): f["retransmissions"] for f in d["loss"]["top_flows"]}
if by_flow.get((A, 49152)) != 50 or by_flow.get((C, 50001)) != 1:
    fails.append("top_flows %s, want 50 for %s:49152 and 1 for %s:50001" % (by_flow, A, C))
if d["loss"]["flows_with_retransmissions"] != 2:
    fails.append("flows_with_retransmissions %s, want 2" % d["loss"]["flows_with_retransmissions"])

# both ends captured: the receiver's file holds every packet again, 20 us
# later, and one write the sender's capture missed; IP ids are all 0, so
# only the PSN tells the copies from that write
other = work + "/roce-receiver.pcap"
extra = frame(A, B, 49152, WRITE, 0x123, 210)
with open(other, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i, (fr, _) in enumerate(pkts + [(extra, False)]):
        f.write(struct.pack("<IIII", 1700000000, i * 10 + 20, len(fr), len(fr)) + fr)
out = subprocess.run([dmls, "analyze", cap, other, "--quiet", "--json", "-"], capture_output=True)
both = json.loads(out.stdout)["input"] if out.returncode == 0 else {}
if both.get("packets") != len(pkts) + 1 or both.get("skipped", {}).get("duplicates") != len(pkts):
    fails.append("both ends: exit %d, %s packets and %s duplicates (want %d and %d)" %
                 (out.returncode, both.get("packets"), both.get("skipped", {}).get("duplicates"),
                  len(pkts) + 1, len(pkts)))

# the capture cut before the transport header: nothing to judge, no error
cut = work + "/roce-cut.pcap"
with open(cap, "rb") as f, open(cut, "wb") as g:
    g.write(f.read(24))
    while True:
        h = f.read(16)
        if len(h) < 16:
            break
        ts, us, incl, orig = struct.unpack("<IIII", h)
        data = f.read(incl)
        g.write(struct.pack("<IIII", ts, us, 46, orig) + data[:46])
out = subprocess.run([dmls, "analyze", cut, "--quiet", "--json", "-"], capture_output=True)
cut_retx = json.loads(out.stdout)["loss"]["retransmissions"] if out.returncode == 0 else None
if cut_retx != 0:
    fails.append("snaplen 46: exit %d, retransmissions %s (want 0: no header to judge)" %
                 (out.returncode, cut_retx))

# tshark decodes the headers on its own; the same rule over its fields
if shutil.which("tshark"):
    t = subprocess.run(["tshark", "-r", cap, "-T", "fields", "-E", "separator=,",
                        "-e", "ip.src", "-e", "udp.srcport", "-e", "infiniband.bth.opcode",
                        "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn"],
                       capture_output=True, text=True)
    rows = [r.split(",") for r in t.stdout.split("\n") if r.strip()]
    if len(rows) != len(pkts) or not all(r[4] for r in rows):
        fails.append("tshark: %d rows with PSNs of %d packets" % (len(rows), len(pkts)))
    else:
        nxt, n = {}, 0
        for src, sport, op, qp, psn in rows:
            op, qp, psn = int(op, 0), int(qp, 0), int(psn, 0)
            if op >> 5 not in (0, 5) or not ((op & 31) <= 0x0C or (op & 31) in (0x13, 0x14, 0x16, 0x17)):
                continue
            key = (src, sport)
            if key in nxt and nxt[key][0] != qp:
                continue
            if key in nxt and ((psn - nxt[key][1]) & 0xFFFFFF) >= 0x800000:
                n += 1
            if key not in nxt or ((psn + 1 - nxt[key][1]) & 0xFFFFFF) < 0x800000:
                nxt[key] = (qp, (psn + 1) & 0xFFFFFF)
        if n != got:
            fails.append("tshark's headers give %d retransmissions, dmlscope %s" % (n, got))
        else:
            print("roce: tshark's decoding agrees: %d" % n)
else:
    print("roce: tshark part skipped (no tshark)")

for f in fails:
    print("roce: FAIL:", f)
if not fails:
    print("roce: ok: %d retransmissions of %d packets (go-back-N, PSN wrap; acks, read "
          "responses, UD and a second queue pair not judged; both ends' copies told apart by PSN)"
          % (got, len(pkts)))
sys.exit(1 if fails else 0)
