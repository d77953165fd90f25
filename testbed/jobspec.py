"""What one job of a testbed run is (framework, hosts, options), how its
ranks are started, and the truth.json entry it gets (used by run_job.py).

A run holds one or more jobs.  Each job runs on a list of hosts (namespace
indices; rank r on hosts[r]); two jobs may share a host, which then runs a
rank of each with the SAME address and different ports (each job its own
rendezvous port, 29500 + 100 x job; Gloo and TensorPipe take ephemeral ports
for their connections).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"

FRAMEWORKS = ["ddp", "rpc", "manual", "async", "mpi"]
ALGORITHMS = {"manual": ["butterfly", "tree", "hierarchical", "pairwise", "clique",
                         "reducebcast", "allgather"],
              "async": ["pairavg", "gossip", "aps"],
              "mpi": ["default", "ring", "recursive_doubling", "rabenseifner", "zero",
                      "rootreduce"]}
# Open MPI 4.1 coll_tuned_allreduce_algorithm numbers (ompi_coll_tuned
# allreduce_algorithms table) and the pattern each one draws on the wire
MPI_ALG = {"ring": (4, "ring"), "recursive_doubling": (3, "butterfly"),
           "rabenseifner": (6, "butterfly")}
FW_FOLDER = {"ddp": "pytorch_ddp", "rpc": "pytorch_rpc", "manual": "pytorch_manual",
             "async": "pytorch_async", "mpi": "mpi4py"}


class Job:
    def __init__(self, k, framework, hosts, model="tinycnn", batch=32, steps=12, epochs=3,
                 algorithm=None, group=4, bucket_mb=25.0, accum=1, straggler=None,
                 pace=0.0, shards=1):
        if framework not in FRAMEWORKS:
            raise ValueError(f"framework '{framework}' (one of {', '.join(FRAMEWORKS)})")
        algs = ALGORITHMS.get(framework)
        if algs and (algorithm or algs[0]) not in algs:
            raise ValueError(f"{framework}: algorithm '{algorithm}' (one of {', '.join(algs)})")
        self.k = k
        self.framework = framework
        self.algorithm = (algorithm or algs[0]) if algs else None
        self.hosts = list(hosts)
        self.ranks = len(self.hosts)
        self.model, self.batch, self.steps, self.epochs = model, batch, steps, epochs
        self.group, self.bucket_mb, self.accum = group, bucket_mb, accum
        self.straggler = straggler  # (rank, seconds) or None
        self.pace = pace
        self.shards = shards if framework == "rpc" else 1
        self.port = 29500 + 100 * k
        self.out = None  # the folder its ranks write into (set by run_job)
        if self.ranks < 2 or len(set(self.hosts)) != self.ranks:
            raise ValueError(f"job {k}: needs 2 or more distinct hosts, got {self.hosts}")
        if framework == "manual" and self.algorithm == "hierarchical" and (
                group < 2 or self.ranks % group or self.ranks // group < 2):
            raise ValueError("hierarchical needs ranks = k x group, k >= 2")

    @property
    def kind(self):
        """job.py --kind"""
        if self.framework == "async":
            return self.algorithm
        return {"ddp": "ddp", "rpc": "ps", "manual": "manual", "mpi": "mpi"}[self.framework]

    @property
    def asynchronous(self):
        return self.framework == "async"

    def servers(self):
        """Ranks that are a server (parameter servers: rank 0)."""
        if self.framework == "rpc":
            return list(range(self.shards))
        return [0] if self.algorithm == "aps" else []

    def pace_of(self, r):
        """Seconds rank r sleeps per step (async): every rank its own pace."""
        if not self.asynchronous or self.pace <= 0 or r in self.servers():
            return 0.0
        return self.pace * (r if self.algorithm == "aps" else r + 1)

    def rank_cmd(self, r, master):
        cmd = [PY, os.path.join(HERE, "job.py"), "--kind", self.kind,
               "--model", self.model, "--batch", str(self.batch), "--steps", str(self.steps),
               "--epochs", str(self.epochs), "--out", self.out]
        if self.framework != "mpi":
            cmd += ["--rank", str(r), "--world", str(self.ranks), "--master", master,
                    "--port", str(self.port)]
        if self.framework == "manual":
            cmd += ["--algorithm", self.algorithm, "--group", str(self.group)]
        if self.framework == "ddp":
            cmd += ["--bucket-mb", f"{self.bucket_mb:g}", "--accum", str(self.accum)]
        if self.framework == "rpc" and self.shards > 1:
            cmd += ["--shards", str(self.shards)]
        if self.straggler:  # the rank whose number it is sleeps (mpi: known late)
            cmd += ["--straggle", f"{self.straggler[1]:g}",
                    "--straggle-rank", str(self.straggler[0])]
        if self.asynchronous:
            cmd += ["--pace", f"{self.pace_of(r):g}"]
        if self.framework == "mpi":
            cmd += ["--mpi-alg", self.algorithm]
        return cmd

    def mpi_mca(self):
        """mpirun MCA options forcing the all-reduce algorithm (none: Open
        MPI's own decision)."""
        if self.algorithm not in MPI_ALG:
            return []
        return ["--mca", "coll_tuned_use_dynamic_rules", "1",
                "--mca", "coll_tuned_allreduce_algorithm", str(MPI_ALG[self.algorithm][0])]

    def folder_name(self, loss_tag):
        backend = {"rpc": "tensorpipe", "async": "tensorpipe", "mpi": "openmpi"}.get(
            self.framework, "gloo")
        topo = {"ddp": "ring", "rpc": "star"}.get(self.framework) or self.algorithm
        extra = ""
        if self.framework == "ddp":
            if self.bucket_mb != 25.0:
                extra += f"-bucket{self.bucket_mb:g}"
            if self.accum > 1:
                extra += f"-accum{self.accum}"
        if self.straggler:
            extra += f"-straggler{self.straggler[0]}"
        if self.shards > 1:
            extra += f"-shards{self.shards}"
        return (f"{FW_FOLDER[self.framework]}-{self.model}-adam-{self.batch}-{backend}-"
                f"{loss_tag}-{topo}{extra}")


def parse_spec(k, spec, defaults):
    """--job 'framework=ddp,hosts=0-2,model=tinycnn,...' -> Job.  hosts:
    'a-b' (a range) or 'a+b+c'; straggler 'rank:seconds'."""
    kw = dict(defaults)
    for item in spec.split(","):
        if not item.strip():
            continue
        key, _, val = item.partition("=")
        kw[key.strip()] = val.strip()
    if "hosts" not in kw or "framework" not in kw:
        raise ValueError(f"--job '{spec}': framework= and hosts= are required")
    h = kw.pop("hosts")
    if "-" in h:
        lo, hi = h.split("-")
        hosts = list(range(int(lo), int(hi) + 1))
    else:
        hosts = [int(x) for x in h.split("+")]
    conv = {"batch": int, "steps": int, "epochs": int, "group": int, "accum": int, "shards": int,
            "bucket_mb": float, "pace": float}
    args = {}
    for key, val in kw.items():
        if key == "straggler":
            r, s = str(val).split(":")
            args["straggler"] = (int(r), float(s))
        elif key in conv:
            args[key] = conv[key](val)
        elif key in ("framework", "model", "algorithm"):
            args[key] = val
        else:
            raise ValueError(f"--job '{spec}': unknown key '{key}'")
    return Job(k, hosts=hosts, **args)


def rank_steps(job):
    """{rank: {step_times, peers, served ...}} from the rank-<i>-steps.json
    files (removed)."""
    out = {}
    for r in range(job.ranks):
        p = os.path.join(job.out, f"rank-{r}-steps.json")
        if os.path.exists(p):
            out[r] = json.load(open(p))
            os.unlink(p)
    return out


def mean_step(times):
    return (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else None


def job_truth(job, addrs, pcaps, run_dir, launcher=None):
    """truth.json entry of one job: the job's own truth (job-truth.json of
    its rank 0) plus hosts, roles, mode, per-rank steps, expected bytes."""
    jt_path = os.path.join(job.out, "job-truth.json")
    t = json.load(open(jt_path))
    os.unlink(jt_path)
    steps = rank_steps(job)
    servers = job.servers()
    t["job"] = job.k
    t["hosts"] = [{"host": h, "addr": addrs[h], "rank": r,
                   "role": "server" if r in servers else "worker",
                   "pcap": pcaps[h]} for r, h in enumerate(job.hosts)]
    t["server"] = addrs[job.hosts[0]] if servers else None
    t["rendezvous_port"] = job.port
    log = os.path.relpath(os.path.join(job.out, "train_history.log"), run_dir)
    t["train_log"] = log
    t["mode"] = "asynchronous" if job.asynchronous else "synchronous"
    st = t.get("step_times") or []
    t["log_mean_step_s"] = mean_step(st)
    t["mean_step_s"] = mean_step(st)
    if job.straggler:
        t["straggler"] = {"rank": job.straggler[0], "sleep_s_per_batch": job.straggler[1]}
    if job.framework == "mpi":
        alg = MPI_ALG.get(job.algorithm)
        t["pattern"] = alg[1] if alg else "allreduce"
        t["launcher"] = launcher
        t["control_hosts"] = [launcher] if launcher else []
    S, N = t["gradient_bytes"], job.ranks
    if job.asynchronous:
        # no job-wide step: each rank has its own
        t["mean_step_s"] = None
        times = {r: steps.get(r, {}).get("step_times") or [] for r in range(N)}
        t["rank_step_times"] = [times[r] for r in range(N)]
        t["rank_mean_step_s"] = [None if r in servers else mean_step(times[r])
                                 for r in range(N)]
        t["rank_steps"] = [None if r in servers else len(times[r]) for r in range(N)]
        if job.algorithm in ("pairavg", "gossip"):
            # whom each rank chose at each of its steps, and how many
            # exchanges of others it served (pairavg: it answered with S)
            t["rank_peers"] = [steps.get(r, {}).get("peers") for r in range(N)]
            t["rank_served"] = [steps.get(r, {}).get("served") for r in range(N)]
        t["rank_pace_s"] = [job.pace_of(r) for r in range(N)]
        t["bytes_per_exchange"] = S
        t["expected_tx_bytes_per_step"] = None
    elif job.framework in ("ddp",) or (job.framework == "mpi" and t["pattern"] == "ring"):
        t["expected_tx_bytes_per_step"] = {"worker": 2 * (N - 1) / N * S}
    elif job.framework == "rpc":
        k = len(servers)
        t["expected_tx_bytes_per_step"] = {"worker": S, "server": (N - k) * S / k}
    elif job.framework == "manual":
        per = [0] * N
        for s, d, v in t["expected_pair_bytes_per_step"]:
            per[s] += v
        t["expected_tx_bytes_per_rank"] = per
        a = job.algorithm
        if (a == "butterfly" and not N & (N - 1)) or a == "clique":
            t["expected_tx_bytes_per_step"] = {"worker": 2 * (N - 1) / N * S}
        elif a == "pairwise" and N % 2 == 0:
            t["expected_tx_bytes_per_step"] = {"worker": S}
        else:
            t["expected_tx_bytes_per_step"] = None
    else:
        t["expected_tx_bytes_per_step"] = None
    return t
