# actor-hop.gp: a task awaits into an actor on the engine's serial executor and back (a default actor and Swift's
# global executor on the swift contender), from the engine's pool or from a task executor beside the actor: round-trip
# latency percentiles (the await alone) and the median round trip per engine, a row of the figure of roundtrip.gp per
# caller. Writes outdir/actor-hop.png and outdir/actor-hop.svg.
#   gnuplot -e "csv='DIR/actor-hop.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" actor-hop.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
name = "actor-hop"
roundtrip_what = "actor-hop: a task awaits into an actor on the engine's serial executor and back " \
    . "(time per round trip)"
row_param = "caller"
row_title(v) = v eq "pool" ? "caller on the pool" : v eq "co-located" ? "caller beside the actor" : "caller " . v
roundtrip_timed = " (the await alone)"
roundtrip_floors = ""
load scriptdir . '/roundtrip.gp'
