#!/usr/bin/python3
"""Cross-check every job of testbed runs against its truth.json with tshark
only (independent of dmlscope): the payload bytes each rank sends to the
other ranks of its job, over the whole capture, against what the job's
kind says it must send.

  testbed/check_jobs.py RUN_OR_DATASET... [--tol 0.05]

Per rank, with S = gradient_bytes, N ranks, K = the job's steps:
  ring (Open MPI ring)                    K x 2(N-1)/N x S
  ring (DDP over Gloo)                    the same + S per child of the rank
                                          in Gloo's binomial broadcast tree
                                          (DDP's initial parameter broadcast)
  star, synchronous (RPC server)          worker K x S; server K x (N-1) x S
  butterfly (Open MPI Rabenseifner),      K x 2(N-1)/N x S (N a power of
                                          two; other N: not checked)
  pairwise, gossip (async)                its own pushes: rank_steps x S
  pairwise, pairavg (async)               its own requests and its answers
                                          to the others: (rank_steps +
                                          rank_served) x S; rank_served must
                                          equal how often the others chose it
                                          (rank_peers)
  star, aps (async)                       worker rank_steps x S; server
                                          (sum of the workers' steps + W) x S
                                          (an answer per push, and the
                                          initial parameters once per worker)
Bytes to hosts outside the job (another job on a shared host, the MPI
launcher) are not counted; the pairs of two jobs must not overlap (checked).
A rank passes when measured / expected is within 1 +- tol (framing +0.1 to
+0.3 %; MobileNetV2's BatchNorm buffers, broadcast by rank 0 at every
forward, about +2 % on rank 0).  The capture of a host
is the pcap its truth names; bridge runs are skipped (check_run.py and this
script read per-host captures).  Exit 0 when every rank passes.
"""
import argparse
import collections
import json
import os
import subprocess
import sys


def sent_bytes(pcap):
    """{(src, dst): TCP payload bytes} of a capture."""
    r = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", "tcp.len > 0", "-T", "fields",
                        "-e", "ip.src", "-e", "ip.dst", "-e", "tcp.len"],
                       capture_output=True, text=True, check=True)
    out = collections.Counter()
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if len(f) == 3 and f[2]:
            out[(f[0], f[1])] += int(f[2])
    return out


def tree_children(r, n):
    """Children of rank r in the binomial broadcast tree rooted at 0 (Gloo's:
    r + 2^k for every 2^k > r)."""
    out, k = [], 1
    while k < n:
        if k > r and r + k < n:
            out.append(r + k)
        k *= 2
    return out


def expected(j):
    """[expected bytes per rank] over the run, or None where no formula."""
    S, N, K = j["gradient_bytes"], j["ranks"], j["steps"]
    alg, kind = j.get("algorithm"), j["pattern"]
    if j.get("mode") == "asynchronous":
        steps = j["rank_steps"]
        if alg == "gossip":
            return [steps[r] * S for r in range(N)]
        if alg == "pairavg":
            if not j.get("rank_served"):  # runs made before it was recorded
                return [None] * N
            return [(steps[r] + j["rank_served"][r]) * S for r in range(N)]
        if alg == "aps":
            w = [s for s in steps if s is not None]
            return [(sum(w) + len(w)) * S if s is None else s * S for s in steps]
        return [None] * N
    if kind == "ring" and j["framework"] == "pytorch_ddp":
        # plus DDP's initial broadcast of the parameters from rank 0, along
        # Gloo's binomial tree: S to each child
        return [K * 2 * (N - 1) / N * S + len(tree_children(r, N)) * S for r in range(N)]
    if kind == "ring":
        return [K * 2 * (N - 1) / N * S] * N
    if kind == "star":
        return [K * (N - 1) * S if h["role"] == "server" else K * S for h in j["hosts"]]
    if kind == "butterfly" and not N & (N - 1) and j["framework"] == "mpi4py":
        return [K * 2 * (N - 1) / N * S] * N
    return [None] * N


def check_served(j):
    """pairavg: each rank served as often as the others chose it."""
    if j.get("algorithm") != "pairavg" or not j.get("rank_peers"):
        return []
    chosen = collections.Counter(p for ps in j["rank_peers"] for p in ps)
    return [f"rank {r} served {s}, chosen {chosen[r]} times"
            for r, s in enumerate(j["rank_served"]) if s != chosen[r]]


def check_run(run, tol):
    t = json.load(open(os.path.join(run, "truth.json")))
    if t.get("capture", {}).get("iface", "").startswith("br0"):
        return [], True
    jobs = t.get("jobs") or [t]
    pairs = {}
    caps = {}
    rows, ok = [], True
    for j in jobs:
        addrs = [h["addr"] for h in j["hosts"]]
        for a in addrs:
            for b in addrs:
                if a != b and pairs.setdefault((a, b), j.get("job", 0)) != j.get("job", 0):
                    rows.append(f"  FAIL pair {a} -> {b} in two jobs")
                    ok = False
        for err in check_served(j):
            rows.append("  FAIL " + err)
            ok = False
        exp = expected(j)
        for h, e in zip(j["hosts"], exp):
            if h["pcap"] not in caps:
                caps[h["pcap"]] = sent_bytes(os.path.join(run, h["pcap"]))
            got = sum(v for (s, d), v in caps[h["pcap"]].items()
                      if s == h["addr"] and d in addrs and d != h["addr"])
            if e is None:
                verdict, ratio = "n/a", "-"
            else:
                good = abs(got / e - 1) <= tol
                ok = ok and good
                verdict, ratio = ("ok" if good else "FAIL"), "%.3f" % (got / e)
            rows.append("  job %-2s %-9s %-12s rank %-2d %-7s %9.2f MB  expected %9s  %6s  %s" % (
                j.get("job", 0), j["pattern"], h["addr"], h["rank"], h["role"], got / 1e6,
                "-" if e is None else "%.2f MB" % (e / 1e6), ratio, verdict))
    return rows, ok


def main():
    ap = argparse.ArgumentParser(description="tshark cross-check of every job's truth")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--tol", type=float, default=0.05)
    a = ap.parse_args()
    runs = sorted({d for p in a.paths for d, _, fs in os.walk(p) if "truth.json" in fs})
    if not runs:
        print("check_jobs: no run (folder with truth.json) given", file=sys.stderr)
        return 2
    all_ok, n = True, 0
    for run in runs:
        rows, ok = check_run(run, a.tol)
        if not rows:
            continue
        n += 1
        print(("ok   " if ok else "FAIL ") + run)
        print("\n".join(rows))
        all_ok = all_ok and ok
    print(f"check_jobs: {n} runs checked, {'all pass' if all_ok else 'some FAIL'}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
