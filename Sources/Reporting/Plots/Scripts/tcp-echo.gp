# tcp-echo.gp: C blocking clients make 64-byte round trips to a loopback TCP echo server built on one engine (a read
# source accepting, a channel per connection). Left: round trips per second against clients, median over repetitions
# with min–max bars, log-log. Middle and right: the round trip's latency, p50 (p50_ns) and p99 (p99_ns) over all
# repetitions, in µs against clients, log-log. One line per engine; failed points as crosses on the axis. Writes
# outdir/tcp-echo.png and outdir/tcp-echo.svg.
#   gnuplot -e "csv='DIR/tcp-echo.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" tcp-echo.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "tcp-echo"
load scriptdir . '/common.gp'

name = "tcp-echo"

# ---- what is there (before any range or log scale: stats filters by them) ----
eval present('1', 'column("median")', 'sel_rate')
eval failed('1', 'column("median")', 'fsel_rate')
eval present('1', 'column("p50_ns")', 'sel_lat')
eval failed('1', 'column("p50_ns")', 'fsel_lat')
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')
eval range('1', 'column("p50_ns")', 'column("p99_ns")', 'p')
eval range('1', 'column("clients")', 'column("clients")', 'x')
eval distinct('column("clients")', 'client_counts')

n_eng = words(engines)
x_of(e) = column("clients") * 2 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.06)
in_panel(e) = strcol("engine") eq e
ylo_of(e) = num("min")
yhi_of(e) = num("max")

do for [fmt in formats] {
    eval output(fmt, name, 1500, 560)
    gap_x = 95.0 / fig_wpx
    set multiplot
    eval figtitle("tcp-echo: C clients, 64-byte round trips to a loopback echo server on one engine (channels)", \
                  "round trips/s: " . how_minmax . "; latency: percentiles of single round trips over all repetitions")
    set logscale x 2
    set xrange [loglo(x_min, 1.5) : loghi(x_max, 1.5)]
    set xtics ()
    do for [c in client_counts] { set xtics add (sprintf("%d", c + 0) c + 0) }
    set xlabel "clients (C)"
    set logscale y 10

    eval panel(1, 3, 1)
    set title "round trips per second (all clients)"
    set ylabel "round trips per second"
    set yrange [loglo(y_min, 1.6) : loghi(y_max, 1.6)]
    eval log125('y', loglo(y_min, 1.6), loghi(y_max, 1.6))
    y_of(e) = num("median")
    sel = sel_rate; fsel = fsel_rate
    eval panelnote
    eval lineplot

    set format y "%g"
    set yrange [loglo(p_min / 1e3, 1.6) : loghi(p_max / 1e3, 1.6)]
    eval log125('y', loglo(p_min / 1e3, 1.6), loghi(p_max / 1e3, 1.6))
    sel = sel_lat; fsel = fsel_lat

    eval panel(2, 3, 1)
    set title "median round trip (p50)"
    set ylabel "round-trip latency (µs)"
    y_of(e) = num("p50_ns") / 1e3
    eval panelnote
    eval lineplot_nobars

    eval panel(3, 3, 1)
    set title "99th percentile round trip (p99)"
    set ylabel ""
    y_of(e) = num("p99_ns") / 1e3
    eval panelnote
    eval lineplot_nobars

    eval keypanel
    eval keylines
    eval closeout
}
