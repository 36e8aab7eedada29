# machines.gp: one workload across machines (`arena machines DIR...`): each engine's headline against the machine's
# core count, a line per engine, the C floors dashed. Writes outdir/machines-<name>.png and .svg.
#   gnuplot -e "csv='.../machines-contention.csv'; outdir='OUT/plots'; name='contention'; engines='...'; engine_order='...'; scriptdir='...'; y_title='ops/s'; direction='higher is better'; x_values='2 16'" machines.gp
# The CSV (MachinesReport.csv): engine,cores,value, where value is the geometric mean of the engine's median headline
# over the points every machine measured for it.
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
load scriptdir . '/common.gp'
if (!exists("direction")) { direction = "" }
if (!exists("x_values")) { x_values = "" }

eval figtitle(name . ": each engine's headline against the machine's cores", \
    "geometric mean of its medians over the points every machine measured (" . direction . "); dashed: C floors")
x_of(e) = (strcol("engine") eq e ? column("cores") : NaN)
sel = engines
fsel = ""

do for [fmt in formats] {
    eval output(fmt, "machines-" . name, 900, 560)
    set multiplot
    eval panel(1, 1, 1)
    set logscale x 2
    set logscale y
    set xlabel "cores"
    set ylabel y_title
    if (words(x_values) > 0) {
        set xtics ()
        do for [v in x_values] { set xtics add (v v + 0) }
        set xrange [word(x_values, 1) / 1.4 : word(x_values, words(x_values)) * 1.4]
    }
    plot for [e in sel] csv using (x_of(e)):(column("value")) with linespoints lc rgb engine_color(e) dt engine_dt(e) \
        lw engine_lw(e) pt engine_pt(e) notitle
    eval keypanel
    plot for [e in sel] NaN with linespoints lc rgb engine_color(e) dt engine_dt(e) lw engine_lw(e) pt engine_pt(e) \
        title engine_title(e)
    eval closeout
}
