#!/usr/bin/python3
"""Write benchmark captures (classic pcap, microsecond timestamps, Ethernet),
deterministically (seeded), with only the standard library.

usage:
  gencap.py OUT.pcap PACKETS [SNAPLEN]
      dense ring: 1514-byte frames (1448 bytes of payload) among 198.18.0.1..4,
      each host sending to its ring neighbour in bursts of 64, timestamps about
      1.2 us apart (10 Gbit/s), a 20 ms gap every 200k packets; SNAPLEN
      default 96 (the original length stays 1514).
  gencap.py job OUT.pcap [--hosts 8] [--iterations 3600] [--period 1.0]
                         [--snaplen 100] [--seed 1] [--stream-mbps 0]
                         [--stream-on 0 --stream-off 0]
      a data-parallel training job: HOSTS hosts (198.18.0.1..) run one ring
      all-reduce per iteration, one iteration every PERIOD seconds.  Each
      all-reduce is 2 (HOSTS - 1) steps; in each step every host sends one
      chunk of 128,000 bytes to its ring successor as two TSO super-packets
      of 64,000 payload bytes (64,054 bytes on the wire, as a sending host's
      capture shows them), and the successor acks the chunk (a 54-byte pure
      ACK).  The burst lasts 3 to 40 ms (uniformly drawn per iteration),
      iteration starts have +-2 ms of jitter.  8 hosts: 336 packets per
      iteration, 1,209,600 for 3600 iterations (one hour).  A job with fewer
      iterations and the same seed is a prefix of the longer one.
      --stream-mbps X: a steady TCP stream beside the job from host 1 to
      host HOSTS/2 + 1 (not ring neighbours) at X Mbit/s, 64,000-byte
      super-packets acked every second one, from the first iteration to the
      last packet (a checkpoint copy; truth "stream_payload_bytes").
      --stream-on S --stream-off S: the stream runs S seconds, then pauses
      S seconds, and so on (checkpoints written every so often).
  gencap.py flood OUT.pcap [--packets 2000000] [--snaplen 100] [--seed 1]
      a SYN flood / scan: every packet opens a new TCP 5-tuple, from a
      distinct pseudo-random source in 10.0.0.0/8 (a bijection of the packet
      index, so no 5-tuple repeats) and a random source port to a random port
      of 198.18.0.1; 74-byte SYNs with Linux-like options, one every 5 us.

The job and the flood also write OUT.pcap.json: what the generator knows
(packets, wire_bytes = sum of original lengths, iterations, ...).
"""
import json
import random
import struct
import sys

PCAP_HDR = struct.Struct("<IHHiIII")
REC = struct.Struct("<IIII")
ETH_IP = struct.Struct("!6s6sHBBHHHBBH4s4s")  # Ethernet + IPv4 (no options)
TCP = struct.Struct("!HHIIBBHHH")
T0_US = 1_700_000_000 * 1_000_000


def pcap_header(snap):
    return PCAP_HDR.pack(0xa1b2c3d4, 2, 4, 0, 0, snap, 1)


def ip_checksum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def mac(h):
    return bytes([2, 0, 0, 0, 0, h & 0xff])


def eth_ip(src, dst, ip_len, ip_id, src_mac, dst_mac):
    """Ethernet + IPv4 header (20 bytes, DF, TTL 64, TCP) with its checksum."""
    b = bytearray(ETH_IP.pack(dst_mac, src_mac, 0x0800, 0x45, 0, ip_len, ip_id, 0x4000, 64, 6,
                              0, src, dst))
    struct.pack_into("!H", b, 24, ip_checksum(bytes(b[14:34])))
    return bytes(b)


def ring(argv):
    """The original dense ring capture (kept as it was)."""
    out, n = argv[0], int(argv[1])
    snap = int(argv[2]) if len(argv) > 2 else 96
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
        ts_us = T0_US
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


def options(argv, defaults):
    """--name value pairs over defaults (all ints or floats)."""
    opts = dict(defaults)
    it = iter(argv)
    for a in it:
        k = a.lstrip("-").replace("-", "_")
        if not a.startswith("--") or k not in opts:
            sys.exit(f"gencap.py: unknown option {a}")
        opts[k] = type(defaults[k])(next(it))
    return opts


def write_truth(out, truth):
    with open(out + ".json", "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


def job(argv):
    out = argv[0]
    o = options(argv[1:], {"hosts": 8, "iterations": 3600, "period": 1.0, "snaplen": 100,
                           "seed": 1, "stream_mbps": 0.0, "stream_on": 0.0,
                           "stream_off": 0.0})
    nh, iters, snap = o["hosts"], o["iterations"], o["snaplen"]
    period_us = int(o["period"] * 1e6)
    rnd = random.Random(o["seed"])
    seg, nseg = 64_000, 2  # TSO super-packets per chunk
    chunk = seg * nseg
    steps = 2 * (nh - 1)
    dport = 29500
    addr = [bytes([198, 18, 0, h + 1]) for h in range(nh)]
    macs = [mac(h + 1) for h in range(nh)]
    # per ring edge h -> h+1: the data direction and the ack direction
    data_len = 54 + seg
    pad = bytes(max(0, snap - 54))
    data_hdr, ack_hdr = [], []
    for h in range(nh):
        d = (h + 1) % nh
        data_hdr.append(eth_ip(addr[h], addr[d], data_len - 14, 0, macs[h], macs[d]))
        ack_hdr.append(eth_ip(addr[d], addr[h], 40, 0, macs[d], macs[h]))
    seq = [rnd.getrandbits(32) for _ in range(nh)]  # data sender's next sequence number
    aseq = [rnd.getrandbits(32) for _ in range(nh)]  # acking side's (constant) sequence
    ipid = [0] * nh
    cap_data = min(snap, data_len)
    cap_ack = min(snap, 54)
    packets = wire = 0
    ser_us = seg * 8 / 10e9 * 1e6  # 51.2 us per super-packet at 10 Gbit/s
    # the stream: its own addresses, ports, sequence; no draw from rnd (the
    # job's packets are those without it)
    sa, sb = 0, nh // 2
    s_gap = seg * 8 / (o["stream_mbps"] * 1e6) * 1e6 if o["stream_mbps"] > 0 else 0
    s_data = eth_ip(addr[sa], addr[sb], data_len - 14, 0, macs[sa], macs[sb])
    s_ack = eth_ip(addr[sb], addr[sa], 40, 0, macs[sb], macs[sa])
    s_t, s_seq, s_n = float(T0_US + 500_000), 1, 0
    on_us, off_us = o["stream_on"] * 1e6, o["stream_off"] * 1e6

    def stream_until(ev, upto):
        nonlocal s_t, s_seq, s_n
        while s_gap and s_t <= upto:
            if on_us > 0 and off_us > 0:  # on and off: skip to the next on
                into = (s_t - T0_US - 500_000) % (on_us + off_us)
                if into >= on_us:
                    s_t += on_us + off_us - into
                    continue
            tcp = TCP.pack(40000, 5001, s_seq, 1, 0x50, 0x18, 502, 0, 0)
            ev.append((int(s_t), (s_data + tcp + pad)[:cap_data], data_len))
            s_seq = (s_seq + seg) & 0xffffffff
            s_n += 1
            if s_n % 2 == 0:
                tcp = TCP.pack(5001, 40000, 1, s_seq, 0x50, 0x10, 502, 0, 0)
                ev.append((int(s_t) + 30, (s_ack + tcp)[:cap_ack], 54))
            s_t += s_gap
    with open(out, "wb") as f:
        f.write(pcap_header(snap))
        for k in range(iters):
            start = T0_US + k * period_us + rnd.randint(-2000, 2000) + 500_000
            burst = rnd.uniform(3000, 40000)
            step_us = burst / steps
            ev = []
            for s in range(steps):
                t_step = start + s * step_us
                for h in range(nh):
                    t = t_step + rnd.uniform(0, 30)
                    sport = 43000 + h
                    for j in range(nseg):
                        t += ser_us
                        ipid[h] = (ipid[h] + 1) & 0xffff
                        hdr = bytearray(data_hdr[h])
                        # IP id changes the checksum: adjust it (RFC 1624)
                        c = (~struct.unpack_from("!H", hdr, 24)[0] & 0xffff) + ipid[h]
                        c = (c & 0xffff) + (c >> 16)
                        struct.pack_into("!HH", hdr, 18, ipid[h], 0x4000)
                        struct.pack_into("!H", hdr, 24, ~c & 0xffff)
                        tcp = TCP.pack(sport, dport, seq[h], aseq[h], 0x50, 0x18, 502, 0, 0)
                        seq[h] = (seq[h] + seg) & 0xffffffff
                        ev.append((int(t), (bytes(hdr) + tcp + pad)[:cap_data], data_len))
                    t += rnd.uniform(15, 40)
                    tcp = TCP.pack(dport, sport, aseq[h], seq[h], 0x50, 0x10, 502, 0, 0)
                    ev.append((int(t), (ack_hdr[h] + tcp)[:cap_ack], 54))
            stream_until(ev, max(e[0] for e in ev))
            ev.sort(key=lambda e: e[0])
            buf = []
            for t, data, olen in ev:
                buf.append(REC.pack(t // 1_000_000, t % 1_000_000, len(data), olen))
                buf.append(data)
                wire += olen
            packets += len(ev)
            f.write(b"".join(buf))
    truth = {"kind": "job", "pattern": "ring", "hosts": nh, "iterations": iters,
             "period_s": o["period"], "seed": o["seed"], "snaplen": snap,
             "packets": packets, "wire_bytes": wire,
             "chunk_bytes": chunk, "gradient_bytes": chunk * nh}
    if s_gap:
        truth["stream_payload_bytes"] = s_n * seg
    write_truth(out, truth)


def flood(argv):
    out = argv[0]
    o = options(argv[1:], {"packets": 2_000_000, "snaplen": 100, "seed": 1})
    n, snap = o["packets"], o["snaplen"]
    rnd = random.Random(o["seed"])
    mul = rnd.getrandbits(24) | 1  # odd: i -> i * mul mod 2^24 is a bijection
    xor = rnd.getrandbits(24)
    dst = bytes([198, 18, 0, 1])
    wire_len = 74
    cap = min(snap, wire_len)
    # Ethernet + IPv4 with the source address and id zero; checksum fixed per packet
    base = bytearray(eth_ip(bytes(4), dst, wire_len - 14, 0, mac(0xfe), mac(1)))
    struct.pack_into("!H", base, 24, 0)
    base_sum = sum(struct.unpack("!10H", bytes(base[14:34])))
    head = bytes(base[:18])  # up to the IP total length
    mid = bytes(base[20:24])  # flags/fragment, TTL, protocol
    dst_b = bytes(base[30:34])
    # MSS 1460, SACK permitted, timestamps, NOP, window scale 7
    opts = bytes([2, 4, 5, 0xb4, 4, 2, 8, 10]) + bytes(8) + bytes([1, 3, 3, 7])
    body = struct.Struct("!18sH4sH4s4sHHIIBBHHH20s")
    t_us = T0_US
    packets = wire = 0
    with open(out, "wb") as f:
        f.write(pcap_header(snap))
        buf = []
        for i in range(n):
            r = rnd.getrandbits(64)
            a = 0x0A000000 | (((i * mul) ^ xor) & 0xffffff)
            ipid = r & 0xffff
            c = base_sum + (a >> 16) + (a & 0xffff) + ipid
            c = (c & 0xffff) + (c >> 16)
            c = (c & 0xffff) + (c >> 16)
            sport = 1024 + (r >> 16) % 64512
            dport = 1 + (r >> 32 & 0xffff) % 65535
            isn = r >> 32
            data = body.pack(head, ipid, mid, ~c & 0xffff, a.to_bytes(4, "big"), dst_b,
                             sport, dport, isn, 0, 0xa0, 0x02, 64240, 0, 0, opts)
            buf.append(REC.pack(t_us // 1_000_000, t_us % 1_000_000, cap, wire_len))
            buf.append(data if cap == wire_len else data[:cap])
            t_us += 5
            if len(buf) >= 131072:
                f.write(b"".join(buf))
                buf.clear()
        f.write(b"".join(buf))
    packets, wire = n, n * wire_len
    write_truth(out, {"kind": "flood", "seed": o["seed"], "snaplen": snap,
                      "packets": packets, "wire_bytes": wire, "new_flows": n})


def main():
    # an output path is never an option: `gencap.py job --help` once wrote
    # a 121 MB capture named --help
    if len(sys.argv) < 3 or sys.argv[2].startswith("-"):
        sys.exit(__doc__)
    if len(sys.argv) > 1 and sys.argv[1] == "job":
        job(sys.argv[2:])
    elif len(sys.argv) > 1 and sys.argv[1] == "flood":
        flood(sys.argv[2:])
    elif len(sys.argv) in (3, 4):
        ring(sys.argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
