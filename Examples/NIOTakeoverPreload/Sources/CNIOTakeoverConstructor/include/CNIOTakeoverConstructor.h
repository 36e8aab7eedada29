#ifndef C_NIO_TAKEOVER_CONSTRUCTOR_H
#define C_NIO_TAKEOVER_CONSTRUCTOR_H

/// Defined in Swift (NIOTakeoverPreload/Takeover.swift, @_cdecl), linked into the same shared library.
void nio_takeover_preload_install(void);

#endif
