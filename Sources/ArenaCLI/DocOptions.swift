import ArgumentParser
import Bench
import Reporting

/// The command options a document names, held against the commands: every `--option` written after `arena COMMAND`
/// (in a code span or a code block's line, or the lines that continue it) must be one of that command's options, and
/// every `--format` value one it offers; the same for `scripts/report.sh` and the bundle's `./run`, whose options are
/// read from their usage lines. What `arena docs --check` adds to the blocks (`--extra-share`, an option BENCHMARKS.md
/// named and no version took, is what it finds). One pass over a document's code.
enum DocOptions {
    /// Every option of each `arena` command (`--engine`, `--format`, ...), read from its help, with the formats its
    /// `--format` offers; built once.
    static let arena: [String: (options: Set<String>, formats: Set<String>)] = {
        var commands: [String: (Set<String>, Set<String>)] = [:]
        for command in ArenaCommand.configuration.subcommands {
            guard let name = command.configuration.commandName, name != "child" else { continue }
            let help = ArenaCommand.helpMessage(for: command, columns: 500)
            // The formats the help of --format names (its line, at 500 columns the whole of it).
            let line = help.split(separator: "\n").first { $0.trimmingPrefix(while: { $0 == " " }).hasPrefix("--format ") } ?? ""
            let said = Set(line.split(whereSeparator: { !$0.isLetter }).map(String.init))
            commands[name] = (Set(options(in: help)), Set(OutputFormat.allCases.map(\.rawValue)).intersection(said))
        }
        return commands
    }()

    /// The repository's scripts a document may run, by how a document writes them, with the options their files
    /// name (read from the current folder, the repository root, once).
    static let scripts: [(marker: String, options: Set<String>)] = [
        ("scripts/report.sh", "scripts/report.sh"), ("./run", "scripts/bundle/run"),
    ]
    .map { marker, path in (marker, Set(options(in: Files.read(path) ?? ""))) }

    /// The problems of `text`, one line each, naming `file` and the line.
    static func problems(in text: String, file: String) -> [String] {
        var problems: [String] = []
        for (line, code) in codeLines(text) {
            // The command each stretch of the line is about: from `arena COMMAND` (or a script) to the next.
            var current: (name: String, options: Set<String>, formats: Set<String>?)?
            let words = code.split(whereSeparator: { $0 == " " || $0 == "`" || $0 == "[" || $0 == "]" }).map(String.init)
            for (index, word) in words.enumerated() {
                if word.hasSuffix("arena"), index + 1 < words.count, let command = arena[words[index + 1]] {
                    current = ("arena " + words[index + 1], command.options, command.formats)
                    continue
                }
                if let script = scripts.first(where: { word.hasSuffix($0.marker) }) {
                    current = (script.marker, script.options, nil)
                    continue
                }
                guard let command = current, word.hasPrefix("--"), word.count > 2, word.dropFirst(2).first?.isLetter == true else {
                    continue
                }
                let option = String(word.prefix { $0.isLetter || $0.isNumber || $0 == "-" })
                if !command.options.contains(option) {
                    problems.append("\(file):\(line): \(command.name) takes no \(option)")
                } else if option == "--format", let formats = command.formats, index + 1 < words.count {
                    for value in words[index + 1].split(separator: "|").map(String.init)
                    where value.allSatisfy(\.isLetter) && !value.isEmpty && value.uppercased() != value && !formats.contains(value) {
                        problems.append("\(file):\(line): \(command.name) offers no --format \(value)")
                    }
                }
            }
        }
        return problems
    }

    /// The counts of the whole catalog, workloads or contenders a document writes by hand in digits ("163 rules")
    /// that differ from `counts` (by `rules`, `workloads`, `contenders`), one line each; the text inside generated
    /// blocks is the blocks' own, a count with a word between it and the noun ("14 executor rules") is of a part, and
    /// one in words ("the two contenders") is prose, not a figure.
    static func countProblems(in text: String, file: String, counts: [String: Int]) -> [String] {
        var problems: [String] = []
        for (index, line) in withoutGeneratedBlocks(text).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let tokens = line.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == "`" }).map(String.init)
            for (place, token) in tokens.enumerated().dropLast() {
                let noun = tokens[place + 1].filter(\.isLetter)
                guard let kind = ["rules": "rules", "workloads": "workloads", "contenders": "contenders"][noun],
                    let count = counts[kind],
                    token.allSatisfy({ $0.isNumber || $0 == "," }), let said = Int(token.filter(\.isNumber))
                else { continue }
                if said != count {
                    problems.append("\(file):\(index + 1): says \(token) \(noun); there are \(count) (the block count.\(kind) writes it)")
                }
            }
        }
        return problems
    }

    /// `text` with every generated block's content emptied (the lines stay, so line numbers hold).
    private static func withoutGeneratedBlocks(_ text: String) -> String {
        guard (try? Reporting.GeneratedBlocks.blocks(in: text)) != nil else { return text }
        return Reporting.GeneratedBlocks.rewriting(text) { block in
            block.inline ? "" : String(repeating: "\n", count: max(0, block.content.filter { $0 == "\n" }.count - 1))
        }
    }

    /// The `--options` a help text or a script's usage names.
    private static func options(in text: String) -> [String] {
        text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init)
            .filter { $0.hasPrefix("--") && $0.count > 2 && $0.dropFirst(2).first?.isLetter == true }
    }

    /// The code of a document, by line: each fenced block's lines, a line that only continues the one before it (it
    /// begins with spaces) joined to it; and each code span (a span may run over lines: it is given at its first).
    static func codeLines(_ text: String) -> [(line: Int, code: String)] {
        var found: [(line: Int, code: String)] = []
        var inFence = false
        var joinable = false
        var prose: [(line: Int, text: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                inFence.toggle()
                joinable = false
                continue
            }
            if inFence {
                if line.first == " " && joinable {
                    found[found.count - 1].code += " " + line
                } else {
                    found.append((index + 1, String(line)))
                }
                joinable = true
            } else {
                prose.append((index + 1, String(line)))
            }
        }
        // Code spans in prose, which may run over a line break.
        var open: (line: Int, code: String)?
        for (number, line) in prose {
            for (place, part) in line.split(separator: "`", omittingEmptySubsequences: false).enumerated() {
                if place > 0 {
                    if let span = open {
                        found.append(span)
                        open = nil
                    } else {
                        open = (number, "")
                    }
                }
                if open != nil { open!.code += (open!.code.isEmpty ? "" : " ") + part }
            }
        }
        return found.sorted { $0.line < $1.line }
    }
}
