#!/usr/bin/python3
"""Real tunnel captures from tcpdump's test suite (the optional corpus):
ERSPAN types I-III, Geneve (Google Cloud's among them), VXLAN and Geneve
segmentation-offload super-packets over IPv4 and IPv6, NFLOG and PKTAP.
The (source, destination) pairs dmlscope sees, and the TCP payload of each,
must equal tshark's from the innermost headers (-E occurrence=l), and every tunnel
file must have had packets opened (input.decapsulated).  Files where the
inner and outer address families differ are left out (tshark's ip.src and
ipv6.src then cannot say which is inner), and so are encapsulations
dmlscope does not open (MPLS over UDP, VXLAN-GPE, WCCP's GRE).

usage: tunnels_corpus.py DMLSCOPE CORPUS_DIR
"""
import collections
import json
import os
import subprocess
import sys

FILES = {  # file: packets opened, at least
    "erspan-type-i-1.pcap": 1, "erspan-type-i-2.pcap": 1, "erspan-type-i-4.pcap": 1,
    "erspan-type-ii-1.pcap": 1, "erspan-type-ii-2.pcap": 1, "erspan-type-iii-ft-0.pcap": 1,
    "geneve-gcp.pcap": 1, "geneve.pcap": 1, "gso-ipv4-geneve-ipv4.pcap": 1,
    "gso-ipv4-vxlan-ipv4.pcap": 1, "gso-ipv6-geneve-ipv6.pcap": 1,
    "gso-ipv6-vxlan-ipv6.pcap": 1, "nflog.pcap": 0, "LINKTYPE_PKTAP.pcap": 0,
}


def main():
    exe, corpus = sys.argv[1:3]
    fails = 0
    for name, opened in FILES.items():
        path = os.path.join(corpus, name)
        if not os.path.isfile(path):
            print(f"skip {name}: not in the corpus")
            continue
        r = subprocess.run([exe, "analyze", path, "--json", "-", "--quiet"], capture_output=True,
                           text=True)
        if r.returncode != 0:
            print(f"FAIL {name}: dmlscope exited {r.returncode}: {r.stderr.strip()}")
            fails += 1
            continue
        d = json.loads(r.stdout)
        out = subprocess.run(["tshark", "-n", "-r", path, "-T", "fields", "-E", "occurrence=l",
                              "-o", "tcp.desegment_tcp_streams:FALSE", "-e", "ip.src", "-e",
                              "ip.dst", "-e", "ipv6.src", "-e", "ipv6.dst", "-e", "tcp.len"],
                             capture_output=True, text=True, check=True).stdout
        want, pairs = collections.Counter(), set()
        for line in out.splitlines():
            p = line.split("\t")
            src, dst = p[0] or p[2], p[1] or p[3]
            if src:
                pairs.add((src, dst))
            if src and p[4]:
                want[(src, dst)] += int(p[4])
        want = {k: v for k, v in want.items() if v}
        m, hs = d["matrix"], d["matrix"]["hosts"]
        got, got_pairs = {}, set()
        for i, s in enumerate(hs):
            for j, t in enumerate(hs):
                if m["wire_bytes"][i][j]:
                    got_pairs.add((s, t))
                if m["payload_bytes"][i][j] and (s, t) in want:  # TCP's (UDP's too in the matrix)
                    got[(s, t)] = m["payload_bytes"][i][j]
        ok = got == want and got_pairs == pairs and d["input"]["decapsulated"] >= opened
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {d['input']['packets']} packets, "
              f"{d['input']['decapsulated']} opened, {len(pairs)} inner pairs"
              + ("" if got_pairs == pairs else f" (tshark {sorted(pairs)}, dmlscope {sorted(got_pairs)})")
              + ", TCP payload by pair "
              + (f"equal ({len(want)} pairs)" if got == want else f"tshark {want} dmlscope {got}"))
        fails += not ok
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
