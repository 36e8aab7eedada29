# fanout.gp: blocks per second against blocks per round (M blocks in a group, then notify and wait), log-log, one
# line per engine with the C floors dashed; median over repetitions with min–max bars; failed points as crosses on
# the axis. Writes outdir/fanout.png and outdir/fanout.svg.
#   gnuplot -e "csv='DIR/fanout.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" fanout.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "fanout"
load scriptdir . '/common.gp'

name = "fanout"

# ---- what is there (before any range or log scale: stats filters by them) ----
eval present('1', 'column("median")', 'sel')
eval failed('1', 'column("median")', 'fsel')
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')
eval range('1', 'column("blocks")', 'column("blocks")', 'x')
eval distinct('column("blocks")', 'block_counts')

n_eng = words(engines)
x_of(e) = column("blocks") * 10 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.02)
in_panel(e) = strcol("engine") eq e
y_of(e) = num("median")
ylo_of(e) = num("min")
yhi_of(e) = num("max")

do for [fmt in formats] {
    eval output(fmt, name, 900, 560)
    set multiplot
    eval figtitle("fanout: M blocks in a group on a concurrent queue, then notify and wait, per round", \
                  how_minmax . floor_note("; dashed: C floors"))
    eval panel(1, 1, 1)
    set title "blocks per second against blocks per round"
    set logscale x 10
    set logscale y 10
    set xrange [loglo(x_min, 2) : loghi(x_max, 2)]
    set yrange [loglo(y_min, 1.6) : loghi(y_max, 1.6)]
    eval log125('y', loglo(y_min, 1.6), loghi(y_max, 1.6))
    set xtics ()
    do for [b in block_counts] { set xtics add (thousands(b + 0) b + 0) }
    set xlabel "blocks per round (M)"
    set ylabel "blocks per second"
    eval panelnote
    eval lineplot
    eval keypanel
    eval keylines
    eval closeout
}
