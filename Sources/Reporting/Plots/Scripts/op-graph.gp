# op-graph.gp: operations per second per engine's operation layer and Foundation's OperationQueue (the foundation
# contender), one panel per shape, the figure of panelbars.gp. Writes outdir/op-graph.png and outdir/op-graph.svg.
#   gnuplot -e "csv='DIR/op-graph.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" op-graph.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
name = "op-graph"
panel_param = "shape"
panel_title(v) = sprintf("shape:%s", v)
bars_what = "op-graph: a dependency graph of operations built, added and run per round (operations per second)"
bars_ylabel = "million operations per second"
figure_width = 1100
load scriptdir . '/panelbars.gp'
