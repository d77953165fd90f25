"""Records of a classic pcap file, for tests that rewrite captures.

read(path) -> (head, order, records): the 24-byte file header, the byte
order ("<" or ">") and a list of (ts, frac, caplen, origlen, data).
write(path, head, order, records) writes them back.
"""
import struct


def read(path):
    b = open(path, "rb").read()
    order = "<" if b[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    recs, off = [], 24
    while off + 16 <= len(b):
        ts, frac, cl, ol = struct.unpack_from(order + "IIII", b, off)
        recs.append((ts, frac, cl, ol, b[off + 16:off + 16 + cl]))
        off += 16 + cl
    return b[:24], order, recs


def write(path, head, order, recs):
    with open(path, "wb") as f:
        f.write(head)
        for ts, frac, cl, ol, d in recs:
            f.write(struct.pack(order + "IIII", ts, frac, cl, ol) + d)
