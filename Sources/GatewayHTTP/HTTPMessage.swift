public import PayloadBuilder

/// An HTTP request as the service's routes see it: method, path, the one
/// header the gateway reads, and the body (already capped by the server).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string.
    public var path: String
    /// The `Authorization` header's value, if sent.
    public var authorization: String?
    public var body: [UInt8]
    /// The body was longer than the server's limit; `body` is empty then.
    public var bodyTooLarge: Bool
    /// The `mode` argument of the query, percent-decoded, if sent: the one
    /// query argument a route reads (`POST /v1/notify?mode=async`).
    public var mode: String?

    public init(method: String, path: String, authorization: String? = nil, body: [UInt8] = [], bodyTooLarge: Bool = false,
                mode: String? = nil) {
        self.method = method
        self.path = path
        self.authorization = authorization
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.mode = mode
    }
}

/// An HTTP response to send.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// Header fields besides `Content-Type` (e.g. `Allow` on a 405).
    public var headers: [HTTPHeaderField]

    public init(status: Int, contentType: String = "application/json", body: [UInt8], headers: [HTTPHeaderField] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }
}

/// One response header field: the same name-and-value pair the renderer
/// uses for provider request headers.
public typealias HTTPHeaderField = ProviderRequest.Header

/// Answers requests. Called concurrently from many connections.
public protocol HTTPHandler: Sendable {
    /// The answer, when it can be given at once on the server's thread
    /// (no waiting on a provider or the network); nil sends the request to
    /// `handle`. Saves two thread hops for health checks, errors and renders.
    func respondImmediately(_ request: HTTPRequest) -> HTTPResponse?
    /// Asked when a client waits for `100 Continue` before its body (the
    /// request has no body yet): an answer now refuses the request before
    /// the upload (the body is never read); nil lets it proceed. Counted by
    /// the handler, like `respondImmediately`.
    func respondBeforeBody(_ request: HTTPRequest) -> HTTPResponse?
    /// Takes the request to answer through `reply` later, from any thread,
    /// without a task (true), or leaves it to `handle` (false).
    func respondLater(_ request: HTTPRequest, reply: HTTPReply) -> Bool
    func handle(_ request: HTTPRequest) async -> HTTPResponse
    /// The server delivered `response` to a request to `path` that the
    /// handler did not count itself: the server's own answers (framing
    /// refused before any handler call; 503 `shutting_down` because it
    /// stopped first) and the answers of `handle`. For counting: every
    /// answer a client gets is reported once, by this or by the handler.
    func answered(path: String, _ response: HTTPResponse)
}

extension HTTPHandler {
    public func answered(path: String, _ response: HTTPResponse) {}
    public func respondImmediately(_ request: HTTPRequest) -> HTTPResponse? { nil }
    public func respondBeforeBody(_ request: HTTPRequest) -> HTTPResponse? { nil }
    public func respondLater(_ request: HTTPRequest, reply: HTTPReply) -> Bool { false }
}
