/// The documents the catalog's rules cite, each listed once with what a reader needs to find it. A rule's `source`
/// cites one by its `citation` followed by the part it draws on (`[GCD Handbook] (groups)`); man pages other than
/// dispatch_async(3), headers and libdispatch's tests are cited by their own names. docs/RULES.md opens with this
/// list, and a test checks that every citation in the catalog names a document here and every document is cited.
public enum Bibliography {
    /// One cited document.
    public struct Document: Sendable, Equatable, Codable {
        /// What a rule's source writes to cite it: a short key in brackets, or for a man page its name and section,
        /// the way the catalog cites every man page.
        public let citation: String
        public let title: String
        /// Who wrote it, or who publishes it where it names no author.
        public let author: String
        /// Where it appeared, if it is part of something larger.
        public let publication: String?
        /// When it appeared, as closely as the document itself tells.
        public let date: String
        /// Where to read it; `nil` where no address for the document itself is known.
        public let url: String?
    }

    /// Daniel Eggert's article on the C API of GCD: `dispatch_once`, target queues and priorities, barriers, sources,
    /// dispatch data and I/O channels.
    public static let objcIO = Document(
        citation: "[objc.io #2]", title: "Low-Level Concurrency APIs", author: "Daniel Eggert",
        publication: "objc.io issue #2, Concurrent Programming", date: "July 2013",
        url: "https://www.objc.io/issues/2-concurrency/low-level-concurrency-apis/")

    /// Apple's guide to operation queues, dispatch queues and dispatch sources.
    public static let concurrencyGuide = Document(
        citation: "[Concurrency Programming Guide]", title: "Concurrency Programming Guide", author: "Apple",
        publication: "Apple Documentation Archive", date: "last updated December 2012",
        url: "https://developer.apple.com/library/archive/documentation/General/Conceptual/"
            + "ConcurrencyProgrammingGuide/Introduction/Introduction.html")

    /// Soroush Khanlou's patterns built from GCD's primitives, in the Swift 3 API.
    public static let gcdHandbook = Document(
        citation: "[GCD Handbook]", title: "The GCD Handbook", author: "Soroush Khanlou", publication: "khanlou.com",
        date: "April 2016", url: "https://khanlou.com/2016/04/the-GCD-handbook/")

    /// A blog post on synchronous and asynchronous execution with callbacks, written when GCD came to iPhone OS 4.0.
    /// The post names no author, and its own address is not known.
    public static let tenerife = Document(
        citation: "[Tenerife 2010]", title: "Grand Central Dispatch", author: "Tenerife Skunkworks",
        publication: "a blog on trading and technology at wagerlabs.com", date: "2010", url: nil)

    /// The libdispatch manual page of `dispatch_async` and `dispatch_sync`.
    public static let dispatchAsync = Document(
        citation: "dispatch_async(3)", title: "dispatch_async, dispatch_sync: schedule blocks for execution",
        author: "Apple", publication: "libdispatch manual, section 3", date: "May 1, 2009",
        url: "https://github.com/apple/swift-corelibs-libdispatch/blob/main/man/dispatch_async.3")

    /// Every cited document, in the order docs/RULES.md lists them.
    public static let documents: [Document] = [objcIO, concurrencyGuide, gcdHandbook, tenerife, dispatchAsync]
}
