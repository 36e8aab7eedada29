# pingpong.gp: two serial queues bounce one token (latency of an async that wakes another queue): round-trip latency
# percentiles and the median round trip per engine, the figure of roundtrip.gp. Writes outdir/pingpong.png and
# outdir/pingpong.svg.
#   gnuplot -e "csv='DIR/pingpong.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" pingpong.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
name = "pingpong"
roundtrip_what = "pingpong: two serial queues async one token back and forth (time per round trip)"
roundtrip_timed = ""
roundtrip_floors = "; hollow, dashed: C floors"
load scriptdir . '/roundtrip.gp'
