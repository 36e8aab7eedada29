# actor-contention.gp: queue, actor or lock? Increments per second of T tasks on each engine's pool sharing one
# counter, one panel per task count, the guards along x (actor, queue-sync, mutex, pthread) and a bar per engine at
# each, log y, with min–max error bars; a failed point is a cross on the axis, and a guard an engine was not measured
# at (queue-sync on swift and actor) has no bar. Writes outdir/actor-contention.png and outdir/actor-contention.svg.
#   gnuplot -e "csv='DIR/actor-contention.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" actor-contention.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "actor-contention"
load scriptdir . '/common.gp'

name = "actor-contention"
# The guards with rows, in the workload's order, one place on the x axis each; `mutex` is the standard library's
# Synchronization.Mutex (ActorContentionWorkload.title(of:)), named so beside the engine called mutex.
guards = param_values("guard")
guard_title(g) = g eq "mutex" ? "Synchronization.Mutex" : (g eq "pthread" ? "pthread mutex" : g)

# ---- what is there (before any range or log scale: stats filters by them) ----
eval distinct('column("tasks")', 'task_counts')
n_panels = words(task_counts)
array sels[n_panels > 0 ? n_panels : 1]
array fsels[n_panels > 0 ? n_panels : 1]
do for [i = 1:n_panels] {
    eval present(sprintf('column("tasks") == %s', word(task_counts, i)), 'column("median")', 'sel')
    eval failed(sprintf('column("tasks") == %s', word(task_counts, i)), 'column("median")', 'fsel')
    sels[i] = sel; fsels[i] = fsel
}
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')

# A guard's engines side by side around its place: bar k of n at guard g.
n_eng = words(key_engines)
bar_w = 0.8 / (n_eng > 0 ? n_eng : 1)
bx_of(e) = index_in(guards, strcol("guard")) + (index_in(key_engines, e) - (n_eng + 1) / 2.0) * bar_w
in_panel(e) = strcol("engine") eq e && column("tasks") == t
y_of(e) = num("median")
ylo_of(e) = num("min")
yhi_of(e) = num("max")

do for [fmt in formats] {
    eval output(fmt, name, 1500, 600)
    set multiplot
    eval figtitle("actor-contention: T tasks on the engine's pool increment one shared counter: queue, actor or lock? (increments per second)", \
                  how_minmax . "; queue-sync: the engine's serial queue; mutex: Synchronization.Mutex; pthread: a pthread mutex")
    set xtics () scale 0
    do for [k = 1:words(guards)] { set xtics add (guard_title(word(guards, k)) k) }
    set xrange [0.4 : words(guards) + 0.6]
    set grid noxtics
    set xlabel "guard"
    set ylabel "increments per second"
    set logscale y 10
    set yrange [loglo(y_min, 2) : loghi(y_max, 2)]
    eval log125('y', loglo(y_min, 2), loghi(y_max, 2))
    if (n_panels == 0) { sel = ""; fsel = ""; eval panel(1, 1, 1); eval panelnote; plot -1 notitle }
    do for [i = 1:n_panels] {
        t = word(task_counts, i) + 0
        sel = sels[i]; fsel = fsels[i]
        eval panel(i, n_panels, 1)
        set title sprintf("T = %d task%s", t, t == 1 ? "" : "s")
        if (i > 1) { set ylabel "" }
        eval panelnote
        eval barplot
    }
    eval keypanel
    eval keybars
    eval closeout
}
