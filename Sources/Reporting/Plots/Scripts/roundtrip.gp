# roundtrip.gp: the figure of a workload that times single round trips (pingpong, actor-hop), loaded by its script
# after it set
#   name             the workload: the figure is outdir/<name>.png and outdir/<name>.svg
#   roundtrip_what   the figure's title (what is bounced, and "time per round trip")
#   roundtrip_timed  what a single round trip's latency covers, as words after "single round trips" ("" for all of it)
#   roundtrip_floors a note on the C floors' bars after the title's second line, shown where a C floor is among the engines
# and, where the workload has a parameter besides the engine (actor-hop's caller),
#   row_param        the parameter whose values get a row of the two panels each (the values with rows, in the
#                    workload's order, from `arena plot`'s values_<row_param>), titled row_title(v)
# Left: the round trip's latency percentiles over all repetitions (p50, p90, p99 from p50_ns, p90_ns, p99_ns), grouped
# bars per engine, in µs, log y. Right: the median time per round trip, bars with min–max over repetitions and the
# median written above. The C floors hollow with a dashed border; a failed point is a cross on the axis.

# The files written, for common.gp's frame when the CSV has no data rows.
views = name
load scriptdir . '/common.gp'

# ---- what is there (before any range or log scale: stats filters by them) ----
# The rows of panels: one per value of row_param, or a single one over every row of the CSV (also when the CSV has no
# such parameter: a run from before it existed).
if (!exists("row_param")) { row_param = "" }
if (row_param ne "" && param_values(row_param) eq "") { row_param = "" }
row_column = row_param eq "" ? "" : param_column(row_param)
row_values = row_param eq "" ? "" : param_values(row_param)
n_rows = row_param eq "" ? 1 : words(row_values)
if (n_rows < 1) { n_rows = 1 }
row_filter(r) = row_param eq "" ? "1" : sprintf('strcol("%s") eq "%s"', row_column, word(row_values, r))
row_prefix(r) = row_param eq "" ? "" : row_title(word(row_values, r)) . ": "
array sels_rt[n_rows]; array fsels_rt[n_rows]; array sels_p[n_rows]; array fsels_p[n_rows]
do for [r = 1:n_rows] {
    eval present(row_filter(r), 'column("median")', 'sel_rt')
    eval failed(row_filter(r), 'column("median")', 'fsel_rt')
    eval present(row_filter(r), 'column("p50_ns")', 'sel_p')
    eval failed(row_filter(r), 'column("p50_ns")', 'fsel_p')
    sels_rt[r] = sel_rt; fsels_rt[r] = fsel_rt; sels_p[r] = sel_p; fsels_p[r] = fsel_p
}
eval keysetup
eval range('1', 'column("p50_ns")', 'column("p99_ns")', 'p')
eval range('1', 'column("min")', 'column("max")', 'rt')

row_value = ""
in_panel(e) = strcol("engine") eq e && (row_param eq "" || strcol(row_column) eq row_value)
# Percentile k (1: p50, 2: p90, 3: p99) of a row, in µs; its bar's place, fill and name.
pct_col(k) = k == 1 ? "p50_ns" : k == 2 ? "p90_ns" : "p99_ns"
pct_name(k) = k == 1 ? "p50" : k == 2 ? "p90" : "p99"
pct_fill(k) = k == 1 ? 0.9 : k == 2 ? 0.5 : 0.15
# A C floor's bars lighter still, as its bars are elsewhere.
pct_efill(e, k) = is_floor(e) ? pct_fill(k) * 0.3 : pct_fill(k)
pbar_w = 0.26
pct_x(e, k) = index_in(key_engines, e) + (k - 2) * pbar_w
c_pct = 'for [e in sel_p] for [k = 1:3] csv using (pct_x(e, k)):(in_panel(e) ? num(pct_col(k)) / 1e3 : NaN):(pbar_w) with boxes fs solid pct_efill(e, k) border lc rgb engine_color(e) lc rgb engine_color(e) dt engine_dt(e) lw 1.5 notitle'
c_pct_fail = 'for [e in fsel_p] csv using (pct_x(e, 2)):(in_panel(e) && !isnum(num("p50_ns")) ? fail_y : NaN) axes x1y2 with points pt 2 ps 1.6 lw 2 lc rgb engine_color(e) notitle'
c_pct_key = 'for [k = 1:3] keyentry with boxes fs solid pct_fill(k) border lc rgb "#404040" lc rgb "#404040" title pct_name(k)'

bx_of(e) = index_in(key_engines, e)
y_of(e) = num("median") / 1e3
ylo_of(e) = num("min") / 1e3
yhi_of(e) = num("max") / 1e3
bar_w = 0.6
value_labels = 'for [e in sel] csv using (bx_of(e)):(in_panel(e) ? yhi_of(e) : NaN):(sprintf("%.3g", y_of(e))) with labels offset 0, 0.8 tc rgb "#303030" notitle'

do for [fmt in formats] {
    eval output(fmt, name, 1200, 560 + (n_rows - 1) * 300)
    set multiplot
    eval figtitle(roundtrip_what, "left: percentiles of single round trips" . roundtrip_timed . " over all repetitions; right: " . how_minmax . floor_note(roundtrip_floors))
    do for [r = 1:n_rows] {
        row_value = row_param eq "" ? "" : word(row_values, r)
        eval engine_tics(key_engines)
        set xtics scale 0
        set grid noxtics
        set xlabel "engine"

        eval panel(2 * r - 1, 2, n_rows)
        set title row_prefix(r) . "round-trip latency percentiles (p50 dark, p90 lighter, p99 lightest)"
        set ylabel "round-trip latency (µs)"
        set logscale y 10
        set yrange [loglo(p_min / 1e3, 1.5) : loghi(p_max / 1e3, 2)]
        eval log125('y', loglo(p_min / 1e3, 1.5), loghi(p_max / 1e3, 2))
        set format y "%g"
        if (r == 1) { set key top left horizontal reverse Left samplen 1.5 box opaque } else { unset key }
        sel_p = sels_p[r]; fsel_p = fsels_p[r]
        sel = sel_p; fsel = fsel_p
        eval panelnote
        eval join_plot(clauses(words(sel_p) > 0 ? c_pct : "", r == 1 ? c_pct_key : ""), words(fsel_p) > 0 ? c_pct_fail : "")
        unset key

        eval panel(2 * r, 2, n_rows)
        set title row_prefix(r) . "median round trip"
        set ylabel "time per round trip (µs)"
        unset logscale y
        set yrange [0 : isnum(rt_max) ? rt_max / 1e3 * 1.15 : 1]
        set ytics autofreq
        set mytics default
        sel = sels_rt[r]; fsel = fsels_rt[r]
        eval panelnote
        eval join_plot(clauses(words(sel) > 0 ? bp_bars : "", words(sel) > 0 ? value_labels : ""), words(fsel) > 0 ? bp_fails : "")
    }

    eval keypanel
    eval keybars
    eval closeout
}
