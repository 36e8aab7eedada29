# actor-hop.gp: a task on each engine's pool awaits into an actor on the engine's serial executor and back (a default
# actor and Swift's global executor on the swift contender): round-trip latency percentiles (the await alone) and the
# median round trip per engine, the figure of roundtrip.gp. Writes outdir/actor-hop.png and outdir/actor-hop.svg.
#   gnuplot -e "csv='DIR/actor-hop.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../scripts/plot'" actor-hop.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
name = "actor-hop"
roundtrip_what = "actor-hop: a task on the engine's pool awaits into an actor on its serial executor and back " \
    . "(time per round trip)"
roundtrip_timed = " (the await alone)"
roundtrip_floors = ""
load scriptdir . '/roundtrip.gp'
