#include "CNIOTakeoverConstructor.h"

// Runs when the library is loaded (LD_PRELOAD: before the host program's main, on its main thread), after the
// constructors of the libraries it depends on (the Swift runtime's among them).
__attribute__((constructor)) static void nio_takeover_preload_constructor(void) { nio_takeover_preload_install(); }
