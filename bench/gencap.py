#!/usr/bin/python3
"""Write a benchmark capture: ring all-reduce-like TCP traffic among 4 hosts.

usage: gencap.py OUT.pcap PACKETS [SNAPLEN]

Packets are 1514-byte Ethernet/IPv4/TCP frames (1448 bytes of payload)
between 198.18.0.1..4, each host sending to its ring neighbour in bursts,
timestamps 1.2 us apart (about 10 Gbit/s).  With SNAPLEN (default 96) the
records are cut like the study's captures; the original length stays 1514.
"""
import struct
import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    snap = int(sys.argv[3]) if len(sys.argv) > 3 else 96
    frame_len = 1514
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        hdrs = []
        for h in range(4):
            src, dst = h + 1, (h + 1) % 4 + 1
            eth = bytes([2, 0, 0, 0, 0, dst, 2, 0, 0, 0, 0, src]) + b"\x08\x00"
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, frame_len - 14, 0, 0x4000, 64, 6, 0,
                             bytes([198, 18, 0, src]), bytes([198, 18, 0, dst]))
            hdrs.append((eth, ip, 40000 + h, 29500))
        ts_us = 1_700_000_000 * 1_000_000
        seq = [0, 0, 0, 0]
        pad = bytes(max(0, snap - 54))
        buf = bytearray()
        for i in range(n):
            h = (i // 64) % 4  # bursts of 64 segments per host
            eth, ip, sport, dport = hdrs[h]
            tcp = struct.pack("!HHIIBBHHH", sport, dport, seq[h] & 0xffffffff, 1, 0x50, 0x10,
                              65535, 0, 0)
            seq[h] += 1448
            data = (eth + ip + tcp + pad)[:snap]
            ts_us += 1 if i % 5 else 2
            if i % 200_000 == 0:
                ts_us += 20_000  # a compute gap every 200k packets
            buf += struct.pack("<IIII", ts_us // 1_000_000, ts_us % 1_000_000, len(data),
                               frame_len) + data
            if len(buf) > 1 << 22:
                f.write(buf)
                buf.clear()
        f.write(buf)


if __name__ == "__main__":
    main()
