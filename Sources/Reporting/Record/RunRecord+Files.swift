import ArenaContract
import Bench
import FoundationEssentials

/// A results folder whose record cannot be used: missing, not a record, or of another schema version. Each says so in
/// one line; commands exit 65 (EX_DATAERR) with it, since the folder exists but its data is wrong.
public struct RecordError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The folder has no `run.json` (and no older results to read instead, where that is allowed).
        case missing
        /// `run.json` is not JSON, or not a record.
        case malformed
        /// A record of another schema version than this program reads.
        case otherVersion
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// EX_DATAERR: every record error is bad data in a folder that exists.
    public static let exitCode: Int32 = 65
}

extension RunRecord {
    /// The record's path in `directory`.
    public static func path(in directory: String) -> String { directory + "/" + fileName }

    /// The record in `directory`. Throws `missing` when it has none, `malformed` when `run.json` is not a record,
    /// `otherVersion` when it is one of another version. Costs one read and one parse.
    public static func read(from directory: String) throws(RecordError) -> RunRecord {
        let path = path(in: directory)
        guard let text = Files.read(path) else { throw RecordError(.missing, "'\(directory)' holds no run record (\(fileName))") }
        return try decode(text, path: path)
    }

    /// The record in `text`, read from `path` (named in errors).
    public static func decode(_ text: String, path: String) throws(RecordError) -> RunRecord {
        let data = Data(text.utf8)
        let head: Head
        do { head = try JSONDecoder().decode(Head.self, from: data) } catch {
            throw RecordError(.malformed, "'\(path)' is not a run record (not JSON with a schema and version)")
        }
        guard head.schema == schemaName else {
            throw RecordError(.malformed, "'\(path)' is not a run record (its schema is '\(head.schema)', not '\(schemaName)')")
        }
        guard head.version == schemaVersion else {
            throw RecordError(
                .otherVersion,
                "'\(path)' is a run record of schema version \(head.version); this program reads version \(schemaVersion)")
        }
        do { return try JSONDecoder().decode(RunRecord.self, from: data) } catch {
            throw RecordError(.malformed, "'\(path)' is a malformed run record: \(Self.describe(error))")
        }
    }

    /// The record as the file holds it: pretty-printed, keys sorted, so two records of one run diff line by line.
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try! encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Writes the record into `directory` whole (a reader sees the old file or the new one, never a part).
    public func write(to directory: String) throws(FileError) {
        try Files.writeWhole(encoded(), to: Self.path(in: directory))
    }

    /// The record of `directory`, changed by `change` and written back; a folder without one starts from an empty
    /// record (made if needed). Throws when the folder's record is unreadable (it is never overwritten then) or the
    /// write failed.
    public static func update(_ directory: String, _ change: (inout RunRecord) -> Void) throws -> RunRecord {
        var record = RunRecord()
        if Files.read(path(in: directory)) != nil { record = try read(from: directory) }
        change(&record)
        try Files.makeDirectories(directory)
        try record.write(to: directory)
        return record
    }

    /// The first two fields, read before the rest so that another version is named rather than misread.
    private struct Head: Decodable {
        let schema: String
        let version: Int
    }

    /// A decoding error in one line: what was wrong and where.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)).\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
