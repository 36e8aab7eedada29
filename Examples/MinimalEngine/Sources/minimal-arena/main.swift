import ArenaCLI
import MinimalEngine
import ReadMostlyCache

// The whole command line (list, rules, conform, bench, plot, report, compare) with the minimal engine beside the
// built-in ones, one rule of this package appended to the catalog, one workload of this package after the built-in
// ones, and one reporter (`report --reporter ratios`). Keep it one call: top-level code runs on the main actor.
ArenaMain.run(
    engines: [MinimalEngine()], rules: [QueueLabelRule.rule], workloads: [ReadMostlyCacheWorkload()],
    reporters: [RatiosReporter()])
