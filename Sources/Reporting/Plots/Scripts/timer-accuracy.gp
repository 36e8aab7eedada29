# timer-accuracy.gp: how late one-shot timers fire (timer sources and asyncAfter, armed 1 ms or 10 ms ahead, zero
# leeway), in µs, log y. Left: the median lateness (lateness_p50_us, the headline) as grouped bars, one group per
# kind and interval, one bar per engine, with min–max over repetitions. Right: the 99th percentile (lateness_p99_us,
# median over repetitions), same layout. The C floors hollow with a dashed border; a failed point is a cross on the
# axis. Writes outdir/timer-accuracy.png and outdir/timer-accuracy.svg.
#   gnuplot -e "csv='DIR/timer-accuracy.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" timer-accuracy.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "timer-accuracy"
load scriptdir . '/common.gp'

name = "timer-accuracy"
# The groups, in the workload's order: kind (timer source, asyncAfter) by interval (ascending); a pair without rows
# gets no group.
kind_name(k) = k eq "timer" ? "timer source" : k eq "after" ? "asyncAfter" : k

# ---- what is there (before any range or log scale: stats filters by them) ----
eval distinct('label_ns(strcol("interval"))', 'intervals')
groups_kind = ""; groups_ns = ""
do for [k in param_values("kind")] {
    do for [v in intervals] {
        eval count(sprintf('strcol("kind") eq "%s" && label_ns(strcol("interval")) == %s', k, v), 'n_rows')
        if (n_rows > 0) { groups_kind = groups_kind . " " . k; groups_ns = groups_ns . " " . v }
    }
}
n_groups = words(groups_kind)
eval present('1', 'column("median")', 'sel_p50')
eval failed('1', 'column("median")', 'fsel_p50')
eval present('1', 'column("lateness_p99_us")', 'sel_p99')
eval failed('1', 'column("lateness_p99_us")', 'fsel_p99')
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'a')
eval range('1', 'column("lateness_p99_us")', 'column("lateness_p99_us")', 'b')

# A row's group (1-based; 0 when not one of the groups) and its bar's place in it, by the engine's place in the key.
group_of(k, v) = sum [_g=1:n_groups] (word(groups_kind, _g) eq k && word(groups_ns, _g) + 0 == v ? _g : 0)
n_slots = words(key_engines) > 0 ? words(key_engines) : 1
bar_w = 0.8 / n_slots
bx_of(e) = group_of(strcol("kind"), label_ns(strcol("interval"))) + (index_in(key_engines, e) - (n_slots + 1) / 2.0) * bar_w
in_panel(e) = strcol("engine") eq e && group_of(strcol("kind"), label_ns(strcol("interval"))) > 0
ylo_of(e) = num("min")
yhi_of(e) = num("max")

do for [fmt in formats] {
    eval output(fmt, name, 1200, 560)
    set multiplot
    eval figtitle("timer-accuracy: how late one-shot timers fire, zero leeway (lateness, µs)", \
                  "left: median lateness, " . how_minmax . "; right: 99th percentile, median over repetitions" . floor_note("; hollow, dashed: C floors"))
    set xtics ()
    do for [g = 1:n_groups] { set xtics add (sprintf("%s\n%s ahead", kind_name(word(groups_kind, g)), ns_label(word(groups_ns, g) + 0)) g) }
    set xrange [0.45 : n_groups + 0.55]
    set xtics scale 0
    set grid noxtics
    set xlabel "kind, armed how far ahead" offset 0, -1
    set logscale y 10
    set format y "%g"

    eval panel(1, 2, 1)
    set title "median lateness (lateness_p50_us)"
    set ylabel "lateness after the deadline (µs)"
    set yrange [loglo(a_min, 1.5) : loghi(a_max, 1.5)]
    eval log125('y', loglo(a_min, 1.5), loghi(a_max, 1.5))
    y_of(e) = num("median")
    sel = sel_p50; fsel = fsel_p50
    eval panelnote
    eval barplot

    eval panel(2, 2, 1)
    set title "99th percentile lateness (lateness_p99_us)"
    set ylabel "lateness after the deadline (µs)"
    set yrange [loglo(b_min, 1.5) : loghi(b_max, 1.5)]
    eval log125('y', loglo(b_min, 1.5), loghi(b_max, 1.5))
    y_of(e) = num("lateness_p99_us")
    sel = sel_p99; fsel = fsel_p99
    eval panelnote
    eval barplot_nobars

    eval keypanel
    eval keybars
    eval closeout
}
