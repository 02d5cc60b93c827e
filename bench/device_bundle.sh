#!/usr/bin/env bash
# A self-contained perfmodel for another x86-64 Linux machine without GSL,
# cJSON or meson (issue 38: the 16-core thread-scaling check on a lent
# device): a minimal release build (no tests, Python, MPI, CUBE or Slurm),
# its perfmodel and libperfmodel.so.0 with the libgsl, libgslcblas and
# libcjson they load, and run.sh, which runs bench/thread_scaling.py with
# them from the repository root and copies its output to $OUT if set.
#
# usage: bench/device_bundle.sh [DIR]    # default .devrun (ignored by git:
#                                          add '/.devrun/' to .git/info/exclude)
# then, on the other machine, from the repository root:
#   bash DIR/run.sh [thread_scaling.py's options]   # default --threads 1,2,4,8,16 --seeds 2
set -eu
root=$(realpath "$(dirname "$0")/..")
dir=$(realpath -m "${1:-$root/.devrun}")
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT

meson setup "$build" "$root" --buildtype=release -Dtests=disabled -Dpython=disabled \
	-Dmpi=disabled -Dcube=disabled -Dslurm=disabled >/dev/null
ninja -C "$build" cli/perfmodel >/dev/null
rm -rf "$dir"
mkdir -p "$dir/cli" "$dir/lib"
cp "$build/cli/perfmodel" "$dir/cli/"
cp -L "$build/lib/libperfmodel.so.0" "$dir/lib/"
# the shared libraries it loads besides the C library's own
for lib in libgsl.so libgslcblas.so libcjson.so; do
	path=$(ldd "$dir/cli/perfmodel" | awk -v l="$lib" 'index($1, l) == 1 { print $3 }')
	[ -n "$path" ] || { echo "device_bundle: $lib not found by ldd" >&2; exit 1; }
	cp -L "$path" "$dir/lib/"
done
rel=$(realpath --relative-to="$root" "$dir")
cat >"$dir/run.sh" <<RUN
#!/usr/bin/env bash
# bench/device_bundle.sh's bundle: bench/thread_scaling.py with its perfmodel
cd "\$(dirname "\$0")/$(realpath --relative-to="$dir" "$root")"
export LD_LIBRARY_PATH=\$PWD/$rel/lib PYTHONUNBUFFERED=1
nproc; lscpu | grep -E 'Model name|Socket|Core|Thread' || true
args=("\$@")
[ \${#args[@]} -gt 0 ] || args=(--threads 1,2,4,8,16 --seeds 2)
python3 bench/thread_scaling.py $rel/cli/perfmodel "\${args[@]}" | tee "\${OUT:-/tmp}/thread_scaling.txt"
RUN
chmod +x "$dir/run.sh"
du -sh "$dir"
echo "run from the repository root: bash $rel/run.sh"
