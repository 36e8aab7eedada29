// The preloadable library's start: a constructor the dynamic loader runs before the program's main. No declarations:
// the constructor calls the Swift entry point `arena_preload_install` (ArenaPreload) by its C name.
