import Testing

/// The parent of every suite. Serialized, so that no test runs beside another: timing rules and the checks that
/// look for overlapping blocks need the (2-core) machine to themselves.
@Suite(.serialized)
enum ArenaTests {}
