import ArenaCLI
import FaultyMinimalEngine

// The `arena` command line on the faulty tutorial engine alone (`minimal-faulty`): `ARENA_FAULT=<id> faulty-arena
// conform --engine minimal-faulty` runs the catalog on one fault; with no ARENA_FAULT it is the tutorial engine.
// Rule children are this executable too, so they inherit the fault. Keep it one call: top-level code runs on the
// main actor.
ArenaMain.run(engines: [FaultyMinimalEngine()], includingBuiltIns: false)
