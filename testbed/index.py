#!/usr/bin/python3
"""Print an index of a testbed dataset: one paragraph per run folder (any
folder holding a truth.json), from its truth.json.

usage: index.py DATASET
"""
import json
import os
import sys


def job_line(j):
    hosts = " ".join(f"{h['addr']}{'(server)' if h['role'] == 'server' else ''}"
                     for h in j["hosts"])
    alg = j.get("algorithm") or j.get("mpi_allreduce_algorithm") or ""
    s = (f"  job {j.get('job', 0)}: {j['framework']} {alg} {j['model']} batch {j['batch']}, "
         f"{j['pattern']}/{j['ranks']}, {j.get('mode', 'synchronous')}, {j['steps']} steps, "
         f"S = {j['gradient_bytes'] / 1e6:.2f} MB; hosts {hosts}")
    if j.get("mode") == "asynchronous":
        means = ", ".join("-" if m is None else f"{m:.3f}" for m in j["rank_mean_step_s"])
        s += f"\n         each rank's mean step (s): {means}"
    else:
        s += f"\n         mean step {j['mean_step_s']:.3f} s (rank 0's log)"
    extra = []
    if j.get("bucket_cap_mb") not in (None, 25.0):
        extra.append(f"bucket_cap_mb {j['bucket_cap_mb']:g}")
    if (j.get("accumulation") or 1) > 1:
        extra.append(f"gradient accumulation x{j['accumulation']} (no_sync)")
    if j.get("straggler"):
        extra.append(f"straggler rank {j['straggler']['rank']} "
                     f"(+{j['straggler']['sleep_s_per_batch']} s per batch)")
    if j.get("launcher"):
        extra.append(f"launcher {j['launcher']['addr']} (mpirun, not a rank)")
    if extra:
        s += "; " + "; ".join(extra)
    return s


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    runs = sorted(d for d, _, fs in os.walk(root) if "truth.json" in fs)
    print(f"Testbed runs under {os.path.abspath(root)} (made by testbed/make-dataset.sh; "
          "each folder's truth.json holds the details)\n")
    for d in runs:
        t = json.load(open(os.path.join(d, "truth.json")))
        cap = t.get("capture", {})
        files = sorted(f for f in os.listdir(d) if f.endswith(".pcap"))
        where = ("bridge capture (switch mirror, every direction): " + ", ".join(files)
                 if cap.get("iface", "").startswith("br0")
                 else f"{len(files)} per-worker captures (tcpdump src <own addr>)")
        jobs = t.get("jobs") or [t]
        print(f"{os.path.relpath(d, root)}\n  {len(jobs)} job(s); {where}")
        for j in jobs:
            print(job_line(j))
        print()
    print(f"{len(runs)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
