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

The writer itself (write_profile) takes any profile: a call tree, metrics of any
type and dtype, a value per call node per location; docs/examples/profile_set.py
writes the set of docs/profiles.md with it.
"""
import argparse
import gzip
import io
import struct
import tarfile
import zlib

# A dtype's values as struct packs them
DTYPES = {"DOUBLE": "d", "UINT64": "Q", "INT64": "q"}


def children(cnodes, c):
    """The call nodes whose parent is c (None: the roots), in id order."""
    return [k for k, (_, p) in enumerate(cnodes) if p == c]


def deep_order(cnodes):
    """Preorder, children in id order: the anchor's document order, the tree
    indices of an EXCLUSIVE metric."""
    order = []

    def walk(c):
        order.append(c)
        for k in children(cnodes, c):
            walk(k)
    for r in children(cnodes, None):
        walk(r)
    return order


def wide_order(cnodes):
    """The tree indices of an INCLUSIVE metric: pycubexr's _wide_enumeration,
    where a node's children are numbered together."""
    order = []
    for r in children(cnodes, None):
        order.append(r)
        stack = [r]
        while stack:
            n = stack.pop()
            order.extend(children(cnodes, n))
            stack.extend(reversed(children(cnodes, n)))
    return order


def inclusive(cnodes, excl):
    """Inclusive values from exclusive ones (excl[c][l]): a node's own plus its
    callees' inclusive values."""
    incl = [None] * len(cnodes)

    def of(c):
        if incl[c] is None:
            incl[c] = [v + sum(w) for v, *w in zip(excl[c], *(of(k) for k in children(cnodes, c)))]
        return incl[c]
    for c in range(len(cnodes)):
        of(c)
    return incl


def anchor(regions, cnodes, metrics, nloc, creator):
    """anchor.xml. regions: (name, mod, descr); cnodes: (region id, parent id
    or None); metrics: dicts with name, type, dtype and uom."""
    mxml = "".join(
        f'<metric id="{i}" type="{t}"><disp_name>{n}</disp_name><uniq_name>{n}</uniq_name>'
        f"<dtype>{d}</dtype><uom>{u}</uom><url></url><descr></descr></metric>\n"
        for i, (n, t, d, u) in enumerate(
            (m["name"], m["type"], m["dtype"], m["uom"]) for m in metrics))
    rxml = "".join(
        f'<region id="{i}" mod="{mod}" begin="1" end="2"><name>{n}</name><url></url>'
        f"<descr>{d}</descr></region>\n" for i, (n, mod, d) in enumerate(regions))

    def cnode(c):
        inner = "".join(cnode(k) for k in children(cnodes, c))
        return f'<cnode id="{c}" calleeId="{cnodes[c][0]}">{inner}</cnode>\n'

    locs = "".join(
        f'<locationgroup Id="{i}"><name>rank {i}</name><rank>{i}</rank><type>process</type>'
        f'<location Id="{i}"><name>master</name><rank>0</rank><type>thread</type></location>'
        f"</locationgroup>\n" for i in range(nloc))
    tree = "".join(cnode(r) for r in children(cnodes, None))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.3">\n'
            f'<attr key="Creator" value="{creator}"/>\n'
            f"<metrics>\n{mxml}</metrics>\n<program>\n{rxml}{tree}</program>\n"
            f'<system><systemtreenode Id="0"><name>machine</name><class>machine</class>\n'
            f"{locs}</systemtreenode><topologies></topologies></system>\n</cube>\n").encode()


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


def write_profile(out, regions, cnodes, metrics, nloc, creator, plain_data=False,
                  plain_anchor=False, big=False):
    """Write a .cubex to the path out. Each metric's "rows" is a list of
    (call node, one value per location) in the order they are stored, the
    values as the metric's type stores them (an INCLUSIVE metric's inclusive
    ones); a call node without a row is 0 in the profile; a metric without
    "rows" is listed in the anchor only (no data, as Score-P leaves a metric
    that never counted)."""
    bo = ">" if big else "<"
    files = {}
    xml = anchor(regions, cnodes, metrics, nloc, creator)
    files["anchor.xml"] = xml if plain_anchor else gzip.compress(xml, mtime=0)
    for i, m in enumerate(metrics):
        if m.get("rows") is None:
            continue
        order = wide_order(cnodes) if m["type"] == "INCLUSIVE" else deep_order(cnodes)
        files[f"{i}.index"] = index_file([order.index(c) for c, _ in m["rows"]], bo)
        files[f"{i}.data"] = data_file([v for _, v in m["rows"]], DTYPES[m["dtype"]], bo,
                                       plain_data)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            t.addfile(info, io.BytesIO(data))
    with open(out, "wb") as f:
        f.write(buf.getvalue())


# The fixed profile of this script's command line (the docstring)
REGIONS = [(n, "m.c", "user") for n in ["main", "compute", "kernel", "io"]]
# cnode id -> (region, parent)
CNODES = [(0, None), (1, 0), (2, 1), (3, 0)]
TIME_BASE = [1.0, 0.5, 4.0, 2.0]


def test_profile(out, nloc, scale, plain_data, plain_anchor, big):
    excl = [[scale * (l + 1) * TIME_BASE[c] for l in range(nloc)] for c in range(len(CNODES))]
    incl = inclusive(CNODES, excl)
    wide = wide_order(CNODES)
    deep = deep_order(CNODES)
    metrics = [
        # time: inclusive, rows for the tree indices 3, 2, 1, 0
        {"name": "time", "type": "INCLUSIVE", "dtype": "DOUBLE", "uom": "x",
         "rows": [(wide[t], incl[wide[t]]) for t in [3, 2, 1, 0]]},
        # visits: exclusive, io (cnode 3) not stored
        {"name": "visits", "type": "EXCLUSIVE", "dtype": "UINT64", "uom": "x",
         "rows": [(deep[t], [scale * ((deep[t] + 1) * 10 + l) for l in range(nloc)])
                  for t in [0, 1, 2]]},
        {"name": "flops", "type": "EXCLUSIVE", "dtype": "INT64", "uom": "x"},
    ]
    write_profile(out, REGIONS, CNODES, metrics, nloc, "perfmodel tests/cube_gen.py",
                  plain_data, plain_anchor, big)


def location_bomb(out, nloc):
    """A profile whose gzip anchor inflates to nloc bare <location/>s, more
    than the file has bytes: the reader must refuse it before sizing anything
    by the count (tests/data/cube/location_bomb.cubex: 1 000 000)."""
    xml = (b'<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.3">\n<metrics>'
           b'<metric id="0" type="EXCLUSIVE"><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>'
           b'</metric></metrics>\n<program><region id="0"><name>main</name></region>'
           b'<cnode id="0" calleeId="0"/></program>\n<system>'
           + b"<location/>" * nloc + b"</system>\n</cube>\n")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        data = gzip.compress(xml, compresslevel=9, mtime=0)
        info = tarfile.TarInfo("anchor.xml")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    with open(out, "wb") as f:
        f.write(buf.getvalue())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--locations", type=int, default=2)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--plain-data", action="store_true")
    ap.add_argument("--plain-anchor", action="store_true")
    ap.add_argument("--big-endian", action="store_true")
    ap.add_argument("--location-bomb", type=int, metavar="N",
                    help="write location_bomb's profile of N locations instead")
    a = ap.parse_args()
    if a.location_bomb:
        location_bomb(a.out, a.location_bomb)
        return
    test_profile(a.out, a.locations, a.scale, a.plain_data, a.plain_anchor, a.big_endian)


if __name__ == "__main__":
    main()
