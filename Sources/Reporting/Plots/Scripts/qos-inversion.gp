# qos-inversion.gp: how long a user-initiated block waits in sync onto a background serial queue with a backlog of
# 4 x 100 µs, the pool idle or flooded with background blocks (priority inversion), in µs, log y. Left: the median
# wait (wait_p50_us, the headline) as grouped bars, one group per pool state, one bar per engine, with min–max over
# repetitions; the backlog alone (400 µs) is a dashed line. Right: the 99th percentile (wait_p99_us, median over
# repetitions), same layout. A failed point is a cross on the axis. Writes outdir/qos-inversion.png and .svg.
#   gnuplot -e "csv='DIR/qos-inversion.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" qos-inversion.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
views = "qos-inversion"
load scriptdir . '/common.gp'

name = "qos-inversion"
backlog_us = 400
pool_name(p) = p eq "idle" ? "pool idle" : p eq "saturated" ? "pool flooded with\nbackground blocks" : p

# ---- what is there ----
# The pool states with rows, in the workload's order: a group each.
groups = param_values("pool")
n_groups = words(groups)
eval present('1', 'column("median")', 'sel_p50')
eval failed('1', 'column("median")', 'fsel_p50')
eval present('1', 'column("wait_p99_us")', 'sel_p99')
eval failed('1', 'column("wait_p99_us")', 'fsel_p99')
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'a')
eval range('1', 'column("wait_p99_us")', 'column("wait_p99_us")', 'b')

group_of(p) = sum [_g=1:n_groups] (word(groups, _g) eq p ? _g : 0)
n_slots = words(key_engines) > 0 ? words(key_engines) : 1
bar_w = 0.8 / n_slots
bx_of(e) = group_of(strcol("pool")) + (index_in(key_engines, e) - (n_slots + 1) / 2.0) * bar_w
in_panel(e) = strcol("engine") eq e && group_of(strcol("pool")) > 0
ylo_of(e) = num("min")
yhi_of(e) = num("max")

do for [fmt in formats] {
    eval output(fmt, name, 1200, 560)
    set multiplot
    eval figtitle("qos-inversion: a user-initiated sync onto a background queue with a 400 µs backlog (caller's wait, µs)", \
                  "left: median wait, " . how_minmax . "; right: 99th percentile, median over repetitions; dashed: the backlog alone")
    set xtics ()
    do for [g = 1:n_groups] { set xtics add (pool_name(word(groups, g)) g) }
    set xrange [0.45 : n_groups + 0.55]
    set xtics scale 0
    set grid noxtics
    set xlabel "pool" offset 0, -1
    set logscale y 10
    set format y "%g"
    set arrow 1 from graph 0, first backlog_us to graph 1, first backlog_us nohead dashtype 2 lc rgb "#808080"

    eval panel(1, 2, 1)
    set title "median wait (wait_p50_us)"
    set ylabel "wait in sync (µs)"
    set yrange [loglo(a_min < backlog_us ? a_min : backlog_us, 1.5) : loghi(a_max, 1.5)]
    eval log125('y', loglo(a_min < backlog_us ? a_min : backlog_us, 1.5), loghi(a_max, 1.5))
    y_of(e) = num("median")
    sel = sel_p50; fsel = fsel_p50
    eval panelnote
    eval barplot

    eval panel(2, 2, 1)
    set title "99th percentile wait (wait_p99_us)"
    set ylabel "wait in sync (µs)"
    set yrange [loglo(b_min < backlog_us ? b_min : backlog_us, 1.5) : loghi(b_max, 1.5)]
    eval log125('y', loglo(b_min < backlog_us ? b_min : backlog_us, 1.5), loghi(b_max, 1.5))
    y_of(e) = num("wait_p99_us")
    sel = sel_p99; fsel = fsel_p99
    eval panelnote
    eval barplot_nobars

    unset arrow 1
    eval keypanel
    eval keybars
    eval closeout
}
