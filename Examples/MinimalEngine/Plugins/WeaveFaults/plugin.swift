import Foundation
import PackagePlugin

/// Weaves the faults of `Mutants/faults.txt` (the catalog's family) and then of `Mutants/faults-reach.txt` (the reach
/// family) into copies of the tutorial engine's sources and of the contract's default operation and executor layers,
/// for the target it is applied to (`FaultyMinimalEngine`): one build command, run by `weave-faults` whenever an input
/// changes. The copies exist only in the build folder, never in git.
@main
struct WeaveFaults: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        guard
            let contract = context.package.dependencies.first(where: { $0.package.displayName == "DispatchArena" })?
                .package.directoryURL.appending(path: "Sources/ArenaContract")
        else { throw WeaveError("the package depends on no DispatchArena") }
        let folders = [
            package.appending(path: "Sources/MinimalEngine"),
            contract.appending(path: "Operations"), contract.appending(path: "Executors"),
        ]
        var inputs: [URL] = []
        for folder in folders {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            guard !names.isEmpty else { throw WeaveError("no Swift sources in \(folder.path)") }
            inputs += names.sorted().map { folder.appending(path: $0) }
        }
        // In this order: the second file's snippets are matched against the sources as the first left them.
        let faults = ["Mutants/faults.txt", "Mutants/faults-reach.txt"].map { package.appending(path: $0) }
        let out = context.pluginWorkDirectoryURL.appending(path: "Woven")
        return [
            .buildCommand(
                displayName: "Weaving the faults of Mutants/faults.txt and Mutants/faults-reach.txt into \(inputs.count) sources",
                executable: try context.tool(named: "weave-faults").url,
                arguments: faults.flatMap { ["--faults", $0.path] } + [out.path] + inputs.map(\.path),
                inputFiles: faults + inputs,
                outputFiles: inputs.map { out.appending(path: $0.lastPathComponent) } + [out.appending(path: "Faults.swift")]
            )
        ]
    }
}

struct WeaveError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
