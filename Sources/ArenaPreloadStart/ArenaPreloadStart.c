#include "ArenaPreloadStart.h"

// Defined in Swift (ArenaPreload.swift, @_cdecl): installs the engine ARENA_EXECUTOR names as Swift's global executor.
extern void arena_preload_install(void);

// Runs when the library is loaded (LD_PRELOAD), before the program's main and its first task.
__attribute__((constructor)) static void arena_preload_start(void) { arena_preload_install(); }
