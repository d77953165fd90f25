"""The testbed's network: one namespace per host, joined by a bridge that
lives in its own namespace (used by run_job.py).

    netns <tag>-sw:  bridge br0, veth ports p0..p<H-1>
    netns <tag>-h<i>: eth0 = <addr i>/15

Nothing on the machine's own network is touched, and several runs can go on
at the same time.  Hosts 0..N-1 are 198.18.0.<i+1>; extra hosts (an MPI
launcher) get the addresses they are given (198.18.1.x).

overlay="vxlan": the hosts' network is a VXLAN overlay, as a Kubernetes
cluster's flannel or Calico builds it.  The veth end in a host is then
ul0, the underlay, at 198.19.<a>.<b>/16 (the host's address with 198.18
replaced), and eth0 is a VXLAN device on it (VNI 42, UDP 4789, flooding to
every other host's underlay address, learning the rest) holding the host's
address /16.  Jobs and per-host captures use eth0 as before (the overlay's
view); the bridge carries, and a capture on it shows, the encapsulated
frames (what a node's NIC shows).
"""
import os
import re
import signal
import subprocess
import time

SUBNET_PREFIX = "198.18.0."
PREFIXLEN = 15
IFACE = "eth0"
UNDERLAY_IFACE = "ul0"
VXLAN_VNI = 42
VXLAN_PORT = 4789


def underlay_addr(addr):
    """The underlay address of a host of an overlay run."""
    return "198.19." + addr.split(".", 2)[2]


def sh(*cmd, check=True, quiet=False, input=None):
    r = subprocess.run(cmd, input=input, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr.strip()}")
    return r


class Testbed:
    def __init__(self, addrs, tag, log, overlay=None):
        self.overlay = overlay
        self.n = len(addrs)
        self.tag = tag
        self.sw = f"{tag}-sw"
        self.hosts = [f"{tag}-h{i}" for i in range(self.n)]
        self.addrs = list(addrs)
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
            dev = UNDERLAY_IFACE if self.overlay else IFACE
            sh("ip", "-n", self.sw, "link", "add", f"p{i}", "type", "veth",
               "peer", "name", dev, "netns", ns)
            sh("ip", "-n", self.sw, "link", "set", f"p{i}", "master", "br0")
            sh("ip", "-n", self.sw, "link", "set", f"p{i}", "up")
            if self.overlay:
                self.vxlan(ns, addr)
            else:
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

    def vxlan(self, ns, addr):
        """eth0 as a VXLAN device over ul0 (the overlay: see the module)."""
        ul = underlay_addr(addr)
        sh("ip", "-n", ns, "addr", "add", f"{ul}/16", "dev", UNDERLAY_IFACE)
        sh("ip", "-n", ns, "link", "set", UNDERLAY_IFACE, "up")
        sh("ip", "-n", ns, "link", "add", IFACE, "type", "vxlan", "id", str(VXLAN_VNI),
           "dstport", str(VXLAN_PORT), "local", ul, "dev", UNDERLAY_IFACE)
        for peer in self.addrs:
            if peer != addr:  # broadcast and unknown destinations: to every peer
                sh("bridge", "-n", ns, "fdb", "append", "00:00:00:00:00:00", "dev", IFACE,
                   "dst", underlay_addr(peer))
        sh("ip", "-n", ns, "addr", "add", f"{addr}/16", "dev", IFACE)

    @staticmethod
    def reachable(ns, addr):
        """A TCP connect to a closed port: 'refused' means the peer answered."""
        r = sh("ip", "netns", "exec", ns, "timeout", "2", "bash", "-c",
               f"exec 3<>/dev/tcp/{addr}/9", check=False)
        return r.returncode == 0 or "refused" in r.stderr

    def set_loss(self, percent, ports):
        """Drop P % of the packets of each host in `ports` on the wire: in
        the switch namespace, bridge family, per ingress port (after the
        sender's tcpdump saw the packet, before the receiver)."""
        k = int(round(percent * 100))  # out of 10000
        if k <= 0:
            return
        rules = ["table bridge dmltb {", "  chain lossy {",
                 "    type filter hook forward priority 0; policy accept;"]
        rules += [f'    iifname "p{i}" numgen random mod 10000 < {k} counter drop'
                  for i in ports]
        rules += ["  }", "}", ""]
        sh("ip", "netns", "exec", self.sw, "nft", "-f", "-", input="\n".join(rules))

    def nft_dropped(self, ports):
        """[(packets, bytes)] dropped per host, from the rule counters."""
        r = sh("ip", "netns", "exec", self.sw, "nft", "list", "table", "bridge", "dmltb")
        got = {}
        for m in re.finditer(r'iifname "p(\d+)".*?counter packets (\d+) bytes (\d+)', r.stdout):
            got[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
        return [got.get(i, (None, None)) for i in ports]

    def spawn(self, name, i, cmd, logpath, env=None):
        """Start cmd in host i's namespace (i = "sw": the switch's)."""
        f = open(logpath, "w")
        full = ["ip", "netns", "exec", self.sw if i == "sw" else self.hosts[i]]
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
            # what is still in our namespaces was started by this run (an
            # Open MPI daemon left by its launcher): end it, by pid
            r = sh("ip", "netns", "pids", ns, check=False)
            for pid in r.stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
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
