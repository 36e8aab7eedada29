import Foundation

// weave-faults: the mutant-schemata generator behind `FaultyMinimalEngine` (docs/MUTANTS.md).
//
//     weave-faults FAULTS OUT-DIR INPUT...
//     weave-faults --faults FAULTS [--faults FAULTS]... OUT-DIR INPUT...
//
// Reads the faults files (one, or several, each given with `--faults`: Mutants/faults.txt, the catalog's family, then
// Mutants/faults-reach.txt, the reach family), copies every INPUT (a Swift source: the tutorial engine's, and the
// contract's default operation and executor layers) into OUT-DIR under its own name with every fault of those files
// woven in, and writes OUT-DIR/Faults.swift: the `Fault` enum, one case per fault of every file, and `FaultCatalog`.
// The files apply in the order given, each in its own order, as if they were one file; fault ids must be unique
// across all of them. A fault's site becomes
//
//     if FaultSwitch.active == .someFault {
//         <faulty lines>
//     } else {
//         <original lines>
//     }
//
// so one build holds every fault and the process picks one at run time (ARENA_FAULT). A fault in `mode: inline`
// replaces its lines with the faulty ones as written, `FAULT` in them standing for `(FaultSwitch.active == .someFault)`
// (for sites that are not statements: a stored property's initial value). An `adapt` entry is an edit made always
// (the copies live in another module). Every snippet must occur exactly once in its file, as it is when the entry is
// applied (entries apply in order: the faults files in the order given, each in file order), or the generator fails
// naming the entry and its faults file: faults cannot rot silently when the sources change.

struct Entry {
    var id = "", file = "", description = "", mode = "statement"
    /// The sites: each an original snippet and what replaces it (a fault may need two places, as a flag set late).
    var sites: [(original: [String], faulty: [String])] = []
    var isAdapt = false
    var line = 0
    /// The faults file the entry comes from, for messages.
    var source = ""
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("weave-faults: error: \(message)\n".utf8))
    exit(1)
}

/// A faults file: entries of the form
///
///     ## fault: some-fault            (or `## adapt: some-name`)
///     file: Runtime.swift
///     desc: one line an implementer would write in the commit that made the bug
///     mode: inline                    (optional)
///     --- original
///     <whole lines, exactly as in the source>
///     --- faulty
///     <whole lines>
///     --- end
///
/// Lines outside entries starting with `#` are comments. `path` names the file in messages.
func parse(_ text: String, path: String) -> [Entry] {
    var entries: [Entry] = []
    var current: Entry?
    var section: String?
    for (number, line) in text.components(separatedBy: "\n").enumerated() {
        if let name = section {
            if line == "--- faulty" && name == "original" {
                section = "faulty"
            } else if line == "--- original" && name == "faulty" {
                current!.sites.append(([], []))
                section = "original"
            } else if line == "--- end" && name == "faulty" {
                entries.append(current!)
                (current, section) = (nil, nil)
            } else if line.hasPrefix("--- ") {
                fail("\(path) line \(number + 1): '\(line)' out of place in entry '\(current!.id)'")
            } else if name == "original" {
                current!.sites[current!.sites.count - 1].original.append(line)
            } else {
                current!.sites[current!.sites.count - 1].faulty.append(line)
            }
            continue
        }
        if line.hasPrefix("## fault: ") || line.hasPrefix("## adapt: ") {
            if let current { fail("\(path) line \(current.line): entry '\(current.id)' has no '--- end'") }
            let id = String(line.dropFirst(10)).trimmingCharacters(in: .whitespaces)
            guard id.range(of: "^[a-z0-9]+(-[a-z0-9]+)*$", options: .regularExpression) != nil else {
                fail("\(path) line \(number + 1): '\(id)' is not a kebab-case id")
            }
            current = Entry(id: id, isAdapt: line.hasPrefix("## adapt: "), line: number + 1, source: path)
        } else if line.hasPrefix("file: "), current != nil {
            current!.file = String(line.dropFirst(6))
        } else if line.hasPrefix("desc: "), current != nil {
            current!.description = String(line.dropFirst(6))
        } else if line.hasPrefix("mode: "), current != nil {
            current!.mode = String(line.dropFirst(6))
        } else if line == "--- original", let entry = current {
            guard !entry.file.isEmpty else { fail("\(path) line \(entry.line): entry '\(entry.id)' names no file") }
            guard entry.isAdapt || !entry.description.isEmpty else {
                fail("\(path) line \(entry.line): fault '\(entry.id)' has no description")
            }
            current!.sites.append(([], []))
            section = "original"
        } else if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty {
            continue
        } else {
            fail("\(path) line \(number + 1): unexpected '\(line)'")
        }
    }
    if let current { fail("\(path) line \(current.line): entry '\(current.id)' is not finished") }
    var seen = Set<String>()
    for entry in entries where !entry.isAdapt {
        guard seen.insert(entry.id).inserted else { fail("\(path): fault '\(entry.id)' is listed twice") }
        guard ["statement", "inline"].contains(entry.mode) else { fail("\(path): fault '\(entry.id)': unknown mode '\(entry.mode)'") }
        for site in entry.sites where site.original == site.faulty {
            fail("\(path): fault '\(entry.id)': the faulty lines are the original ones")
        }
    }
    return entries
}

/// The Swift name of a fault: `missed-wakeup` is `missedWakeup`.
func caseName(_ id: String) -> String {
    let parts = id.split(separator: "-").map(String.init)
    return parts[0] + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
}

/// Where `snippet` occurs in `lines`, if it occurs exactly once; fails naming `entry` otherwise.
func site(of snippet: [String], for entry: Entry, in lines: [String]) -> Int {
    guard !snippet.isEmpty, lines.count >= snippet.count else { fail("'\(entry.id)' (\(entry.source)): empty original or short file") }
    let starts = (0...(lines.count - snippet.count)).filter { Array(lines[$0..<($0 + snippet.count)]) == snippet }
    guard starts.count == 1 else {
        fail(
            "'\(entry.id)' (\(entry.source) line \(entry.line)): its original lines occur \(starts.count) times in "
                + "\(entry.file), not once; the source changed: adapt the fault")
    }
    return starts[0]
}

func weave(_ entry: Entry, into lines: inout [String]) {
    // Every site is found before any is changed, so that the sites of one fault cannot match each other's output.
    let starts = entry.sites.map { site(of: $0.original, for: entry, in: lines) }
    let condition = "FaultSwitch.active == .\(caseName(entry.id))"
    for (site, start) in zip(entry.sites, starts).sorted(by: { $0.1 > $1.1 }) {
        let range = start..<(start + site.original.count)
        if entry.isAdapt {
            lines.replaceSubrange(range, with: site.faulty)
        } else if entry.mode == "inline" {
            guard site.faulty.contains(where: { $0.contains("FAULT") }) else {
                fail("'\(entry.id)' (\(entry.source)): an inline fault's lines must use FAULT")
            }
            lines.replaceSubrange(range, with: site.faulty.map { $0.replacingOccurrences(of: "FAULT", with: "(\(condition))") })
        } else {
            let indent = String(site.original[0].prefix { $0 == " " })
            lines.replaceSubrange(
                range,
                with: ["\(indent)if \(condition) {  // fault: \(entry.id)"] + site.faulty + ["\(indent)} else {"]
                    + site.original + ["\(indent)}"])
        }
    }
}

let usage = "usage: weave-faults FAULTS OUT-DIR INPUT... | weave-faults --faults FAULTS [--faults FAULTS]... OUT-DIR INPUT..."
var arguments = Array(CommandLine.arguments.dropFirst())
var faultsPaths: [String] = []
while arguments.first == "--faults" {
    guard arguments.count >= 2 else { fail(usage) }
    faultsPaths.append(arguments[1])
    arguments.removeFirst(2)
}
if faultsPaths.isEmpty, !arguments.isEmpty { faultsPaths.append(arguments.removeFirst()) }
guard !faultsPaths.isEmpty, arguments.count >= 2 else { fail(usage) }
let (outDirectory, inputs) = (arguments[0], Array(arguments[1...]))
var entries: [Entry] = []
for path in faultsPaths {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)") }
    entries += parse(text, path: path)
}
var ids: [String: String] = [:]  // fault id -> the file that listed it first
for entry in entries where !entry.isAdapt {
    if let first = ids[entry.id] {
        fail("fault '\(entry.id)' is listed in \(first) and again in \(entry.source) (line \(entry.line))")
    }
    ids[entry.id] = entry.source
}
let faultsList = faultsPaths.joined(separator: ", ")
let names = inputs.map { URL(fileURLWithPath: $0).lastPathComponent }
guard Set(names).count == names.count else { fail("two inputs share a file name: \(names)") }
for entry in entries where !names.contains(entry.file) {
    fail("'\(entry.id)' (\(entry.source)) names file \(entry.file), which is not among the inputs (\(names.joined(separator: ", ")))")
}
try? FileManager.default.createDirectory(atPath: outDirectory, withIntermediateDirectories: true)
for (input, name) in zip(inputs, names) {
    guard let text = try? String(contentsOfFile: input, encoding: .utf8) else { fail("cannot read \(input)") }
    var lines = text.components(separatedBy: "\n")
    for entry in entries where entry.file == name { weave(entry, into: &lines) }
    // The contract's own sources use it without an import: the copies are in another module.
    let header = "// Generated by weave-faults from \(input) and \(faultsList): do not edit.\nimport ArenaContract\n"
    do {
        try (header + lines.joined(separator: "\n")).write(toFile: "\(outDirectory)/\(name)", atomically: true, encoding: .utf8)
    } catch { fail("cannot write \(outDirectory)/\(name): \(error)") }
}

let faults = entries.filter { !$0.isAdapt }
func literal(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}
var swift = """
    // Generated by weave-faults from \(faultsList): do not edit.

    /// The faults woven into this module, one case per entry of the faults files.
    public enum Fault: String, CaseIterable, Sendable {

    """
for fault in faults { swift += "    case \(caseName(fault.id)) = \(literal(fault.id))\n" }
swift += """
    }

    /// Every fault with its one-line description, the file it is woven into and its family (`catalog` for
    /// faults.txt, `NAME` for faults-NAME.txt), in the faults files' order.
    public enum FaultCatalog {
        public static let all: [(fault: Fault, description: String, file: String, family: String)] = [

    """
/// A faults file's family: `catalog` for faults.txt, `NAME` for faults-NAME.txt.
func family(_ path: String) -> String {
    let name = (path as NSString).lastPathComponent.replacingOccurrences(of: ".txt", with: "")
    return name == "faults" ? "catalog" : String(name.dropFirst("faults-".count))
}
for fault in faults {
    swift +=
        "        (.\(caseName(fault.id)), \(literal(fault.description)), \(literal(fault.file)), \(literal(family(fault.source)))),\n"
}
swift += "    ]\n}\n"
do {
    try swift.write(toFile: "\(outDirectory)/Faults.swift", atomically: true, encoding: .utf8)
} catch { fail("cannot write \(outDirectory)/Faults.swift: \(error)") }
