# test/accuracy/plots.gp: the plots of doc/accuracy.md, drawn from the TSVs of run.sh.
#
#   gnuplot -e "data = 'doc/data'; img = 'doc/img'" test/accuracy/plots.gp
#
# Every TSV has a header line; columns are taken by name.  Rows of other series are filtered
# out as NaN, and `set datafile missing NaN` lets lines run across them.

if (!exists("data")) data = "doc/data"
if (!exists("img")) img = "doc/img"

set datafile separator "\t"
set datafile columnheaders
set datafile missing NaN
set encoding utf8
set grid lc rgb "#dddddd"
set key box opaque samplen 2 spacing 1.1

# one colour per series (k = 1..8, p, s, ...)
set linetype 1 lc rgb "#1f77b4" lw 2 pt 7 ps 1.0
set linetype 2 lc rgb "#ff7f0e" lw 2 pt 5 ps 1.0
set linetype 3 lc rgb "#2ca02c" lw 2 pt 9 ps 1.2
set linetype 4 lc rgb "#d62728" lw 2 pt 11 ps 1.2
set linetype 5 lc rgb "#9467bd" lw 2 pt 13 ps 1.2
set linetype 6 lc rgb "#8c564b" lw 2 pt 7 ps 1.0
set linetype 7 lc rgb "#e377c2" lw 2 pt 5 ps 1.0
set linetype 8 lc rgb "#17becf" lw 2 pt 9 ps 1.2
set linetype 9 lc rgb "#444444" lw 1.5 pt 1 ps 1.5

single = "set terminal pngcairo size 800,500 font 'DejaVu Sans,10' enhanced"
double = "set terminal pngcairo size 1000,500 font 'DejaVu Sans,10' enhanced"

# ---------------------------------------------------------------------------------------------
# 1. Bloom filter: FPR against bits per key c = m/n, for k = 1..8
f = data . "/bloom_fpr.tsv"
@single
set output img . "/bloom_fpr_vs_bits.png"
set title "Bloom filter false-positive rate: m = c n bits, k hashes (n = 20,000 keys, 10^6 absent keys per point)"
set xlabel "bits per key, c = m / n"
set ylabel "false-positive rate (log scale)"
set logscale y
set format y "10^{%L}"
set xrange [1.5:16.5]
set yrange [3e-4:1]
set xtics 2, 1, 16
set key outside right top
plot for [k=1:8] f using "c":(column("k") == k ? column("measured") : NaN) with points lt k title sprintf("k = %d", k), \
     for [k=1:8] f using "c":(column("k") == k ? column("approx") : NaN) with lines lt k lw 1 notitle, \
     f using "c":(column("table3")) with points lt 9 title "Fan et al., Table 3", \
     NaN with lines lc rgb "#444444" lw 1 title "(1 - e^{-kn/m})^k"
unset logscale y
set format y "%g"
unset title

# ---------------------------------------------------------------------------------------------
# 2. Bloom filter: measured / approximate rate, with two standard deviations
set output img . "/bloom_fpr_ratio.png"
set title "Measured rate / (1 - e^{-kn/m})^k, error bars ±2 sd (lookups and filter fill)"
set xlabel "bits per key, c = m / n (points of one c spread by k)"
set ylabel "measured / formula"
set yrange [0.88:1.12]
set xrange [1.5:16.5]
set key outside right top
plot 1 with lines lc rgb "#444444" lw 1 notitle, \
     for [k=1:8] f using (column("c") + (k - 4.5) * 0.09):(column("k") == k ? column("measured_over_approx") : NaN):(2 * column("rel_sd")) \
         with yerrorbars lt k ps 0.7 title sprintf("k = %d", k)
unset title

# ---------------------------------------------------------------------------------------------
# 3. Small filters: the exact rate of Bose et al. against the approximation
f = data . "/bloom_small.tsv"
set output img . "/bloom_fpr_small.png"
set title "Small filters: average over 20,000 filters of 10 keys and 2,000 of 100 keys, k = round(c ln 2)"
set xlabel "bits per key, c = m / n"
set ylabel "rate / (1 - e^{-kn/m})^k"
set yrange [0.94:1.2]
set xrange [1.5:16.5]
set key inside left top
plot 1 with lines lc rgb "#444444" lw 1 notitle, \
     f using "c":(column("n") == 10 ? column("exact_over_approx") : NaN) with lines lt 1 title "n = 10: exact rate (bloom\\_fpr\\_exact)", \
     f using "c":(column("n") == 10 ? column("measured_over_approx") : NaN):(2 * column("rel_se") * column("measured_over_approx")) \
         with yerrorbars lt 1 title "n = 10: measured (±2 se)", \
     f using "c":(column("n") == 100 ? column("exact_over_approx") : NaN) with lines lt 2 title "n = 100: exact rate", \
     f using "c":(column("n") == 100 ? column("measured_over_approx") : NaN):(2 * column("rel_se") * column("measured_over_approx")) \
         with yerrorbars lt 2 title "n = 100: measured (±2 se)"
unset title

# ---------------------------------------------------------------------------------------------
# 4. bloom_agg(x, p) against the target p
f = data . "/bloom_auto.tsv"
set output img . "/bloom_agg_auto.png"
set title "Automatically sized bloom\\_agg(x, p): measured rate / target p (±2 se)"
set xlabel "distinct values n (log scale)"
set ylabel "rate / p"
set logscale x
set format x "10^{%L}"
set xrange [5:4e6]
set yrange [0.5:1.25]
set xtics auto
set key inside left bottom
set arrow 1 from 1048576, graph 0 to 1048576, graph 1 nohead lc rgb "#888888" dt 2
set label 1 "2^{20}: exact | dense phase" at 1048576, graph 0.96 right offset -0.5, 0 tc rgb "#555555"
P(i) = (i == 1 ? 0.1 : i == 2 ? 0.01 : i == 3 ? 0.001 : 0.0001)
plot 1 with lines lc rgb "#444444" lw 1 notitle, \
     for [i=1:4] f using (column("n") * (1 + 0.08 * (i - 2.5))):(abs(column("p") - P(i)) < P(i) * 1e-6 ? column("measured_over_target") : NaN):(2 * column("rel_se") * column("measured_over_target")) \
         with yerrorbars lt i title sprintf("p = %g: measured", P(i)), \
     for [i=1:4] f using "n":(abs(column("p") - P(i)) < P(i) * 1e-6 ? column("approx_over_target") : NaN) with lines lt i lw 1 dt 2 notitle, \
     for [i=1:4] f using "n":(abs(column("p") - P(i)) < P(i) * 1e-6 ? column("exact") / P(i) : NaN) with lines lt i lw 1.5 notitle, \
     NaN with lines lc rgb "#444444" lw 1 dt 2 title "(1 - e^{-kn/m})^k / p", \
     NaN with lines lc rgb "#444444" lw 1.5 title "exact rate / p"
unset arrow 1
unset label 1
unset logscale x
set format x "%g"
unset title

# ---------------------------------------------------------------------------------------------
# 5. Count-Min: over-estimates against eps N, depth 5 (and the largest at depth 1)
f = data . "/cms.tsv"
@double
set output img . "/cms_error.png"
set multiplot layout 1, 2 title "Count-Min over-estimate (estimate - true count) / N, every distinct key, N = 10^6"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xrange [3e-4:1.5e-2]
set yrange [3e-5:0.3]
set xlabel "epsilon (e / w)"
set ylabel "over-estimate / N"
set key inside right bottom
do for [st in "zipf uniform"] {
    set title (st eq "zipf" ? "Zipf-like stream (s = 1, 223,484 keys)" : "uniform stream (100,000 keys)")
    plot x with lines lc rgb "#444444" lw 1.5 title "bound eps N", \
         f using "eps":(strcol("stream") eq st && column("depth") == 5 ? column("max_over_n") : NaN) with linespoints lt 4 title "max, depth 5", \
         f using "eps":(strcol("stream") eq st && column("depth") == 5 ? column("p99_over_n") : NaN) with linespoints lt 2 title "99th percentile, depth 5", \
         f using "eps":(strcol("stream") eq st && column("depth") == 5 ? column("mean_over_n") : NaN) with linespoints lt 1 title "mean, depth 5", \
         f using "eps":(strcol("stream") eq st && column("depth") == 1 ? column("max_over_n") : NaN) with linespoints lt 9 dt 2 title "max, depth 1"
}
unset multiplot
unset logscale xy
set format x "%g"
set format y "%g"
unset title

# ---------------------------------------------------------------------------------------------
# 6. Count-Min: distribution of over-estimate / eps N, against 1 - delta, at eps = 0.001
f = data . "/cms_cdf.tsv"
set output img . "/cms_cdf.png"
set multiplot layout 1, 2 title "Count-Min, epsilon 0.001 (w = 2719): share of keys whose over-estimate is at most x eps N; dashed: 1 - e^{-d}"
set xrange [0:1.6]
set yrange [0:1.02]
set xlabel "over-estimate / eps N"
set ylabel "fraction of keys"
set key inside right bottom
set arrow 2 from 1, graph 0 to 1, graph 1 nohead lc rgb "#888888" dt 2
D(i) = (i == 1 ? 1 : i == 2 ? 2 : i == 3 ? 3 : 5)
do for [st in "zipf uniform"] {
    set title (st eq "zipf" ? "Zipf-like stream" : "uniform stream")
    plot for [i=1:4] f using "over_over_bound":(strcol("stream") eq st && abs(column("eps_asked") - 0.001) < 1e-9 && column("depth") == D(i) ? column("fraction_of_keys") : NaN) \
             with lines lt i title sprintf("depth %d (delta %.3g)", D(i), exp(-D(i))), \
         for [i=1:4] (1 - exp(-D(i))) with lines lt i lw 1 dt 2 notitle
}
unset multiplot
unset arrow 2
unset title

# ---------------------------------------------------------------------------------------------
# 7. topk: recall of the true top k, and the share the bounds prove
f = data . "/topk.tsv"
@single
set output img . "/topk_recall.png"
set title "topk\\_agg(x, k), epsilon 0.001 (1.5): share of the true top k listed (N = 10^6, Zipf-like, exponent s)"
set xlabel "k (log scale)"
set ylabel "share of k"
set logscale x
set xrange [0.8:1250]
set yrange [0:1.05]
set key at graph 0.02, graph 0.6 left top
S(i) = (i == 1 ? 0.8 : i == 2 ? 1.0 : i == 3 ? 1.2 : 1.5)
plot for [i=1:4] f using "k":(abs(column("s") - S(i)) < 1e-9 ? column("recall") : NaN) with linespoints lt i title sprintf("s = %.1f: recall", S(i)), \
     for [i=1:4] f using "k":(abs(column("s") - S(i)) < 1e-9 ? column("certified_fraction") : NaN) with linespoints lt i lw 1 dt 2 ps 0.6 notitle, \
     NaN with linespoints lc rgb "#444444" lw 1 dt 2 ps 0.6 title "share proven by the bounds (certified)"
unset logscale x
unset title

# ---------------------------------------------------------------------------------------------
# 8. cbloom: sliding window, and overload then drain
@double
set output img . "/cbloom_churn.png"
set multiplot layout 1, 2 title "Counting Bloom filter, capacity 10,000 at 0.01 (95,851 counters, k = 7)"
f = data . "/cbloom_window.tsv"
set title "sliding window of 10,000 keys: +5,000 -5,000 per step (4-bit)"
set xlabel "step"
set ylabel "rate"
set xrange [-0.5:20.5]
set yrange [0.007:0.0135]
set key inside left top
plot f using "step":"approx" with lines lc rgb "#444444" lw 1.5 title "(1 - e^{-kn/m})^k, n = 10,000", \
     f using "step":"measured" with linespoints lt 1 title "false positives, never-added keys", \
     f using "step":"removed_present_rate" with linespoints lt 2 title "removed keys still reported"
f = data . "/cbloom_drain.tsv"
set title "load L x 10,000 keys, then all but the last 10,000 removed"
set xlabel "load L before the drain"
set ylabel "false-positive rate after the drain"
set y2label "saturated counters (4-bit), share"
set xrange [0:17]
set yrange [0:0.04]
set y2range [0:0.4]
set y2tics
set ytics nomirror
set key inside left top
plot f using "load":"approx" with lines lc rgb "#444444" lw 1.5 title "formula, 10,000 keys", \
     f using "load":(column("counter_bits") == 4 ? column("measured") : NaN) with linespoints lt 4 title "4-bit counters", \
     f using "load":(column("counter_bits") == 8 ? column("measured") : NaN) with linespoints lt 1 title "8-bit counters", \
     f using "load":(column("counter_bits") == 4 ? column("saturated") / column("counters") : NaN) axes x1y2 with linespoints lt 4 dt 2 ps 0.6 title "saturated, 4-bit (right axis)"
unset multiplot
unset y2tics
unset y2label
set ytics mirror

# ---------------------------------------------------------------------------------------------
# 9. Blocked layout: measured / formula, and bits per key against the classic layout
@double
set output img . "/bloom_blocked.png"
set multiplot layout 1, 2 title "Cache-blocked filters (512-bit blocks): bloom\\_agg(x, n, p, 'blocked') and bloom\\_agg(x, p, 'blocked')"
f = data . "/bloom_blocked.tsv"
set title "measured rate / blocked formula (±2 se); lines: exact rate / formula"
set xlabel "keys n (log scale; points of one n spread by p)"
set ylabel "measured / bloom\\_fpr\\_estimate(m, n, k, 'blocked')"
set logscale x
set format x "10^{%L}"
set xrange [500:4e6]
set yrange [0.76:1.16]
set key inside left bottom font ",9" maxrows 4
set style fill transparent solid 0.08 noborder
PB(i) = (i == 1 ? 0.1 : i == 2 ? 0.05 : i == 3 ? 0.01 : i == 4 ? 0.001 : 0.0001)
plot '+' using 1:(0.9):(1.1) with filledcurves lc rgb "#2ca02c" notitle, \
     1 with lines lc rgb "#444444" lw 1 notitle, \
     for [i=1:5] f using (column("n") * (1 + 0.07 * (i - 3))):(abs(column("p") - PB(i)) < PB(i) * 1e-6 && strcol("how") eq "capacity" ? column("measured_over_formula") : NaN):(2 * column("rel_se") * column("measured_over_formula")) \
         with yerrorbars lt i title sprintf("p = %g", PB(i)), \
     for [i=1:5] f using (column("n") * (1 + 0.07 * (i - 3))):(abs(column("p") - PB(i)) < PB(i) * 1e-6 && strcol("how") eq "auto" ? column("measured_over_formula") : NaN):(2 * column("rel_se") * column("measured_over_formula")) \
         with yerrorbars lt i pt 4 notitle, \
     for [i=1:5] f using "n":(abs(column("p") - PB(i)) < PB(i) * 1e-6 && strcol("how") eq "capacity" ? column("exact_over_formula") : NaN) with lines lt i lw 1 dt 2 notitle, \
     NaN with points lc rgb "#444444" pt 4 title "auto-sized, dense phase", \
     NaN with lines lc rgb "#444444" lw 1 dt 2 title "exact rate / formula", \
     NaN with filledcurves lc rgb "#2ca02c" title "±10%"
unset style fill
f = data . "/bloom_blocked_bits.tsv"
set title "bits per key at target p (planning helpers)"
set xlabel "target false-positive rate p (log scale)"
set ylabel "bits per key"
set format x "10^{%L}"
set xrange [5e-7:0.3]
set yrange [0:40]
set key inside right top font ",9"
plot f using "p":(column("n") == 1000000 ? column("blocked_bits_per_key") : NaN) with linespoints lt 4 title "blocked, n = 10^6", \
     f using "p":(column("n") == 1000 ? column("blocked_bits_per_key") : NaN) with linespoints lt 4 dt 2 pt 4 title "blocked, n = 1,000", \
     f using "p":(column("n") == 1000000 ? column("classic_bits_per_key") : NaN) with linespoints lt 1 title "classic (n = 10^6; 1,000 the same)"
unset multiplot
unset logscale x
set format x "%g"
unset title

# ---------------------------------------------------------------------------------------------
# 10. Growable filters: measured rate / target, and size against a fixed filter, against the keys
@double
set output img . "/bloom_growable.png"
set multiplot layout 1, 2 title "Growable filters: bloom\\_empty(1000, p, growth, layout) given N keys by bloom\\_add"
f = data . "/growable.tsv"
GP(i) = (i == 1 || i == 2 ? 0.01 : 0.001)
GG(i) = (i == 1 || i == 3 ? 2 : 4)
set title "measured rate / p (±2 se); lines: the bound p (1 - 2^{-stages}), growth 2 and 4"
set xlabel "keys N (log scale; points of one N spread)"
set ylabel "measured / p"
set logscale x
set format x "10^{%L}"
set xrange [600:170000]
set yrange [0.3:1.4]
set key inside left top font ",9" maxrows 4
plot 1 with lines lc rgb "#444444" lw 1 notitle, \
     for [i=1:4] f using (column("n") * (1 + 0.04 * (i - 2.5))):(strcol("layout") eq "classic" && abs(column("p") - GP(i)) < 1e-9 && column("growth") == GG(i) ? column("measured_over_target") : NaN):(2 * column("rel_se") * column("measured_over_target")) \
         with yerrorbars lt i title sprintf("p = %g, growth %d", GP(i), GG(i)), \
     for [i=1:4] f using (column("n") * (1.2 + 0.04 * (i - 2.5))):(strcol("layout") eq "blocked" && abs(column("p") - GP(i)) < 1e-9 && column("growth") == GG(i) ? column("measured_over_target") : NaN):(2 * column("rel_se") * column("measured_over_target")) \
         with yerrorbars lt i pt 4 notitle, \
     f using "n":(strcol("layout") eq "classic" && abs(column("p") - 0.01) < 1e-9 && column("growth") == 2 ? column("bound") / column("p") : NaN) with lines lc rgb "#444444" lw 1 dt 2 notitle, \
     f using "n":(strcol("layout") eq "classic" && abs(column("p") - 0.01) < 1e-9 && column("growth") == 4 ? column("bound") / column("p") : NaN) with lines lc rgb "#444444" lw 1 dt 3 notitle, \
     NaN with points lc rgb "#444444" pt 7 title "classic", \
     NaN with points lc rgb "#444444" pt 4 title "blocked"
f = data . "/growable.tsv"
set title "bytes / bytes of bloom\\_empty(N, p, layout); dashed: 3"
set ylabel "size ratio"
set yrange [0:8]
set key inside left top font ",9" maxrows 4
plot 3 with lines lc rgb "#444444" lw 1 dt 2 notitle, \
     for [i=1:4] f using "n":(strcol("layout") eq "classic" && abs(column("p") - GP(i)) < 1e-9 && column("growth") == GG(i) ? column("size_ratio") : NaN) \
         with linespoints lt i title sprintf("p = %g, growth %d", GP(i), GG(i)), \
     for [i=1:4] f using "n":(strcol("layout") eq "blocked" && abs(column("p") - GP(i)) < 1e-9 && column("growth") == GG(i) ? column("size_ratio") : NaN) \
         with linespoints lt i pt 4 dt 2 notitle, \
     NaN with linespoints lc rgb "#444444" pt 7 title "classic", \
     NaN with linespoints lc rgb "#444444" pt 4 dt 2 title "blocked"
unset multiplot
unset logscale x
set format x "%g"
unset title

# ---------------------------------------------------------------------------------------------
# 11. topk against sketch size: topk 1.5, topk 1.4 (format 1) and topn, one line per design
f = data . "/topk_sizes.tsv"
set terminal pngcairo size 1500,540 font 'DejaVu Sans,10' enhanced
set output img . "/topk_sizes.png"
# topn is measured only when CREATE EXTENSION topn worked (its rows then have a recall)
set xrange [*:*]
set yrange [*:*]
stats f using (strcol("design") eq "topn" && column("recall100") == column("recall100") ? 1 : 0) nooutput
topn_measured = (STATS_sum > 0)
stats f using "n" nooutput
NROWS = STATS_max
set multiplot layout 1, 3 title "Top-k against the size of the sketch: Zipf-like stream floor(10^{6u}) of ".sprintf("%.0f", NROWS)." rows, uniform stream of 10^6 rows over 10^5 values\ntopk 1.5: topk\\_agg(x, k, epsilon, 0.05), epsilon varied;  topk 1.4: its topk\\_agg(x, 100, epsilon, 0.01);  topn: topn\\_add\\_agg(x::text), number\\_of\\_counters varied"
set logscale x
set xrange [1500:200000]
set xtics ("2 kB" 2000, "5 kB" 5000, "10 kB" 10000, "20 kB" 20000, "50 kB" 50000, "100 kB" 100000, "200 kB" 200000)
set xlabel "raw bytes (octet\\_length(t::bytea); topn: the jsonb), log scale"
# design i: 1 topk 1.5 k = 100, 2 topk 1.5 k = 10, 3 topk 1.4 k = 100, 4 topn
D(i) = (i == 1 || i == 2 ? "topk-1.5" : i == 3 ? "topk-1.4" : "topn")
K(i) = (i == 1 || i == 3 ? 100 : i == 2 ? 10 : -1)
IS(i) = (strcol("design") eq D(i) && (K(i) < 0 || column("k") == K(i)))
T(i) = (i == 1 ? "topk 1.5, k = 100" : i == 2 ? "topk 1.5, k = 10" : i == 3 ? "topk 1.4, k = 100" : "topn")
LT(i) = (i == 1 ? 1 : i == 2 ? 3 : i == 3 ? 4 : 2)
set title "recall of the true top 100 (ties at the cut count as found)\ndashed: the merge of 30 daily sketches"
set ylabel "recall of the top 100"
set yrange [0:1.05]
set key inside right bottom font ",9" samplen 3 maxrows 4
plot for [i=1:4] f using "raw_bytes":(IS(i) ? column("recall100") : NaN) with linespoints lt LT(i) title T(i), \
     for [i=1:4] f using "raw_bytes":(IS(i) ? column("rollup_recall100") : NaN) with linespoints lt LT(i) lw 1 dt 2 pt 6 notitle
unset key
if (!topn_measured) {
    set label 11 "topn: not measured (see the note in topk\\_sizes.tsv)" at graph 0.05, graph 0.45 left tc rgb "#555555"
}

set title "mean |frequency - true count| of the first 10 listed"
set ylabel "absolute error (log scale; 0 drawn at the bottom)"
set logscale y
set yrange [0.02:300000]
set ytics ("0" 0.03, "0.1" 0.1, "1" 1, "10" 10, "100" 100, "10^3" 1000, "10^4" 10000, "10^5" 100000)
Z(y) = (y > 0 ? y : 0.03)
plot for [i=1:4] f using "raw_bytes":(IS(i) ? Z(column("top10_abs_error")) : NaN) with linespoints lt LT(i) notitle
unset label 11

set title "uniform stream: mean frequency / true count of the first 10 listed"
set ylabel "frequency / true count (log scale)"
set yrange [0.3:5000]
set ytics auto
set format y "%g"
plot 1 with lines lc rgb "#444444" lw 1 notitle, \
     for [i=1:4] f using "raw_bytes":(IS(i) ? column("uniform_ratio") : NaN) with linespoints lt LT(i) notitle
unset multiplot
set key default
set key box opaque samplen 2 spacing 1.1
unset logscale xy
set xtics auto
set ytics auto
set format x "%g"
set format y "%g"
unset title
