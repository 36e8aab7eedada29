import ArenaContract
import Glibc

/// An operation queue's admission that bounds the default width: at `maxConcurrentOperationCount`'s default, at most
/// twice as many operations run at once as the machine has cores, so a queue of operations that block does not grow
/// the engine's pool by a thread for each; a width the program sets is kept as set. Foundation lets a queue at the
/// default width choose its bound from the system's conditions, so the contract holds. O(1).
public enum CoreBoundAdmission: OperationAdmission {
    /// Twice the cores online when the process first asked.
    static let bound = 2 * max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    public static func admits(running: Int, width: Int) -> Bool {
        running < (width == WidthAdmission.unlimited ? bound : width)
    }
}
