#!/usr/bin/python3
"""Cross-check testbed runs against their truth.json, with tshark only
(independent of dmlscope).

  testbed/check_run.py RUN_OR_DATASET... [--tol 0.10] [--matrix] [--table]

For every run folder (a folder holding truth.json; a dataset folder is
searched recursively) it reads each worker-<i>-tcpdump.pcap with tshark
(tcp.len = TCP payload bytes, so Ethernet/IP/TCP headers and the snap length do
not matter) and the Batch timestamps of train_history.log, then measures the
payload bytes each host sends per training step.

Per-step windows: the log's Batch rows give the end time t_k of step k on rank
0; window k is (t_{k-1}, t_k], k = 1..K-1.  Step 0 and everything before it
(rendezvous, DDP's initial parameter broadcast, the PS's first pull) are
excluded.  Measured = median over the windows; "mean" = all bytes in
(t_0, t_{K-1}] / (K-1) and "all/K" = every byte of the capture / K steps (set-up
included) are shown beside it.

Formulas (S = truth gradient_bytes = 4 x trainable parameters, N = ranks):
  ring (DDP/Gloo)  each rank sends 2(N-1)/N x S per step, to ONE neighbour
  star (PS/RPC)    each worker sends S to the server (push); the server sends
                   S to every worker (pull), W x S in all
  butterfly, tree, hierarchical (pytorch_manual: hand-made all-reduce over
                   Gloo send/recv) each rank sends what the algorithm's plan
                   says, truth.json expected_pair_bytes_per_step [src, dst,
                   bytes]: butterfly 2(N-1)/N x S per rank, S to the partner
                   at XOR distance N/2, S/2 at N/4, ... 2S/N at 1 (the
                   halving); tree S per edge each way; hierarchical group
                   rings + leader ring + a chain broadcast in each group
For the parameter server the log row is written by the server after the
update and before the replies, so each window holds the pull of step k-1 and
the push of step k: still S each way per worker.
  clique          (hand-made, KungFu's CLIQUE) S/N to every other rank, twice:
                   2(N-1)/N x S per rank
  pairwise         (hand-made pair averaging) S to the step's partner, which
                   changes every step: truth.json expected_pair_bytes_by_step
                   (the plan of each global step; expected_pair_bytes_per_step
                   is the mean over one round)
For the hand-made algorithms every expected pair is checked too: the median
bytes per step to that peer within tol of the plan (so a butterfly whose
partners do not halve fails); pairwise: only partners wait for each
other, so ranks drift by up to a step against rank 0's Batch times, and a
pair is checked over the whole capture against its plan summed over all
steps (the share too: bytes to any planned partner / all bytes).  A host
row shows its worst pair ratio.

A host passes when |measured/formula - 1| <= tol and at least 95 % of its
step bytes go to the expected peer(s).  Exit 0 when every run passes, 1
otherwise.
"""
import argparse
import bisect
import collections
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys


def tshark_packets(path, retrans=False):
    """[(time, src, dst, tcp_payload, retrans_flag)] for the TCP packets of a capture."""
    fields = ["frame.time_epoch", "ip.src", "ip.dst", "tcp.len"]
    if retrans:
        fields.append("tcp.analysis.retransmission")
    cmd = ["tshark", "-n", "-r", path, "-Y", "tcp", "-T", "fields", "-E", "separator=,"]
    if not retrans:
        cmd += ["-o", "tcp.analyze_sequence_numbers:FALSE"]
    for f in fields:
        cmd += ["-e", f]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"tshark failed on {path}: {r.stderr.strip()}")
    out = []
    for line in r.stdout.splitlines():
        p = line.split(",")
        if len(p) < 4 or not p[3]:
            continue
        out.append((float(p[0]), p[1], p[2], int(p[3]),
                    bool(p[4]) if retrans and len(p) > 4 else False))
    return out


def batch_times(path):
    t = []
    with open(path) as f:
        header = f.readline().strip()
        if header != "Type,ID,Timestamp,Loss,Accuracy":
            raise RuntimeError(f"{path}: unexpected header '{header}'")
        for line in f:
            p = line.strip().split(",")
            if p[0] == "Batch":
                t.append(float(p[2]))
    return t


def find_runs(paths):
    runs = []
    for p in paths:
        if os.path.isfile(os.path.join(p, "truth.json")):
            runs.append(p)
            continue
        for root, dirs, files in os.walk(p):
            dirs.sort()
            if "truth.json" in files:
                runs.append(root)
    return runs


def check_run(run, tol, show_matrix):
    truth = json.load(open(os.path.join(run, "truth.json")))
    S = truth["gradient_bytes"]
    N = truth["ranks"]
    pattern = truth["pattern"]
    hosts = truth["hosts"]
    addrs = [h["addr"] for h in hosts]
    idx = {a: i for i, a in enumerate(addrs)}
    t = batch_times(os.path.join(run, "train_history.log"))
    problems = []
    if len(t) != truth["steps"]:
        problems.append(f"log has {len(t)} Batch rows, truth says {truth['steps']} steps")
    if len(t) < 3:
        raise RuntimeError(f"{run}: too few steps ({len(t)}) to measure")
    K = len(t)
    lossy = bool(truth.get("loss_percent"))

    # per host: bytes per window per destination; tshark runs two at a time
    per = []  # per[i] = {"win": [Counter(dst->bytes)], "total": int, "pre": Counter, "retrans": int}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        caps = list(ex.map(lambda h: tshark_packets(os.path.join(run, h["pcap"]), retrans=lossy),
                           hosts))
    for h, pk in zip(hosts, caps):
        if not pk:
            problems.append(f"host {h['host']}: empty capture")
        foreign = sum(1 for p in pk if p[1] != h["addr"])
        if foreign:
            problems.append(f"host {h['host']}: {foreign} packets not from {h['addr']}")
        win = [collections.Counter() for _ in range(K - 1)]
        pre = collections.Counter()
        alld = collections.Counter()
        total = 0
        rtx = 0
        for ts, src, dst, n, rt in pk:
            total += n
            alld[dst] += n
            rtx += n if rt else 0
            k = bisect.bisect_left(t, ts)  # t[k-1] < ts <= t[k]
            if k == 0:
                pre[dst] += n
            elif k < K:
                win[k - 1][dst] += n
        per.append({"win": win, "total": total, "pre": pre, "all": alld, "retrans": rtx})

    rows = []
    ok_all = not problems
    pairs = None
    if truth.get("expected_pair_bytes_per_step"):
        pairs = collections.defaultdict(dict)  # src -> {dst addr: bytes}
        for src, dst, v in truth["expected_pair_bytes_per_step"]:
            pairs[src][addrs[dst]] = v
    by_step = None
    if truth.get("expected_pair_bytes_by_step"):
        by_step = []  # by_step[k][src] = {dst addr: bytes} in global step k
        for plan in truth["expected_pair_bytes_by_step"]:
            m = collections.defaultdict(dict)
            for src, dst, v in plan:
                m[src][addrs[dst]] = v
            by_step.append(m)
        if len(by_step) < K:
            problems.append(f"truth plans {len(by_step)} steps, the log has {K}")
            by_step = None
    for i, h in enumerate(hosts):
        role = h["role"]
        pair_worst = None
        if pairs is not None:
            formula = sum(pairs[i].values())
            peers = list(pairs[i])
        elif pattern == "ring":
            formula = 2 * (N - 1) / N * S
            peers = None  # the ring neighbour, found from the traffic
        elif role == "server":
            formula = truth["workers"] * S
            peers = [a for a in addrs if a != h["addr"]]
        else:
            formula = S
            peers = [truth["server"]]
        wins = per[i]["win"]
        sums = [sum(c.values()) for c in wins]
        med = statistics.median(sums)
        mean = sum(sums) / len(sums)
        agg = collections.Counter()
        for c in wins:
            agg.update(c)
        steady = sum(agg.values())
        if peers is None:
            top = agg.most_common(1)[0][0] if agg else None
            peers = [top] if top else []
        share = sum(agg[p] for p in peers) / steady if steady else 0.0
        if by_step is not None:
            # partners change every step and only partners wait for each
            # other, so the ranks drift apart by up to a step and rank 0's
            # Batch times do not bound another pair's exchange: each pair
            # is checked over the whole capture, against the sum of its
            # plan over all K steps
            want = collections.Counter()
            for k in range(K):
                want.update(by_step[k][i])
            got = per[i]["all"]
            share = sum(got[p] for p in want) / per[i]["total"] if per[i]["total"] else 0.0
        ratio = med / formula if formula else float("nan")
        ok = abs(ratio - 1) <= tol and share >= 0.95
        if by_step is not None:
            for p, v in sorted(want.items()):
                r = got[p] / v
                if pair_worst is None or abs(r - 1) > abs(pair_worst - 1):
                    pair_worst = r
                if abs(r - 1) > tol:
                    ok = False
                    problems.append(f"host {i} -> h{idx[p]}: {got[p] / 1e6:.3f} MB in the "
                                    f"capture, plan {v / 1e6:.3f} MB ({r:.3f})")
        elif pairs is not None:
            # every expected peer gets its bytes (butterfly: the halving)
            for p, want in sorted(pairs[i].items(), key=lambda x: -x[1]):
                got = statistics.median(c[p] for c in wins)
                r = got / want
                if pair_worst is None or abs(r - 1) > abs(pair_worst - 1):
                    pair_worst = r
                if abs(r - 1) > tol:
                    ok = False
                    problems.append(f"host {i} -> h{idx[p]}: {got / 1e6:.3f} MB per step, "
                                    f"plan {want / 1e6:.3f} MB ({r:.3f})")
        # the whole capture must hold at least every step's bytes (a capture
        # cut short at the end, e.g. tcpdump stopped too early, shows here)
        if per[i]["total"] < (1 - tol) * K * formula:
            ok = False
            problems.append(f"host {i}: capture holds {per[i]['total'] / (K * formula):.3f} x "
                            f"steps x formula (truncated?)")
        if pattern == "star" and role == "server":
            # every worker gets its S, not just the sum
            for p in peers:
                r = agg[p] / (K - 1) / S
                if abs(r - 1) > tol:
                    ok = False
                    problems.append(f"server -> {p}: {r:.3f} x S per step")
        ok_all &= ok
        rows.append({
            "host": i, "addr": h["addr"], "role": role,
            "peer": (",".join(f"h{idx[p]}" for p in peers if p in idx)
                     if len(peers) < 3 or pairs is not None else "all workers"),
            "pair_worst": pair_worst,
            "measured": med, "mean": mean, "formula": formula, "ratio": ratio,
            "share": share, "total": per[i]["total"], "tot_step": per[i]["total"] / K, "retrans": per[i]["retrans"], "ok": ok})
    res = {"run": run, "truth": truth, "rows": rows, "problems": problems, "ok": ok_all,
           "steps": K, "per": per, "addrs": addrs}
    if show_matrix:
        res["matrix"] = True
    return res


def fmt_mb(x):
    return f"{x / 1e6:9.3f}"


def print_run(res, show_matrix):
    tr = res["truth"]
    print(f"== {res['run']}")
    print(f"   {tr['framework']}/{tr['backend']} {tr['model']} batch {tr['batch']} "
          f"ranks {tr['ranks']} steps {tr['steps']} S = {tr['gradient_bytes']} B "
          f"({tr['trainable_params']} params) pattern {tr['pattern']} {tr['delay']}"
          + (f" nft dropped {tr.get('nft_dropped')}" if tr.get("loss_percent") else ""))
    print(f"   {'host':<4} {'addr':<13} {'role':<6} {'peer':<12} {'MB/step':>9} "
          f"{'mean':>9} {'all/K':>9} {'formula':>9} {'ratio':>6} {'share':>6}  rtx MB  ok")
    for r in res["rows"]:
        print(f"   h{r['host']:<3} {r['addr']:<13} {r['role']:<6} {r['peer']:<12} "
              f"{fmt_mb(r['measured'])} {fmt_mb(r['mean'])} {fmt_mb(r['tot_step'])} {fmt_mb(r['formula'])} "
              f"{r['ratio']:6.3f} {r['share']:6.3f} {r['retrans'] / 1e6:7.3f}  "
              f"{'ok' if r['ok'] else 'FAIL'}"
              + (f"  worst pair {r['pair_worst']:.3f}" if r.get("pair_worst") else ""))
    for p in res["problems"]:
        print(f"   problem: {p}")
    if show_matrix:
        addrs = res["addrs"]
        n = len(addrs)
        for label, get in (("before step 0 (setup, initial broadcast/pull)", lambda q: q["pre"]),
                           ("steady state, per step", None)):
            print(f"   payload matrix MB, {label}: row = source, column = destination")
            for i, q in enumerate(res["per"]):
                if get:
                    c = get(q)
                    vals = [c[a] / 1e6 for a in addrs]
                else:
                    c = collections.Counter()
                    for w in q["win"]:
                        c.update(w)
                    vals = [c[a] / 1e6 / len(q["win"]) for a in addrs]
                print(f"     h{i} " + " ".join(f"{v:8.3f}" for v in vals))


TABLE_HEADER = ("| run | ranks | steps | S MB | worker MB/step (median) | formula MB | "
                "worker ratio min-max | server MB/step measured / formula (ratio) | s/step | check |\n"
                "|---|---|---|---|---|---|---|---|---|---|")


def table_line(res):
    tr = res["truth"]
    ws = [r for r in res["rows"] if r["role"] == "worker"]
    sv = [r for r in res["rows"] if r["role"] == "server"]
    wr = [r["ratio"] for r in ws]
    line = (f"| {res['run']} | {tr['ranks']} | {tr['steps']} | "
            f"{tr['gradient_bytes'] / 1e6:.3f} | {statistics.median(r['measured'] for r in ws) / 1e6:.3f} | "
            f"{statistics.median(r['formula'] for r in ws) / 1e6:.3f} | "
            f"{min(wr):.3f}-{max(wr):.3f} | ")
    if sv:
        line += f"{sv[0]['measured'] / 1e6:.3f} / {sv[0]['formula'] / 1e6:.3f} ({sv[0]['ratio']:.3f}) | "
    else:
        line += "- | "
    line += f"{tr.get('mean_step_s', 0):.3f} | {'ok' if res['ok'] else 'FAIL'} |"
    return line


def main():
    ap = argparse.ArgumentParser(description="check testbed runs against truth.json with tshark")
    ap.add_argument("paths", nargs="+", help="run folders or dataset folders")
    ap.add_argument("--tol", type=float, default=0.10,
                    help="allowed relative error of the per-step median (default 0.10)")
    ap.add_argument("--matrix", action="store_true", help="print payload matrices")
    ap.add_argument("--table", action="store_true", help="print a markdown summary table at the end")
    ap.add_argument("--table-rows", metavar="FILE", help="append each run's table row to FILE")
    a = ap.parse_args()
    runs = find_runs(a.paths)
    if not runs:
        print("check_run: no run folder (with truth.json) found", file=sys.stderr)
        return 1
    results = []
    bad = 0
    for run in runs:
        try:
            res = check_run(run, a.tol, a.matrix)
        except Exception as e:  # report and go on with the other runs
            print(f"== {run}\n   error: {e}")
            bad += 1
            continue
        print_run(res, a.matrix)
        results.append(res)
        bad += not res["ok"]
    if a.table and results:
        print()
        print(TABLE_HEADER)
        for res in results:
            print(table_line(res))
    if a.table_rows:
        with open(a.table_rows, "a") as f:
            for res in results:
                f.write(table_line(res) + "\n")
    print(f"check_run: {len(runs) - bad}/{len(runs)} runs pass")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
