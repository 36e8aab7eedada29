import ArenaContract
import FoundationEssentials

/// What a parent asks a child process of the same program to do: run one rule, measure one benchmark point, run one
/// instruction path. The request is a plain value that travels whole, as one JSON argument (`child --request …`);
/// the child decodes it, and its answer comes back over a `ChildChannel`. The parent needs only names and plain data
/// to start a child: it never opens an engine.
public protocol ChildRequest: Codable, Sendable {
    /// The kind that names the request in its envelope (`rule`, `point`, `path`), so the child knows which type to
    /// decode. Unique per type.
    static var kind: String { get }
    /// The longest the parent lets the child live before killing it.
    var limit: Duration { get }
}

/// The envelope every child request travels in, and the one place that turns a request into a command line and
/// back. A request costs one JSON encoding to send and two decodings to receive (the kind, then the request).
public enum ChildRequests {
    /// The hidden subcommand that runs a request.
    public static let command = "child"
    /// Its option carrying the envelope.
    public static let option = "--request"

    /// The arguments, after the program's name, that make the program run `request` as a child.
    public static func arguments<Request: ChildRequest>(for request: Request) -> [String] {
        [command, option, encoded(request)]
    }

    /// `request` in its envelope, as one line of JSON: `{"kind":"rule","request":{…}}`.
    public static func encoded<Request: ChildRequest>(_ request: Request) -> String {
        String(decoding: try! JSONEncoder().encode(Envelope(kind: Request.kind, request: request)), as: UTF8.self)
    }

    /// The kind an envelope names, or `nil` when `text` is no envelope.
    public static func kind(of text: String) -> String? {
        try? JSONDecoder().decode(Head.self, from: Data(text.utf8)).kind
    }

    /// The request of type `Request` in the envelope `text`, or `nil` when the envelope holds another kind or does
    /// not decode.
    public static func decode<Request: ChildRequest>(_ type: Request.Type, from text: String) -> Request? {
        guard let envelope = try? JSONDecoder().decode(Envelope<Request>.self, from: Data(text.utf8)),
            envelope.kind == Request.kind
        else { return nil }
        return envelope.request
    }

    /// Runs `request` in a child process of `executable` (this program by default) and waits for it, killing it
    /// once the request's limit passed.
    public static func run<Request: ChildRequest>(_ request: Request, executable: String = "/proc/self/exe") -> ChildOutcome {
        ChildProcess.run(arguments(for: request), executable: executable, limit: request.limit)
    }

    private struct Head: Decodable {
        let kind: String
    }

    private struct Envelope<Request: ChildRequest>: Codable {
        let kind: String
        let request: Request
    }
}
