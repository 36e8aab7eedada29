# rw-barrier.gp: operations per second against threads, one panel per read share (reads 50, 90, 99 %: sync reads,
# barrierAsync writes on one concurrent queue), one line per engine with the C floors dashed, one y axis for all
# panels; median over repetitions with min–max bars; failed points as crosses on the axis. The read shares are read
# from the CSV. Writes outdir/rw-barrier.png and outdir/rw-barrier.svg.
#   gnuplot -e "csv='DIR/rw-barrier.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" rw-barrier.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "rw-barrier"
load scriptdir . '/common.gp'

name = "rw-barrier"

# ---- what is there (before any range or log scale: stats filters by them) ----
eval distinct('column("reads")', 'shares')
n_shares = words(shares)
array sels[n_shares > 0 ? n_shares : 1]
array fsels[n_shares > 0 ? n_shares : 1]
do for [i = 1:n_shares] {
    eval present(sprintf('column("reads") == %s', word(shares, i)), 'column("median")', 'sel')
    eval failed(sprintf('column("reads") == %s', word(shares, i)), 'column("median")', 'fsel')
    sels[i] = sel; fsels[i] = fsel
}
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')
eval range('1', 'column("threads")', 'column("threads")', 'x')
eval distinct('column("threads")', 'thread_counts')

n_eng = words(engines)
x_of(e) = column("threads") * 2 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.035)
in_panel(e) = strcol("engine") eq e && column("reads") == r
y_of(e) = num("median")
ylo_of(e) = num("min")
yhi_of(e) = num("max")
ncol = n_shares > 0 ? n_shares : 1

do for [fmt in formats] {
    eval output(fmt, name, 1200 + (ncol > 3 ? 300 * (ncol - 3) : 0), 560)
    set multiplot
    eval figtitle("rw-barrier: T threads, sync reads and barrierAsync writes on one concurrent queue (operations per second)", \
                  how_minmax . floor_note("; dashed: C floors"))
    set logscale x 2
    set logscale y 10
    set xrange [loglo(x_min, 1.3) : loghi(x_max, 1.3)]
    set yrange [loglo(y_min, 1.6) : loghi(y_max, 1.6)]
    eval log125('y', loglo(y_min, 1.6), loghi(y_max, 1.6))
    set xtics ()
    do for [t in thread_counts] { set xtics add (sprintf("%d", t + 0) t + 0) }
    set xlabel "threads (T)"
    if (n_shares == 0) { sel = ""; fsel = ""; eval panel(1, 1, 1); eval panelnote; eval lineplot }
    do for [i = 1:n_shares] {
        r = word(shares, i) + 0
        sel = sels[i]; fsel = fsels[i]
        eval panel(i, ncol, 1)
        set title sprintf("reads:%g (a write every %g operations)", r, r < 100 ? 100 / (100 - r) : 0)
        set ylabel (i == 1 ? "operations per second (ops/s)" : "")
        eval panelnote
        eval lineplot
    }
    eval keypanel
    eval keylines
    eval closeout
}
