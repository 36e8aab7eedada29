import Conformance
import Foundation
import Reporting
import Testing

extension ArenaTests {
    /// The docs' figures come from the committed records: `arena docs --check` holds every generated block of README.md,
    /// docs/ and the known core counts to what results/reference and results/reference-16-cores say, and every option a
    /// document names to its command.
    @Suite
    struct DocsCLITests {
        /// `arena` run from the repository root, where the records are.
        static func docs(_ arguments: [String]) throws -> ArenaExecutable.Run {
            try PlotCLITests.run(ArenaExecutable.url.path, ["docs"] + arguments, in: repositoryRoot.path)
        }

        @Test(
            "every generated figure of README.md, docs/ and KnownCoreCounts is what the committed records say, and no document names an option or format its command lacks"
        )
        func docsAreCurrent() throws {
            let run = try Self.docs(["--check"])
            #expect(
                run.status == 0 && run.errors.isEmpty,
                "stale figures or options (run 'swift run arena docs' from the repository root):\n\(run.errors)")
        }

        @Test(
            "a figure changed by hand, an option no command takes, a format a command does not offer and a stale count of the catalog are each named; arena docs writes the figure back"
        )
        func staleFiguresAndOptionsAreCaught() throws {
            let folder = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
            let path = folder + "/README.md"
            // The conformance table's first count, changed by one.
            let table = try #require(readme.firstRange(of: "| `system` | "))
            let digits = readme[table.upperBound...].prefix { $0.isNumber }
            let changed = readme.replacingCharacters(
                in: table.upperBound..<readme.index(table.upperBound, offsetBy: digits.count), with: "\(Int(digits)! + 1)")
            let options =
                "\nRun `arena bench all --extra-share 0.5` or `arena rules --format table` over 163 rules (14 executor rules).\n"
            try (changed + options).write(toFile: path, atomically: true, encoding: .utf8)
            let stale = try Self.docs(["--check", path])
            #expect(stale.status == 1, "\(stale.errors)")
            for expected in [
                "README.md:", "the block reference.conformance differs", "arena bench takes no --extra-share",
                "arena rules offers no --format table", "says 163 rules; there are \(Catalog.builtIn.rules.count)",
            ] {
                #expect(stale.errors.contains(expected), "\(expected) not in \(stale.errors)")
            }
            // A part of the catalog ("14 executor rules") is not held to the whole's count.
            #expect(!stale.errors.contains("says 14"), "\(stale.errors)")
            // Written back from the record; the options and the count written by hand stay the author's to mend.
            let written = try Self.docs([path])
            #expect(written.status == 0 && written.output.contains("wrote \(path)"), "\(written.errors)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == readme + options)
            // A marker without its end is a usage error, naming the block; so is a name no figure is made for.
            for broken in [
                "<!-- BEGIN arena docs count.rules -->1 and no end\n",
                "<!-- BEGIN arena docs no.such -->1<!-- END arena docs no.such -->\n",
            ] {
                try broken.write(toFile: path, atomically: true, encoding: .utf8)
                let run = try Self.docs(["--check", path])
                #expect(run.status == 64 && run.errors.split(separator: "\n").count == 1, "\(broken): \(run.errors)")
            }
        }

        @Test("generated blocks: whole lines and inline in Markdown, lines in Swift; rewriting keeps everything around them")
        func generatedBlocks() throws {
            let text = """
                Before <!-- BEGIN arena docs a -->old<!-- END arena docs a --> after.
                <!-- BEGIN arena docs b -->
                line one
                <!-- END arena docs b -->
                    // BEGIN arena docs c
                    let x = 1
                    // END arena docs c
                End.
                """
            let blocks = try GeneratedBlocks.blocks(in: text)
            #expect(blocks.map(\.name) == ["a", "b", "c"] && blocks.map(\.inline) == [true, false, false])
            #expect(blocks.map(\.content) == ["old", "\nline one\n", "\n    let x = 1\n"] && blocks.map(\.line) == [1, 2, 5])
            let rewritten = GeneratedBlocks.rewriting(text) { block in ["a": "new\n", "b": "two\nlines", "c": "    let y = 2"][block.name]!
            }
            #expect(
                rewritten == """
                    Before <!-- BEGIN arena docs a -->new<!-- END arena docs a --> after.
                    <!-- BEGIN arena docs b -->
                    two
                    lines
                    <!-- END arena docs b -->
                        // BEGIN arena docs c
                        let y = 2
                        // END arena docs c
                    End.
                    """)
            for broken in [
                "<!-- BEGIN arena docs a -->x", "<!-- BEGIN arena docs a -->x<!-- END arena docs b -->",
                "<!-- BEGIN arena docs a -->x<!-- BEGIN arena docs b -->y<!-- END arena docs b --><!-- END arena docs a -->",
            ] {
                #expect(throws: GeneratedBlocks.MarkerError.self, "\(broken)") { try GeneratedBlocks.blocks(in: broken) }
            }
        }
    }
}
