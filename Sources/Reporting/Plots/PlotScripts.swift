import Bench
import Glibc

/// The gnuplot scripts `arena plot` runs, compiled into this module from Plots/Scripts (SwiftPM's `embedInCode`, as
/// byte arrays): an executable carries them, so it plots from any directory, with no checkout and no file beside it.
/// Their contract with `GnuplotRunner` is the README.md of that folder.
public enum PlotScripts {
    /// Where the scripts lie in a checkout of DispatchArena, from its root.
    public static let checkoutPath = "Sources/Reporting/Plots/Scripts"

    /// Every bundled script's text by file name: `common.gp`, `generic.gp`, the figures several workloads share
    /// (`roundtrip.gp`, `panelbars.gp`) and the built-in workloads' own (`contention.gp`, …). Decoded on first use
    /// (about 100 KB); a script added to the folder is listed here too (a test compares the two).
    public static let bundled: [String: String] = [
        "actor-contention.gp": PackageResources.actor_contention_gp,
        "actor-hop.gp": PackageResources.actor_hop_gp,
        "apply.gp": PackageResources.apply_gp,
        "async-drain.gp": PackageResources.async_drain_gp,
        "common.gp": PackageResources.common_gp,
        "contention.gp": PackageResources.contention_gp,
        "fanout.gp": PackageResources.fanout_gp,
        "generic.gp": PackageResources.generic_gp,
        "io-throughput.gp": PackageResources.io_throughput_gp,
        "machines.gp": PackageResources.machines_gp,
        "op-graph.gp": PackageResources.op_graph_gp,
        "op-throughput.gp": PackageResources.op_throughput_gp,
        "panelbars.gp": PackageResources.panelbars_gp,
        "pingpong.gp": PackageResources.pingpong_gp,
        "pool-ramp.gp": PackageResources.pool_ramp_gp,
        "protocol-cost.gp": PackageResources.protocol_cost_gp,
        "qos-inversion.gp": PackageResources.qos_inversion_gp,
        "roundtrip.gp": PackageResources.roundtrip_gp,
        "rw-barrier.gp": PackageResources.rw_barrier_gp,
        "source-merge.gp": PackageResources.source_merge_gp,
        "starfish.gp": PackageResources.starfish_gp,
        "task-fanout.gp": PackageResources.task_fanout_gp,
        "tcp-echo.gp": PackageResources.tcp_echo_gp,
        "timer-accuracy.gp": PackageResources.timer_accuracy_gp,
    ].mapValues { String(decoding: $0, as: UTF8.self) }

    /// Writes every bundled script into `directory`, which exists: about 100 KB in two dozen files.
    public static func write(to directory: String) throws(FileError) {
        for (name, text) in bundled { try Files.writeWhole(text, to: "\(directory)/\(name)") }
    }

    /// The folder of scripts `given` names (`arena plot --scripts`): `given` when it holds `common.gp`, else its
    /// `checkoutPath` when that does (the root of a checkout); `nil` when neither does.
    public static func folder(given: String) -> String? {
        [given, "\(given)/\(checkoutPath)"].first { access("\($0)/common.gp", R_OK) == 0 }
    }
}
