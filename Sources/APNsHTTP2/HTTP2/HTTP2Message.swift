public import PayloadBuilder

/// One HTTP header, lowercase name: the same type the renderer produces, so
/// rendered requests reach the wire without copying their header lists.
public typealias HTTPHeader = ProviderRequest.Header

/// A request to one origin over an HTTP/2 connection. The connection adds
/// `:scheme`, `:authority`; the caller gives method, path, headers and body.
public struct HTTP2Request: Sendable {
    public var method: String
    public var path: String
    /// Sent as a literal never indexed by HPACK (a credential); nil: none.
    public var authorization: String?
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// From the moment `send` is called until the response is complete.
    public var timeout: Duration

    public init(method: String = "POST", path: String, authorization: String? = nil, headers: [HTTPHeader] = [],
                body: [UInt8] = [], timeout: Duration = .seconds(10)) {
        self.method = method
        self.path = path
        self.authorization = authorization
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A complete HTTP/2 response.
public struct HTTP2Response: Sendable, Equatable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first(where: { $0.name == name })?.value
    }
}
