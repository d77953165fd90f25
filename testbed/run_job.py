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

Several jobs at once (--job SPEC, repeated; see jobspec.py): every job on
its own hosts, a host may run ranks of two jobs (same address, different
ports); one capture per host, each job's train_history.log in job-<k>/.
--bridge-capture: also tcpdump on the bridge (the switch's mirror: every
direction, ARP and IPv6 neighbour discovery included) into a sibling run
folder <run>-bridge/ holding only bridge-tcpdump.pcap and the same truth.
Open MPI jobs (--framework mpi) are launched by mpirun from a host of their
own (198.18.1.<k+1>, no capture, not a rank) through an rsh agent that runs
Open MPI's daemon in the rank's namespace (with its own UTS namespace and
hostname h<i>).

Output: <out>/<framework>-<model>-adam-<batch>-<backend>-<delay>-<topology>/
with worker-<i>-tcpdump.pcap for every host, train_history.log (rank 0) and
truth.json (with "jobs": one entry per job; the top level is the largest
job's).  Exit status 0 on success, 1 when the job failed, 77 when this
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jobspec  # noqa: E402
from netbed import (IFACE, SUBNET_PREFIX, VXLAN_PORT, VXLAN_VNI, Testbed,  # noqa: E402
                    can_netns, cleanup_stale, underlay_addr)

PY = jobspec.PY
LAUNCHER_PREFIX = "198.18.1."


def loss_tag(p):
    if not p:
        return "normal"
    return f"loss_{p:g}"


def run_name(a):
    """The study's folder name of a single-job run (make-dataset.sh uses it)."""
    job = jobspec.Job(0, a.framework, range(max(2, a.ranks or 2)), model=a.model,
                      batch=a.batch, algorithm=getattr(a, "algorithm", None),
                      bucket_mb=getattr(a, "bucket_mb", None) or 25.0,
                      accum=getattr(a, "accum", None) or 1,
                      straggler=parse_straggler(getattr(a, "straggler", None)),
                      shards=getattr(a, "shards", None) or 1)
    return job.folder_name(loss_tag(a.loss))


def parse_straggler(v):
    if not v:
        return None
    r, s = v.split(":")
    return (int(r), float(s))


def agent_script(path, tb, ranks_hosts):
    """Open MPI's rsh agent: `agent HOST command...` runs the command (the
    daemon, orted) in HOST's namespace, as ssh would run it on HOST."""
    lines = ["#!/bin/sh", "# Open MPI plm_rsh_agent for the testbed: run in the host's netns",
             'host="$1"; shift', 'case "$host" in']
    for h in ranks_hosts:
        lines.append(f"  {tb.addrs[h]}) ns={tb.hosts[h]}; hn=h{h};;")
    lines += ['  *) echo "agent: unknown host $host" >&2; exit 1;;', "esac",
              'exec ip netns exec "$ns" unshare --uts sh -c "hostname $hn; $*"', ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    os.chmod(path, 0o755)


def start_job(tb, job, logdir, env, launcher_idx):
    """Start the ranks of one job; returns [(label, Popen)]."""
    os.makedirs(job.out, exist_ok=True)
    master = tb.addrs[job.hosts[0]]
    if job.framework != "mpi":
        return [(f"job {job.k} rank {r}",
                 tb.spawn(f"j{job.k}r{r}", h, job.rank_cmd(r, master),
                          os.path.join(logdir, f"job{job.k}-rank-{r}.log"), env=env))
                for r, h in enumerate(job.hosts)]
    hostfile = os.path.join(logdir, f"job{job.k}-hostfile")
    with open(hostfile, "w") as f:
        f.writelines(f"{tb.addrs[h]} slots=1\n" for h in job.hosts)
    agent = os.path.join(logdir, f"job{job.k}-agent.sh")
    agent_script(agent, tb, job.hosts)
    cmd = ["mpirun", "--hostfile", hostfile, "-np", str(job.ranks), "--map-by", "node",
           "--bind-to", "none", "--mca", "plm_rsh_agent", agent,
           "--mca", "plm_rsh_no_tree_spawn", "1", "--mca", "btl", "tcp,self",
           "--mca", "btl_tcp_if_include", IFACE, "--mca", "oob_tcp_if_include", IFACE,
           "--mca", "pml", "ob1"] + job.mpi_mca()
    for k in env:
        cmd += ["-x", k]
    cmd += job.rank_cmd(0, None)
    menv = dict(env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                PYTHONPATH=jobspec.HERE)
    return [(f"job {job.k} mpirun",
             tb.spawn(f"j{job.k}mpirun", launcher_idx, cmd,
                      os.path.join(logdir, f"job{job.k}-mpirun.log"), env=menv))]


def steps_logged(path):
    """Batch rows rank 0 has written (and flushed) to its train_history.log."""
    try:
        with open(path) as f:
            return sum(1 for line in f if line.startswith("Batch,"))
    except OSError:
        return 0


def start_watch(tb, dmlscope, run):
    """dmlscope watch on the bridge: br0 in promiscuous mode gets every
    frame the bridge forwards, so one capture holds every rank's packets."""
    wdir = os.path.join(run, "watch")
    os.makedirs(wdir)
    log = os.path.join(wdir, "watch.log")
    p = tb.spawn("watch", "sw", [
        os.path.abspath(dmlscope), "watch", "-i", "br0", "--snaplen", "100",
        "--interval", "0.5s", "--window", "2s", "-w", os.path.join(wdir, "watch.pcap"),
        "--json", os.path.join(wdir, "watch.json"),
        "--json-lines", os.path.join(wdir, "watch.jsonl")], log)
    deadline = time.time() + 10
    while not os.path.exists(os.path.join(wdir, "watch.pcap")):  # capturing from here on
        if p.poll() is not None or time.time() > deadline:
            raise RuntimeError("dmlscope watch did not start: " + open(log).read())
        time.sleep(0.05)
    time.sleep(0.2)
    return p


def stop_watch(p, run, status):
    """SIGINT, as Ctrl-C: the watch writes its summary and exits."""
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGINT)
    try:
        rc = p.wait(timeout=60)
    except Exception:
        rc = None
    if rc != 0:
        log = open(os.path.join(run, "watch", "watch.log")).read()
        print(f"run_job: dmlscope watch exited with {rc}: {log[-2000:]}", file=sys.stderr)
        return status or 1
    return status


def start_streams(tb, specs, nhosts, logdir):
    """--background SRC:DST:MBPS[:ON:OFF]: a receiver in DST's namespace, a
    paced sender in SRC's (testbed/stream.py; ON s sending, OFF s not, in
    turn); returns [(spec, sender, receiver)]."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    for i, spec in enumerate(specs):
        try:
            f = spec.split(":")
            if len(f) not in (3, 5):
                raise ValueError
            src, dst, mbps = int(f[0]), int(f[1]), float(f[2])
            duty = [float(x) for x in f[3:]]
        except ValueError:
            raise RuntimeError(f"--background '{spec}': SRC:DST:MBPS[:ON:OFF] expected")
        if not (0 <= src < nhosts and 0 <= dst < nhosts and src != dst and mbps > 0 and
                all(x > 0 for x in duty)):
            raise RuntimeError(f"--background '{spec}': two hosts of the run, a rate"
                               " (and seconds on and off)")
        port = 5201 + i
        rx = tb.spawn(f"stream-rx{i}", dst, [sys.executable, os.path.join(here, "stream.py"),
                                             "recv", str(port)],
                      os.path.join(logdir, f"stream-rx-{i}.log"))
        tx = tb.spawn(f"stream-tx{i}", src, [sys.executable, os.path.join(here, "stream.py"),
                                             "send", tb.addrs[dst], str(port), str(mbps)]
                      + [str(x) for x in duty],
                      os.path.join(logdir, f"stream-tx-{i}.log"))
        out.append(((src, dst, mbps, duty), tx, rx))
    return out


def stop_streams(tb, streams, logdir):
    """Stop the senders, then the receivers; the truth of each stream."""
    truth = []
    for i, ((src, dst, mbps, duty), tx, rx) in enumerate(streams):
        if tx.poll() is None:
            os.killpg(tx.pid, signal.SIGTERM)
        try:
            tx.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(tx.pid, signal.SIGKILL)
        try:
            rx.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(rx.pid, signal.SIGKILL)
        m = re.search(r"sent (\d+) bytes", open(os.path.join(logdir, f"stream-tx-{i}.log")).read())
        t = {"src": tb.addrs[src], "dst": tb.addrs[dst], "mbps": mbps,
             "payload_bytes": int(m.group(1)) if m else None,
             "note": "a steady TCP stream beside the jobs (testbed/stream.py), "
                     "not a job's traffic"}
        if duty:
            t["on_s"], t["off_s"] = duty
            t["note"] = ("a TCP stream beside the jobs, on_s seconds on and off_s off in "
                         "turn (testbed/stream.py), not a job's traffic")
        truth.append(t)
    return truth


def wait_jobs(procs, timeout, tick=None):
    deadline = time.time() + timeout
    while True:
        if tick:
            tick()
        codes = [p.poll() for _, p in procs]
        bad = [i for i, c in enumerate(codes) if c not in (None, 0)]
        if bad:
            return f"{procs[bad[0]][0]} exited with {codes[bad[0]]}"
        if all(c == 0 for c in codes):
            return None
        if time.time() > deadline:
            return f"timeout after {timeout:.0f} s"
        time.sleep(0.1)


def check_mpi_mapping(job, tb):
    """Each MPI rank must have run on the job's host of that rank."""
    for r, h in enumerate(job.hosts):
        p = os.path.join(job.out, f"rank-{r}-host.txt")
        got = open(p).read().split()[0] if os.path.exists(p) else None
        if got != f"h{h}":
            raise RuntimeError(f"job {job.k}: MPI rank {r} ran on {got}, not h{h}")
        os.unlink(p)


def build_jobs(a, ap):
    if a.job:
        defaults = {"model": a.model, "batch": a.batch, "steps": a.steps, "epochs": a.epochs}
        try:
            return [jobspec.parse_spec(k, s, defaults) for k, s in enumerate(a.job)]
        except ValueError as e:
            ap.error(str(e))
    try:
        return [jobspec.Job(0, a.framework, range(a.ranks), model=a.model, batch=a.batch,
                            steps=a.steps, epochs=a.epochs, algorithm=a.algorithm,
                            group=a.group, bucket_mb=a.bucket_mb, accum=a.accum,
                            straggler=parse_straggler(a.straggler), pace=a.pace,
                            shards=a.shards)]
    except ValueError as e:
        ap.error(str(e))


def parse_args():
    ap = argparse.ArgumentParser(description="run real DML jobs in network namespaces")
    ap.add_argument("--framework", choices=jobspec.FRAMEWORKS,
                    help="ddp: DDP over Gloo (ring); rpc: parameter server over TensorPipe "
                    "(star); manual: hand-made all-reduce with Gloo send/recv (--algorithm); "
                    "async: asynchronous jobs over torch RPC (--algorithm pairavg|gossip|aps); "
                    "mpi: mpi4py Allreduce over Open MPI (--algorithm default|ring|"
                    "recursive_doubling|rabenseifner|zero|rootreduce)")
    ap.add_argument("--algorithm", help="manual: butterfly|tree|hierarchical|pairwise|clique|"
                    "reducebcast|allgather; async: pairavg|gossip|aps; mpi: default|ring|"
                    "recursive_doubling|rabenseifner|zero|rootreduce")
    ap.add_argument("--group", type=int, default=4,
                    help="manual hierarchical: ranks per group (default 4)")
    ap.add_argument("--shards", type=int, default=1,
                    help="rpc: parameter servers, ranks 0..K-1, each keeping a shard of "
                    "the model (default 1)")
    ap.add_argument("--model", default="resnet18",
                    choices=["mobilenetv2", "resnet18", "resnet50", "tinycnn"])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--ranks", type=int, default=4,
                    help="hosts in the job (rpc, aps: 1 server + ranks-1 workers)")
    ap.add_argument("--steps", type=int, default=20, help="steps per epoch")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--bucket-mb", type=float, default=25.0, help="ddp: bucket_cap_mb")
    ap.add_argument("--accum", type=int, default=1,
                    help="ddp: micro-batches per optimizer step (gradient accumulation)")
    ap.add_argument("--straggler", help="RANK:SECONDS - that rank sleeps so long per batch")
    ap.add_argument("--pace", type=float, default=0.0,
                    help="async: rank r sleeps pace x (r+1) s per step (aps workers: pace x r)")
    ap.add_argument("--job", action="append",
                    help="one job of a multi-job run, 'framework=F,hosts=0-2[,model=..,"
                    "algorithm=..,batch=..,steps=..,epochs=..,bucket_mb=..,accum=..,"
                    "straggler=R:S,pace=P]' (repeat; needs --name)")
    ap.add_argument("--capture", choices=["src", "any"], default="src",
                    help="per host: src = tcpdump -i eth0 src <own addr> (the study's), "
                    "any = tcpdump -i any, no filter (both directions)")
    ap.add_argument("--bridge-capture", action="store_true",
                    help="also capture on the bridge (switch mirror) into <run>-bridge/")
    ap.add_argument("--overlay", choices=["vxlan"],
                    help="the hosts' network is a VXLAN overlay (netbed.py): jobs and "
                    "per-host captures on the overlay, the bridge carries it encapsulated; "
                    "folder name suffix -vxlan")
    ap.add_argument("--loss", type=float, default=0.0, help="packet loss in percent, every host")
    ap.add_argument("--background", action="append", default=[],
                    metavar="SRC:DST:MBPS[:ON:OFF]",
                    help="a steady TCP stream from host SRC to host DST (indexes from 0) at "
                    "MBPS Mbit/s while the jobs run (testbed/stream.py: a bulk transfer "
                    "beside the job); with ON:OFF, ON seconds sending and OFF seconds "
                    "not, in turn (a checkpoint written every so often); repeat for more")
    ap.add_argument("--out", default="dataset", help="parent folder of the run folder")
    ap.add_argument("--name", help="run folder name (default: the study's naming)")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--keep-logs", action="store_true", help="keep per-rank logs (rank-logs/)")
    ap.add_argument("--force", action="store_true", help="overwrite an existing run folder")
    ap.add_argument("--watch", metavar="DMLSCOPE",
                    help="also watch the job live: DMLSCOPE watch on the bridge (br0, in the "
                    "switch namespace, every rank's packets) from before the ranks start "
                    "to --watch-tail s after they end, writing watch/watch.pcap, "
                    "watch/watch.json, watch/watch.jsonl in the run folder")
    ap.add_argument("--watch-tail", type=float, default=1.5,
                    help="seconds the watch goes on after the job ended (default 1.5)")
    ap.add_argument("--kill-rank", type=int, metavar="I",
                    help="kill rank I of the (first) job (SIGKILL) once its train_history.log "
                    "holds --kill-after steps: a job that stops halfway (run_job then fails, "
                    "the watch is still stopped cleanly)")
    ap.add_argument("--kill-after", type=int, default=50, metavar="STEPS")
    a = ap.parse_args()
    if not a.job and not a.framework:
        ap.error("--framework or --job is required")
    if a.job and not a.name:
        ap.error("--job needs --name")
    if not a.job and not 2 <= a.ranks <= 8:
        ap.error("--ranks must be 2..8")
    return ap, a


def main():
    ap, a = parse_args()
    jobs = build_jobs(a, ap)
    # a stream's end in no job (a storage server) is a host of the run too
    bg_ends = [int(x) for spec in a.background for x in spec.split(":")[:2] if x.isdigit()]
    nhosts = max([h for j in jobs for h in j.hosts] + bg_ends) + 1
    if nhosts > 16:
        ap.error("at most 16 hosts")
    if os.geteuid() != 0:
        print("run_job: needs root (network namespaces, tcpdump)", file=sys.stderr)
        return 77
    ok, why = can_netns()
    if not ok:
        print(f"run_job: cannot create network namespaces here: {why}", file=sys.stderr)
        return 77
    tools = ["tcpdump", "nft", "ip"] + (["mpirun"] if any(j.framework == "mpi" for j in jobs)
                                         else []) + (["bridge"] if a.overlay else [])
    for tool in tools:
        if not shutil.which(tool):
            print(f"run_job: '{tool}' not found", file=sys.stderr)
            return 77
    cleanup_stale()

    name = a.name or (run_name(a) + ("-anyiface" if a.capture == "any" else "")
                      + (f"-{a.overlay}" if a.overlay else ""))
    run = os.path.abspath(os.path.join(a.out, name))
    bridge_run = run + "-bridge"
    for d in [run] + ([bridge_run] if a.bridge_capture else []):
        if os.path.exists(d):
            if not a.force:
                print(f"run_job: '{d}' exists (use --force)", file=sys.stderr)
                return 2
            shutil.rmtree(d)
    os.makedirs(run)
    logdir = os.path.join(run, "rank-logs")
    os.makedirs(logdir)
    for j in jobs:
        j.out = run if len(jobs) == 1 else os.path.join(run, f"job-{j.k}")

    addrs = [f"{SUBNET_PREFIX}{i + 1}" for i in range(nhosts)]
    launchers = {}  # job k -> host index of its mpirun
    for j in jobs:
        if j.framework == "mpi":
            launchers[j.k] = len(addrs)
            addrs.append(f"{LAUNCHER_PREFIX}{j.k + 1}")
    tb = Testbed(addrs, f"dtb{os.getpid()}", print, overlay=a.overlay)
    pcaps = [f"worker-{i}-tcpdump.pcap" for i in range(nhosts)]

    def on_signal(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    status = 1
    t0 = time.time()
    watch = None
    try:
        tb.up()
        tb.set_loss(a.loss, range(nhosts))
        if a.watch:
            watch = start_watch(tb, a.watch, run)
        # captures, exactly as the study: outgoing packets of this host only
        # (--capture any: everything on every interface, both directions)
        dumps = []
        tcpdump = ["tcpdump", "-s", "100", "-B", "16384", "-U", "--immediate-mode", "-Z", "root"]
        for i in range(nhosts):
            what = (["-i", IFACE, "src", tb.addrs[i]] if a.capture == "src" else ["-i", "any"])
            dumps.append((i, tb.spawn(f"tcpdump{i}", i, tcpdump + what + [
                "-w", os.path.join(run, pcaps[i])], os.path.join(logdir, f"tcpdump-{i}.log"))))
        if a.bridge_capture:  # the switch's mirror: br0 in promiscuous mode
            os.makedirs(bridge_run)
            dumps.append(("bridge", tb.spawn("tcpdump-bridge", "sw", tcpdump + [
                "-i", "br0", "-w", os.path.join(bridge_run, "bridge-tcpdump.pcap")],
                os.path.join(logdir, "tcpdump-bridge.log"))))
        for i, p in dumps:
            lp = os.path.join(logdir, f"tcpdump-{i}.log")
            deadline = time.time() + 10
            while "listening on" not in open(lp).read():
                if p.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"tcpdump on host {i} did not start: {open(lp).read()}")
                time.sleep(0.05)

        env = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "GLOO_SOCKET_IFNAME": IFACE, "TP_SOCKET_IFNAME": IFACE,
               "PYTHONUNBUFFERED": "1"}
        streams = start_streams(tb, a.background, nhosts, logdir)
        t_job = time.time()
        procs = []
        for j in jobs:
            procs += start_job(tb, j, logdir, env, launchers.get(j.k))
        victim = [p for label, p in procs if label == f"job 0 rank {a.kill_rank}"]

        def kill_halfway():
            if victim and victim[0].poll() is None and steps_logged(
                    os.path.join(jobs[0].out, "train_history.log")) >= a.kill_after:
                os.killpg(victim[0].pid, signal.SIGKILL)
        failed = wait_jobs(procs, a.timeout, kill_halfway if a.kill_rank is not None else None)
        t_job_end = time.time()
        background = stop_streams(tb, streams, logdir)
        if failed:
            for f in sorted(os.listdir(logdir)):
                if f.startswith("job"):
                    tail = open(os.path.join(logdir, f)).read().strip().splitlines()[-15:]
                    print(f"--- {f} (tail) ---\n" + "\n".join(tail), file=sys.stderr)
            raise RuntimeError(f"job failed: {failed}")
        for j in jobs:
            if j.framework == "mpi":
                check_mpi_mapping(j, tb)

        # Let the last ACKs and FINs reach the captures.  libpcap hands packets
        # to tcpdump in blocks; on SIGINT tcpdump does not drain a block that is
        # not yet retired, so wait (immediate mode is on as well).
        time.sleep(1.5)
        dropped = tb.nft_dropped(range(nhosts)) if a.loss else [(0, 0)] * nhosts
        cap_drops = {}
        for i, p in dumps:
            os.killpg(p.pid, signal.SIGINT)
        for i, p in dumps:
            p.wait(timeout=10)
            txt = open(os.path.join(logdir, f"tcpdump-{i}.log")).read()
            m = re.search(r"(\d+) packets dropped by kernel", txt)
            cap_drops[i] = int(m.group(1)) if m else None

        common = {
            "delay": loss_tag(a.loss),
            "loss_percent": a.loss,
            "loss_method": ("nftables bridge forward chain in the switch, per sender port: "
                            "'iifname p<i> numgen random mod 10000 < k drop'" if a.loss else None),
            "capture": {"tool": "tcpdump", "snaplen": 100,
                        "filter": "src <own addr>" if a.capture == "src" else None,
                        "iface": IFACE if a.capture == "src" else "any (Linux cooked, both "
                        "directions: every packet is in its sender's and its receiver's file)", "kernel_drops": [cap_drops[i] for i in range(nhosts)]},
            "overlay": ({"kind": a.overlay, "vni": VXLAN_VNI, "udp_port": VXLAN_PORT,
                         "underlay": [underlay_addr(x) for x in tb.addrs],
                         "note": "the bridge capture holds the encapsulated frames"}
                        if a.overlay else None),
            "job_wall_s": round(t_job_end - t_job, 3),
            "background": background,
            "command": " ".join(["testbed/run_job.py"] + sys.argv[1:]),
        }
        jts = []
        for j in jobs:
            launcher = None
            if j.k in launchers:
                launcher = {"addr": tb.addrs[launchers[j.k]], "role": "launcher", "rank": None,
                            "pcap": None,
                            "note": "mpirun (Open MPI's launcher): starts and watches the "
                                    "ranks' daemons over TCP; not a rank, not captured"}
            jt = jobspec.job_truth(j, tb.addrs, pcaps, run, launcher)
            jt.update({k: v for k, v in common.items() if k != "capture"})
            jt["nft_dropped"] = [dropped[h][0] for h in j.hosts]
            jt["nft_dropped_bytes"] = [dropped[h][1] for h in j.hosts]
            jts.append(jt)
        # the top level is the largest job's truth (today's readers), plus all jobs
        top = dict(max(jts, key=lambda t: (t["ranks"], -t["job"])))
        top.update(common)
        top["run"] = name
        top["jobs"] = jts
        top["hosts_all"] = [{"host": i, "addr": tb.addrs[i], "pcap": pcaps[i],
                             "jobs": [j.k for j in jobs if i in j.hosts]}
                            for i in range(nhosts)]
        with open(os.path.join(run, "truth.json"), "w") as f:
            json.dump(top, f, indent=1)
        if a.bridge_capture:
            bt = dict(top, run=os.path.basename(bridge_run))
            bt["capture"] = dict(common["capture"], iface="br0 (the bridge, promiscuous: "
                                 "a switch mirror port)", filter=None, file="bridge-tcpdump.pcap",
                                 kernel_drops=[cap_drops["bridge"]],
                                 per_worker_files="../" + name)
            with open(os.path.join(bridge_run, "truth.json"), "w") as f:
                json.dump(bt, f, indent=1)
            for j in jobs:  # the logs too, where the folder analysis looks
                src = os.path.join(j.out, "train_history.log")
                dst = os.path.join(bridge_run, os.path.relpath(src, run))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy(src, dst)
        if not a.keep_logs:
            shutil.rmtree(logdir)
        status = 0
        sz = sum(os.path.getsize(os.path.join(r, x)) for r, _, fs in os.walk(run) for x in fs)
        print(f"run_job: {name}: {len(jobs)} job(s), {nhosts} hosts, "
              + "; ".join(f"job {t['job']} {t['pattern']}/{t['ranks']} {t['steps']} steps "
                          f"{t['log_mean_step_s'] or 0:.3f} s/step" for t in jts)
              + f", total {time.time() - t0:.1f} s, {sz / 1e6:.2f} MB -> {run}")
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
