# starfish.gp: messages per second per engine (Q serial queues passing messages all-to-all), bars with min–max
# error bars and the median written above; the C floors hollow with a dashed border; a failed point is a cross on the
# axis. Writes outdir/starfish.png and outdir/starfish.svg.
#   gnuplot -e "csv='DIR/starfish.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" starfish.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "starfish"
load scriptdir . '/common.gp'

name = "starfish"

# ---- what is there (before any range or log scale: stats filters by them) ----
eval present('1', 'column("median")', 'sel')
eval failed('1', 'column("median")', 'fsel')
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')
eval range('1', 'column("queues")', 'column("queues")', 'q')
queues_text = !isnum(q_min) ? "" : q_min == q_max ? sprintf("Q = %d queues", q_min) : sprintf("Q = %d to %d queues", q_min, q_max)

# In millions, so the axis reads 0.5, 1, 1.5.
bx_of(e) = index_in(key_engines, e)
in_panel(e) = strcol("engine") eq e
y_of(e) = num("median") / 1e6
ylo_of(e) = num("min") / 1e6
yhi_of(e) = num("max") / 1e6
bar_w = 0.6
value_labels = 'for [e in sel] csv using (bx_of(e)):(in_panel(e) ? yhi_of(e) : NaN):(sprintf("%.3g", y_of(e))) with labels offset 0, 0.8 tc rgb "#303030" notitle'

do for [fmt in formats] {
    eval output(fmt, name, 900, 560)
    set multiplot
    eval figtitle("starfish: serial queues pass messages all-to-all (messages per second)", \
                  how_minmax . "; the median above each bar" . floor_note("; hollow, dashed: C floors"))
    eval panel(1, 1, 1)
    set title queues_text . ", one message starting on each queue"
    eval engine_tics(key_engines)
    set xtics scale 0
    set grid noxtics
    set xlabel "engine"
    set ylabel "million messages per second"
    set format y "%g"
    set yrange [0 : isnum(y_max) ? y_max / 1e6 * 1.15 : 1]
    eval panelnote
    eval join_plot(clauses(words(sel) > 0 ? bp_bars : "", words(sel) > 0 ? value_labels : ""), words(fsel) > 0 ? bp_fails : "")
    eval keypanel
    eval keybars
    eval closeout
}
