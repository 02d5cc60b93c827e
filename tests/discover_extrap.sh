#!/usr/bin/env bash
# perfmodel discover on synthetic cases of each class of Extra-P's own
# modeling tests (issue 35): one parameter with a polynomial or a logarithmic
# term of Extra-P's exponents (1/3, 5/4, ...), sums and products of two and
# three parameters, two segments with a breakpoint, a constant. Made here from
# the classes, no file of Extra-P's: 200 + 10 * term on x in {2, 4, 8, 16, 32}
# (the full grid of every parameter), exact, and a few with 4 runs of 1 %
# noise. A case passes when the chosen formula has the truth's terms (exact
# data) or its lead-order term in every parameter (noise, segments), and it
# predicts the next point (64, or the case's NEXT) within 1 % (exact) or 5 %.
# Cases that fail today are kept as KNOWN_MISSES: they run and are reported
# as "known miss", not counted as failures. Prints the time of each class.
# usage: discover_extrap.sh PERFMODEL SOURCE_ROOT
set -u
pm=$(realpath "$1")
lead="$(realpath "$2")/bench/lead_order.py"
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

# CLASS|TRUTH (formula language; p, q, r the parameters)|CHECK|NOISE %|VALUES|NEXT
# CHECK: terms (the truth's terms exactly) or lead (each parameter's lead).
# VALUES and NEXT default to 2,4,8,16,32 and 64 for every parameter.
CASES=(
	"polynomial|200 + 10 * p^(1/4)|terms|0"
	"polynomial|200 + 10 * p^(1/3)|terms|0"
	"polynomial|200 + 10 * p^(1/2)|terms|0"
	"polynomial|200 + 10 * p^(2/3)|terms|0"
	"polynomial|200 + 10 * p^(3/4)|terms|0"
	"polynomial|200 + 10 * p^(0.8)|terms|0"
	"polynomial|200 + 10 * p^1|terms|0"
	"polynomial|200 + 10 * p^(1.25)|terms|0"
	"polynomial|200 + 10 * p^(4/3)|terms|0"
	"polynomial|200 + 10 * p^(1.5)|terms|0"
	"polynomial|200 + 10 * p^(5/3)|terms|0"
	"polynomial|200 + 10 * p^(1.75)|terms|0"
	"polynomial|200 + 10 * p^2|terms|0"
	"polynomial|200 + 10 * p^(2.25)|terms|0"
	"polynomial|200 + 10 * p^(7/3)|terms|0"
	"polynomial|200 + 10 * p^(2.5)|terms|0"
	"polynomial|200 + 10 * p^(8/3)|terms|0"
	"polynomial|200 + 10 * p^(2.75)|terms|0"
	"polynomial|200 + 10 * p^3|terms|0"
	"polynomial|200000 + 10 * p^(4/3)|terms|0"
	"polynomial|200 + 500000 * p^(5/3)|terms|0"
	"polynomial|200 + 10 * p^(1.25)|lead|1"
	"polynomial|200 + 10 * p^(7/3)|lead|1"
	"logarithmic|200 + 10 * log2(p)|terms|0"
	"logarithmic|200 + 10 * log2(p)^2|terms|0"
	"logarithmic|200 + 10 * p^(1/4) * log2(p)|terms|0"
	"logarithmic|200 + 10 * p^(1/3) * log2(p)|terms|0"
	"logarithmic|200 + 10 * p^(1/4) * log2(p)^2|terms|0"
	"logarithmic|200 + 10 * p^(1/3) * log2(p)^2|terms|0"
	"logarithmic|200 + 10 * p^(1/2) * log2(p)|terms|0"
	"logarithmic|200 + 10 * p^(2/3) * log2(p)|terms|0"
	"logarithmic|200 + 10 * p^(3/4) * log2(p)^2|terms|0"
	"logarithmic|200 + 10 * p^1 * log2(p)|terms|0"
	"logarithmic|200 + 10 * p^1 * log2(p)^2|terms|0"
	"logarithmic|200 + 10 * p^(1.25) * log2(p)|terms|0"
	"logarithmic|200 + 10 * p^(4/3) * log2(p)|terms|0"
	"logarithmic|200 + 10 * p^(1.5) * log2(p)^2|terms|0"
	"logarithmic|200 + 10 * p^2 * log2(p)|terms|0"
	"logarithmic|200 + 10 * p^(2.5) * log2(p)^2|terms|0"
	"logarithmic|200 + 10 * p^3 * log2(p)|terms|0"
	"logarithmic|200 + 10 * log2(p)^2|lead|1"
	"product|200 + 10 * p^1 * log2(p)^2 * q^(1.25)|terms|0"
	# found since a product's power climbs by up to a half (any of the
	# exponents) and a log at once
	"product|200 + 10 * p^(2/3) * q^(3/4) * log2(q)|terms|0"
	"product|200 + 10 * p^(4/3) * log2(p) * q^(1.5)|terms|0"
	"product|200 + 10 * p^2 * q^(9/4)|terms|0"
	"product|200 + 10 * p^(2.5) * q^(8/3)|terms|0"
	"product|200 + 10 * p^(1/2) * q^(1/2) * log2(q)|lead|1"
	"product|200 + 10 * p^1 * log2(p) * q^(5/4) * r^2|terms|0"
	# found since every one-factor term is tried from C alone (an input of a
	# small effect has seed factors), a log alone climbs to a small power and
	# back, and exact data's ties go to the fewest terms
	"product|200 + 10 * p^(1/4) * q^(1/3)|terms|0"
	"product|200 + 10 * log2(p) * q^(1/2) * log2(q)|terms|0"
	"product|200 + 10 * p^(1/3) * q^(1/2) * r^(2/3)|terms|0"
	"sum|200 + 10 * p^(1/4) + 20 * q^(1/3)|terms|0"
	"sum|200 + 10 * p^(2/3) + 20 * q^(3/4) * log2(q)|terms|0"
	"sum|200 + 10 * p^(1.5) + 20 * q^(5/3)|terms|0"
	"sum|200 + 10 * p^2 + 20 * q^(9/4)|terms|0"
	"sum|200 + 10 * p^(2.5) + 20 * q^(8/3)|terms|0"
	"sum|200 + 10 * p^1 + 20 * q^2|lead|1"
	# found since Extra-P's combinations of each input's best term (sum,
	# product, product plus one) join each budget's beam
	"sum|200 + 10 * log2(p)^2 + 20 * q^(1/2) * log2(q)|terms|0"
	"sum|200 + 10 * p^1 * log2(p) + 20 * q^(1.25)|terms|0"
	"sum|200 + 10 * p^(1/2) + 20 * q^1 + 30 * r^(3/2)|terms|0"
	"segmented|1000 + 10 * p^2 + 50 * [p > 16] * p^2|lead|0|4,8,12,16,20,24,28,32,36,40|44"
	"segmented|[p <= 20] * log2(p) + [p > 20] * p^2|lead|0|4,8,12,16,20,24,28,32,36,40|44"
	# a term that stops at the breakpoint and one that starts there: the
	# segment move (each side's own best shape, an offset from there on)
	"segmented|[p <= 5] * p^2 + 30 * [p > 5] + [p > 5] * p^1|terms|0|1,2,3,4,5,6,7,8,9,10|11"
	"segmented|67 * [p <= 5] + 63 * [p <= 5] * p^(1/4) * log2(p)^2 + 93 * [p > 5] + 64 * [p > 5] * p^(5/3)|lead|0|1,2,3,4,5,6,7,8,9,10|11"
	# two breakpoints, and a breakpoint of one parameter in a product of two
	"segmented|100 + 10 * p^1 + 5 * [p > 12] * p^2 + 0.5 * [p > 24] * p^3|terms|0|2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40|42"
	"segmented|200 + 10 * p^1 * q^1 + 50 * [p > 16] * p^2 * q^1|terms|0|4,8,12,16,20,24,28,32|36"
	"constant|200|terms|0"
	"constant|200|terms|1"
)
# Extra-P's cases that discover misses today (issue 35): run and reported,
# not failures. Move one up to CASES once it passes.
KNOWN_MISSES=(
	"logarithmic|200 + 10 * p^(1/3) * log2(p)|lead|1"
	# with 1 % noise the slope after the breakpoint (36 to 40 over 5 values)
	# is taken for a steeper term (p^3) from the next value on
	"segmented|[p <= 5] * p^2 + 30 * [p > 5] + [p > 5] * p^1|lead|1|1,2,3,4,5,6,7,8,9,10|11"
	# a product whose shape changes at the breakpoint: the segment move keeps
	# the product's shape on both sides, and the climbs do not reach p^2 * q^(1/2)
	"segmented|100 * [p <= 16] + 10 * [p <= 16] * p^1 * q^1 + 300 * [p > 16] + 2 * [p > 16] * p^2 * q^(1/2)|lead|0|4,8,12,16,20,24,28,32|36"
)

# case_N.csv for the N-th line on stdin (from 1): TRUTH over the full grid of
# its VALUES in every parameter it names (p alone for a constant), 1 run a
# point, or 4 with uniform NOISE % seeded by the line (the same wherever it is)
make_data() {
	python3 -c '
import itertools, math, random, re, sys
for n, line in enumerate(sys.stdin.read().splitlines(), 1):
    cls, truth, check, noise, values, nxt = (line.split("|") + ["", ""])[:6]
    noise = float(noise)
    params = [p for p in "pqr" if re.search(r"\b%s\b" % p, truth)] or ["p"]
    expr = truth.replace("^", "**").replace("[", "(").replace("]", ")")
    rng = random.Random(line)
    with open("case_%d.csv" % n, "w") as out:
        out.write(",".join(params + ["t"]) + "\n")
        for xs in itertools.product([float(v) for v in (values or "2,4,8,16,32").split(",")],
                                    repeat=len(params)):
            t = eval(expr, {"log2": math.log2}, dict(zip(params, xs)))
            for _ in range(4 if noise else 1):
                out.write(",".join(["%g" % x for x in xs] +
                                   ["%.17g\n" % (t * (1 + rng.uniform(-noise, noise) / 100))]))
'
}

# For the N-th line on stdin, "" when found_N.txt (discover's formula) is
# right, else why not: other terms than the truth's (CHECK terms), another
# lead of a parameter (CHECK lead), or model_N.json's prediction at NEXT in
# every parameter off by more than 1 % (exact data) or 5 % (noise)
judge() {
	python3 -c '
import csv, math, os, re, subprocess, sys
pm, lead = sys.argv[1:]
sys.path.insert(0, os.path.dirname(lead))
import lead_order
for n, line in enumerate(sys.stdin.read().splitlines(), 1):
    cls, truth, check, noise, values, nxt = (line.split("|") + ["", ""])[:6]
    nxt = nxt or "64"
    found = open("found_%d.txt" % n).read().strip()
    if not found:
        print("discover failed: " + open("err_%d.txt" % n).read().strip().replace("\n", " "))
        continue
    params = [p for p in "pqr" if re.search(r"\b%s\b" % p, truth)] or ["p"]
    why = []
    if check == "terms" and not lead_order.same(truth, found):
        why.append("other terms")
    leads = [lead_order.lead(lead_order.parse(f), p) for f in (truth, found) for p in params]
    if check == "lead" and leads[:len(params)] != leads[len(params):]:
        why.append("lead " + ", ".join("%s^(%s) log^%d" % (p, *ij)
                                       for p, ij in zip(params, leads[len(params):])))
    with open("next.csv", "w") as out:
        out.write(",".join(params) + "\n" + ",".join([nxt] * len(params)) + "\n")
    r = subprocess.run([pm, "predict", "-m", "model_%d.json" % n, "next.csv"],
                       capture_output=True, text=True)
    pred = float(list(csv.DictReader(r.stdout.splitlines()))[0]["predicted"])
    expr = truth.replace("^", "**").replace("[", "(").replace("]", ")")
    t = eval(expr, {"log2": math.log2}, {p: float(nxt) for p in params})
    if abs(pred - t) / t > (0.01 if float(noise) == 0 else 0.05):
        why.append("error %.2f %% at %s" % (100 * abs(pred - t) / t, nxt))
    print(", ".join(why))
' "$pm" "$lead"
}

all=("${CASES[@]}" ${KNOWN_MISSES[@]+"${KNOWN_MISSES[@]}"})
printf '%s\n' "${all[@]}" | make_data
declare -A ms count
for n in $(seq ${#all[@]}); do
	start=$(date +%s%N)
	"$pm" discover "case_$n.csv" --target t -o "model_$n.json" --threads 1 >out.txt 2>"err_$n.txt"
	took=$((($(date +%s%N) - start) / 1000000))
	sed -n 's/^ *t = //p' out.txt >"found_$n.txt"
	cls=${all[n - 1]%%|*}
	ms[$cls]=$((${ms[$cls]:-0} + took))
	count[$cls]=$((${count[$cls]:-0} + 1))
done
# a verdict a case, or every case fails: a judge that breaks passes nothing
printf '%s\n' "${all[@]}" | judge >verdicts.txt 2>judge.err
mapfile -t verdicts <verdicts.txt
if [ ${#verdicts[@]} -ne ${#all[@]} ]; then
	for n in $(seq ${#all[@]}); do verdicts[n - 1]="no verdict: $(tail -1 judge.err)"; done
fi
for n in $(seq ${#all[@]}); do
	line=${all[n - 1]}
	name="discover finds $(cut -d'|' -f2 <<<"$line") ($(cut -d'|' -f4 <<<"$line") % noise)"
	found=$(cat "found_$n.txt")
	verdict=${verdicts[n - 1]}
	if [ "$n" -gt ${#CASES[@]} ]; then
		echo "# known miss: $name: ${verdict:-passes now, move it to CASES}: $found"
	elif [ -z "$verdict" ]; then
		ok "$name: $found"
	else
		bad "$name" "$verdict: $found"
	fi
done
for cls in "${!ms[@]}"; do
	printf '# time: %s, %d cases, %d.%03d s\n' "$cls" "${count[$cls]}" $((ms[$cls] / 1000)) $((ms[$cls] % 1000))
done

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
