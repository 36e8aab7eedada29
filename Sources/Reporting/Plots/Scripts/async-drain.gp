# async-drain.gp: blocks per second. Left: the concurrent queue against producers (log2 x), one line per engine with
# the C floors dashed. Right, on the same axis: per engine, the serial queue (one producer, solid bar) beside the
# concurrent queue with one producer (hatched bar), what the queue kind alone costs. Median over repetitions with
# min–max bars; failed points as crosses on the axis. Writes outdir/async-drain.png and .svg.
#   gnuplot -e "csv='DIR/async-drain.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" async-drain.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "async-drain"
load scriptdir . '/common.gp'

name = "async-drain"
conc = 'strcol("queue") eq "concurrent"'
ser1 = 'strcol("queue") eq "serial"'
conc1 = 'strcol("queue") eq "concurrent" && column("producers") == 1'

# ---- what is there (before any range or log scale: stats filters by them) ----
eval present(conc, 'column("median")', 'sel_conc')
eval failed(conc, 'column("median")', 'fsel_conc')
eval present(ser1, 'column("median")', 'sel_ser')
eval failed(ser1, 'column("median")', 'fsel_ser')
eval present(conc1, 'column("median")', 'sel_conc1')
eval failed(conc1, 'column("median")', 'fsel_conc1')
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')
eval range(conc, 'column("producers")', 'column("producers")', 'x')
eval distinct(sprintf('(%s) ? column("producers") : NaN', conc), 'producer_counts')
# The right panel's engines: every engine with a row in either of its points.
eval present(sprintf('(%s) || (%s)', ser1, conc1), '1', 'bar_engines')

n_eng = words(engines)
dodge(x, e) = x * 2 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.035)
bar_w = 0.36

do for [fmt in formats] {
    eval output(fmt, name, 1200, 560)
    set multiplot
    eval figtitle("async-drain: producers async empty blocks and wait for the drain (blocks per second)", \
                  how_minmax . floor_note("; dashed or hollow: C floors"))
    set logscale y 10
    set yrange [loglo(y_min, 1.6) : loghi(y_max, 1.6)]
    eval log125('y', loglo(y_min, 1.6), loghi(y_max, 1.6))
    set ylabel "blocks per second"

    # Left: the concurrent queue against producers.
    eval panel(1, 2, 1)
    set lmargin at screen fig_l; set rmargin at screen 0.56
    set title "concurrent queue: P producers"
    set logscale x 2
    set xrange [loglo(x_min, 1.3) : loghi(x_max, 1.3)]
    set xtics ()
    do for [p in producer_counts] { set xtics add (sprintf("%d", p + 0) p + 0) }
    set xlabel "producers (P)"
    sel = sel_conc; fsel = fsel_conc
    x_of(e) = dodge(column("producers"), e)
    in_panel(e) = strcol("engine") eq e && strcol("queue") eq "concurrent"
    y_of(e) = num("median")
    ylo_of(e) = num("min")
    yhi_of(e) = num("max")
    eval panelnote
    eval lineplot

    # Right: one producer, serial queue against concurrent queue, per engine.
    set lmargin at screen 0.56 + gap_x; set rmargin at screen fig_r
    set title "one producer: serial (solid), concurrent (hatched)"
    unset logscale x
    set ylabel ""
    set xlabel "engine"
    set grid noxtics
    eval engine_tics(bar_engines)
    set xtics scale 0
    in_ser(e) = strcol("engine") eq e && strcol("queue") eq "serial"
    in_conc1(e) = strcol("engine") eq e && strcol("queue") eq "concurrent" && column("producers") == 1
    ser_x(e) = index_in(bar_engines, e) - bar_w / 2
    conc_x(e) = index_in(bar_engines, e) + bar_w / 2
    c_ser = 'for [e in sel_ser] csv using (ser_x(e)):(in_ser(e) ? num("median") : NaN):(num("min")):(num("max")):(bar_w) with boxerrorbars fs solid engine_fill(e) border lc rgb engine_color(e) lc rgb engine_color(e) dt engine_dt(e) lw 1.5 notitle'
    c_conc = 'for [e in sel_conc1] csv using (conc_x(e)):(in_conc1(e) ? num("median") : NaN):(num("min")):(num("max")):(bar_w) with boxerrorbars fs pattern 4 border lc rgb engine_color(e) lc rgb engine_color(e) dt engine_dt(e) lw 1.5 notitle'
    c_fser = 'for [e in fsel_ser] csv using (ser_x(e)):(in_ser(e) && !isnum(num("median")) ? fail_y : NaN) axes x1y2 with points pt 2 ps 1.6 lw 2 lc rgb engine_color(e) notitle'
    c_fconc = 'for [e in fsel_conc1] csv using (conc_x(e)):(in_conc1(e) && !isnum(num("median")) ? fail_y : NaN) axes x1y2 with points pt 2 ps 1.6 lw 2 lc rgb engine_color(e) notitle'
    sel = sel_ser . sel_conc1; fsel = fsel_ser . fsel_conc1
    eval panelnote
    eval join_plot(clauses(words(sel_ser) > 0 ? c_ser : "", words(sel_conc1) > 0 ? c_conc : ""), \
                   clauses(words(fsel_ser) > 0 ? c_fser : "", words(fsel_conc1) > 0 ? c_fconc : ""))

    eval keypanel
    eval keylines
    eval closeout
}
