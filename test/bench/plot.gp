# test/bench/plot.gp: the plots of doc/performance.md from a results TSV of test/bench/run.sh.
#   gnuplot -e "in='doc/data/performance.tsv'; before='doc/data/performance-1.1.tsv'; dir='doc/img'" test/bench/plot.gp
# performance_sql.png: SQL cases, time as a multiple of the reference measured in the same run
# (lower is better), with the target.  performance_parallel.png: speed-up of 2 workers over the
# serial plan (higher is better).  performance_micro.png: the core's Bloom filter against
# libbloom, ns per operation.  With `before` (an older results TSV), the first two plots show its
# ratios beside the new ones, for the cases both runs have.
if (!exists("in")) in = 'doc/data/performance.tsv'
if (!exists("dir")) dir = 'doc/img'
if (!exists("before")) before = ''
set terminal pngcairo size 900,560 font ",10" noenhanced
set datafile separator "\t"
set style fill solid 0.6
set grid x
set xrange [0:*]
set yrange [-0.7:*] reverse
set lmargin 36

# rows "case <tab> ratio <tab> target <tab> ratio before (or NaN)" of the cases whose id matches re
# and whose target starts with op
rows(re, op) = sprintf("< awk -F'\t' -v re='%s' -v op='%s' 'FNR == 1 { f++ } f == 1 && $1 ~ re { b[$1] = $6 } f == 2 && $1 ~ re && index($7, op) == 1 { split($7, t, \" \"); print $1 \"\t\" $6 \"\t\" t[2] \"\t\" ($1 in b ? b[$1] : \"NaN\") }' %s %s", re, op, (before eq '' ? '/dev/null' : before), in)

set output dir.'/performance_sql.png'
sql = rows('^(agg|text|grp|semi)\\.', '<=')
set title "SQL cases: time / reference in the same run (lower is better); black: target"
set xlabel "ratio (reference: hll_add_agg, count(u), or a 1k-key filter)"
set key bottom right
plot sql using ($2/2):($0+0.17):($2/2):(0.16):yticlabels(1) with boxxyerror lc rgb "#3070b0" title "now", \
     sql using ($4/2):($0-0.17):($4/2):(0.16) with boxxyerror lc rgb "#b0b0b0" title (before eq '' ? '' : "version 1.1"), \
     sql using 3:0:(0.015):(0.42) with boxxyerror lc rgb "black" title "target"

set output dir.'/performance_parallel.png'
par = rows('^par\\.', '>=')
set title "Parallel plans: serial time / time with 2 workers (higher is better); black: target"
set xlabel "speed-up"
plot par using ($2/2):($0+0.17):($2/2):(0.16):yticlabels(1) with boxxyerror lc rgb "#3070b0" title "now", \
     par using ($4/2):($0-0.17):($4/2):(0.16) with boxxyerror lc rgb "#b0b0b0" title (before eq '' ? '' : "version 1.1"), \
     par using 3:0:(0.015):(0.42) with boxxyerror lc rgb "black" title "target"

set output dir.'/performance_micro.png'
micro = "< awk -F'\t' '$1 ~ /^micro\\..*\\.(insert|lookup_present|lookup_absent)$/ {split($1, a, \".\"); n = a[2]; lab = (n >= 1000000 ? n/1000000 \"M\" : n/1000 \"k\") \" keys, \" a[3]; print lab \"\t\" $2 \"\t\" $4}' ".in
set title "Bloom filter core vs libbloom at the same n and fpr 0.01 (lower is better)"
set xlabel "ns per operation"
set lmargin 28
plot micro using ($2/2):($0-0.18):($2/2):(0.17):yticlabels(1) with boxxyerror lc rgb "#3070b0" title "bloomsketch core", \
     micro using ($3/2):($0+0.18):($3/2):(0.17) with boxxyerror lc rgb "#c05030" title "libbloom"
