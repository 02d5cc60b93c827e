#!/bin/bash
# libperfmodel-predict as a scheduler uses it (issue 5): install the build
# into a scratch folder, compile programs outside the project against it
# with pkg-config alone, and check that
#  - its link line and its shared library bring no GSL (nor threads),
#  - the shared library exports only pm_ symbols, exactly those predict.h
#    declares,
#  - predictions by name and in batches equal `perfmodel predict` bit for bit
#    (on every bundled data set, with an additive and a power-law model),
#  - the static library links the same program and gives the same bits,
#  - docs/examples/scheduler.c builds and runs from the installed files,
#  - every public header is installed and compiles on its own.
# usage: embed.sh BUILD_DIR SOURCE_DIR; EMBED_CC (cc) and EMBED_CFLAGS (none)
# give the compiler and the instrumentation of the build (meson sets them).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
compile() { ${EMBED_CC:-cc} -std=c11 -Wall -Werror ${EMBED_CFLAGS:-} "$@"; }

DESTDIR="$tmp/root" meson install -C "$build" --no-rebuild --quiet >/dev/null
pc=$(dirname "$(find "$tmp/root" -name perfmodel-predict.pc | head -1)")
[ -n "$pc" ] || fail "no perfmodel-predict.pc installed"
export PKG_CONFIG_PATH="$pc"
# the .pc file names the real prefix; point it into the scratch folder
prefix="$tmp/root$(pkg-config --variable=prefix perfmodel-predict)"
flags=$(pkg-config --define-variable=prefix="$prefix" --cflags --libs perfmodel-predict)
libdir=$(pkg-config --define-variable=prefix="$prefix" --variable=libdir perfmodel-predict)
echo "pkg-config: $flags"
case "$flags" in *gsl*|*pthread*) fail "the link line brings GSL or threads: $flags" ;; esac
so="$libdir/libperfmodel-predict.so"
[ -e "$so" ] || fail "no $so"
if ldd "$so" | grep -Ei 'gsl|blas'; then fail "$so links GSL"; fi
if nm -D "$so" | grep -i gsl; then fail "$so refers to GSL symbols"; fi
exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRV]$/ { print $3 }')
[ -n "$exported" ] || fail "nothing exported"
bad=$(echo "$exported" | grep -vE '^pm_[a-z0-9]' || true)
[ -z "$bad" ] || fail "exported besides public pm_ (pm__ is private): $bad"
# a here-string, not `echo | grep -q`: grep -q leaves at the first match, and
# under pipefail echo's SIGPIPE then reads as "missing" (seen on a loaded machine)
# the predictor's headers: predict.h and advise.h, which it includes
headers=("$prefix/include/perfmodel/predict.h" "$prefix/include/perfmodel/advise.h")
missing=$(cat "${headers[@]}" | grep -o 'PM_API [^(]*(' | sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' |
	grep '^pm_' | while read -r f; do grep -qx "$f" <<<"$exported" || echo "$f"; done)
[ -z "$missing" ] || fail "declared in predict.h or advise.h but not exported: $missing"
# and the other way: its headers say all that the library exports
declared=$(cat "${headers[@]}" | grep -o 'PM_API [^(]*(' | sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/')
undeclared=$(while read -r f; do grep -qx "$f" <<<"$declared" || echo "$f"; done <<<"$exported")
[ -z "$undeclared" ] || fail "exported but not declared in predict.h or advise.h: $undeclared"
echo "exports $(echo "$exported" | wc -l) symbols, all pm_, exactly those predict.h and advise.h declare"

# every public header is installed and compiles on its own from there (each
# includes what it uses; perfmodel.h, which includes them all, is one of them)
nheaders=0
for h in "$src"/lib/include/perfmodel/*.h; do
	name=$(basename "$h")
	[ -e "$prefix/include/perfmodel/$name" ] || fail "perfmodel/$name is not installed (lib/meson.build, install_headers)"
	printf '#include "perfmodel/%s"\n' "$name" > "$tmp/header_alone.c"
	compile -Wextra -Wpedantic -fsyntax-only -I"$prefix/include" "$tmp/header_alone.c" ||
		fail "perfmodel/$name does not compile on its own"
	nheaders=$((nheaders + 1))
done
[ "$nheaders" -ge 2 ] || fail "no public headers found under $src/lib/include/perfmodel"
echo "$nheaders public headers installed, each compiling on its own"

compile -o "$tmp/predict_csv" "$src/tests/embed/predict_csv.c" $flags
compile -o "$tmp/scheduler" "$src/docs/examples/scheduler.c" $flags
if ldd "$tmp/predict_csv" | grep -i gsl; then fail "the program links GSL"; fi
# the static library, by path, with what pkg-config --static adds
cflags=$(pkg-config --define-variable=prefix="$prefix" --cflags perfmodel-predict)
static_libs=$(pkg-config --define-variable=prefix="$prefix" --static --libs perfmodel-predict |
	sed 's/-lperfmodel-predict//')
[ -e "$libdir/libperfmodel-predict.a" ] || fail "no static library installed"
if nm "$libdir/libperfmodel-predict.a" 2>/dev/null | grep -i ' U .*gsl'; then fail "the static library needs GSL"; fi
compile -o "$tmp/predict_csv_static" "$src/tests/embed/predict_csv.c" $cflags \
	"$libdir/libperfmodel-predict.a" $static_libs
if ldd "$tmp/predict_csv_static" | grep -Ei 'perfmodel|gsl'; then fail "the static program links a shared perfmodel or GSL"; fi
export LD_LIBRARY_PATH="$libdir"

perfmodel="$build/cli/perfmodel"
check() {	# model points.csv
	"$tmp/predict_csv_static" "$1" "$2" > "$tmp/static.txt"
	"$tmp/predict_csv" "$1" "$2" > "$tmp/lib.txt"
	cmp -s "$tmp/lib.txt" "$tmp/static.txt" || fail "the static and shared libraries differ on $2"
	"$perfmodel" predict -m "$1" "$2" | awk -F, 'NR > 1 { print $NF }' > "$tmp/cli.txt"
	[ -s "$tmp/lib.txt" ] || fail "no predictions for $2"
	cmp -s "$tmp/lib.txt" "$tmp/cli.txt" || {
		diff "$tmp/lib.txt" "$tmp/cli.txt" | head -5
		fail "library and perfmodel predict differ on $2 with $1"
	}
	echo "$(wc -l < "$tmp/lib.txt") predictions equal bit for bit: $(basename "$1") on $(basename "$2")"
}
# fits here and now (seconds), so that every model kind the fitter writes is covered
"$perfmodel" fit --form additive "$src/data/gemm_cpu.csv" --spec "$src/models/gemm.json" -o "$tmp/gemm.json" --quiet >/dev/null
"$perfmodel" fit "$src/data/lenet5_cpu.csv" --spec "$src/models/lenet5.json" --form multiplicative \
	--maxiter 50 -o "$tmp/lenet5.json" --quiet >/dev/null
check "$tmp/gemm.json" "$src/data/gemm_cpu.csv"
check "$tmp/lenet5.json" "$src/data/lenet5_cpu.csv"
check "$src/docs/examples/ddp_mlp_model.json" "$src/data/ddp_mlp.csv"
check "$src/tests/data/ddp_mlp_multiplicative.json" "$src/data/ddp_mlp.csv"

# the library under a host's decimal-comma locale reads models (a formula
# with a decimal power too) and points, and predicts, the same bits
compile -o "$tmp/locale" "$src/tests/embed/locale.c" $flags
"$perfmodel" fit "$src/data/gemm_cpu.csv" --target time_s --formula 'a * n^2.5 * threads^q + C' \
	--maxiter 20 -o "$tmp/formula.json" --quiet >/dev/null
[ -n "${LOCPATH:-}" ] || fail "no LOCPATH: tests/meson.build makes de_DE.UTF-8 for this test"
same_under_locales() {	# MODEL POINT...
	local rc=0
	LC_ALL=C "$tmp/locale" . "$@" >"$tmp/locale_c.txt" || fail "the locale program failed under C on $1"
	LC_ALL=de_DE.UTF-8 "$tmp/locale" , "$@" >"$tmp/locale_de.txt" || rc=$?
	[ "$rc" -ne 3 ] || fail "de_DE.UTF-8 has no decimal comma here (LOCPATH=$LOCPATH)"
	[ "$rc" -eq 0 ] || fail "the locale program failed under de_DE.UTF-8 on $1"
	[ "$(wc -l <"$tmp/locale_c.txt")" -eq $(($# - 1)) ] && cmp -s "$tmp/locale_c.txt" "$tmp/locale_de.txt" ||
		fail "predictions differ between the C and the de_DE.UTF-8 locale on $1"
}
same_under_locales "$src/docs/examples/ddp_mlp_model.json" \
	'{"hidden": 0.5e3, "layers": 2, "input_dim": 64.25, "activation": "relu", "world_size": 2, "batch_size": 32}' \
	'{"hidden": 1024, "layers": 1.5, "input_dim": 0.125, "activation": "tanh", "world_size": 1, "batch_size": 8}'
same_under_locales "$tmp/formula.json" '{"n": 512.5, "threads": 2}' '{"n": 0.75, "threads": 1.5}'
echo "the same bits under C and de_DE.UTF-8"

"$tmp/scheduler" "$src/docs/examples/ddp_mlp_model.json" > "$tmp/sched.txt"
grep -q '^job 3: ' "$tmp/sched.txt" || fail "the example scheduler did not place job 3"
echo "ok"
