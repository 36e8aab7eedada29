# panelbars.gp: a throughput in millions per second as bars per engine, one panel per value of a parameter, min–max
# error bars and the median written above; a failed point is a cross on the axis (op-graph, op-throughput,
# task-fanout). Loaded by the workload's script after it set
#   name          the workload: the figure is outdir/<name>.png and outdir/<name>.svg
#   panel_param   the parameter whose values get a panel each (the values with rows, in the workload's order, from
#                 `arena plot`'s values_<panel_param>)
#   panel_title(v)  a function: the title of the panel of value v
#   bars_what     the figure's title
#   bars_ylabel   the y axis's label (the headline in millions per second)
#   figure_width  the figure's width in pixels (560 high)

# The files written, for common.gp's frame when the CSV has no data rows.
views = name
load scriptdir . '/common.gp'

# ---- what is there (before any range or log scale: stats filters by them) ----
panel_column = param_column(panel_param)
panels = param_values(panel_param)
n_panels = words(panels)
array sels[n_panels > 0 ? n_panels : 1]
array fsels[n_panels > 0 ? n_panels : 1]
do for [i = 1:n_panels] {
    eval present(sprintf('strcol("%s") eq "%s"', panel_column, word(panels, i)), 'column("median")', 'sel')
    eval failed(sprintf('strcol("%s") eq "%s"', panel_column, word(panels, i)), 'column("median")', 'fsel')
    sels[i] = sel; fsels[i] = fsel
}
eval keysetup
eval range('1', 'column("min")', 'column("max")', 'y')

# In millions, so the axis reads 0.5, 1, 1.5.
bx_of(e) = index_in(key_engines, e)
in_panel(e) = strcol("engine") eq e && strcol(panel_column) eq v
y_of(e) = num("median") / 1e6
ylo_of(e) = num("min") / 1e6
yhi_of(e) = num("max") / 1e6
bar_w = 0.6
value_labels = 'for [e in sel] csv using (bx_of(e)):(in_panel(e) ? yhi_of(e) : NaN):(sprintf("%.3g", y_of(e))) with labels offset 0, 0.8 tc rgb "#303030" notitle'

do for [fmt in formats] {
    eval output(fmt, name, figure_width, 560)
    set multiplot
    eval figtitle(bars_what, how_minmax . "; the median above each bar")
    eval engine_tics(key_engines)
    set xtics scale 0
    set grid noxtics
    set xlabel "engine"
    set ylabel bars_ylabel
    set format y "%g"
    set yrange [0 : isnum(y_max) ? y_max / 1e6 * 1.15 : 1]
    if (n_panels == 0) { sel = ""; fsel = ""; eval panel(1, 1, 1); eval panelnote; plot -1 notitle }
    do for [i = 1:n_panels] {
        v = word(panels, i)
        sel = sels[i]; fsel = fsels[i]
        eval panel(i, n_panels, 1)
        set title panel_title(v)
        if (i > 1) { set ylabel "" }
        eval panelnote
        eval join_plot(clauses(words(sel) > 0 ? bp_bars : "", words(sel) > 0 ? value_labels : ""), words(fsel) > 0 ? bp_fails : "")
    }
    eval keypanel
    eval keybars
    eval closeout
}
