#!/usr/bin/python3
"""Put real runs back to back in one long classic pcap (standard library only).

usage: concat.py OUT.pcap [--packets N] [--gap SEC] INPUT...

INPUT is a capture (pcap or pcapng) or a folder: a folder holding captures is
one run (its captures merged by time, as the per-host captures of one job);
a folder without captures is searched for run folders below it.  Runs are
taken in order and repeated: each run's timestamps are shifted so that it
starts GAP seconds (default 1) after the previous one ended, until N packets
(default 0: each run once) are written; the last run is cut at N.  Packets
whose link type differs from the first packet's are left out (counted).
Timestamps are written in microseconds, or nanoseconds when an input has
finer ones.  OUT.json tells what was written, with a fingerprint of the
inputs; when OUT and OUT.json exist with the same fingerprint nothing is
rewritten (the cache of make bench).
"""
import hashlib
import heapq
import json
import mmap
import os
import struct
import sys

CAPTURE_EXT = (".pcap", ".pcapng", ".cap", ".dmp")
REC = struct.Struct("<IIII")


def is_capture(path):
    return path.endswith(CAPTURE_EXT) and os.path.isfile(path)


def find_runs(path):
    """Runs (lists of capture files) under PATH, in name order."""
    if os.path.isfile(path):
        return [[path]]
    names = sorted(os.listdir(path))
    caps = [os.path.join(path, n) for n in names if is_capture(os.path.join(path, n))]
    if caps:
        return [caps]
    runs = []
    for n in names:
        p = os.path.join(path, n)
        if os.path.isdir(p) and not os.path.islink(p):
            runs += find_runs(p)
    return runs


def open_map(path):
    f = open(path, "rb")
    if os.fstat(f.fileno()).st_size == 0:
        f.close()
        return b""
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    f.close()
    return m


class Capture:
    """One capture file: its format, and a time-ordered stream of records
    (ts_ns, linktype, data, origlen)."""

    def __init__(self, path):
        self.path = path
        self.buf = open_map(path)
        head = bytes(self.buf[:4])
        if head in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4",
                    b"\xa1\xb2\x3c\x4d"):
            self.kind = "pcap"
            e = "<" if head[0] in (0xd4, 0x4d) else ">"
            self.e = e
            self.ns = head in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
            _, _, _, _, _, self.snaplen, lt = struct.unpack_from(e + "IHHiIII", self.buf, 0)
            self.linktypes = {lt & 0x3ffffff}
        elif head == b"\x0a\x0d\x0d\x0a":
            self.kind = "pcapng"
            self.snaplen, self.ns, self.linktypes = 0, False, set()
            for iface in self._pcapng_ifaces():
                lt, snap, ticks = iface
                self.linktypes.add(lt)
                self.snaplen = max(self.snaplen, snap or 262144)
                self.ns = self.ns or ticks > 1_000_000
        else:
            raise ValueError("not a pcap or pcapng file")

    def records(self):
        return self._pcap() if self.kind == "pcap" else self._pcapng()

    def _pcap(self):
        b, e = self.buf, self.e
        rec = struct.Struct(e + "IIII")
        lt = next(iter(self.linktypes))
        mul = 1 if self.ns else 1000
        off, end = 24, len(b)
        while off + 16 <= end:
            sec, frac, caplen, origlen = rec.unpack_from(b, off)
            off += 16
            if off + caplen > end:
                break  # cut short
            yield sec * 1_000_000_000 + frac * mul, lt, b[off:off + caplen], origlen
            off += caplen

    def _blocks(self):
        """(type, body offset, body length, endian) of each pcapng block."""
        b, off, end, e = self.buf, 0, len(self.buf), "<"
        while off + 12 <= end:
            if bytes(b[off:off + 4]) == b"\x0a\x0d\x0d\x0a":
                e = "<" if bytes(b[off + 8:off + 12]) == b"\x4d\x3c\x2b\x1a" else ">"
            btype, blen = struct.unpack_from(e + "II", b, off)
            if blen < 12 or off + blen > end:
                break
            yield btype, off + 8, blen - 12, e
            off += blen

    def _idb(self, body, length, e):
        """(linktype, snaplen, ticks per second) of an interface description."""
        b = self.buf
        lt, _, snap = struct.unpack_from(e + "HHI", b, body)
        ticks = 1_000_000  # per second; default resolution: microseconds
        off, end = body + 8, body + length
        while off + 4 <= end:
            code, olen = struct.unpack_from(e + "HH", b, off)
            if code == 0:
                break
            if code == 9 and olen >= 1:
                r = b[off + 4]
                ticks = 2 ** (r & 0x7f) if r & 0x80 else 10 ** r
            off += 4 + (olen + 3) // 4 * 4
        return lt, snap, ticks

    def _pcapng_ifaces(self):
        for btype, body, length, e in self._blocks():
            if btype == 1:
                yield self._idb(body, length, e)

    def _pcapng(self):
        b = self.buf
        ifaces = []
        for btype, body, length, e in self._blocks():
            if btype == 0x0a0d0d0a:
                ifaces = []
            elif btype == 1:
                ifaces.append(self._idb(body, length, e))
            elif btype in (6, 2):  # enhanced / obsolete packet block
                if btype == 6:
                    ifid, hi, lo, caplen, origlen = struct.unpack_from(e + "IIIII", b, body)
                else:
                    ifid, _, hi, lo, caplen, origlen = struct.unpack_from(e + "HHIIII", b, body)
                if ifid >= len(ifaces) or 20 + caplen > length:
                    continue
                lt, _, ticks = ifaces[ifid]
                yield (hi << 32 | lo) * 1_000_000_000 // ticks, lt, b[body + 20:body + 20 + caplen], origlen
            # simple packet blocks have no timestamp: left out


def fingerprint(runs, args):
    h = hashlib.sha256(json.dumps(args, sort_keys=True).encode())
    with open(__file__, "rb") as f:
        h.update(f.read())
    for run in runs:
        for p in run:
            st = os.stat(p)
            h.update(f"{os.path.abspath(p)} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def main():
    argv = sys.argv[1:]
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    out, n, gap, inputs = argv[0], 0, 1.0, []
    it = iter(argv[1:])
    for a in it:
        if a == "--packets":
            n = int(next(it))
        elif a == "--gap":
            gap = float(next(it))
        else:
            inputs.append(a)
    runs = [r for p in inputs for r in find_runs(p)]
    if not runs:
        sys.exit("concat.py: no captures in " + " ".join(inputs))
    fp = fingerprint(runs, {"packets": n, "gap": gap})
    try:
        with open(out + ".json") as f:
            if json.load(f).get("fingerprint") == fp and os.path.exists(out):
                print(f"{out}: cached")
                return
    except (OSError, ValueError):
        pass
    caps = {}
    for run in runs:
        for p in run:
            try:
                caps[p] = Capture(p)
            except (OSError, ValueError, struct.error) as err:
                print(f"concat.py: {p}: skipped ({err})", file=sys.stderr)
    runs = [[p for p in run if p in caps] for run in runs]
    runs = [r for r in runs if r]
    if not runs:
        sys.exit("concat.py: no readable captures")
    ns = any(c.ns for c in caps.values())
    snap = max(c.snaplen for c in caps.values()) or 262144
    linktype = next(iter(caps[runs[0][0]].linktypes))
    div = 1 if ns else 1000
    written = orig_bytes = other_link = cycles = 0
    used = []
    cursor = None  # where the next run starts (ns)
    gap_ns = int(gap * 1e9)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d if ns else 0xa1b2c3d4, 2, 4, 0, 0, snap,
                            linktype))
        buf = []
        done = False
        while not done:
            progress = False
            for run in runs:
                stream = heapq.merge(*(caps[p].records() for p in run), key=lambda r: r[0])
                shift, last = None, None
                for ts, lt, data, origlen in stream:
                    if lt != linktype:
                        other_link += 1
                        continue
                    if shift is None:
                        shift = 0 if cursor is None else cursor - ts
                    t = ts + shift
                    last = t if last is None else max(last, t)
                    buf.append(REC.pack(t // 1_000_000_000, t % 1_000_000_000 // div,
                                        len(data), origlen))
                    buf.append(bytes(data))
                    written += 1
                    orig_bytes += origlen
                    if len(buf) >= 131072:
                        f.write(b"".join(buf))
                        buf.clear()
                    if n and written >= n:
                        done = True
                        break
                if last is not None:
                    cursor = last + gap_ns
                    progress = True
                    if cycles == 0:
                        used.append(run)
                if done:
                    break
            cycles += 1
            if not n or not progress:
                done = True
        f.write(b"".join(buf))
    os.replace(tmp, out)
    info = {"fingerprint": fp, "packets": written, "wire_bytes": orig_bytes,
            "left_out_other_linktype": other_link, "linktype": linktype,
            "nanoseconds": ns, "passes": cycles, "gap_s": gap, "runs": used}
    with open(out + ".json", "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print(f"generated {out}: {written} packets from {len(used)} runs, {cycles} passes")


if __name__ == "__main__":
    main()
