# task-fanout.gp: child tasks per second per engine's task executor (Swift's global executor on the swift contender),
# one panel per number of children, the figure of panelbars.gp. Writes outdir/task-fanout.png and
# outdir/task-fanout.svg.
#   gnuplot -e "csv='DIR/task-fanout.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" task-fanout.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
name = "task-fanout"
panel_param = "children"
panel_title(v) = sprintf("M = %s child tasks per round", thousands(v + 0))
bars_what = "task-fanout: a task group of M child tasks per round on the engine's pool (child tasks per second)"
bars_ylabel = "million child tasks per second"
figure_width = 1100
load scriptdir . '/panelbars.gp'
