#!/usr/bin/python3
"""Cross-check dmlscope against tshark on the same real captures.

For every capture set given (a run folder or a capture file), tshark
(independent of dmlscope) lists each IP packet's addresses, ports, frame
length and transport payload length.  Per-host and per-pair wire and
payload byte totals must equal dmlscope's exactly, and so must the number
of directional TCP/UDP 5-tuples.

usage: tshark_crosscheck.py DMLSCOPE INPUT...
"""
import collections
import glob
import json
import os
import subprocess
import sys

FIELDS = ["ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "frame.len", "ip.proto",
          "ipv6.nxt", "tcp.srcport", "tcp.dstport", "tcp.len", "udp.srcport",
          "udp.dstport", "udp.length", "ip.flags.mf", "ip.frag_offset"]


def tshark_rows(path):
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=f", "-o", "tcp.desegment_tcp_streams:FALSE",
           "-o", "ip.defragment:FALSE"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        yield dict(zip(FIELDS, line.split("\t")))


def expected(paths):
    wire = collections.Counter()
    payload = collections.Counter()
    flows = set()
    for path in paths:
        for r in tshark_rows(path):
            src = r["ip.src"] or r["ipv6.src"]
            dst = r["ip.dst"] or r["ipv6.dst"]
            if not src:
                continue
            wire[(src, dst)] += int(r["frame.len"])
            if r["tcp.srcport"]:
                payload[(src, dst)] += int(r["tcp.len"] or 0)
                flows.add((src, dst, r["tcp.srcport"], r["tcp.dstport"], "tcp"))
            elif r["udp.srcport"]:
                payload[(src, dst)] += int(r["udp.length"]) - 8
                flows.add((src, dst, r["udp.srcport"], r["udp.dstport"], "udp"))
    return wire, payload, flows


def main():
    exe, inputs = sys.argv[1], sys.argv[2:]
    failures = 0
    for inp in inputs:
        paths = sorted(glob.glob(os.path.join(inp, "*.pcap*"))) if os.path.isdir(inp) else [inp]
        wire, payload, flows = expected(paths)
        res = subprocess.run([exe, "analyze", inp, "--json", "-"], capture_output=True, text=True)
        if res.returncode != 0:
            print(f"FAIL {inp}: dmlscope exited {res.returncode}: {res.stderr.strip()}")
            failures += 1
            continue
        doc = json.loads(res.stdout)
        names = doc["matrix"]["hosts"]
        got_w, got_p = collections.Counter(), collections.Counter()
        for i, s in enumerate(names):
            for j, d in enumerate(names):
                if doc["matrix"]["wire_bytes"][i][j]:
                    got_w[(s, d)] = doc["matrix"]["wire_bytes"][i][j]
                if doc["matrix"]["payload_bytes"][i][j]:
                    got_p[(s, d)] = doc["matrix"]["payload_bytes"][i][j]
        hosts_w = collections.Counter()
        for (s, _), v in wire.items():
            hosts_w[s] += v
        got_hosts = {h["addr"]: h["tx_wire_bytes"] for h in doc["hosts"] if h["tx_wire_bytes"]}
        checks = [("pair wire bytes", dict(wire), dict(got_w)),
                  ("pair payload bytes", {k: v for k, v in payload.items() if v}, dict(got_p)),
                  ("host tx wire bytes", dict(hosts_w), got_hosts),
                  ("flow count", len(flows), doc["flows"]["count"])]
        for what, want, got in checks:
            if want != got:
                print(f"FAIL {inp}: {what}: tshark {want} dmlscope {got}")
                failures += 1
            else:
                n = want if isinstance(want, int) else len(want)
                print(f"ok   {inp}: {what} equal ({n})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
