# What the Slurm tests (slurm_lua.sh, slurm_cluster.sh) share, sourced after
# tap.sh: a models folder in the scratch folder with a fitted per-iteration
# model and the files a site must not let a job reach, and the limits
# perfmodel advise --slurm gives for a job, in whole minutes.
#   models/train.json    per-iteration time of batch_size, activation, threads
#   models/sub/train.json the same, one folder down
#   models/broken.json   not JSON; holds SECRET-IN-FILE, which no message may show
#   models/out.json      a link to ../outside.json, a valid model outside
#   models/plain.json    a model without intervals

# make_models PERFMODEL
make_models() {
	local pm=$1
	mkdir -p models/sub
	# 64 rows: time per iteration ~ batch_size / threads, tanh 30 % slower,
	# a few per cent of noise (deterministic)
	awk 'BEGIN {
		print "batch_size,activation,threads,time_per_iter_s"
		i = 0
		for (b = 16; b <= 128; b *= 2) for (a = 0; a < 2; a++)
			for (t = 1; t <= 8; t *= 2) for (r = 0; r < 2; r++) {
				i++
				time = (0.002 * b / t + 0.001) * (a ? 1.3 : 1) * (1 + 0.04 * sin(i * 1.7))
				printf "%d,%s,%d,%.6g\n", b, a ? "tanh" : "relu", t, time
			}
	}' >train.csv
	echo '{"target": "time_per_iter_s", "intrinsic": ["batch_size"], "categorical": ["activation"], "extrinsic": ["threads"]}' >spec.json
	"$pm" fit --form additive train.csv --spec spec.json -q -o models/train.json 2>fit.log || return 1
	"$pm" fit --form additive train.csv --spec spec.json -q --no-intervals -o models/plain.json 2>>fit.log || return 1
	cp models/train.json models/sub/train.json
	cp models/train.json outside.json
	ln -s ../outside.json models/out.json
	printf '{"target": SECRET-IN-FILE\n' >models/broken.json
}

# advise_minutes PERFMODEL THREADS BATCH ACTIVATION ITERATIONS: "TIME TIME_MIN"
# in minutes, from the #SBATCH lines advise --slurm prints
advise_minutes() {
	local pm=$1
	printf '{"batch_size": %s, "activation": "%s"}\n' "$3" "$4" >advise_job.json
	"$pm" advise -m models/train.json advise_job.json --vary "threads=$2" --slurm \
		--max-extrapolation none --iterations "$5" --time-quantile 0.95 \
		--time-min-quantile 0.8 2>/dev/null |
		awk -F'[= ]' '/^#SBATCH --time=/ { t = $3 } /^#SBATCH --time-min=/ { m = $3 }
			function minutes(s,   d, p) {
				d = 0
				if (s ~ /-/) { split(s, p, "-"); d = p[1]; s = p[2] }
				split(s, p, ":")
				return d * 1440 + p[1] * 60 + p[2] + (p[3] > 0)
			}
			END { print minutes(t), minutes(m) }'
}
