import ArenaCLI

// Top-level code is @MainActor in Swift 6; closures made here and run by Dispatch would crash. Keep it one call.
ArenaMain.run()
