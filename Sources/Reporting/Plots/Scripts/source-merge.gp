# source-merge.gp: P threads merge 1 into one add source. Left: merges per second against threads, median over
# repetitions with min–max bars. Right: the coalescing ratio, handler calls per merge (median over repetitions; 1: no
# coalescing, lower: more merges per handler call). One line per engine with the C floors dashed, log y, failed points
# as crosses on the axis. Writes outdir/source-merge.png and outdir/source-merge.svg.
#   gnuplot -e "csv='DIR/source-merge.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" source-merge.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "source-merge"
load scriptdir . '/common.gp'

name = "source-merge"

# ---- what is there (before any range or log scale: stats filters by them) ----
eval present('1', 'column("median")', 'sel_rate')
eval failed('1', 'column("median")', 'fsel_rate')
eval present('1', 'column("handler_calls_per_merge")', 'sel_ratio')
eval failed('1', 'column("handler_calls_per_merge")', 'fsel_ratio')
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')
eval range('1', 'column("handler_calls_per_merge")', 'column("handler_calls_per_merge")', 'q')
eval range('1', 'column("threads")', 'column("threads")', 'x')
eval distinct('column("threads")', 'thread_counts')

n_eng = words(engines)
x_of(e) = column("threads") * 2 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.035)
in_panel(e) = strcol("engine") eq e
ylo_of(e) = num("min")
yhi_of(e) = num("max")
# The ratio's axis reaches 1 (no coalescing) when the data come near it.
q_hi = isnum(q_max) ? (q_max > 0.5 ? (q_max > 1 ? q_max : 1) : q_max) : 1

do for [fmt in formats] {
    eval output(fmt, name, 1200, 560)
    gap_x = 110.0 / fig_wpx
    set multiplot
    eval figtitle("source-merge: P threads merge into one add source, its handler on a serial queue", \
                  "merges/s: " . how_minmax . "; ratio: median over repetitions" . floor_note("; dashed: C floors"))
    set logscale x 2
    set xrange [loglo(x_min, 1.3) : loghi(x_max, 1.3)]
    set xtics ()
    do for [t in thread_counts] { set xtics add (sprintf("%d", t + 0) t + 0) }
    set xlabel "threads (P)"
    set logscale y 10

    eval panel(1, 2, 1)
    set title "merges per second"
    set ylabel "merges per second"
    set yrange [loglo(y_min, 1.6) : loghi(y_max, 1.6)]
    eval log125('y', loglo(y_min, 1.6), loghi(y_max, 1.6))
    y_of(e) = num("median")
    sel = sel_rate; fsel = fsel_rate
    eval panelnote
    eval lineplot

    eval panel(2, 2, 1)
    set title "coalescing: handler calls per merge (lower: more merges per call)"
    set ylabel "handler calls per merge"
    set yrange [loglo(q_min, 1.8) : loghi(q_hi, 1.8)]
    eval log125('y', loglo(q_min, 1.8), loghi(q_hi, 1.8))
    set format y "%g"
    if (q_hi >= 1) {
        set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 3 lw 1.2 lc rgb "#888888" back
        set label 1 "1: no coalescing" at graph 0.01, first 1 left offset 0, 0.7 tc rgb "#777777"
    }
    y_of(e) = num("handler_calls_per_merge")
    sel = sel_ratio; fsel = fsel_ratio
    eval panelnote
    eval lineplot_nobars

    eval keypanel
    eval keylines
    eval closeout
}
