# A bigger data set from a small one: the header, then ROWS rows that cycle
# through the input's rows with the target column (number TC, 1-based)
# scaled by a random factor in [0.975, 1.025] and a numeric input column
# (number JC) by one in [1, 1.001], so that a fit on it behaves as on the
# original, only with more rows, every one its own configuration (the fit
# merges rows of the same configuration: copies would cost it nothing).
# Seeded: the same output each run.
# usage: awk -F, -v OFS=, -v tc=COL -v jc=COL -v rows=N -f replicate_rows.awk IN.csv
NR == 1 { print; next }
{ r[++m] = $0 }
END {
	srand(7)
	for (i = 0; i < rows; i++) {
		$0 = r[i % m + 1]
		$tc = $tc * (1 + 0.05 * (rand() - 0.5))
		$jc = $jc * (1 + 0.001 * rand())
		print
	}
}
