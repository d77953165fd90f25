"""snap_cut.py SRC_DIR DST_DIR [TCP_BYTES [AGAIN_S]]: a run folder's pcaps
with every IPv4 packet rewritten as IPv6 (2001:db8::a.b.c.d, the rest of
the frame as it was) and, with TCP_BYTES, each TCP packet cut after that
many bytes of its header (10: what `tcpdump -s 64` keeps of TCP over IPv6
behind Ethernet).  With AGAIN_S, each capture's packets follow again
AGAIN_S later as a second run would: the same ports, each direction's
sequence and acknowledgement numbers moved by an offset of its own (a new
initial sequence number).  Ethernet, Linux cooked (SLL, SLL2) captures;
other files are copied."""
import glob, os, random, shutil, struct, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import pcaprec

src, dst = sys.argv[1], sys.argv[2]
tcp_bytes = int(sys.argv[3]) if len(sys.argv) > 3 and int(sys.argv[3]) > 0 else None
again = float(sys.argv[4]) if len(sys.argv) > 4 else None
os.makedirs(dst, exist_ok=True)
LINK = {1: (12, 14), 113: (14, 16), 276: (0, 20)}  # EtherType offset, header length
PREFIX = bytes.fromhex("20010db8") + bytes(8)
rng = random.Random(7)
isn = {}


def offset(a, b, sp, dp):
    return isn.setdefault((a, b, sp, dp), rng.getrandbits(32))


def renumber(fr, hl):
    """fr (IPv4 at hl) with its TCP numbers moved: a new connection's."""
    fr = bytearray(fr)
    t = hl + (fr[hl] & 15) * 4
    if fr[hl + 9] != 6 or len(fr) < t + 14:
        return bytes(fr)
    a, b = bytes(fr[hl + 12:hl + 16]), bytes(fr[hl + 16:hl + 20])
    sp, dp, seq, ack = struct.unpack_from("!HHII", fr, t)
    seq = (seq + offset(a, b, sp, dp)) & 0xFFFFFFFF
    if fr[t + 13] & 0x10:
        ack = (ack + offset(b, a, dp, sp)) & 0xFFFFFFFF
    struct.pack_into("!II", fr, t + 4, seq, ack)
    return bytes(fr)


for path in sorted(glob.glob(os.path.join(src, "*"))):
    if not path.endswith(".pcap"):
        if os.path.isfile(path):
            shutil.copy(path, dst)
        continue
    d = open(path, "rb").read()
    e, _, found = pcaprec.records(d)
    assert e == "<", path
    snap, lt = struct.unpack_from("<II", d, 16)
    et, hl = LINK[lt & 0xFFFF]
    recs = [(s, u, ol, d[pos + 16:pos + 16 + cl]) for pos, s, u, cl, ol in found]
    if again is not None:
        v4 = lambda fr: len(fr) >= hl + 20 and fr[et:et + 2] == b"\x08\x00" and fr[hl] >> 4 == 4
        recs += [(s + int(again), u, ol, renumber(fr, hl) if v4(fr) else fr) for s, u, ol, fr in recs]
    out = bytearray(d[:24])
    struct.pack_into("<I", out, 16, snap + 20)
    for s, u, ol, fr in recs:
        if len(fr) >= hl + 20 and fr[et:et + 2] == b"\x08\x00" and fr[hl] >> 4 == 4:
            ihl = (fr[hl] & 15) * 4
            total, ttl, proto = struct.unpack_from("!H", fr, hl + 2)[0], fr[hl + 8], fr[hl + 9]
            ip6 = (struct.pack("!IHBB", 0x60000000, total - ihl, proto, ttl) +
                   PREFIX + fr[hl + 12:hl + 16] + PREFIX + fr[hl + 16:hl + 20])
            fr = fr[:et] + b"\x86\xdd" + fr[et + 2:hl] + ip6 + fr[hl + ihl:]
            ol += 40 - ihl
            if tcp_bytes is not None and proto == 6:
                fr = fr[:hl + 40 + tcp_bytes]
        out += struct.pack("<IIII", s, u, len(fr), ol) + fr
    open(os.path.join(dst, os.path.basename(path)), "wb").write(out)
