#!/usr/bin/python3
"""Run one real distributed training job between network namespaces and
capture it like the study did.

  testbed/run_job.py --framework ddp --model resnet18 --batch 16 --ranks 4 \
      --steps 15 [--loss 0.1] --out dataset/n4

Topology (all created fresh per run, named dtb<pid>-*, removed afterwards):

    netns dtb<pid>-sw:  bridge br0, veth ports p0..p<N-1>
    netns dtb<pid>-h<i>: eth0 = 198.18.0.<i+1>/15, one rank of the job

The bridge lives in its own namespace, so nothing on the machine's own network
is touched and several runs can go on at the same time.  On each host:
`tcpdump -i eth0 -s 100 src <own address> -w worker-<i>-tcpdump.pcap`, as in
the study.

Packet loss (`--loss P`, percent): this kernel has no netem, so packets are
dropped at random with nftables, in the switch namespace, on each host's
bridge port (bridge family, forward hook):

    table bridge dmltb { chain lossy { type filter hook forward priority 0;
        iifname "p<i>" numgen random mod 10000 < P*100 counter drop } }

That is a loss on the wire: TCP believes the packet was sent, times out or
gets duplicate ACKs, and retransmits.  (A drop in the sender's own
output/postrouting chain is not: the kernel returns an error to TCP, which
simply sends the segment again later; measured: 52 drops, no retransmission
worth the name on the wire.)  The sender's capture holds the lost original
and its retransmission.  A GSO/TSO super-packet counts as one packet, as it
does for netem on a host with segmentation offload.  The rule counters go
to truth.json (nft_dropped, nft_dropped_bytes).

Output: <out>/<framework>-<model>-adam-<batch>-<backend>-<delay>-<topology>/
with worker-<i>-tcpdump.pcap for every host, train_history.log (rank 0) and
truth.json.  Exit status 0 on success, 1 when the job failed, 77 when this
machine cannot create network namespaces.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
SUBNET_PREFIX = "198.18.0."
PREFIXLEN = 15
IFACE = "eth0"


def sh(*cmd, check=True, quiet=False, input=None):
    r = subprocess.run(cmd, input=input, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr.strip()}")
    return r


def model_tag(m):
    return m  # mobilenetv2, resnet18, resnet50, tinycnn


def loss_tag(p):
    if not p:
        return "normal"
    s = f"{p:g}"
    return f"loss_{s}"


def run_name(a):
    fw = {"ddp": "pytorch_ddp", "rpc": "pytorch_rpc", "manual": "pytorch_manual"}[a.framework]
    backend = "tensorpipe" if a.framework == "rpc" else "gloo"
    topo = {"ddp": "ring", "rpc": "star"}.get(a.framework) or getattr(a, "algorithm", None) \
        or "butterfly"
    return f"{fw}-{model_tag(a.model)}-adam-{a.batch}-{backend}-{loss_tag(a.loss)}-{topo}"


class Testbed:
    def __init__(self, n, tag, log):
        self.n = n
        self.tag = tag
        self.sw = f"{tag}-sw"
        self.hosts = [f"{tag}-h{i}" for i in range(n)]
        self.addrs = [f"{SUBNET_PREFIX}{i + 1}" for i in range(n)]
        self.procs = []  # (name, Popen) of everything we started
        self.made_ns = []
        self.log = log

    # -- namespaces and bridge
    def up(self):
        sh("ip", "netns", "add", self.sw)
        self.made_ns.append(self.sw)
        sh("ip", "-n", self.sw, "link", "set", "lo", "up")
        sh("ip", "-n", self.sw, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.sw, "link", "set", "br0", "up")
        for i, (ns, addr) in enumerate(zip(self.hosts, self.addrs)):
            sh("ip", "netns", "add", ns)
            self.made_ns.append(ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", self.sw, "link", "add", f"p{i}", "type", "veth",
               "peer", "name", IFACE, "netns", ns)
            sh("ip", "-n", self.sw, "link", "set", f"p{i}", "master", "br0")
            sh("ip", "-n", self.sw, "link", "set", f"p{i}", "up")
            sh("ip", "-n", ns, "addr", "add", f"{addr}/{PREFIXLEN}", "dev", IFACE)
            sh("ip", "-n", ns, "link", "set", IFACE, "up")
        # wait until every host reaches every other (bridge ports forwarding)
        deadline = time.time() + 10
        for i, ns in enumerate(self.hosts):
            peer = self.addrs[(i + 1) % self.n]
            while not self.reachable(ns, peer):
                if time.time() > deadline:
                    raise RuntimeError(f"{ns} cannot reach {peer}")
                time.sleep(0.2)

    @staticmethod
    def reachable(ns, addr):
        """A TCP connect to a closed port: 'refused' means the peer answered."""
        r = sh("ip", "netns", "exec", ns, "timeout", "2", "bash", "-c",
               f"exec 3<>/dev/tcp/{addr}/9", check=False)
        return r.returncode == 0 or "refused" in r.stderr

    def set_loss(self, percent):
        """Drop P % of each host's packets on the wire: in the switch
        namespace, bridge family, per ingress port (after the sender's
        tcpdump saw the packet, before the receiver)."""
        k = int(round(percent * 100))  # out of 10000
        if k <= 0:
            return
        rules = ["table bridge dmltb {", "  chain lossy {",
                 "    type filter hook forward priority 0; policy accept;"]
        rules += [f'    iifname "p{i}" numgen random mod 10000 < {k} counter drop'
                  for i in range(self.n)]
        rules += ["  }", "}", ""]
        sh("ip", "netns", "exec", self.sw, "nft", "-f", "-", input="\n".join(rules))

    def nft_dropped(self):
        """[(packets, bytes)] dropped per host, from the rule counters."""
        r = sh("ip", "netns", "exec", self.sw, "nft", "list", "table", "bridge", "dmltb")
        got = {}
        for m in re.finditer(r'iifname "p(\d+)".*?counter packets (\d+) bytes (\d+)', r.stdout):
            got[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
        return [got.get(i, (None, None)) for i in range(self.n)]

    def spawn(self, name, i, cmd, logpath, env=None):
        f = open(logpath, "w")
        full = ["ip", "netns", "exec", self.hosts[i]]
        if env:
            full += ["env"] + [f"{k}={v}" for k, v in env.items()]
        p = subprocess.Popen(full + cmd, stdout=f, stderr=subprocess.STDOUT,
                             start_new_session=True)
        f.close()
        self.procs.append((name, p))
        return p

    def kill_all(self, sig=signal.SIGKILL):
        for name, p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass

    def down(self):
        self.kill_all(signal.SIGKILL)
        for name, p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for ns in reversed(self.made_ns):
            sh("ip", "netns", "del", ns, check=False)
        self.made_ns = []


def cleanup_stale():
    """Remove namespaces left by a testbed run whose process is gone."""
    r = sh("ip", "netns", "list", check=False)
    for line in r.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        m = re.match(r"dtb(\d+)-", name)
        if m and not os.path.exists(f"/proc/{m.group(1)}"):
            sh("ip", "netns", "del", name, check=False)


def can_netns():
    probe = f"dtbprobe{os.getpid()}"
    r = sh("ip", "netns", "add", probe, check=False)
    if r.returncode != 0:
        return False, r.stderr.strip()
    sh("ip", "netns", "del", probe, check=False)
    return True, ""


def steps_logged(run):
    """Batch rows rank 0 has written (and flushed) to train_history.log."""
    try:
        with open(os.path.join(run, "train_history.log")) as f:
            return sum(1 for line in f if line.startswith("Batch,"))
    except OSError:
        return 0


def start_watch(tb, dmlscope, run):
    """dmlscope watch on the bridge: br0 in promiscuous mode gets every
    frame the bridge forwards, so one capture holds every rank's packets."""
    wdir = os.path.join(run, "watch")
    os.makedirs(wdir)
    cmd = ["ip", "netns", "exec", tb.sw, os.path.abspath(dmlscope), "watch", "-i", "br0",
           "--snaplen", "100", "--interval", "0.5s", "--window", "2s",
           "-w", os.path.join(wdir, "watch.pcap"), "--json", os.path.join(wdir, "watch.json"),
           "--json-lines", os.path.join(wdir, "watch.jsonl")]
    log = open(os.path.join(wdir, "watch.log"), "w")
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    deadline = time.time() + 10
    while not os.path.exists(os.path.join(wdir, "watch.pcap")):  # capturing from here on
        if p.poll() is not None or time.time() > deadline:
            raise RuntimeError("dmlscope watch did not start: "
                               + open(os.path.join(wdir, "watch.log")).read())
        time.sleep(0.05)
    time.sleep(0.2)
    tb.procs.append(("watch", p))
    return p


def stop_watch(p, run, status):
    """SIGINT, as Ctrl-C: the watch writes its summary and exits."""
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGINT)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        rc = None
    if rc != 0:
        log = open(os.path.join(run, "watch", "watch.log")).read()
        print(f"run_job: dmlscope watch exited with {rc}: {log[-2000:]}", file=sys.stderr)
        return status or 1
    return status


def main():
    ap = argparse.ArgumentParser(description="run one real DML job in network namespaces")
    ap.add_argument("--framework", choices=["ddp", "rpc", "manual"], required=True,
                    help="ddp: DDP over Gloo (ring); rpc: parameter server over TensorPipe "
                    "(star); manual: hand-made all-reduce with Gloo send/recv (--algorithm)")
    ap.add_argument("--algorithm", choices=["butterfly", "tree", "hierarchical",
                                            "pairwise", "clique"],
                    default="butterfly",
                    help="manual: butterfly (recursive halving/doubling; N not a power of two: "
                    "MPICH's extra ranks folded onto odd partners), tree (binary "
                    "tree reduce + broadcast), hierarchical (rings in groups, leaders across), "
                    "pairwise (KungFu-style pair averaging: the model swapped with a partner "
                    "that changes every step), clique (direct reduce-scatter + all-gather "
                    "over all pairs, KungFu's CLIQUE)")
    ap.add_argument("--group", type=int, default=4,
                    help="manual hierarchical: ranks per group (default 4)")
    ap.add_argument("--model", default="resnet18",
                    choices=["mobilenetv2", "resnet18", "resnet50", "tinycnn"])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--ranks", type=int, default=4,
                    help="hosts in the job (rpc: 1 server + ranks-1 workers)")
    ap.add_argument("--steps", type=int, default=20, help="steps per epoch")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--loss", type=float, default=0.0, help="packet loss in percent, every host")
    ap.add_argument("--out", default="dataset", help="parent folder of the run folder")
    ap.add_argument("--name", help="run folder name (default: the study's naming)")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--keep-logs", action="store_true", help="keep per-rank logs (rank-<i>.log)")
    ap.add_argument("--force", action="store_true", help="overwrite an existing run folder")
    ap.add_argument("--watch", metavar="DMLSCOPE",
                    help="also watch the job live: DMLSCOPE watch on the bridge (br0, in the "
                    "switch namespace, every rank's packets) from before the ranks start "
                    "to --watch-tail s after they end, writing watch/watch.pcap, "
                    "watch/watch.json, watch/watch.jsonl in the run folder")
    ap.add_argument("--watch-tail", type=float, default=1.5,
                    help="seconds the watch goes on after the job ended (default 1.5)")
    ap.add_argument("--kill-rank", type=int, metavar="I",
                    help="kill rank I (SIGKILL) once train_history.log holds --kill-after "
                    "steps: a job that stops halfway (run_job then fails, the watch is still "
                    "stopped cleanly)")
    ap.add_argument("--kill-after", type=int, default=50, metavar="STEPS")
    a = ap.parse_args()

    if not 2 <= a.ranks <= 8:
        ap.error("--ranks must be 2..8")
    if a.framework == "rpc" and a.ranks < 2:
        ap.error("rpc needs a server and at least one worker")
    if a.framework == "manual" and a.algorithm == "hierarchical" and (
            a.group < 2 or a.ranks % a.group or a.ranks // a.group < 2):
        ap.error("hierarchical needs ranks = k x group, k >= 2")
    if os.geteuid() != 0:
        print("run_job: needs root (network namespaces, tcpdump)", file=sys.stderr)
        return 77
    ok, why = can_netns()
    if not ok:
        print(f"run_job: cannot create network namespaces here: {why}", file=sys.stderr)
        return 77
    for tool in ("tcpdump", "nft", "ip"):
        if not shutil.which(tool):
            print(f"run_job: '{tool}' not found", file=sys.stderr)
            return 77
    cleanup_stale()

    name = a.name or run_name(a)
    run = os.path.abspath(os.path.join(a.out, name))
    if os.path.exists(run):
        if not a.force:
            print(f"run_job: '{run}' exists (use --force)", file=sys.stderr)
            return 2
        shutil.rmtree(run)
    os.makedirs(run)
    logdir = os.path.join(run, "rank-logs")
    os.makedirs(logdir)

    tb = Testbed(a.ranks, f"dtb{os.getpid()}", print)

    def on_signal(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    status = 1
    t0 = time.time()
    watch = None
    try:
        tb.up()
        tb.set_loss(a.loss)
        if a.watch:
            watch = start_watch(tb, a.watch, run)
        # captures, exactly as the study: outgoing packets of this host only
        dumps = []
        for i in range(a.ranks):
            pcap = os.path.join(run, f"worker-{i}-tcpdump.pcap")
            p = tb.spawn(f"tcpdump{i}", i,
                         ["tcpdump", "-i", IFACE, "-s", "100", "-B", "16384", "-U", "--immediate-mode",
                          "-Z", "root", "-w", pcap, "src", tb.addrs[i]],
                         os.path.join(logdir, f"tcpdump-{i}.log"))
            dumps.append(p)
        for i in range(a.ranks):
            lp = os.path.join(logdir, f"tcpdump-{i}.log")
            deadline = time.time() + 10
            while "listening on" not in open(lp).read():
                if dumps[i].poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"tcpdump on host {i} did not start: {open(lp).read()}")
                time.sleep(0.05)

        env = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "GLOO_SOCKET_IFNAME": IFACE, "TP_SOCKET_IFNAME": IFACE,
               "PYTHONUNBUFFERED": "1"}
        kind = {"ddp": "ddp", "rpc": "ps", "manual": "manual"}[a.framework]
        jobs = []
        t_job = time.time()
        for i in range(a.ranks):
            cmd = [PY, os.path.join(HERE, "job.py"), "--kind", kind, "--rank", str(i),
                   "--world", str(a.ranks), "--master", tb.addrs[0],
                   "--model", a.model, "--batch", str(a.batch), "--steps", str(a.steps),
                   "--epochs", str(a.epochs), "--out", run]
            if kind == "manual":
                cmd += ["--algorithm", a.algorithm, "--group", str(a.group)]
            jobs.append(tb.spawn(f"rank{i}", i, cmd, os.path.join(logdir, f"rank-{i}.log"),
                                 env=env))
        deadline = time.time() + a.timeout
        failed = None
        while True:
            if a.kill_rank is not None and jobs[a.kill_rank].poll() is None \
                    and steps_logged(run) >= a.kill_after:
                os.killpg(jobs[a.kill_rank].pid, signal.SIGKILL)
            codes = [p.poll() for p in jobs]
            bad = [i for i, c in enumerate(codes) if c not in (None, 0)]
            if bad:
                failed = f"rank {bad[0]} exited with {codes[bad[0]]}"
                break
            if all(c == 0 for c in codes):
                break
            if time.time() > deadline:
                failed = f"timeout after {a.timeout:.0f} s"
                break
            time.sleep(0.1)
        t_job_end = time.time()
        if failed:
            for i in range(a.ranks):
                lp = os.path.join(logdir, f"rank-{i}.log")
                tail = open(lp).read().strip().splitlines()[-15:]
                print(f"--- rank {i} log (tail) ---\n" + "\n".join(tail), file=sys.stderr)
            raise RuntimeError(f"job failed: {failed}")

        # Let the last ACKs and FINs reach the captures.  libpcap hands packets
        # to tcpdump in blocks; on SIGINT tcpdump does not drain a block that is
        # not yet retired, so wait (immediate mode is on as well).
        time.sleep(1.5)
        dropped = tb.nft_dropped() if a.loss else [(0, 0)] * a.ranks
        cap_drops = []
        for p in dumps:
            os.killpg(p.pid, signal.SIGINT)
        for i, p in enumerate(dumps):
            p.wait(timeout=10)
            txt = open(os.path.join(logdir, f"tcpdump-{i}.log")).read()
            m = re.search(r"(\d+) packets dropped by kernel", txt)
            cap_drops.append(int(m.group(1)) if m else None)

        jt_path = os.path.join(run, "job-truth.json")
        truth = json.load(open(jt_path))
        os.unlink(jt_path)
        servers = [0] if a.framework == "rpc" else []
        truth.update({
            "run": name,
            "delay": loss_tag(a.loss),
            "loss_percent": a.loss,
            "loss_method": ("nftables bridge forward chain in the switch, per sender port: "
                            "'iifname p<i> numgen random mod 10000 < k drop'" if a.loss else None),
            "nft_dropped": [d[0] for d in dropped],
            "nft_dropped_bytes": [d[1] for d in dropped],
            "hosts": [{"host": i, "addr": tb.addrs[i], "rank": i,
                       "role": "server" if i in servers else "worker",
                       "pcap": f"worker-{i}-tcpdump.pcap"} for i in range(a.ranks)],
            "server": tb.addrs[0] if servers else None,
            "capture": {"tool": "tcpdump", "snaplen": 100, "filter": "src <own addr>",
                        "iface": IFACE, "kernel_drops": cap_drops},
            "job_wall_s": round(t_job_end - t_job, 3),
            "command": " ".join(["testbed/run_job.py"] + sys.argv[1:]),
        })
        st = truth.get("step_times") or []
        if len(st) > 1:
            truth["mean_step_s"] = (st[-1] - st[0]) / (len(st) - 1)
        # expected payload bytes per step, the formulas of doc/analysis.md
        S, N = truth["gradient_bytes"], a.ranks
        if a.framework == "ddp":
            truth["expected_tx_bytes_per_step"] = {"worker": 2 * (N - 1) / N * S}
        elif a.framework == "manual":
            # from the algorithm's plan (job.expected_pairs): exact slice sizes
            per = [0] * N
            for s, d, v in truth["expected_pair_bytes_per_step"]:
                per[s] += v
            truth["expected_tx_bytes_per_rank"] = per
            if (a.algorithm == "butterfly" and not N & (N - 1)) or a.algorithm == "clique":
                truth["expected_tx_bytes_per_step"] = {"worker": 2 * (N - 1) / N * S}
            elif a.algorithm == "pairwise" and N % 2 == 0:  # S to the step's partner
                truth["expected_tx_bytes_per_step"] = {"worker": S}
            else:  # differs per rank (tree, hierarchical, butterfly with
                # N not a power of two, pairwise with byes): see
                # expected_tx_bytes_per_rank
                truth["expected_tx_bytes_per_step"] = None
        else:
            W = N - 1
            truth["expected_tx_bytes_per_step"] = {"worker": S, "server": W * S}
        with open(os.path.join(run, "truth.json"), "w") as f:
            json.dump(truth, f, indent=1)
        if not a.keep_logs:
            shutil.rmtree(logdir)
        status = 0
        sz = sum(os.path.getsize(os.path.join(run, x)) for x in os.listdir(run)
                 if os.path.isfile(os.path.join(run, x)))
        print(f"run_job: {name}: {a.ranks} hosts, {truth['steps']} steps, "
              f"{truth.get('mean_step_s', 0):.3f} s/step, job {t_job_end - t_job:.1f} s, "
              f"total {time.time() - t0:.1f} s, {sz / 1e6:.2f} MB -> {run}")
    except KeyboardInterrupt as e:
        print(f"run_job: interrupted ({e}), cleaning up", file=sys.stderr)
        status = 130
    except Exception as e:
        print(f"run_job: {name}: {e}", file=sys.stderr)
        status = 1
    finally:
        if watch:
            time.sleep(a.watch_tail)
            status = stop_watch(watch, run, status)
        tb.down()
    if status != 0:
        print(f"run_job: logs kept in {logdir}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
