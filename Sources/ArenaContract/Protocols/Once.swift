/// A once token: the first `perform` runs its body; every other caller waits for that body to finish and skips its
/// own.
public protocol EngineOnce: AnyObject, Sendable {
    /// Runs `body` if no body of this token ran yet; returns after the token's one body finished. Calling it from
    /// inside that body is misuse and stops the process.
    func perform(_ body: () -> Void)
}
