# test/bench/plot.gp: the plots of doc/performance.md from a results TSV of test/bench/run.sh.
#   gnuplot -e "in='doc/data/performance.tsv'; dir='doc/img'" test/bench/plot.gp
# performance_sql.png: SQL cases, time as a multiple of the reference measured in the same run
# (lower is better), with the target.  performance_micro.png: the core's Bloom filter against
# libbloom, ns per operation.
if (!exists("in")) in = 'doc/data/performance.tsv'
if (!exists("dir")) dir = 'doc/img'
set terminal pngcairo size 900,520 font ",10" noenhanced
set datafile separator "\t"
set style fill solid 0.6
set grid x
set xrange [0:*]
set yrange [-0.7:*] reverse
set lmargin 24

set output dir.'/performance_sql.png'
sql = "< awk -F'\t' '$1 ~ /^(agg|text|grp|semi)\\./ && $7 ~ /^<=/ {split($7, t, \" \"); print $1 \"\t\" $6 \"\t\" t[2]}' ".in
set title "SQL cases: time / reference in the same run (lower is better); black: target"
set xlabel "ratio (reference: hll_add_agg, count(u), or a 1k-key filter)"
set key bottom right
plot sql using ($2/2):0:($2/2):(0.3):yticlabels(1) with boxxyerror lc rgb "#3070b0" title "measured", \
     sql using 3:0:(0.015):(0.42) with boxxyerror lc rgb "black" title "target"

set output dir.'/performance_micro.png'
micro = "< awk -F'\t' '$1 ~ /^micro\\..*\\.(insert|lookup_present|lookup_absent)$/ {split($1, a, \".\"); n = a[2]; lab = (n >= 1000000 ? n/1000000 \"M\" : n/1000 \"k\") \" keys, \" a[3]; print lab \"\t\" $2 \"\t\" $4}' ".in
set title "Bloom filter core vs libbloom at the same n and fpr 0.01 (lower is better)"
set xlabel "ns per operation"
set lmargin 28
plot micro using ($2/2):($0-0.18):($2/2):(0.17):yticlabels(1) with boxxyerror lc rgb "#3070b0" title "bloomsketch core", \
     micro using ($3/2):($0+0.18):($3/2):(0.17) with boxxyerror lc rgb "#c05030" title "libbloom"
