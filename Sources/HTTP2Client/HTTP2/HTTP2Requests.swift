public import PayloadBuilder

/// The requests of one send, as a pool and its connections take them:
/// `HTTP2Request`s each complete in itself, or requests rendered by
/// PayloadBuilder with the method, `authorization` and timeout they all
/// share (the clients' form). The rendered form is read where it is: no
/// request is copied per send, and no string or array of one is retained
/// and released for it, nor the shared `authorization` once per request.
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
            return HTTP2Request(method: shared.method.pointee, path: request.path, authorization: shared.authorization.pointee,
                                headers: request.headers, body: request.body, timeout: shared.timeout.pointee)
        }
    }

    /// The time request `index` has, from the moment it is first sent.
    public func timeout(_ index: Int) -> Duration {
        switch storage {
        case let .separate(requests): requests[index].timeout
        case let .rendered(_, shared): shared.timeout.pointee
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

    /// Where each request's parts are, for the connections to read them in
    /// place (see `RequestTable`): valid while these requests are kept.
    func table() -> RequestTable {
        switch storage {
        case let .separate(requests):
            let base = requests.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            let stride = MemoryLayout<HTTP2Request>.stride
            return RequestTable(base: base, stride: stride, path: Self.separatePath, headers: Self.separateHeaders,
                                body: Self.separateBody, method: base.map { ($0 + Self.separateMethod, stride) },
                                authorization: base.map { ($0 + Self.separateAuthorization, stride) },
                                timeout: base.map { ($0 + Self.separateTimeout, stride) })
        case let .rendered(requests, shared):
            let base = requests.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            return RequestTable(base: base, stride: MemoryLayout<ProviderRequest>.stride, path: Self.renderedPath,
                                headers: Self.renderedHeaders, body: Self.renderedBody, method: (UnsafeRawPointer(shared.method), 0),
                                authorization: (UnsafeRawPointer(shared.authorization), 0), timeout: (UnsafeRawPointer(shared.timeout), 0))
        }
    }

    // Where each part is inside a request (worked out once, at first use).
    private static let separateMethod = MemoryLayout<HTTP2Request>.offset(of: \.method)!
    private static let separateAuthorization = MemoryLayout<HTTP2Request>.offset(of: \.authorization)!
    private static let separatePath = MemoryLayout<HTTP2Request>.offset(of: \.path)!
    private static let separateHeaders = MemoryLayout<HTTP2Request>.offset(of: \.headers)!
    private static let separateBody = MemoryLayout<HTTP2Request>.offset(of: \.body)!
    private static let separateTimeout = MemoryLayout<HTTP2Request>.offset(of: \.timeout)!
    private static let renderedPath = MemoryLayout<ProviderRequest>.offset(of: \.path)!
    private static let renderedHeaders = MemoryLayout<ProviderRequest>.offset(of: \.headers)!
    private static let renderedBody = MemoryLayout<ProviderRequest>.offset(of: \.body)!
}

/// Where the parts of a send's requests are in memory: the addresses the
/// loop thread reads a request's path, headers, body, method, authorization
/// and timeout at, with no copy, no retain and no switch over the form of
/// the requests. A value shared by all the requests (the rendered form's
/// method, authorization and timeout) is at one address, with a stride of 0.
///
/// Only addresses and numbers: copied and read with no reference counting.
/// Valid while the `HTTP2Requests` it was made from is kept (a batch keeps
/// both): the arrays' storage lives as long as that, and an array's elements
/// do not move while its storage lives unchanged, which it does here, as a
/// change by another owner copies the storage first (copy-on-write: the
/// kept reference makes it shared).
///
/// `@unchecked Sendable`: it only points at values that are never changed
/// while it is valid (see above).
struct RequestTable: @unchecked Sendable {
    private let base: UnsafeRawPointer?
    private let stride: Int
    private let pathOffset: Int
    private let headersOffset: Int
    private let bodyOffset: Int
    private let method: (UnsafeRawPointer, Int)?
    private let authorization: (UnsafeRawPointer, Int)?
    private let timeout: (UnsafeRawPointer, Int)?

    init(base: UnsafeRawPointer?, stride: Int, path: Int, headers: Int, body: Int,
         method: (UnsafeRawPointer, Int)?, authorization: (UnsafeRawPointer, Int)?, timeout: (UnsafeRawPointer, Int)?) {
        self.base = base
        self.stride = stride
        pathOffset = path
        headersOffset = headers
        bodyOffset = body
        self.method = method
        self.authorization = authorization
        self.timeout = timeout
    }

    /// The parts of request `index` (which must be one of the requests).
    func parts(_ index: Int) -> RequestParts {
        let request = base! + index * stride
        return RequestParts(method: method!.0 + index * method!.1, authorization: authorization!.0 + index * authorization!.1,
                            path: request + pathOffset, headers: request + headersOffset, body: request + bodyOffset)
    }

    /// The timeout of request `index`.
    func timeout(_ index: Int) -> Duration {
        (timeout!.0 + index * timeout!.1).load(as: Duration.self)
    }
}

/// One request's parts where they are stored (`RequestTable`), for the loop
/// thread to read without copying or retaining them.
struct RequestParts {
    private let methodAddress: UnsafeRawPointer
    private let authorizationAddress: UnsafeRawPointer
    private let pathAddress: UnsafeRawPointer
    private let headersAddress: UnsafeRawPointer
    private let bodyAddress: UnsafeRawPointer

    init(method: UnsafeRawPointer, authorization: UnsafeRawPointer, path: UnsafeRawPointer, headers: UnsafeRawPointer,
         body: UnsafeRawPointer) {
        methodAddress = method
        authorizationAddress = authorization
        pathAddress = path
        headersAddress = headers
        bodyAddress = body
    }

    var method: UnsafePointer<String> { methodAddress.assumingMemoryBound(to: String.self) }
    var authorization: UnsafePointer<String?> { authorizationAddress.assumingMemoryBound(to: String?.self) }
    var path: UnsafePointer<String> { pathAddress.assumingMemoryBound(to: String.self) }
    var headers: UnsafePointer<[HTTPHeader]> { headersAddress.assumingMemoryBound(to: [HTTPHeader].self) }
    var body: UnsafePointer<[UInt8]> { bodyAddress.assumingMemoryBound(to: [UInt8].self) }

    /// The body's bytes, where the body array keeps them: valid as long as
    /// the table is (a kept array's storage does not move). Read with no
    /// retain of the array, which reading them inside the array's own
    /// `withUnsafeBufferPointer` around other calls costs.
    var bodyBytes: UnsafeBufferPointer<UInt8> {
        body.pointee.withUnsafeBufferPointer { $0 }
    }

    /// The identities (`StringIdentity`) of the method and the authorization.
    var methodIdentity: StringIdentity { StringIdentity(at: methodAddress) }
    var authorizationIdentity: StringIdentity { StringIdentity(at: authorizationAddress) }
}

/// What the rendered requests of one send share, each value at one address
/// for as long as the send lasts (its `RequestParts` point here).
///
/// `@unchecked Sendable`: the values are set once, in `init`, and never
/// changed; they are freed in `deinit`, when nothing can read them.
final class SharedParts: @unchecked Sendable {
    let method: UnsafeMutablePointer<String>
    let authorization: UnsafeMutablePointer<String?>
    let timeout: UnsafeMutablePointer<Duration>

    init(method: String, authorization: String?, timeout: Duration) {
        self.method = .allocate(capacity: 1)
        self.method.initialize(to: method)
        self.authorization = .allocate(capacity: 1)
        self.authorization.initialize(to: authorization)
        self.timeout = .allocate(capacity: 1)
        self.timeout.initialize(to: timeout)
    }

    deinit {
        method.deinitialize(count: 1)
        method.deallocate()
        authorization.deinitialize(count: 1)
        authorization.deallocate()
        timeout.deallocate()
    }
}
