# machines.gp: one workload across machines (`arena machines DIR...`): each engine's headline against the machine's
# core count, a line per engine, the C floors dashed. Where machines share a core count (`n_machines` and `label_1`,
# `label_2`, ... given), each machine has a place of its own on the x axis instead, named by its label. Writes
# outdir/machines-<name>.png and .svg.
#   gnuplot -e "csv='.../machines-contention.csv'; outdir='OUT/plots'; name='contention'; engines='...'; engine_order='...'; scriptdir='...'; y_title='ops/s'; direction='higher is better'; x_values='2 16'" machines.gp
# The CSV (MachinesReport.csv): engine,cores,machine,value, where machine is the machine's place (from 1) and value is
# the geometric mean of the engine's median headline over the points every machine measured for it.
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
load scriptdir . '/common.gp'
if (!exists("direction")) { direction = "" }
if (!exists("x_values")) { x_values = "" }

by_machine = exists("n_machines") && n_machines > 0
x_of(e) = (strcol("engine") eq e ? column(by_machine ? "machine" : "cores") : NaN)
sel = engines
fsel = ""

do for [fmt in formats] {
    eval output(fmt, "machines-" . name, 900, 560)
    # The title after `output`: each format's figure starts from common.gp again (`closeout`), which clears it.
    eval figtitle(name . (by_machine ? ": each engine's headline on each machine" : ": each engine's headline against the machine's cores"), \
        "geometric mean of its medians over the points every machine measured (" . direction . ")" . floor_note("; dashed: C floors"))
    set multiplot
    eval panel(1, 1, 1)
    set logscale y
    set ylabel y_title
    if (by_machine) {
        set xlabel "machine (some share a core count)"
        set xtics ()
        do for [i=1:n_machines] { eval sprintf("set xtics add (\"%s\" %d)", value(sprintf("label_%d", i)), i) }
        set xrange [0.5 : n_machines + 0.5]
    } else {
        set logscale x 2
        set xlabel "cores"
    }
    if (!by_machine && words(x_values) > 0) {
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
