import ArenaTakeover

/// Called by the library's constructor (`ArenaPreloadStart`), before the program's `main`: installs the engine the
/// environment names (`ArenaTakeover.installFromEnvironment`).
@_cdecl("arena_preload_install")
public func arenaPreloadInstall() { ArenaTakeover.installFromEnvironment() }
