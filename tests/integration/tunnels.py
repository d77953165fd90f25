#!/usr/bin/python3
"""Tunnels are opened: a real capture wrapped in VXLAN, Geneve, GRE, IP in
IP, ERSPAN and MPLS reads as the capture itself; so does one written as
ERF (DAG cards), NFLOG (Linux netfilter) or PKTAP (Apple) records.

Every Ethernet frame of a real capture (a sample run's rank) is wrapped in
an encapsulation, as a node's NIC or a mirror port would show it, and the
result analyzed.  Hosts, pairs, payload bytes, flows and the iterations
must equal the original's; wire bytes are the original's plus the outer
headers (ERSPAN: the original's, since a mirror's headers are not on the
mirrored link); input.decapsulated counts every IP packet.  Where tshark
is installed it reads the same files (innermost headers: occurrence=l) and
its per-pair payload bytes must equal dmlscope's.  A capture whose snap
length cuts the inner TCP header keeps the outer packets (the tunnel's
end points, same wire bytes).  The link-type wrappers add no wire bytes
(NFLOG holds the IP packet alone, so 14 fewer a packet); tshark must
agree on the per-pair payload of ERF and PKTAP (of NFLOG it counts only
the TCP bytes captured).

usage: tunnels.py DMLSCOPE CAPTURE.pcap WORKDIR
"""
import collections
import json
import os
import shutil
import struct
import subprocess
import sys

OUTER_MAC = bytes.fromhex("020000000001") + bytes.fromhex("020000000002")
NODE_A, NODE_B = bytes([198, 19, 0, 1]), bytes([198, 19, 0, 2])
NODE6_A = bytes.fromhex("20010db8000000000000000000000001")
NODE6_B = bytes.fromhex("20010db8000000000000000000000002")


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xa1b2c3d4, 0xa1b23c4d), "little-endian pcap expected"
    hdr = data[:24]
    recs, off = [], 24
    while off + 16 <= len(data):
        sec, frac, cap, orig = struct.unpack("<IIII", data[off:off + 16])
        recs.append((sec, frac, orig, data[off + 16:off + 16 + cap]))
        off += 16 + cap
    return hdr, recs


def write_pcap(path, hdr, recs, snaplen=None, linktype=None):
    with open(path, "wb") as f:
        h = bytearray(hdr)
        struct.pack_into("<I", h, 16, snaplen or 262144)
        if linktype is not None:
            struct.pack_into("<I", h, 20, linktype)
        f.write(h)
        for sec, frac, orig, frame in recs:
            cap = frame if snaplen is None else frame[:snaplen]
            f.write(struct.pack("<IIII", sec, frac, len(cap), orig) + cap)


def ipv4(proto, payload_len, src=NODE_A, dst=NODE_B):
    return struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, 0, 0x4000, 64, proto, 0,
                       src, dst)


def ipv6(nxt, payload_len):
    return struct.pack(">IHBB16s16s", 6 << 28, payload_len, nxt, 64, NODE6_A, NODE6_B)


def eth(ethertype):
    return OUTER_MAC + struct.pack(">H", ethertype)


# Each wrapper: (frame, its original length) -> (outer headers, bytes added
# on the wire).  inner_len is the original length of what is wrapped.
def vxlan(port):
    def wrap(frame, orig):
        vx = struct.pack(">BxxxI", 0x08, 42 << 8)
        udp = struct.pack(">HHHH", 40000, port, 8 + len(vx) + orig, 0)
        return eth(0x0800) + ipv4(17, len(udp) + len(vx) + orig) + udp + vx, frame
    return wrap


def geneve(frame, orig):
    opt = struct.pack(">HBB", 0x0102, 0x03, 1) + b"\0" * 4  # one 8-byte option
    gen = struct.pack(">BBHI", len(opt) // 4, 0, 0x6558, 7 << 8) + opt
    udp = struct.pack(">HHHH", 40001, 6081, 8 + len(gen) + orig, 0)
    return eth(0x86dd) + ipv6(17, len(udp) + len(gen) + orig) + udp + gen, frame


def ip_of(frame):
    """The IP packet inside an Ethernet frame (no VLAN in the samples)."""
    et = struct.unpack(">H", frame[12:14])[0]
    return et, frame[14:]


def gre_ip(frame, orig):
    et, ip = ip_of(frame)
    gre = struct.pack(">HH", 0, et)
    return eth(0x0800) + ipv4(47, len(gre) + orig - 14) + gre, ip


def gre_teb_key_seq(frame, orig):
    gre = struct.pack(">HHII", 0x3000, 0x6558, 1234, 99)
    return eth(0x0800) + ipv4(47, len(gre) + orig) + gre, frame


def ipip(frame, orig):
    et, ip = ip_of(frame)
    return eth(0x0800) + ipv4(4 if et == 0x0800 else 41, orig - 14), ip


def erspan2(frame, orig):
    gre = struct.pack(">HHI", 0x1000, 0x88be, 7)
    ers = struct.pack(">HHI", (1 << 12) | 10, 5, 0)
    return eth(0x0800) + ipv4(47, len(gre) + len(ers) + orig) + gre + ers, frame


def erspan3(frame, orig):
    gre = struct.pack(">HHI", 0x1000, 0x22eb, 7)
    ers = struct.pack(">HHIHH", (2 << 12) | 10, 5, 0, 0, 1)  # O bit: a subheader
    sub = b"\0" * 8
    return eth(0x0800) + ipv4(47, len(gre) + len(ers) + len(sub) + orig) + gre + ers + sub, frame


def mpls(frame, orig):
    et, ip = ip_of(frame)
    labels = struct.pack(">II", (100 << 12) | 64, (200 << 12) | (1 << 8) | 64)
    return eth(0x8847) + labels, ip


# name, wrapper, whether tshark opens it, wire bytes follow the original
KINDS = [("vxlan", vxlan(4789), True, False), ("vxlan8472", vxlan(8472), False, False),
         ("geneve", geneve, True, False), ("gre", gre_ip, True, False),
         ("gre-teb", gre_teb_key_seq, True, False), ("ipip", ipip, True, False),
         ("erspan2", erspan2, False, True), ("erspan3", erspan3, False, True),
         ("mpls", mpls, True, False)]


# Link-type wrappers: (frame, original length) -> (record bytes, its
# original length, wire bytes the packet keeps).
def erf(frame, orig):
    ext = struct.pack(">BBHI", 0x80 | 3, 0, 0, 0) + struct.pack(">BBHI", 4, 0, 0, 0)
    hdr = struct.pack("<Q", 0) + struct.pack(">BBHHH", 0x80 | 2, 0x04, 16 + len(ext) + 2 +
                                             len(frame), 0, orig)
    return hdr + ext + b"\0\0" + frame, len(hdr) + len(ext) + 2 + orig, orig


def nflog(frame, orig):
    et, ip = ip_of(frame)
    fam = 2 if et == 0x0800 else 10
    prefix = b"dmls\0"
    tlv = struct.pack("<HH", 4 + len(prefix), 10) + prefix + b"\0" * (-len(prefix) % 4)
    hw = struct.pack("<HH", 8, 1) + struct.pack(">HBB", et, 0, 0)  # packet header
    payload = struct.pack("<HH", 4 + orig - 14, 9)
    head = struct.pack(">BBH", fam, 0, 0) + hw + tlv + payload
    return head + ip, len(head) + orig - 14, orig - 14


def pktap(frame, orig):
    hdr = struct.pack("<III", 108, 1, 1) + b"\0" * 96  # length, a packet, Ethernet
    return hdr + frame, 108 + orig, orig


LINK_WRAPPERS = [("erf", 197, erf), ("nflog", 239, nflog), ("pktap", 258, pktap)]


def wrap_all(recs, wrap):
    out, added = [], collections.Counter()
    for sec, frac, orig, frame in recs:
        if len(frame) < 14 or frame[12:14] not in (b"\x08\x00", b"\x86\xdd"):
            out.append((sec, frac, orig, frame))  # ARP etc. stay as they are
            continue
        head, inner = wrap(frame, orig)
        orig_inner = orig - (len(frame) - len(inner))
        out.append((sec, frac, len(head) + orig_inner, head + inner))
        added[frame[26:30] if frame[12:14] == b"\x08\x00" else frame[22:38]] += \
            len(head) + orig_inner - orig
    return out, added


def analyze(exe, path):
    res = subprocess.run([exe, "analyze", path, "--json", "-", "--quiet"], capture_output=True,
                         text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{path}: dmlscope exited {res.returncode}: {res.stderr.strip()}")
    return json.loads(res.stdout)


def pairs(doc, key):
    m, names = doc["matrix"], doc["matrix"]["hosts"]
    return {(s, d): m[key][i][j] for i, s in enumerate(names) for j, d in enumerate(names)
            if m[key][i][j]}


def tshark_payload(path):
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=l", "-o", "tcp.desegment_tcp_streams:FALSE",
           "-o", "ip.defragment:FALSE", "-e", "ip.src", "-e", "ip.dst", "-e", "tcp.len"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    got = collections.Counter()
    for line in out.splitlines():
        src, dst, tlen = line.split("\t")
        if src and tlen:
            got[(src, dst)] += int(tlen)
    return {k: v for k, v in got.items() if v}


def main():
    exe, cap, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    hdr, recs = read_pcap(cap)
    base = analyze(exe, cap)
    has_tshark = shutil.which("tshark") is not None
    fails = 0

    def check(what, want, got, name):
        nonlocal fails
        if want != got:
            print(f"FAIL {name}: {what}: want {want} got {got}")
            fails += 1

    for name, wrap, tshark_opens, mirror in KINDS:
        out, added = wrap_all(recs, wrap)
        path = os.path.join(work, f"{name}.pcap")
        write_pcap(path, hdr, out)
        doc = analyze(exe, path)
        inp, binp = doc["input"], base["input"]
        check("packets", binp["packets"], inp["packets"], name)
        # MPLS is a shim under IP, not a tunnel: nothing to open
        check("decapsulated", 0 if name == "mpls" else binp["packets"], inp["decapsulated"], name)
        check("payload bytes", binp["payload_bytes"], inp["payload_bytes"], name)
        extra = 0 if mirror else sum(added.values())
        check("wire bytes", binp["wire_bytes"] + extra, inp["wire_bytes"], name)
        check("pair payload", pairs(base, "payload_bytes"), pairs(doc, "payload_bytes"), name)
        if mirror:
            check("pair wire", pairs(base, "wire_bytes"), pairs(doc, "wire_bytes"), name)
        check("flows", base["flows"]["count"], doc["flows"]["count"], name)
        # the period follows the bytes on the wire, which the outer headers add to
        bp, p = base["iterations"].get("period_s"), doc["iterations"].get("period_s")
        check("iterations.period_s within 1e-6", True,
              bp is not None and p is not None and abs(p - bp) <= 1e-6 * bp, name)
        check("iterations.count", base["iterations"].get("count"),
              doc["iterations"].get("count"), name)
        if has_tshark and tshark_opens:
            check("tshark pair payload", tshark_payload(path), pairs(doc, "payload_bytes"), name)
        print(f"{'ok  ' if not fails else 'now '} {name}: {inp['packets']} packets, "
              f"{inp['decapsulated']} decapsulated, wire +{extra} bytes")

    for name, lt, wrap in LINK_WRAPPERS:
        out, wire = [], 0
        for sec, frac, orig, frame in recs:
            if len(frame) < 14 or frame[12:14] not in (b"\x08\x00", b"\x86\xdd"):
                continue  # IP only: NFLOG logs IP packets
            rec, rorig, w = wrap(frame, orig)
            out.append((sec, frac, rorig, rec))
            wire += w
        path = os.path.join(work, f"{name}.pcap")
        write_pcap(path, hdr, out, linktype=lt)
        doc = analyze(exe, path)
        inp, binp = doc["input"], base["input"]
        check("packets", binp["packets"], inp["packets"], name)
        check("payload bytes", binp["payload_bytes"], inp["payload_bytes"], name)
        check("wire bytes", wire, inp["wire_bytes"], name)
        check("pair payload", pairs(base, "payload_bytes"), pairs(doc, "payload_bytes"), name)
        check("flows", base["flows"]["count"], doc["flows"]["count"], name)
        check("iterations.count", base["iterations"].get("count"),
              doc["iterations"].get("count"), name)
        # tshark takes NFLOG's TCP length from the bytes captured, not from
        # the IP header: no reference for a cut capture
        if has_tshark and name != "nflog":
            check("tshark pair payload", tshark_payload(path), pairs(doc, "payload_bytes"), name)
        print(f"{'ok  ' if not fails else 'now '} {name} (link type {lt}): {inp['packets']} "
              f"packets, wire {inp['wire_bytes']}")

    # --tunnels outer: the underlay's view, the same bytes on the wire
    path = os.path.join(work, "vxlan.pcap")
    r = subprocess.run([exe, "analyze", path, "--tunnels", "outer", "--json", "-", "--quiet"],
                       capture_output=True, text=True)
    doc, inner = json.loads(r.stdout), analyze(exe, path)
    check("outer: hosts", ["198.19.0.1", "198.19.0.2"], sorted(h["addr"] for h in doc["hosts"]),
          "vxlan --tunnels outer")
    check("outer: decapsulated", 0, doc["input"]["decapsulated"], "vxlan --tunnels outer")
    check("outer: wire bytes", inner["input"]["wire_bytes"], doc["input"]["wire_bytes"],
          "vxlan --tunnels outer")
    r = subprocess.run([exe, "analyze", path, "--tunnels", "sideways"], capture_output=True,
                       text=True)
    check("--tunnels sideways: exit 2, one line", (2, 1),
          (r.returncode, len(r.stderr.strip().splitlines())), "usage")
    print(f"{'ok  ' if not fails else 'now '} --tunnels outer: the tunnel's end points")

    # The snap length cuts the inner TCP header: the outer packets stay.
    out, _ = wrap_all(recs, vxlan(4789))
    path = os.path.join(work, "vxlan-cut.pcap")
    write_pcap(path, hdr, out, snaplen=90)
    doc = analyze(exe, path)
    whole = analyze(exe, os.path.join(work, "vxlan.pcap"))
    check("cut: wire bytes", whole["input"]["wire_bytes"], doc["input"]["wire_bytes"], "vxlan-cut")
    check("cut: hosts (the tunnel's end points)", ["198.19.0.1", "198.19.0.2"],
          sorted(h["addr"] for h in doc["hosts"]), "vxlan-cut")
    big = sum(1 for r in out if len(r[3]) > 90 and r[3][12:14] == b"\x08\x00")
    check("cut: packets", base["input"]["packets"], doc["input"]["packets"], "vxlan-cut")
    check("cut: decapsulated", base["input"]["packets"] - big, doc["input"]["decapsulated"],
          "vxlan-cut")
    print(f"{'ok  ' if not fails else 'now '} vxlan-cut: {big} packets kept on outer headers")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
