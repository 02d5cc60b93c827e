"""The architecture as a test (docs/architecture.md).

lib/'s folders depend on each other one way, core <- data <- ingest <- model
<- results <- spec <- fit <- select <- discover <- options <- analysis <- plan
<- batch <- report, and cli/ sits on top: no file may include a header of, or call a
function defined in, a folder above its own. And no two files, in lib/ or cli/,
may call each other, directly or around a circle.

Calls are read from the built objects (nm), includes from the sources, so a
call through the public header, which every folder may include, still counts.

usage: layering.py BUILD_ROOT SOURCE_ROOT [--graph]
(--graph also prints how many calls go from each folder to each other one)
"""
import json
import os
import re
import subprocess
import sys

LAYERS = ["core", "data", "ingest", "model", "results", "spec", "fit", "select", "discover",
          "options", "analysis", "plan", "batch", "report", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}


def built(build):
    """The objects the build compiles now (compile_commands.json), so that an
    object left behind by a file moved to another folder is not read; None
    when the build has no such list."""
    try:
        with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as fh:
            listed = {os.path.normpath(os.path.join(build, e["output"]))
                      for e in json.load(fh) if "output" in e}
    except FileNotFoundError:
        return None
    return listed or None


def objects(build):
    """(file, object path) for every object of lib/ and of the perfmodel command."""
    found = {}
    current = built(build)
    for folder, prefix in (("lib", None), ("cli", "cli")):
        root = os.path.join(build, folder)
        for sub in sorted(os.listdir(root)):
            if not sub.endswith(".p") or (folder == "cli" and sub != "perfmodel.p"):
                continue
            for obj in sorted(os.listdir(os.path.join(root, sub))):
                path = os.path.join(root, sub, obj)
                if not obj.endswith(".c.o"):
                    continue
                if current is not None and os.path.normpath(path) not in current:
                    continue
                stem = obj[: -len(".c.o")]
                if prefix:
                    name = prefix + "/" + stem + ".c"
                else:
                    layer, _, rest = stem.partition("_")
                    name = layer + "/" + rest + ".c"
                found.setdefault(name, path)
    return found


def symbol_graph(objs):
    defined, wanted = {}, {}
    for name, path in objs.items():
        out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
        wanted[name] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRC":
                defined[parts[2]] = name
            elif len(parts) == 2 and parts[0] == "U":
                wanted[name].add(parts[1])
    return {n: {defined[s] for s in syms if s in defined and defined[s] != n}
            for n, syms in wanted.items()}


def layer(name):
    return name.split("/", 1)[0]


def include_errors(source):
    errors = []
    for folder in LAYERS:
        base = os.path.join(source, "lib" if folder != "cli" else "", folder)
        for f in sorted(os.listdir(base)):
            if not f.endswith((".c", ".h")):
                continue
            with open(os.path.join(base, f), encoding="utf-8") as fh:
                for lineno, line in enumerate(fh, 1):
                    m = re.match(r'\s*#\s*include\s+"([a-z]+)/', line)
                    if m and m.group(1) in RANK and RANK[m.group(1)] > RANK[folder]:
                        errors.append(f"{folder}/{f}:{lineno}: includes {m.group(1)}/, a layer above")
    return errors


def cycles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    build, source = sys.argv[1], sys.argv[2]
    objs = objects(build)
    if len(objs) < 20:
        print(f"found only {len(objs)} objects under {build}: nothing to check", file=sys.stderr)
        return 1
    graph = symbol_graph(objs)
    errors = include_errors(source)
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if RANK[layer(b)] > RANK[layer(a)]:
                errors.append(f"{a} calls {b}, a layer above")
    for comp in cycles(graph):
        errors.append("files that call each other in a circle: " + " ".join(comp))
    for e in errors:
        print(e)
    edges = sum(len(v) for v in graph.values())
    if "--graph" in sys.argv[3:]:
        between = {}
        for a in graph:
            for b in graph[a]:
                if layer(a) != layer(b):
                    key = (layer(a), layer(b))
                    between[key] = between.get(key, 0) + 1
        for (a, b), n in sorted(between.items(), key=lambda kv: (RANK[kv[0][0]], -RANK[kv[0][1]])):
            print(f"{a:>9} -> {b:<9} {n:3d} file pairs")
    print(f"{len(objs)} files, {edges} caller-callee pairs of files, {len(errors)} breaking the layers")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
