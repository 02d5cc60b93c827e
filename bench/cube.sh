#!/usr/bin/env bash
# CUBE profiles of many regions (issue 34, class 5): `perfmodel inspect`
# (which parses the profile and lists every call path × metric, as batch
# --each-region does) of a flat profile of N regions (main -> r1 .. r(N-1),
# 2 MB at 100 000), for each build given. Before the regions were indexed
# every call node searched all regions (quadratic); with the indices the
# time grows with N. Timings are printed, never asserted.
#
# usage: bench/cube.sh [N] [BUILD...]   (default 100000, build)
set -u
root=$(realpath "$(dirname "$0")/..")
n=${1:-100000}
shift
builds=("${@:-$root/build}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work/flat.cubex" "$n" <<'PY'
import gzip, io, struct, sys, tarfile
out, n = sys.argv[1], int(sys.argv[2])
rx = "".join(f'<region id="{i}"><name>{"r%d" % i if i else "main"}</name></region>\n'
             for i in range(n))
cx = ('<cnode id="0" calleeId="0">\n'
      + "".join(f'<cnode id="{i}" calleeId="{i}"/>\n' for i in range(1, n)) + "</cnode>\n")
xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.3">\n<metrics>'
       '<metric id="0" type="EXCLUSIVE"><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>'
       f'</metric></metrics>\n<program>\n{rx}{cx}</program>\n'
       '<system><location Id="0"/></system>\n</cube>\n').encode()
idx = (b"CUBEX.INDEX" + struct.pack("<ihb", 1, 0, 1) + struct.pack("<i", n)
       + struct.pack(f"<{n}i", *range(n)))
data = b"CUBEX.DATA" + struct.pack(f"<{n}d", *(float(i + 1) for i in range(n)))
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
    for name, d in [("anchor.xml", gzip.compress(xml, mtime=0)), ("0.index", idx),
                    ("0.data", data)]:
        info = tarfile.TarInfo(name)
        info.size = len(d)
        t.addfile(info, io.BytesIO(d))
open(out, "wb").write(buf.getvalue())
PY
echo "profile: $n regions, $(stat -c %s "$work/flat.cubex") bytes; load $(cut -d' ' -f1 /proc/loadavg)"
for b in "${builds[@]}"; do
	start=$(date +%s.%N)
	"$b/cli/perfmodel" inspect "$work/flat.cubex" >/dev/null || echo "$b: inspect failed"
	end=$(date +%s.%N)
	echo "$b: inspect $(echo "$end - $start" | bc) s"
done
