public import PayloadBuilder

/// The requests of one send, as a pool and its connections take them:
/// `HTTP2Request`s each complete in itself, or requests rendered by
/// PayloadBuilder with the method, `authorization` and timeout they all
/// share (the clients' form). A connection copies their bytes once per
/// batch (`RequestBytes`), and reads nothing here after that but the
/// headers a response repeats.
public struct HTTP2Requests: Sendable {
    private let storage: Storage

    private enum Storage: Sendable {
        case separate([HTTP2Request])
        case rendered([ProviderRequest], SharedParts)
    }

    /// Requests each with its own method, authorization and timeout.
    public init(_ requests: [HTTP2Request]) {
        storage = .separate(requests)
    }

    /// Rendered requests (their path, headers and body), all sent with
    /// `method`, `authorization` (a literal never indexed by HPACK; nil:
    /// none) and `timeout`.
    public init(rendered: [ProviderRequest], method: String = "POST", authorization: String?, timeout: Duration) {
        storage = .rendered(rendered, SharedParts(method: method, authorization: authorization, timeout: timeout))
    }

    public var count: Int {
        switch storage {
        case let .separate(requests): requests.count
        case let .rendered(requests, _): requests.count
        }
    }

    public var indices: Range<Int> { 0..<count }
    public var isEmpty: Bool { count == 0 }

    /// Request `index` as an `HTTP2Request` of its own (for messages and
    /// tests; the connections read requests in place).
    public subscript(index: Int) -> HTTP2Request {
        switch storage {
        case let .separate(requests):
            return requests[index]
        case let .rendered(requests, shared):
            let request = requests[index]
            return HTTP2Request(method: shared.method, path: request.path, authorization: shared.authorization,
                                headers: request.headers, body: request.body, timeout: shared.timeout)
        }
    }

    /// The time request `index` has, from the moment it is first sent.
    public func timeout(_ index: Int) -> Duration {
        switch storage {
        case let .separate(requests): requests[index].timeout
        case let .rendered(_, shared): shared.timeout
        }
    }

    /// The requests at `positions`, in that order (a resend's share).
    func subset(_ positions: [Int]) -> HTTP2Requests {
        switch storage {
        case let .separate(requests): HTTP2Requests(requests: .separate(positions.map { requests[$0] }))
        case let .rendered(requests, shared): HTTP2Requests(requests: .rendered(positions.map { requests[$0] }, shared))
        }
    }

    private init(requests: Storage) {
        storage = requests
    }

    /// One request's parts, lent (not copied) to `forEach(in:_:)`'s body.
    struct Parts {
        let method: String
        let authorization: String?
        let path: String
        let headers: [HTTPHeader]
        let body: [UInt8]
        let timeout: Duration
    }

    /// Calls `body` with the parts of each request of `range`, in order
    /// (how a batch copies its requests' bytes, `RequestBytes`).
    func forEach(in range: Range<Int>, _ body: (borrowing Parts) -> Void) {
        switch storage {
        case let .separate(requests):
            for index in range {
                let request = requests[index]
                body(Parts(method: request.method, authorization: request.authorization, path: request.path,
                           headers: request.headers, body: request.body, timeout: request.timeout))
            }
        case let .rendered(requests, shared):
            for index in range {
                let request = requests[index]
                body(Parts(method: shared.method, authorization: shared.authorization, path: request.path,
                           headers: request.headers, body: request.body, timeout: shared.timeout))
            }
        }
    }

    /// Header `position` of request `index`.
    func header(_ index: Int, at position: Int) -> HTTPHeader {
        switch storage {
        case let .separate(requests): requests[index].headers[position]
        case let .rendered(requests, _): requests[index].headers[position]
        }
    }
}

/// What the rendered requests of one send share.
private struct SharedParts: Sendable {
    let method: String
    let authorization: String?
    let timeout: Duration
}
