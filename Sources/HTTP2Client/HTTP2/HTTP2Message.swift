public import PayloadBuilder

/// One HTTP header, lowercase name: the same type the renderer produces, so
/// rendered requests reach the wire without copying their header lists.
public typealias HTTPHeader = ProviderRequest.Header

/// A request to one origin over an HTTP/2 connection. The connection adds
/// `:scheme`, `:authority`; the caller gives method, path, headers and body.
public struct HTTP2Request: Sendable, Equatable {
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
///
/// Its first header is kept in place, not in an array: an APNs answer keeps
/// one (`apns-id`), and an array of one was an allocation and a free per
/// answer. `headers` gives them all in order.
public struct HTTP2Response: Sendable, Equatable {
    public var status: Int
    /// The first header; nil only when there is none (`laterHeaders` is then empty).
    private var firstHeader: HTTPHeader?
    /// Every header after the first.
    private var laterHeaders: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        firstHeader = headers.first
        laterHeaders = headers.count > 1 ? Array(headers.dropFirst()) : []
        self.body = body
    }

    /// A response of its parts as a stream gathered them (`PendingStream`),
    /// each moved in, none copied.
    init(status: Int, firstHeader: consuming HTTPHeader?, laterHeaders: consuming [HTTPHeader], body: consuming [UInt8]) {
        self.status = status
        self.firstHeader = firstHeader
        self.laterHeaders = laterHeaders
        self.body = body
    }

    /// The headers, in the order they came.
    public var headers: [HTTPHeader] {
        get { firstHeader.map { [$0] + laterHeaders } ?? [] }
        set { self = HTTP2Response(status: status, headers: newValue, body: body) }
    }

    /// The value of the first header called `name` (lowercase), if any.
    /// Headers are read in place (none is copied out), and names of
    /// another length are passed over without a string comparison.
    public func header(_ name: String) -> String? {
        // Read through optional chaining, in place (`if let` would copy the
        // header out, a retain and a release of each of its strings).
        guard let firstLength = firstHeader?.name.utf8.count else { return nil }
        let length = name.utf8.count
        if firstLength == length, firstHeader?.name == name { return firstHeader?.value }
        return Self.value(of: name, in: laterHeaders)
    }

    /// The value of the first of `headers` called `name`, read in place;
    /// names of another length are passed over without a string comparison.
    package static func value(of name: String, in headers: [HTTPHeader]) -> String? {
        let length = name.utf8.count
        return headers.withUnsafeBufferPointer { headers in
            for index in headers.indices where headers[index].name.utf8.count == length && headers[index].name == name {
                return headers[index].value
            }
            return nil
        }
    }
}
