/// The parts of a document that a command writes: the text between `<!-- BEGIN arena docs NAME -->` and
/// `<!-- END arena docs NAME -->` in Markdown, or between `// BEGIN arena docs NAME` and `// END arena docs NAME` lines
/// in Swift. A block whose BEGIN marker ends its line holds whole lines (a table, a paragraph); one whose marker is
/// followed on its line by text is inline (a count in a sentence). `arena docs` rewrites them from the committed
/// records (`DocFigures`), and a test fails when one differs from what it would write, as docs/RULES.md is kept.
/// Reading a document is one pass over its text.
public enum GeneratedBlocks {
    /// One generated part of a document.
    public struct Block: Sendable, Equatable {
        /// What the block holds (`reference.conformance`, `count.rules`): what `DocFigures.text(for:)` is asked.
        public let name: String
        /// The text between the markers as the document holds it.
        public let content: String
        /// Whether the block sits inside a line (its content has no line breaks of its own).
        public let inline: Bool
        /// The line of the document its BEGIN marker is on (from 1).
        public let line: Int
    }

    /// Why a document's markers cannot be read.
    public struct MarkerError: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    private static let markers: [(begin: String, end: String, close: String)] = [
        ("<!-- BEGIN arena docs ", "<!-- END arena docs ", " -->"), ("// BEGIN arena docs ", "// END arena docs ", "\n"),
    ]

    /// The blocks of `text`, in order. Throws on a BEGIN without its END (or an END of another name first).
    public static func blocks(in text: String) throws(MarkerError) -> [Block] {
        try spans(in: text).map { span in
            Block(
                name: span.name, content: String(text[span.content]), inline: span.inline,
                line: text[..<span.content.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 })
        }
    }

    /// `text` with every block's content replaced by what `make` gives for its name: a whole-line block gets the text
    /// on lines of its own between its markers, an inline block the text as it is, its last line break dropped.
    public static func rewriting<E: Error>(_ text: String, _ make: (Block) throws(E) -> String) throws(E) -> String {
        let found: [(name: String, content: Range<String.Index>, inline: Bool)]
        do { found = try spans(in: text) } catch {
            preconditionFailure("rewriting: check the markers with blocks(in:) first: \(error)")
        }
        var result = ""
        var cursor = text.startIndex
        for span in found {
            result += text[cursor..<span.content.lowerBound]
            let block = Block(name: span.name, content: String(text[span.content]), inline: span.inline, line: 0)
            result += placed(try make(block), inline: span.inline)
            cursor = span.content.upperBound
        }
        return result + text[cursor...]
    }

    /// `made` as a block holds it: inline, without its last line breaks; on lines of its own, between a line break
    /// after the BEGIN marker and one before the END marker. A block whose `content` equals this is current.
    public static func placed(_ made: String, inline: Bool) -> String {
        var text = made
        if inline {
            while text.hasSuffix("\n") { text.removeLast() }
            return text
        }
        return "\n" + text + (text.hasSuffix("\n") ? "" : "\n")
    }

    /// Each block's name, the range of its content, and whether it is inline.
    private static func spans(in text: String) throws(MarkerError) -> [(name: String, content: Range<String.Index>, inline: Bool)] {
        var found: [(name: String, content: Range<String.Index>, inline: Bool)] = []
        var cursor = text.startIndex
        while true {
            // The nearest BEGIN marker of either kind.
            let next = markers.compactMap { kind in text[cursor...].firstRange(of: kind.begin).map { (kind, $0) } }
                .min { $0.1.lowerBound < $1.1.lowerBound }
            guard let (kind, begin) = next else { return found }
            guard let close = text[begin.upperBound...].firstRange(of: kind.close) else {
                throw MarkerError(message: "an unclosed BEGIN marker: \(text[begin.lowerBound...].prefix(60))")
            }
            let name = text[begin.upperBound..<close.lowerBound].trimmingSpaces
            let start = kind.close == "\n" ? close.lowerBound : close.upperBound
            let endMarker = kind.end + name + (kind.close == "\n" ? "" : kind.close)
            guard let end = text[start...].firstRange(of: endMarker) else {
                throw MarkerError(message: "BEGIN arena docs \(name) has no END arena docs \(name)")
            }
            // A whole-line block's content runs from its BEGIN line's break to the start of its END line.
            var contentEnd = end.lowerBound
            if kind.close == "\n" || text[start...].first == "\n" {
                contentEnd = text[start..<end.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? end.lowerBound
            }
            let inline = text[start...].first != "\n"
            if let nested = text[start..<end.lowerBound].firstRange(of: "BEGIN arena docs ") {
                throw MarkerError(message: "BEGIN arena docs \(name) holds another block (\(text[nested.lowerBound...].prefix(60)))")
            }
            found.append((String(name), start..<(inline ? end.lowerBound : max(start, contentEnd)), inline))
            cursor = end.upperBound
        }
    }
}

extension Substring {
    /// Without its leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
