"""pcaprec.py - the records of a classic pcap file, for the tests that cut,
move or merge captures (lossy_ranks_apart.sh, overlap_edges.sh, snap_cut.py,
stray_packets.sh, capture_drops.sh)."""
import struct


def records(d):
    """The pcap bytes d: its byte order ("<" or ">"), its time fraction's
    units a second (1e6, or 1e9 for nanosecond pcap) and its records, each
    (pos, sec, frac, caplen, origlen), pos at the record's 16-byte header."""
    e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    per_s = 1e9 if d[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1e6
    pos, out = 24, []
    while pos + 16 <= len(d):
        sec, frac, cl, ol = struct.unpack_from(e + "IIII", d, pos)
        out.append((pos, sec, frac, cl, ol))
        pos += 16 + cl
    return e, per_s, out
