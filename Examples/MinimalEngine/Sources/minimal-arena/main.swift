import ArenaCLI
import MinimalEngine

// The whole command line (list, rules, conform, bench, plot, report, compare) with the minimal engine beside the
// built-in four, and one rule of this package appended to the catalog. Keep it one call: top-level code runs on
// the main actor.
ArenaMain.run(engines: [MinimalEngine()], rules: [QueueLabelRule.rule])
