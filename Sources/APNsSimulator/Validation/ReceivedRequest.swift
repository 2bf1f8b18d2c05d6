/// One HTTP/2 request as the simulator received it: every header field in
/// arrival order (pseudo-headers included) and the body.
struct ReceivedRequest {
    /// Header fields as received; names are lowercase (HTTP/2 requires it
    /// and nghttp2 enforces it).
    var headers: [(name: String, value: String)] = []
    /// Names of the fields sent as HPACK literals never indexed.
    var neverIndexedNames: [String] = []
    /// The body, kept up to `bodyLimit` bytes.
    var body: [UInt8] = []
    /// The full body length, even past `bodyLimit`.
    var bodyLength = 0

    /// More than any APNs payload limit; the rest is counted, not kept.
    static let bodyLimit = 64 * 1024

    /// Appends a body chunk, keeping at most `bodyLimit` bytes.
    mutating func appendBody(_ chunk: UnsafeBufferPointer<UInt8>) {
        bodyLength += chunk.count
        let room = Self.bodyLimit - body.count
        if room > 0 { body.append(contentsOf: chunk.prefix(room)) }
    }

    /// The single value of `name`, or `nil` when absent.
    func value(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// A non-pseudo header name that occurs more than once.
    ///
    /// Compares each name with the ones before it: cheaper than hashing for
    /// the dozen fields a request has, and bounded by the connection's
    /// header field limit.
    var duplicatedHeaderName: String? {
        for index in headers.indices where headers[index].name.utf8.first != UInt8(ascii: ":") {
            let name = headers[index].name
            if headers[..<index].contains(where: { $0.name == name }) { return name }
        }
        return nil
    }
}
