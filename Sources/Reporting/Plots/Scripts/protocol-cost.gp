# protocol-cost.gp: what the engine protocol and the system engine's wrapper cost (the system engine only; the same
# single-threaded loop through four paths, paired in one trial). Three panels, one group of bars per op (sync, async):
#   1. protocol_overhead_pct, the headline (generic path against the concrete wrapper): median with min–max over
#      repetitions, the median written above, a zero line
#   2. the other overheads, witness_overhead_pct (unspecialised against concrete) and wrapper_overhead_pct (concrete
#      against Dispatch): medians over repetitions, a zero line
#   3. ns per operation on each path (generic_ns, witness_ns, concrete_ns, dispatch_ns): medians over repetitions
# A failed point is a cross on the axis. Writes outdir/protocol-cost.png and outdir/protocol-cost.svg.
#   gnuplot -e "csv='DIR/protocol-cost.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" protocol-cost.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "protocol-cost"
load scriptdir . '/common.gp'

name = "protocol-cost"

# ---- what is there (before any range or log scale: stats filters by them) ----
# The workload measures one engine (the system engine); the first of `engines` with rows is shown, none named here.
eval present('1', '1', 'with_rows')
eng = words(with_rows) == 0 ? "" : word(with_rows, 1)
# The ops the engine has rows for, in the workload's order: a group each.
ops = ""
do for [o in param_values("op")] {
    eval count(sprintf('strcol("engine") eq "%s" && strcol("op") eq "%s"', eng, o), 'n_rows')
    if (n_rows > 0) { ops = ops . " " . o }
}
n_ops = words(ops)
mine = sprintf('strcol("engine") eq "%s"', eng)
eval range(mine, 'column("min")', 'column("max")', 'h')
eval range(mine, 'column("witness_overhead_pct")', 'column("witness_overhead_pct")', 'w')
eval range(mine, 'column("wrapper_overhead_pct")', 'column("wrapper_overhead_pct")', 'r')
eval range(mine, 'column("generic_ns")', 'column("generic_ns")', 'n1')
eval range(mine, 'column("witness_ns")', 'column("witness_ns")', 'n2')
eval range(mine, 'column("concrete_ns")', 'column("concrete_ns")', 'n3')
eval range(mine, 'column("dispatch_ns")', 'column("dispatch_ns")', 'n4')
eval count(mine . ' && !isnum(column("median"))', 'n_failed')
eval count(mine . ' && isnum(column("median"))', 'n_ok')
eval keysetup

nmin(a, b) = !isnum(a) ? b : !isnum(b) ? a : (a < b ? a : b)
nmax(a, b) = !isnum(a) ? b : !isnum(b) ? a : (a > b ? a : b)
# A percentage axis around [lo, hi] that always shows 0, with room for the labels.
pct_lo(lo, hi) = isnum(lo) ? (lo < 0 ? lo - 0.15 * (nmax(hi, 0) - lo) : -0.05 * nmax(hi, 1)) : -1
pct_hi(lo, hi) = isnum(hi) ? (hi > 0 ? hi + 0.18 * (hi - nmin(lo, 0)) : 0.05 * nmax(-lo, 1)) : 1

op_of(x) = index_in(ops, strcol("op"))
is_mine(x) = strcol("engine") eq eng && index_in(ops, strcol("op")) > 0
# Series colours: these are not engines, so a palette of their own.
c_protocol = 0x0072B2; c_witness = 0xE69F00; c_wrapper = 0x56B4E9
c_path(k) = k == 1 ? 0x0072B2 : k == 2 ? 0xE69F00 : k == 3 ? 0x009E73 : 0x999999
path_col(k) = k == 1 ? "generic_ns" : k == 2 ? "witness_ns" : k == 3 ? "concrete_ns" : "dispatch_ns"
path_name(k) = k == 1 ? "generic" : k == 2 ? "witness" : k == 3 ? "concrete" : "Dispatch"
fails = 'csv using (op_of(0)):(is_mine(0) && !isnum(num("median")) ? fail_y : NaN) axes x1y2 with points pt 2 ps 1.6 lw 2 lc rgb "#404040" notitle'

do for [fmt in formats] {
    eval output(fmt, name, 1200, 600)
    # Room for two-line panel titles.
    fig_t = 1 - 110.0 / fig_hpx
    # The key strip holds only the failed-point mark, when there is one.
    if (words(key_failed) == 0) { fig_b = 95.0 / fig_hpx }
    gap_x = 95.0 / fig_wpx
    # The headline's panel is narrower (two bars); the other two share the rest.
    p1_r = 0.27
    p_w = (fig_r - p1_r - 2 * gap_x) / 2
    set multiplot
    eval figtitle(sprintf("protocol-cost: what the engine protocol and the wrapper cost (%s engine, one thread, paths paired)", eng), \
                  "the protocol's overhead: " . how_minmax . "; the other panels: medians over repetitions")
    set xrange [0.4 : n_ops + 0.6]
    set xtics scale 0
    set grid noxtics
    set xlabel "operation on a serial queue"
    set format y "%g"
    set xzeroaxis lt 1 lc rgb "#404040" lw 1.2
    sel = n_ok > 0 ? eng : ""; fsel = n_failed > 0 ? eng : ""

    eval panel(1, 3, 1)
    set lmargin at screen fig_l; set rmargin at screen p1_r
    set title "protocol_overhead_pct:\ngeneric path against concrete"
    set xtics ()
    do for [k = 1:n_ops] { set xtics add (sprintf("op:%s", word(ops, k)) k) }
    set ylabel "overhead (%)"
    set yrange [pct_lo(h_min, h_max) : pct_hi(h_min, h_max)]
    eval panelnote
    eval join_plot(n_ok > 0 ? \
        'csv using (op_of(0)):(is_mine(0) ? num("median") : NaN):(num("min")):(num("max")):(0.5) with boxerrorbars fs solid 0.85 border lc rgb c_protocol lc rgb c_protocol lw 1.5 notitle, ' . \
        'csv using (op_of(0)):(is_mine(0) && isnum(num("median")) ? num("max") : NaN):(sprintf("%+.1f %%", num("median"))) with labels offset 0, 0.8 tc rgb "#202020" notitle' : "", \
        n_failed > 0 ? fails : "")

    # Each bar named under it, the op under its pair.
    set lmargin at screen p1_r + gap_x; set rmargin at screen p1_r + gap_x + p_w
    set xrange [0.3 : n_ops + 0.7]
    set title "witness: unspecialised against concrete\nwrapper: concrete against Dispatch"
    set xtics ()
    do for [k = 1:n_ops] {
        set xtics add ("witness" k - 0.24, "wrapper" k + 0.24)
        set label 10 + k sprintf("op:%s", word(ops, k)) at first k, graph 0 center offset 0, -2.3
    }
    set xlabel "operation on a serial queue" offset 0, -1.2
    ylo2 = pct_lo(nmin(w_min, r_min), nmax(w_max, r_max)); yhi2 = pct_hi(nmin(w_min, r_min), nmax(w_max, r_max))
    set yrange [ylo2 : yhi2]
    # A bar's label just beyond its end, above a positive bar, below a negative one.
    beyond(v) = v + (v < 0 ? -1 : 1) * 0.045 * (yhi2 - ylo2)
    eval panelnote
    eval join_plot(n_ok > 0 ? \
        'csv using (op_of(0) - 0.24):(is_mine(0) ? num("witness_overhead_pct") : NaN):(0.44) with boxes fs solid 0.85 border lc rgb c_witness lc rgb c_witness lw 1.5 notitle, ' . \
        'csv using (op_of(0) + 0.24):(is_mine(0) ? num("wrapper_overhead_pct") : NaN):(0.44) with boxes fs solid 0.85 border lc rgb c_wrapper lc rgb c_wrapper lw 1.5 notitle, ' . \
        'csv using (op_of(0) - 0.24):(is_mine(0) ? beyond(num("witness_overhead_pct")) : NaN):(sprintf("%+.0f %%", num("witness_overhead_pct"))) with labels tc rgb "#202020" notitle, ' . \
        'csv using (op_of(0) + 0.24):(is_mine(0) ? beyond(num("wrapper_overhead_pct")) : NaN):(sprintf("%+.0f %%", num("wrapper_overhead_pct"))) with labels tc rgb "#202020" notitle' : "", \
        n_failed > 0 ? fails : "")
    do for [k = 1:n_ops] { unset label 10 + k }

    set lmargin at screen fig_r - p_w; set rmargin at screen fig_r
    set xrange [0.4 : n_ops + 0.6]
    set title "time per operation on each path\n(generic: as workloads call the engine)"
    set xtics ()
    do for [k = 1:n_ops] { set xtics add (sprintf("op:%s", word(ops, k)) k) }
    set xlabel "operation on a serial queue" offset 0, 0
    set ylabel "ns per operation"
    n_top = nmax(nmax(n1_max, n2_max), nmax(n3_max, n4_max))
    set yrange [0 : isnum(n_top) && n_top > 0 ? n_top * 1.4 : 1]
    unset xzeroaxis
    set key top left reverse Left samplen 1.5 box opaque maxrows 2 width -1
    if (n_ok == 0) { unset key }
    eval panelnote
    eval join_plot(n_ok > 0 ? \
        'for [k = 1:4] csv using (op_of(0) + (k - 2.5) * 0.2):(is_mine(0) ? num(path_col(k)) : NaN):(0.19) with boxes fs solid 0.85 border lc rgb c_path(k) lc rgb c_path(k) lw 1.5 title path_name(k)' : "", \
        n_failed > 0 ? fails : "")

    eval keypanel
    if (words(key_failed) == 0) { unset key }
    eval 'plot -1 notitle, ' . keyfail
    eval closeout
}
