# common.gp: what every <workload>.gp of this folder (Sources/Reporting/Plots/Scripts) shares. Loaded first, with `load scriptdir.'/common.gp'`.
#
# The caller (`arena plot DIR`) sets, with `gnuplot -e`:
#   csv      the workload's CSV (`arena bench` output: one header row, one row per point)
#   outdir   an existing folder; a script writes outdir/<workload>.png and .svg, and may add <workload>-<view>.png/.svg
#   engines  the engines present in the CSV, in `engine_order`, space separated
#   engine_order  every engine of the run, in the lineup's order, then the C floors, then others: fixes the colours
#   cores    the machine's core count (apply's ideal speedup)
#   scriptdir  this folder
#   params, param_columns  the workload's parameters (names as identifiers) and their CSV columns, in the CSV's order
#   values_<param>  each parameter's values in the workload's point order, read from the CSV (`param_values(p)`)
#
# What is here: CSV reading (comma separated, columns by header name, empty cells read as missing), plain text
# everywhere (labels hold underscores), one font, grid and key style, one stable colour, point type and dash per engine
# from its place in `engine_order` (the C floors c-* dashed, with open symbols and hollow bars), helpers that find
# which engines have rows in a panel (so no panel plots an engine without data, and gnuplot stays quiet), helpers that
# discover the distinct values of a column, the parameters' values read by `arena plot`, a panel layout with a shared key, and `output(fmt, name, w, h)`, the command that points
# the terminal at outdir/name.fmt, so a script states its figure once inside `do for [fmt in formats] { ... }`.

if (!exists("engines")) {
    print "common.gp: no engines: run the plots with 'arena plot DIR' (Sources/Reporting/Plots/Scripts/README.md lists the variables)"
    exit status 1
}
if (!exists("engine_order")) { engine_order = engines }
if (!exists("params")) { params = ""; param_columns = "" }
if (!exists("cores")) { cores = 0 }
if (!exists("outdir")) { outdir = "." }
cores = int(cores)

# ---- reading the CSV ------------------------------------------------------------------------------------------------
set encoding utf8
set datafile separator comma
# The first row names the columns: every script reads columns by name (column("median"), strcol("engine")).
set datafile columnheaders
# An empty cell (a failed point, a figure not recorded) reads as NaN. NaN is "missing", not "undefined": the rows a
# plot filters out (a ternary giving NaN) are skipped without breaking its line, and `smooth unique` joins an engine's
# points in x order, whatever the order of the rows.
set datafile missing NaN

# Whether a value is a number (NaN is not equal to itself).
isnum(x) = (x == x)
# A column read as a number, NaN when the cell is empty or not a number.
num(c) = (isnum(column(c)) ? column(c) : NaN)

# ---- look --------------------------------------------------------------------------------------------------------------
formats = "png svg"
font_name = "DejaVu Sans"
svg_font_name = "DejaVu Sans,Helvetica,Arial,sans-serif"
font_size = 11

# output(fmt, name, w, h): the commands that send what follows to outdir/name.fmt, w x h pixels, and lay out panels
# for that size (the margins below, in pixels turned into screen fractions). Both terminals are noenhanced: labels
# and engine names hold underscores, carets and braces that must print as they are.
output(fmt, name, w, h) = (fmt eq "svg" \
    ? sprintf("set terminal svg noenhanced size %d,%d font '%s,%d' background rgb 'white'", w, h, svg_font_name, font_size) \
    : sprintf("set terminal pngcairo noenhanced size %d,%d font '%s,%d' background rgb 'white' linewidth 1.2", w, h, font_name, font_size)) \
    . sprintf("; set output '%s/%s.%s'", outdir, name, fmt) \
    . sprintf("; fig_wpx = %d; fig_hpx = %d; fig_l = %g; fig_r = %g; fig_b = %g; fig_t = %g; gap_x = %g; gap_y = %g", \
              w, h, 85.0 / w, 1 - 18.0 / w, 125.0 / h, 1 - 92.0 / h, 90.0 / w, 110.0 / h)
# After each figure: close the file, and start the next one from this file's settings alone (`reset` keeps the
# terminal and every variable, so the script's own data survive).
closeout = "unset multiplot; set output; reset; load scriptdir . '/common.gp'"

set grid xtics ytics lt 1 lc rgb "#dcdcdc" lw 1
set grid layerdefault
set border 3 lc rgb "#404040"
set tics nomirror out
set key noautotitle
set key samplen 2.5 spacing 1.1 width 1 box lc rgb "#c0c0c0" opaque
# No key unless a plot asks: the engines are named once, in the shared key under the panels (`keypanel`).
unset key
set style fill solid 0.85 border
set pointsize 1.1
set bars small

# ---- engines -----------------------------------------------------------------------------------------------------------
# The C floors (the native C API: libdispatch's, a pthread mutex) are named c-*.
is_floor(e) = (strlen(e) > 2 && e[1:2] eq "c-")

# An engine's colour and point type come from its place in `engine_order` (every engine of the run: the lineup's in
# its order, then the C floors, then any other engine in the folder) among the engines of its kind, contenders or C
# floors, so no engine is named here and a new one gets a colour of its own, the same in every plot of the folder.
# engine_rank(e): that place (1-based), 0 when e is not in `engine_order`.
engine_rank(e) = sum [_k=1:words(engine_order)] (word(engine_order, _k) eq e ? \
    1 + sum [_j=1:_k-1] (is_floor(word(engine_order, _j)) == is_floor(e)) : 0)
# Contenders: the Okabe-Ito palette first (readable with the common colour blindnesses; the six built-in engines
# system, mutex, lockfree, actor, foundation, swift, in that order), then Paul Tol's muted colours; filled circle,
# square, triangle, diamond, inverted triangle, pentagon (pngcairo/svg), round again with the next colours.
array contender_colors[12] = [0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9, \
                              0x882255, 0x117733, 0x332288, 0xAA4499, 0x999933, 0x44AA99]
array contender_pts[6] = [7, 5, 9, 13, 11, 15]
# The C floors: dark neutrals (c-dispatch, c-mutex) and then dark hues; open circle, square, triangle, inverted
# triangle, diamond, pentagon.
array floor_colors[4] = [0x1A1A1A, 0x8C510A, 0x5E3C99, 0x01665E]
array floor_pts[6] = [6, 4, 8, 10, 12, 14]
# An engine not in `engine_order` is grey with an asterisk.
cycle(k, n) = (int(k) - 1) % n + 1
engine_color(e) = engine_rank(e) == 0 ? 0x8A8A8A : \
    is_floor(e) ? floor_colors[cycle(engine_rank(e), |floor_colors|)] : contender_colors[cycle(engine_rank(e), |contender_colors|)]
engine_pt(e) = engine_rank(e) == 0 ? 3 : \
    is_floor(e) ? floor_pts[cycle(engine_rank(e), |floor_pts|)] : contender_pts[cycle(engine_rank(e), |contender_pts|)]
# Dash type: the floors dashed.
engine_dt(e) = is_floor(e) ? 2 : 1
# Line width: the floors a little thinner, so a dash reads as a dash.
engine_lw(e) = is_floor(e) ? 1.5 : 2
# Bar fill density: the floors hollow (a light tint with a full border), so a bar reads as a floor, not a contender.
engine_fill(e) = is_floor(e) ? 0.15 : 0.85
# The key's text.
engine_title(e) = is_floor(e) ? e . " (C floor)" : e
# floor_note(text): `text` (a subtitle's "; dashed: C floors") when a C floor is among `engines`, else "": a plot
# says how it draws the floors only where it draws one.
floor_note(text) = (sum [_k=1:words(engines)] is_floor(word(engines, _k))) > 0 ? text : ""
# Position of e in `engines` (1-based; 0 when absent): bars and dodged points keep their place however many engines
# a panel has.
engine_index(e) = sum [k=1:words(engines)] (word(engines, k) eq e ? k : 0)

# ---- which engines have rows ---------------------------------------------------------------------------------------
# present(filter, value, var): the command that sets the string variable `var` to the engines (in `engines` order) with
# at least one row where `filter` (an expression, as text, e.g. 'strcol("mode") eq "sync"') holds and `value` (an
# expression, as text, e.g. 'column("median")') is a number. A panel plots only those, so an engine without rows there
# (c-mutex in async-write, a point that failed) leaves no empty plot and no warning. Run it before the script sets
# ranges or log scales: stats filters by them.
present(filter, value, var) = sprintf( \
    '%s = ""; do for [_e in engines] { stats csv using (strcol("engine") eq _e && (%s) && isnum(%s) ? 1 : 0) nooutput; if (STATS_sum > 0) { %s = %s . " " . _e } }', \
    var, filter, value, var, var)

# failed(filter, value, var): the same for rows where `value` is not a number: points that failed (their figures are
# empty). A panel marks those with a cross on its bottom axis (`lp_fails`, `bp_fails`), so a missing point reads as
# failed, not as never measured.
failed(filter, value, var) = sprintf( \
    '%s = ""; do for [_e in engines] { stats csv using (strcol("engine") eq _e && (%s) && !isnum(%s) ? 1 : 0) nooutput; if (STATS_sum > 0) { %s = %s . " " . _e } }', \
    var, filter, value, var, var)

# count(filter, var): the command that sets `var` to the number of rows where `filter` holds (failed rows included).
count(filter, var) = sprintf('stats csv using ((%s) ? 1 : 0) nooutput; %s = int(STATS_sum)', filter, var)

# distinct(expr, var): the command that sets `var` to the distinct numeric values of `expr` (text) over all rows,
# ascending, space separated (read one back with word(var, k) + 0).
distinct(expr, var) = sprintf( \
    '%s = ""; _v = -1e300; while (1) { stats csv using (isnum(%s) && (%s) > _v ? (%s) : 1e300) nooutput; if (STATS_min >= 1e300) { break }; _v = STATS_min; %s = %s . sprintf(" %%.17g", _v) }', \
    var, expr, expr, expr, var, var)

# range(filter, lo, hi, var): the command that sets var_min and var_max to the least `lo` and the greatest `hi` (both
# expressions, as text) over the rows where `filter` holds; NaN when none has numbers.
range(filter, lo, hi, var) = sprintf( \
    '%s_min = NaN; %s_max = NaN; stats csv using ((%s) && isnum(%s) ? (%s) : 1e300) nooutput; if (STATS_min < 1e300) { %s_min = STATS_min }; stats csv using ((%s) && isnum(%s) ? (%s) : -1e300) nooutput; if (STATS_max > -1e300) { %s_max = STATS_max }', \
    var, var, filter, lo, lo, var, filter, hi, hi, var)

# A log axis range around [lo, hi] with a margin of `f` (a factor); a fallback when there is no data.
loglo(lo, f) = isnum(lo) && lo > 0 ? lo / f : 1
loghi(hi, f) = isnum(hi) && hi > 0 ? hi * f : 10

# Work sizes and durations as written in the CSV ("0ns", "100ns", "1us", "10us", "1ms") in nanoseconds.
unit_ns(u) = u eq "ns" ? 1 : (u eq "us" || u eq "µs") ? 1e3 : u eq "ms" ? 1e6 : u eq "s" ? 1e9 : NaN
label_ns(s) = \
    strstrt(s, "ns") > 1 ? s[1:strstrt(s, "ns") - 1] * unit_ns("ns") : \
    strstrt(s, "us") > 1 ? s[1:strstrt(s, "us") - 1] * unit_ns("us") : \
    strstrt(s, "ms") > 1 ? s[1:strstrt(s, "ms") - 1] * unit_ns("ms") : \
    strstrt(s, "s") > 1 ? s[1:strstrt(s, "s") - 1] * unit_ns("s") : NaN
# A duration in ns for a tick label: "0 ns", "100 ns", "1 µs", "10 ms".
ns_label(v) = v < 1e3 ? sprintf("%g ns", v) : v < 1e6 ? sprintf("%g µs", v / 1e3) : v < 1e9 ? sprintf("%g ms", v / 1e6) : sprintf("%g s", v / 1e9)
# A count with thousands separators for a tick or title: 1000 -> "1,000".
thousands(n) = n >= 1000 ? thousands(int(n / 1000)) . sprintf(",%03d", int(n) % 1000) : sprintf("%d", int(n))

# ---- layout ------------------------------------------------------------------------------------------------------------
# Panels sit in a grid between fig_l, fig_r (left, right) and fig_b, fig_t (bottom, top), in screen fractions, set by
# `output` for the figure's size; the space below fig_b holds the shared key (`keypanel`), the space above fig_t the
# figure's title (`figtitle`). A script may change them (after `output`) before `eval panel(...)`.
fig_wpx = 1200; fig_hpx = 560
fig_l = 0.07; fig_r = 0.985; fig_b = 0.21; fig_t = 0.835; gap_x = 0.075; gap_y = 0.19
panel_w(ncol) = (fig_r - fig_l - (ncol - 1) * gap_x) / ncol
panel_h(nrow) = (fig_t - fig_b - (nrow - 1) * gap_y) / nrow
panel_l(i, ncol) = fig_l + ((i - 1) % ncol) * (panel_w(ncol) + gap_x)
panel_top(i, ncol, nrow) = fig_t - int((i - 1) / ncol) * (panel_h(nrow) + gap_y)
# panel(i, ncol, nrow): the command placing the next plot as panel i (row by row) of an ncol x nrow grid.
panel(i, ncol, nrow) = sprintf("set lmargin at screen %.4f; set rmargin at screen %.4f; set tmargin at screen %.4f; set bmargin at screen %.4f", \
    panel_l(i, ncol), panel_l(i, ncol) + panel_w(ncol), panel_top(i, ncol, nrow), panel_top(i, ncol, nrow) - panel_h(nrow))
# The shared key: after the panels, `eval keypanel` turns the strip under them into a bare plot whose key lists the
# engines and carries the figure's title; the script then plots only `keyentry` items there (`keylines`, `keybars`;
# every data plot is `notitle`).
keypanel = "set lmargin at screen 0.01; set rmargin at screen 0.99; set bmargin at screen 0.005; set tmargin at screen 30.0 / fig_hpx; " . \
    "unset title; unset xlabel; unset ylabel; unset tics; unset grid; unset logscale; unset arrow; unset label; unset object; " . \
    "set border 0; set xrange [0:1]; set yrange [0:1]; " . \
    "set label 97 title_a at screen 0.5, 1 - 16.0 / fig_hpx center front font sprintf(',%d', font_size + 3); " . \
    "set label 99 title_b at screen 0.5, 1 - 40.0 / fig_hpx center front tc rgb '#505050'; " . \
    "set key at screen 0.5, 6.0 / fig_hpx center bottom horizontal reverse Left box maxrows 2"

# The figure's title, two lines: what is plotted, then how (median, bars). `eval figtitle(a, b)` keeps them; the key
# panel, the figure's last plot, draws them once.
title_a = ""; title_b = ""
figtitle(a, b) = (title_a = a, title_b = b, "")
how_minmax = "median over repetitions; bars: min–max over repetitions"

# Failed points sit on the y2 axis, which runs 0 to 1 and is never shown: a cross just above the bottom axis.
set y2range [0:1]
fail_y = 0.035

# clauses(a, b): the plot clauses a and b joined, either of them possibly empty. join_plot(a, b): a plot command of
# them. An iteration over an empty list still reads its data file, and warns that it has no valid points, so a
# clause whose list is empty is left out; with nothing at all, the panel plots one invisible constant, to keep its
# frame and note.
clauses(a, b) = a ne "" && b ne "" ? a . ", " . b : a . b
join_plot(a, b) = "plot " . clauses(a, b) . (a eq "" && b eq "" ? "-1 axes x1y2 notitle" : "")

# The usual panel: one line per engine with min–max bars, and the crosses of failed points. Before `eval lineplot`, a
# script sets `sel` and `fsel` (from present and failed) and defines x_of(e) (a row's x, dodged for engine e),
# in_panel(e) (whether a row is engine e's in this panel), y_of(e), ylo_of(e), yhi_of(e) (the row's value and bar ends).
lp_lines = 'for [e in sel] csv using (x_of(e)):(in_panel(e) ? y_of(e) : NaN) smooth unique with lines lc rgb engine_color(e) dt engine_dt(e) lw engine_lw(e) notitle, ' . \
    'for [e in sel] csv using (x_of(e)):(in_panel(e) ? y_of(e) : NaN):(ylo_of(e)):(yhi_of(e)) with yerrorbars lc rgb engine_color(e) pt engine_pt(e) lw 1.5 notitle'
lp_points = 'for [e in sel] csv using (x_of(e)):(in_panel(e) ? y_of(e) : NaN) smooth unique with lines lc rgb engine_color(e) dt engine_dt(e) lw engine_lw(e) notitle, ' . \
    'for [e in sel] csv using (x_of(e)):(in_panel(e) ? y_of(e) : NaN) with points lc rgb engine_color(e) pt engine_pt(e) lw 1.5 notitle'
lp_fails = 'for [e in fsel] csv using (x_of(e)):(in_panel(e) && !isnum(y_of(e)) ? fail_y : NaN) axes x1y2 with points pt 2 ps 1.6 lw 2 lc rgb engine_color(e) notitle'
lineplot = 'eval join_plot(words(sel) > 0 ? lp_lines : "", words(fsel) > 0 ? lp_fails : "")'
# The same without bars, for a counter (only its median over repetitions is in the CSV).
lineplot_nobars = 'eval join_plot(words(sel) > 0 ? lp_points : "", words(fsel) > 0 ? lp_fails : "")'
# Bars, one per engine and row: before `eval barplot`, a script sets `sel` and `fsel` and defines bx_of(e) (the x of
# engine e's bar for a row), in_panel(e), y_of(e), ylo_of(e), yhi_of(e), and `bar_w`, a bar's width. The C floors are
# hollow with a dashed border; a failed point is a cross on the bottom axis where its bar would be.
bp_bars = 'for [e in sel] csv using (bx_of(e)):(in_panel(e) ? y_of(e) : NaN):(ylo_of(e)):(yhi_of(e)):(bar_w) with boxerrorbars fs solid engine_fill(e) border lc rgb engine_color(e) lc rgb engine_color(e) dt engine_dt(e) lw 1.5 notitle'
bp_plain = 'for [e in sel] csv using (bx_of(e)):(in_panel(e) ? y_of(e) : NaN):(bar_w) with boxes fs solid engine_fill(e) border lc rgb engine_color(e) lc rgb engine_color(e) dt engine_dt(e) lw 1.5 notitle'
bp_fails = 'for [e in fsel] csv using (bx_of(e)):(in_panel(e) && !isnum(y_of(e)) ? fail_y : NaN) axes x1y2 with points pt 2 ps 1.6 lw 2 lc rgb engine_color(e) notitle'
barplot = 'eval join_plot(words(sel) > 0 ? bp_bars : "", words(fsel) > 0 ? bp_fails : "")'
# The same without error bars, for a counter (only its median over repetitions is in the CSV).
barplot_nobars = 'eval join_plot(words(sel) > 0 ? bp_plain : "", words(fsel) > 0 ? bp_fails : "")'
# Categorical x tics naming the engines of `list` at 1, 2, ... (a C floor says so under its name):
# `eval engine_tics(list)`.
engine_tic(e) = is_floor(e) ? e . "\n(C floor)" : e
engine_tics(list) = sprintf('set xtics (); do for [_k = 1:words("%s")] { set xtics add (engine_tic(word("%s", _k)) _k) }; set xrange [0.4 : words("%s") + 0.6]; set xlabel offset 0, (sum [_k = 1:words("%s")] is_floor(word("%s", _k)) > 0 ? -1 : 0)', list, list, list, list, list)
# Position of e in a word list (1-based, 0 when absent).
index_in(list, e) = sum [_k=1:words(list)] (word(list, _k) eq e ? _k : 0)

# The values of parameter p (a name of `params`) in the workload's point order, as `arena plot` read them from the
# CSV (`values_<p>`): what a script loops over for its panels or groups. Empty when the CSV has no such parameter.
param_values(p) = exists("values_" . p) ? value("values_" . p) : ""
# The CSV column of parameter p: its name, or param_<name> where the name is also a figure's column (threads).
param_column(p) = index_in(params, p) > 0 ? word(param_columns, index_in(params, p)) : p

# A note in a panel that has nothing to draw (run before its plot): "no data", or "every point failed".
panelnote = 'if (words(sel) == 0) { set label 98 (words(fsel) > 0 ? "every point failed" : "no data") at graph 0.5, 0.5 center front } else { unset label 98 }'

# The shared key's items: every engine with a row in the CSV (`key_engines`), and the failed-point cross when any point
# failed (`key_failed`). `eval keysetup` once, before the figure loop; after `eval keypanel`, `eval keylines` (for line
# plots) or `eval keybars` (for bar charts).
keysetup = 'eval present("1", "1", "key_engines"); eval failed("1", "column(\"median\")", "key_failed")'
keyfail = 'for [_f in (words(key_failed) > 0 ? "x" : "")] keyentry with points pt 2 ps 1.6 lw 2 lc rgb "#404040" title "failed point"'
keylines = 'plot -1 notitle, for [e in key_engines] keyentry with linespoints lc rgb engine_color(e) pt engine_pt(e) dt engine_dt(e) lw engine_lw(e) title engine_title(e), ' . keyfail
keybars = 'plot -1 notitle, for [e in key_engines] keyentry with boxes fs solid engine_fill(e) border lc rgb engine_color(e) lc rgb engine_color(e) dt engine_dt(e) title engine_title(e), ' . keyfail

# Tick labels for throughput and counts: 1k, 10k, 1M (log axes mark every decade, and 2 and 5 between when few).
set format y "%.0s%c"
# log125(axis, lo, hi): the command that labels `axis` at 1, 2 and 5 times each power of ten between lo and hi, when
# they span fewer than three and a half decades (otherwise the decades alone).
log125(axis, lo, hi) = (log10(hi / lo) < 3.5 \
    ? sprintf("set %stics (); set for [_k=%d:%d] %stics add (10.0**_k, 2*10.0**_k, 5*10.0**_k); set m%stics 10", axis, floor(log10(lo)), ceil(log10(hi)), axis, axis) \
    : sprintf("set %stics autofreq; set m%stics 10", axis, axis))

# ---- a CSV without data rows ---------------------------------------------------------------------------------------
# (a run stopped before its first point). Each view gets a frame saying so, and the script ends here with status 0.
# `views` (set by the script before loading this file) names the files; stats warns once about the empty file.
if (!exists("views")) { views = "plot" }
if (!exists("csv_checked")) {
    csv_checked = 1
    undefine STATS_records
    stats csv using (1) nooutput
    if (!exists("STATS_records") || STATS_records == 0) {
        do for [_view in views] {
            do for [fmt in formats] {
                eval output(fmt, _view, 800, 400)
                unset border; unset tics; unset key
                set label 1 sprintf("%s: no data rows in %s", _view, exists("source_csv") ? source_csv : csv) at screen 0.5, 0.5 center
                set xrange [0:1]; set yrange [0:1]
                plot -1 notitle
                set output
            }
        }
        exit gnuplot
    }
}
