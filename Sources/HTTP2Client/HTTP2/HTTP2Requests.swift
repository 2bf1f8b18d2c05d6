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
                                headers: request.headers, body: Array(request.body), timeout: shared.timeout)
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

    /// Requests `range` copied into one `RequestBytes` (see
    /// `RequestBytes.copy`), read where they are.
    func copying(_ range: Range<Int>, authority: String, naming: HeaderNaming) -> RequestBytes.Made {
        switch storage {
        case let .separate(requests):
            requests.withUnsafeBufferPointer { RequestBytes.copy(separate: $0, range: range, authority: authority, naming: naming) }
        case let .rendered(requests, shared):
            requests.withUnsafeBufferPointer {
                RequestBytes.copy(rendered: $0, range: range, method: shared.method, authorization: shared.authorization,
                                  timeout: shared.timeout, authority: authority, naming: naming)
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
