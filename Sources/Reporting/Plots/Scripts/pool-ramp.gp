# pool-ramp.gp: K blocks that each sleep 50 ms, submitted at once to the default global queue (does the pool add
# threads for blocked workers?), against K, log2 x. Left: the time until all K finished (finish_ms, the headline),
# median over repetitions with min–max bars, log y; dashed: the target (target_ms), dotted: a pool of `cores`
# threads that never grows (fixed_pool_ms). Middle: when a trivial block submitted after the K started
# (first_start_ms, median over repetitions), log y. Right: the engine's peak threads (peak_engine_threads, median
# over repetitions), log y; dashed: the bound K + cores + 2 (target_threads). One line per engine; failed points as
# crosses on the axis. Writes outdir/pool-ramp.png and outdir/pool-ramp.svg.
#   gnuplot -e "csv='DIR/pool-ramp.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" pool-ramp.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "pool-ramp"
load scriptdir . '/common.gp'

name = "pool-ramp"

# ---- what is there (before any range or log scale: stats filters by them) ----
eval present('1', 'column("median")', 'sel_finish')
eval failed('1', 'column("median")', 'fsel_finish')
eval present('1', 'column("first_start_ms")', 'sel_start')
eval failed('1', 'column("first_start_ms")', 'fsel_start')
eval present('1', 'column("peak_engine_threads")', 'sel_threads')
eval failed('1', 'column("peak_engine_threads")', 'fsel_threads')
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'f')
eval range('1', 'column("target_ms")', 'column("fixed_pool_ms")', 'b')
eval range('1', 'column("first_start_ms")', 'column("first_start_ms")', 's')
eval range('1', 'column("peak_engine_threads")', 'column("target_threads")', 't')
eval range('1', 'column("blocks")', 'column("blocks")', 'x')
eval range('1', 'column("target_ms")', 'column("target_ms")', 'tm')
eval range('1', 'column("fixed_pool_ms")', 'column("fixed_pool_ms")', 'fp')
eval range('1', 'column("target_threads")', 'column("target_threads")', 'tt')
eval distinct('column("blocks")', 'block_counts')

# The figure's lower and upper ends over the measured values and the bounds drawn beside them.
lo(a, b) = !isnum(a) ? b : !isnum(b) ? a : (a < b ? a : b)
hi(a, b) = !isnum(a) ? b : !isnum(b) ? a : (a > b ? a : b)

n_eng = words(engines)
x_of(e) = column("blocks") * 2 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.05)
in_panel(e) = strcol("engine") eq e
ylo_of(e) = num("min")
yhi_of(e) = num("max")
# The bounds as lines through the rows (one row of any engine per K carries them).
bound_line(c, d, w) = sprintf('csv using (column("blocks")):(num("%s")) smooth unique with lines dashtype %d lw %g lc rgb "#606060" notitle', c, d, w)

do for [fmt in formats] {
    eval output(fmt, name, 1500, 560)
    gap_x = 95.0 / fig_wpx
    set multiplot
    eval figtitle("pool-ramp: K blocks that each sleep 50 ms, submitted at once to the default global queue", \
                  "finish: " . how_minmax . "; dashed: the target; dotted: a pool of cores threads that never grows")
    set logscale x 2
    set xrange [loglo(x_min, 1.5) : loghi(x_max, 1.5)]
    set xtics ()
    do for [k in block_counts] { set xtics add (sprintf("%d", k + 0) k + 0) }
    set xlabel "blocks (K)"
    set logscale y 10
    set format y "%g"

    eval panel(1, 3, 1)
    set title "until all K finished (finish_ms)"
    set ylabel "ms"
    set yrange [loglo(lo(f_min, b_min), 1.4) : loghi(hi(f_max, b_max), 1.4)]
    eval log125('y', loglo(lo(f_min, b_min), 1.4), loghi(hi(f_max, b_max), 1.4))
    y_of(e) = num("median")
    sel = sel_finish; fsel = fsel_finish
    eval panelnote
    if (isnum(tm_max)) { set label 11 "target" at first x_min, first tm_max left offset 0, 0.7 tc rgb "#404040" front }
    if (isnum(fp_max)) { set label 12 "fixed pool" at first x_max, first fp_max right offset -1.5, 0 tc rgb "#404040" front }
    eval join_plot(clauses(bound_line("target_ms", 2, 1.2) . ", " . bound_line("fixed_pool_ms", 3, 1.2), \
                           words(sel) > 0 ? lp_lines : ""), words(fsel) > 0 ? lp_fails : "")

    unset label 11; unset label 12
    eval panel(2, 3, 1)
    set title "trivial block submitted after them starts (first_start_ms)"
    set ylabel ""
    set yrange [loglo(s_min, 2) : loghi(s_max, 2)]
    eval log125('y', loglo(s_min, 2), loghi(s_max, 2))
    y_of(e) = num("first_start_ms")
    sel = sel_start; fsel = fsel_start
    eval panelnote
    eval lineplot_nobars

    eval panel(3, 3, 1)
    set title "the engine's peak threads (peak_engine_threads)"
    set ylabel "threads"
    set logscale y 2
    set yrange [loglo(t_min, 1.5) : loghi(t_max, 1.5)]
    set ytics autofreq
    y_of(e) = num("peak_engine_threads")
    sel = sel_threads; fsel = fsel_threads
    eval panelnote
    if (isnum(tt_max)) { set label 13 "K + cores + 2" at first x_max, first tt_max right offset -1.5, 0 tc rgb "#404040" front }
    eval join_plot(clauses(bound_line("target_threads", 2, 1.2), words(sel) > 0 ? lp_points : ""), \
                   words(fsel) > 0 ? lp_fails : "")
    unset label 13

    eval keypanel
    eval keylines
    eval closeout
}
