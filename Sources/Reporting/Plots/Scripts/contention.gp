# contention.gp: critical sections per second against threads, one panel per mode (sync, async-write), one line per
# engine with the C floors dashed; median over repetitions with min–max bars; failed points as crosses on the axis.
# Writes outdir/contention.png and outdir/contention.svg.
#   gnuplot -e "csv='DIR/contention.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" contention.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "contention"
load scriptdir . '/common.gp'

name = "contention"
mode_note(m) = m eq "sync" ? "every critical section a sync" : m eq "async-write" ? "async writes, every second op a sync read" : ""

# ---- what is there (before any range or log scale: stats filters by them) ----
# The modes with rows, in the workload's order: a panel each.
modes = param_values("mode")
n_modes = words(modes)
array sels[n_modes > 0 ? n_modes : 1]
array fsels[n_modes > 0 ? n_modes : 1]
do for [i = 1:n_modes] {
    eval present(sprintf('strcol("mode") eq "%s"', word(modes, i)), 'column("median")', 'sel')
    eval failed(sprintf('strcol("mode") eq "%s"', word(modes, i)), 'column("median")', 'fsel')
    sels[i] = sel; fsels[i] = fsel
}
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')
eval range('1', 'column("threads")', 'column("threads")', 'x')
eval distinct('column("threads")', 'thread_counts')

# Engines side by side at one thread count: a small shift on the log2 axis, by place in `engines`.
n_eng = words(engines)
dodge(x, e) = x * 2 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.035)
x_of(e) = dodge(column("threads"), e)
in_panel(e) = strcol("engine") eq e && strcol("mode") eq m
y_of(e) = num("median")
ylo_of(e) = num("min")
yhi_of(e) = num("max")

do for [fmt in formats] {
    eval output(fmt, name, 1200, 560)
    set multiplot
    eval figtitle("contention: T threads through one serial queue (critical sections per second)", \
                  how_minmax . floor_note("; dashed: C floors"))
    set logscale x 2
    set logscale y 10
    set xrange [loglo(x_min, 1.3) : loghi(x_max, 1.3)]
    set yrange [loglo(y_min, 1.6) : loghi(y_max, 1.6)]
    eval log125('y', loglo(y_min, 1.6), loghi(y_max, 1.6))
    set xtics ()
    do for [t in thread_counts] { set xtics add (sprintf("%d", t + 0) t + 0) }
    set xlabel "threads (T)"
    set ylabel "critical sections per second (ops/s)"
    if (n_modes == 0) { sel = ""; fsel = ""; eval panel(1, 1, 1); eval panelnote; plot -1 notitle }
    do for [i = 1:n_modes] {
        m = word(modes, i)
        sel = sels[i]; fsel = fsels[i]
        eval panel(i, n_modes, 1)
        set title sprintf("mode:%s (%s)", m, mode_note(m))
        if (i > 1) { set ylabel "" }
        eval panelnote
        eval lineplot
    }
    eval keypanel
    eval keylines
    eval closeout
}
