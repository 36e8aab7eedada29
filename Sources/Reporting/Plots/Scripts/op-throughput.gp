# op-throughput.gp: operations per second per engine's operation layer and Foundation's OperationQueue (the foundation
# contender), one panel per width, the figure of panelbars.gp. Writes outdir/op-throughput.png and
# outdir/op-throughput.svg.
#   gnuplot -e "csv='DIR/op-throughput.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" op-throughput.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
name = "op-throughput"
panel_param = "width"
panel_title(v) = sprintf("maxConcurrentOperationCount: %s", v)
bars_what = "op-throughput: N independent block operations on one operation queue (operations per second)"
bars_ylabel = "million operations per second"
figure_width = 1400
load scriptdir . '/panelbars.gp'
