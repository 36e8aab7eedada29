# generic.gp: the plot of a workload that has no script of its own, in the layout `arena plot` chose from its CSV
# (PlotLayout in Sources/Reporting/Plots): one panel per combination of the parameters that vary (other than x), and
#   plot_layout "lines": the headline against a numeric parameter, one line per engine with min–max bars, or
#   plot_layout "bars":  one bar per engine with min–max bars (no numeric parameter varies within a panel);
# median over repetitions, the C floors dashed (hollow bars), failed points as crosses on the axis, one shared key.
# Writes outdir/<name>.png and outdir/<name>.svg.
#
# `arena plot` sets, besides what every script gets (common.gp):
#   name          the workload
#   csv           the layout's CSV (not the results CSV): engine, x, panel (1-based), median, min, max; a failed point
#                 has empty figures
#   source_csv    the workload's results CSV
#   plot_layout   "lines" or "bars"
#   title_what    the figure's title (the workload's name and summary)
#   fixed_note    the parameters with a single value, as name:value, or empty
#   x_title       the x parameter's name ("engine" for bars)
#   y_title       the headline's title (the CSV's metric)
#   xlog, ylog    1 for a log axis
#   x_values      the x values, ascending, space separated
#   n_panels      the number of panels; panel_title_1, panel_title_2, ... their titles (empty for a single panel)
if (!exists("scriptdir")) { scriptdir = system("dirname '" . ARG0 . "'") }
# The files written, for common.gp's frame when the CSV has no data rows.
views = name
load scriptdir . '/common.gp'

n_panels = int(n_panels)
xlog = int(xlog); ylog = int(ylog)
is_lines = (plot_layout eq "lines")
panel_title(i) = exists(sprintf("panel_title_%d", i)) ? value(sprintf("panel_title_%d", i)) : ""

# ---- what is there (before any range or log scale: stats filters by them) ----
array sels[n_panels > 0 ? n_panels : 1]
array fsels[n_panels > 0 ? n_panels : 1]
do for [i = 1:n_panels] {
    eval present(sprintf('column("panel") == %d', i), 'column("median")', 'sel')
    eval failed(sprintf('column("panel") == %d', i), 'column("median")', 'fsel')
    sels[i] = sel; fsels[i] = fsel
}
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'b')
eval range('1', 'column("median")', 'column("median")', 'm')
nmin(a, b) = !isnum(a) ? b : !isnum(b) ? a : (a < b ? a : b)
nmax(a, b) = !isnum(a) ? b : !isnum(b) ? a : (a > b ? a : b)
y_lo = nmin(b_min, m_min); y_hi = nmax(b_max, m_max)
if (is_lines) { eval range('1', 'column("x")', 'column("x")', 'x') } else { x_min = NaN; x_max = NaN }
any_floor = sum [_k=1:words(key_engines)] is_floor(word(key_engines, _k))

# Panels: side by side up to three, four in two rows of two, else rows of three.
ncol = n_panels <= 3 ? (n_panels > 0 ? n_panels : 1) : (n_panels == 4 ? 2 : 3)
nrow = int((n_panels + ncol - 1) / ncol); nrow = nrow > 0 ? nrow : 1
fig_width = 1200
fig_width = 420 * ncol > fig_width ? 420 * ncol : fig_width
fig_width = 9 * strlen(title_what) + 80 > fig_width ? 9 * strlen(title_what) + 80 : fig_width
fig_height = nrow == 1 ? 560 : 150 + 380 * nrow

# Lines: engines side by side at one x, a small shift by place in `engines` (a factor on a log axis).
n_eng = words(engines)
x_span = isnum(x_min) && x_max > x_min ? x_max - x_min : 1
dodge(x, e) = xlog ? x * 2 ** ((engine_index(e) - (n_eng + 1) / 2.0) * 0.035) \
                   : x + (engine_index(e) - (n_eng + 1) / 2.0) * 0.006 * x_span
x_of(e) = dodge(column("x"), e)
# Bars: one place per engine with rows, in the key's order.
bx_of(e) = index_in(key_engines, e)
bar_w = 0.6
in_panel(e) = strcol("engine") eq e && column("panel") == p
y_of(e) = num("median")
ylo_of(e) = num("min")
yhi_of(e) = num("max")
# A tick label for an x value: 1,000 for a large integer, else as short as it goes.
x_label(v) = v == int(v) && abs(v) >= 1000 ? thousands(v) : sprintf("%g", v)

do for [fmt in formats] {
    eval output(fmt, name, fig_width, fig_height)
    set multiplot
    eval figtitle(title_what, how_minmax . (any_floor > 0 ? (is_lines ? "; dashed: C floors" : "; hollow, dashed: C floors") : "") \
                  . (fixed_note ne "" ? "; " . fixed_note : ""))
    if (is_lines) {
        if (xlog) {
            set logscale x 2
            set xrange [loglo(x_min, 1.3) : loghi(x_max, 1.3)]
        } else {
            set xrange [isnum(x_min) ? x_min - 0.05 * x_span : 0 : isnum(x_max) ? x_max + 0.05 * x_span : 1]
        }
        if (words(x_values) <= 12) {
            set xtics ()
            do for [v in x_values] { set xtics add (x_label(v + 0) v + 0) }
        }
        set xlabel x_title
    } else {
        eval engine_tics(key_engines)
        set xtics scale 0
        set grid noxtics
        set xlabel "engine"
    }
    if (ylog) {
        set logscale y 10
        set yrange [loglo(y_lo, 1.6) : loghi(y_hi, 1.6)]
        eval log125('y', loglo(y_lo, 1.6), loghi(y_hi, 1.6))
    } else {
        y_pad = isnum(y_hi) && y_hi > y_lo ? 0.1 * (y_hi - y_lo) : (isnum(y_hi) && y_hi != 0 ? 0.1 * abs(y_hi) : 1)
        set yrange [isnum(y_lo) && y_lo < 0 ? y_lo - y_pad : 0 : isnum(y_hi) ? (y_hi > 0 ? y_hi + y_pad : 0) : 1]
        if (!isnum(y_hi) || abs(y_hi) < 1000) { set format y "%g" }
    }
    do for [i = 1:n_panels] {
        p = i
        sel = sels[i]; fsel = fsels[i]
        eval panel(i, ncol, nrow)
        set title panel_title(i)
        set ylabel ((i - 1) % ncol == 0 ? y_title : "")
        eval panelnote
        if (is_lines) { eval lineplot } else { eval barplot }
    }
    eval keypanel
    if (is_lines) { eval keylines } else { eval keybars }
    eval closeout
}
