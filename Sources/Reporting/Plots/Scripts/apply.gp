# apply.gp: apply against a plain loop doing the same busy work. Views:
#   apply-speedup     speedup over the plain loop against work per iteration (categorical), one panel per n, with the
#                     ideal (the core count) and 1 (no gain) as lines; bars: speedup x min/median .. speedup x max/median
#                     (the CSV has the median speedup; the plain loop's time is fixed within a point, so the headline's
#                     spread carries over)
#   apply-throughput  iterations per second against n (log-log), one panel per work size, min–max bars
#   apply             the speedup view again, the workload's base figure
# One line per engine (C floors dashed), failed points as crosses on the axis. n and the work sizes are read from the
# CSV, not assumed.
#   gnuplot -e "csv='DIR/apply.csv'; outdir='DIR/plots'; engines='...'; cores=N; scriptdir='.../Sources/Reporting/Plots/Scripts'" apply.gp
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = "apply apply-speedup apply-throughput"
load scriptdir . '/common.gp'

# ---- what is there (before any range or log scale: stats filters by them) ----
work_ns(e) = label_ns(strcol("work"))
eval distinct('column("n")', 'sizes')
eval distinct('label_ns(strcol("work"))', 'works')
n_sizes = words(sizes); n_works = words(works)
# Position of a work size (ns) on the categorical axis.
work_index(v) = sum [k=1:n_works] (word(works, k) + 0 == v ? k : 0)

array sp_sel[n_sizes > 0 ? n_sizes : 1]
array sp_fsel[n_sizes > 0 ? n_sizes : 1]
do for [i = 1:n_sizes] {
    eval present(sprintf('column("n") == %s', word(sizes, i)), 'column("speedup")', 'sel')
    eval failed(sprintf('column("n") == %s', word(sizes, i)), 'column("speedup")', 'fsel')
    sp_sel[i] = sel; sp_fsel[i] = fsel
}
array tp_sel[n_works > 0 ? n_works : 1]
array tp_fsel[n_works > 0 ? n_works : 1]
do for [i = 1:n_works] {
    eval present(sprintf('label_ns(strcol("work")) == %s', word(works, i)), 'column("median")', 'sel')
    eval failed(sprintf('label_ns(strcol("work")) == %s', word(works, i)), 'column("median")', 'fsel')
    tp_sel[i] = sel; tp_fsel[i] = fsel
}
eval keysetup
# The speedup's bars, from the headline's spread.
sp_lo(e) = num("speedup") * num("min") / num("median")
sp_hi(e) = num("speedup") * num("max") / num("median")
eval range('1', 'sp_lo(0)', 'sp_hi(0)', 'sp')
eval range('1', 'column("min")', 'column("max")', 'tp')
eval range('1', 'column("n")', 'column("n")', 'nn')
# The speedup axis always shows 1 and the ideal.
sp_min = isnum(sp_min) ? (sp_min < 1 ? sp_min : 1) : 0.1
sp_max = isnum(sp_max) ? (sp_max > cores ? sp_max : (cores > 1 ? cores : 1)) : (cores > 1 ? cores : 2)

n_eng = words(engines)
# Engines side by side in one category, or at one n on the log axis.
dodge_cat(x, e) = x + (engine_index(e) - (n_eng + 1) / 2.0) * 0.06
dodge_log(x, e) = x * 10 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.025)

# Panels: side by side up to three, else two columns.
grid_cols(n) = n <= 3 ? (n > 0 ? n : 1) : 2
grid_rows(n) = n <= 3 ? 1 : int((n + 1) / 2)

do for [view in "apply-speedup apply apply-throughput"] {
    n_panels = view eq "apply-throughput" ? n_works : n_sizes
    ncol = grid_cols(n_panels); nrow = grid_rows(n_panels)
    do for [fmt in formats] {
        eval output(fmt, view, 1200, nrow == 1 ? 560 : 150 + 380 * nrow)
        set multiplot
        if (view eq "apply-throughput") {
            eval figtitle("apply: iterations per second against n, one panel per work per iteration", \
                          how_minmax . floor_note("; dashed: C floors"))
            set logscale x 10
            set logscale y 10
            set xrange [loglo(nn_min, 2.5) : loghi(nn_max, 2.5)]
            set yrange [loglo(tp_min, 1.8) : loghi(tp_max, 1.8)]
            eval log125('y', loglo(tp_min, 1.8), loghi(tp_max, 1.8))
            set xtics ()
            do for [v in sizes] { set xtics add (thousands(v + 0) v + 0) }
            set format x "%.0s%c"
            set xlabel "iterations per apply call (n)"
            set ylabel "iterations per second"
            x_of(e) = dodge_log(column("n"), e)
            in_panel(e) = strcol("engine") eq e && label_ns(strcol("work")) == w
            y_of(e) = num("median")
            ylo_of(e) = num("min")
            yhi_of(e) = num("max")
            if (n_panels == 0) { sel = ""; fsel = ""; eval panel(1, 1, 1); eval panelnote; plot -1 notitle }
            do for [i = 1:n_panels] {
                w = word(works, i) + 0
                sel = tp_sel[i]; fsel = tp_fsel[i]
                eval panel(i, ncol, nrow)
                set title sprintf("work per iteration: %s", ns_label(w))
                set ylabel ((i - 1) % ncol == 0 ? "iterations per second" : "")
                eval panelnote
                eval lineplot
            }
        } else {
            eval figtitle("apply: speedup over a plain loop doing the same work, one panel per n", \
                          sprintf("median speedup over repetitions; bars: its min–max (speedup x min/median .. x max/median); ideal = cores (%d)", cores) . floor_note("; dashed: C floors"))
            set logscale y 10
            set xrange [0.5 : n_works + 0.5]
            set yrange [loglo(sp_min, 1.6) : loghi(sp_max, 1.6)]
            eval log125('y', loglo(sp_min, 1.6), loghi(sp_max, 1.6))
            set format y "%g"
            set xtics ()
            do for [k = 1:n_works] { set xtics add (ns_label(word(works, k) + 0) k) }
            set grid noxtics
            set xlabel "busy work per iteration"
            x_of(e) = dodge_cat(work_index(label_ns(strcol("work"))), e)
            in_panel(e) = strcol("engine") eq e && column("n") == n
            y_of(e) = num("speedup")
            ylo_of(e) = sp_lo(e)
            yhi_of(e) = sp_hi(e)
            if (cores > 0) {
                set arrow 1 from graph 0, first cores to graph 1, first cores nohead dt 2 lw 1.5 lc rgb "#555555" back
                set label 1 sprintf("ideal (cores = %d)", cores) at graph 0.01, first cores left offset 0, 0.7 tc rgb "#555555"
            }
            set arrow 2 from graph 0, first 1 to graph 1, first 1 nohead dt 3 lw 1.2 lc rgb "#888888" back
            set label 2 "1 (no gain)" at graph 0.01, first 1 left offset 0, 0.7 tc rgb "#777777"
            if (n_panels == 0) { sel = ""; fsel = ""; eval panel(1, 1, 1); eval panelnote; plot -1 notitle }
            do for [i = 1:n_panels] {
                n = word(sizes, i) + 0
                sel = sp_sel[i]; fsel = sp_fsel[i]
                eval panel(i, ncol, nrow)
                set title sprintf("n = %s iterations per apply call", thousands(n))
                set ylabel ((i - 1) % ncol == 0 ? "speedup over the plain loop (x)" : "")
                eval panelnote
                eval lineplot
            }
        }
        eval keypanel
        eval keylines
        eval closeout
    }
}
