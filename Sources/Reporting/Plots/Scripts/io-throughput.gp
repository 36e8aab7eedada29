# io-throughput.gp: N MiB copied through a pipe or a loopback TCP connection by two I/O channels of one engine, MB/s
# against the read size (both water marks of the reading channel), one panel per transport, log-log. One line per
# engine, median over repetitions with min–max bars; the floor (a blocking read/write loop on two plain threads, the
# workload's baseline, measured once in each engine's process: 1.048576e9 / baseline_ns_per_op MB/s) as grey open
# circles, one per engine's process, joined by a dashed grey line through their mean. Failed points as crosses on the
# axis. Writes outdir/io-throughput.png and outdir/io-throughput.svg.
#   gnuplot -e "csv='DIR/io-throughput.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" io-throughput.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "io-throughput"
load scriptdir . '/common.gp'

name = "io-throughput"
transport_note(t) = t eq "pipe" ? "a pipe" : t eq "tcp" ? "a loopback TCP connection" : t
floor_color = "#6E6E6E"

# ---- what is there (before any range or log scale: stats filters by them) ----
# The transports with rows, in the workload's order: a panel each.
transports = param_values("transport")
n_transports = words(transports)
array sels[n_transports > 0 ? n_transports : 1]
array fsels[n_transports > 0 ? n_transports : 1]
array floors[n_transports > 0 ? n_transports : 1]
do for [i = 1:n_transports] {
    eval present(sprintf('strcol("transport") eq "%s"', word(transports, i)), 'column("median")', 'sel')
    eval failed(sprintf('strcol("transport") eq "%s"', word(transports, i)), 'column("median")', 'fsel')
    eval count(sprintf('strcol("transport") eq "%s" && isnum(num("baseline_ns_per_op"))', word(transports, i)), 'n_floor')
    sels[i] = sel; fsels[i] = fsel; floors[i] = n_floor
}
eval keysetup
# The floor's MB/s of a row (NaN when the row has none).
floor_mbs = '(isnum(num("baseline_ns_per_op")) && num("baseline_ns_per_op") > 0 ? 1.048576e9 / num("baseline_ns_per_op") : NaN)'
eval range('1', 'column("min")', 'column("max")', 'y')
eval range('1', floor_mbs, floor_mbs, 'f')
eval range('1', 'column("read_size")', 'column("read_size")', 'x')
eval distinct('column("read_size")', 'read_sizes')
y_lo = isnum(f_min) && (!isnum(y_min) || f_min < y_min) ? f_min : y_min
y_hi = isnum(f_max) && (!isnum(y_max) || f_max > y_max) ? f_max : y_max

# A read size for a tick: "4 KiB", "1 MiB".
size_label(v) = v >= 1048576 ? sprintf("%g MiB", v / 1048576) : v >= 1024 ? sprintf("%g KiB", v / 1024) : sprintf("%g B", v)
# Engines side by side at one read size: a small shift on the log2 axis, by place in `engines`.
n_eng = words(engines)
dodge(x, e) = x * 2 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.06)
x_of(e) = dodge(column("read_size"), e)
in_panel(e) = strcol("engine") eq e && strcol("transport") eq t
y_of(e) = num("median")
ylo_of(e) = num("min")
yhi_of(e) = num("max")
in_floor = 'strcol("transport") eq t'
floor_points = sprintf('csv using (column("read_size")):(%s ? %s : NaN) with points pt 6 ps 0.9 lw 1.2 lc rgb "%s" notitle', in_floor, floor_mbs, floor_color)
floor_line = sprintf('csv using (column("read_size")):(%s ? %s : NaN) smooth unique with lines dt 2 lw 1.5 lc rgb "%s" notitle', in_floor, floor_mbs, floor_color)
floor_key = sprintf('keyentry with linespoints pt 6 dt 2 lw 1.5 lc rgb "%s" title "floor (blocking loop)"', floor_color)

do for [fmt in formats] {
    eval output(fmt, name, 1200, 560)
    set multiplot
    eval figtitle("io-throughput: N MiB through I/O channels of one engine, against the read size (MB/s)", \
                  how_minmax . "; grey: the floor in each engine's process, dashed: their mean")
    set logscale x 2
    set logscale y 10
    set xrange [loglo(x_min, 1.5) : loghi(x_max, 1.5)]
    set yrange [loglo(y_lo, 1.6) : loghi(y_hi, 1.6)]
    eval log125('y', loglo(y_lo, 1.6), loghi(y_hi, 1.6))
    set format y "%g"
    set xtics ()
    do for [s in read_sizes] { set xtics add (size_label(s + 0) s + 0) }
    set xlabel "read size (the reader's water marks; the floor's read(2) size)"
    set ylabel "MB/s (10^6 bytes per second)"
    if (n_transports == 0) { sel = ""; fsel = ""; eval panel(1, 1, 1); eval panelnote; plot -1 notitle }
    do for [i = 1:n_transports] {
        t = word(transports, i)
        sel = sels[i]; fsel = fsels[i]
        eval panel(i, n_transports, 1)
        set title sprintf("transport:%s (%s)", t, transport_note(t))
        if (i > 1) { set ylabel "" }
        eval panelnote
        engines_part = clauses(words(sel) > 0 ? lp_lines : "", floors[i] > 0 ? floor_line . ", " . floor_points : "")
        eval join_plot(engines_part, words(fsel) > 0 ? lp_fails : "")
    }
    eval keypanel
    eval keylines . ", " . floor_key
    eval closeout
}
