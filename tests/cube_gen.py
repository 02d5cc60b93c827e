#!/usr/bin/env python3
"""Write a small CUBE4 profile (.cubex) of known values, for the tests.

The layout is the one Score-P writes and pycubexr reads (docs/formats.md,
"CUBE profiles"): a POSIX tar archive of anchor.xml (gzip unless --plain-anchor)
and, per metric with data, <id>.index and <id>.data (zlib chunks, one per row,
unless --plain-data). The call tree is

    main -> compute -> kernel
    main -> io

(cnode ids 0..3 in that preorder), on --locations L locations (default 2).
Exclusive values at location l (0-based), for --scale S (default 1):

    time   (INCLUSIVE, DOUBLE):  S * (l + 1) * {main: 1, compute: 0.5, kernel: 4, io: 2}
    visits (EXCLUSIVE, UINT64):  S * ((cnode id + 1) * 10 + l), io not stored (so 0)
    flops  (EXCLUSIVE, INT64):   listed in the anchor, no data files

time is stored inclusive, its rows in the reverse of the INCLUSIVE tree order
(main, compute, io, kernel), so that a reader must map rows through the index.
Every value is a small dyadic number, so sums and means are exact.
"""
import argparse
import gzip
import io
import struct
import tarfile
import zlib

REGIONS = ["main", "compute", "kernel", "io"]
# cnode id -> (region, parent)
CNODES = [(0, None), (1, 0), (2, 1), (3, 0)]
TIME_BASE = [1.0, 0.5, 4.0, 2.0]


def children(c):
    return [k for k, (_, p) in enumerate(CNODES) if p == c]


def deep_order():
    return [0, 1, 2, 3]  # preorder: the document order


def wide_order():
    # pycubexr's _wide_enumeration: a node's children are numbered together
    order, stack = [0], [0]
    while stack:
        n = stack.pop()
        order.extend(children(n))
        stack.extend(reversed(children(n)))
    return order


def anchor(nloc):
    metrics = "".join(
        f'<metric id="{i}" type="{t}"><disp_name>{n}</disp_name><uniq_name>{n}</uniq_name>'
        f"<dtype>{d}</dtype><uom>x</uom><url></url><descr></descr></metric>\n"
        for i, (n, t, d) in enumerate(
            [("time", "INCLUSIVE", "DOUBLE"), ("visits", "EXCLUSIVE", "UINT64"),
             ("flops", "EXCLUSIVE", "INT64")]))
    regions = "".join(
        f'<region id="{i}" mod="m.c" begin="1" end="2"><name>{n}</name><url></url>'
        f"<descr>user</descr></region>\n" for i, n in enumerate(REGIONS))

    def cnode(c):
        inner = "".join(cnode(k) for k in children(c))
        return f'<cnode id="{c}" calleeId="{CNODES[c][0]}">{inner}</cnode>\n'

    locs = "".join(
        f'<locationgroup Id="{i}"><name>rank {i}</name><rank>{i}</rank><type>process</type>'
        f'<location Id="{i}"><name>master</name><rank>0</rank><type>thread</type></location>'
        f"</locationgroup>\n" for i in range(nloc))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.3">\n'
            f'<attr key="Creator" value="perfmodel tests/cube_gen.py"/>\n'
            f"<metrics>\n{metrics}</metrics>\n<program>\n{regions}{cnode(0)}</program>\n"
            f'<system><systemtreenode Id="0"><name>machine</name><class>machine</class>\n'
            f"{locs}</systemtreenode><topologies></topologies></system>\n</cube>\n").encode()


def excl_time(c, l, s):
    return s * (l + 1) * TIME_BASE[c]


def incl_time(c, l, s):
    return excl_time(c, l, s) + sum(incl_time(k, l, s) for k in children(c))


def index_file(tree_indices, bo):
    return (b"CUBEX.INDEX" + struct.pack(bo + "i", 1) + struct.pack(bo + "h", 0) + b"\x01"
            + struct.pack(bo + "i", len(tree_indices))
            + b"".join(struct.pack(bo + "i", t) for t in tree_indices))


def data_file(rows, fmt, bo, plain):
    raw = [b"".join(struct.pack(bo + fmt, v) for v in row) for row in rows]
    if plain:
        return b"CUBEX.DATA" + b"".join(raw)
    chunks = [zlib.compress(r) for r in raw]
    table, at, where = b"", 0, 0
    for r, z in zip(raw, chunks):
        table += struct.pack(bo + "3q", at, where, len(z))
        at += len(r)
        where += len(z)
    return b"ZCUBEX.DATA" + struct.pack(bo + "q", len(chunks)) + table + b"".join(chunks)


def profile(nloc, scale, plain_data, plain_anchor, big):
    bo = ">" if big else "<"
    files = {}
    xml = anchor(nloc)
    files["anchor.xml"] = xml if plain_anchor else gzip.compress(xml, mtime=0)
    # time: inclusive, rows for the tree indices 3, 2, 1, 0
    wide = wide_order()
    tidx = [3, 2, 1, 0]
    rows = [[incl_time(wide[t], l, scale) for l in range(nloc)] for t in tidx]
    files["0.index"] = index_file(tidx, bo)
    files["0.data"] = data_file(rows, "d", bo, plain_data)
    # visits: exclusive, io (cnode 3) not stored
    deep = deep_order()
    tidx = [0, 1, 2]
    rows = [[scale * ((deep[t] + 1) * 10 + l) for l in range(nloc)] for t in tidx]
    files["1.index"] = index_file(tidx, bo)
    files["1.data"] = data_file(rows, "Q", bo, plain_data)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--locations", type=int, default=2)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--plain-data", action="store_true")
    ap.add_argument("--plain-anchor", action="store_true")
    ap.add_argument("--big-endian", action="store_true")
    a = ap.parse_args()
    files = profile(a.locations, a.scale, a.plain_data, a.plain_anchor, a.big_endian)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            t.addfile(info, io.BytesIO(data))
    with open(a.out, "wb") as f:
        f.write(buf.getvalue())


if __name__ == "__main__":
    main()
