/// One HTTP/2 request as the simulator received it: every header field in
/// arrival order (pseudo-headers included) and the body.
///
/// The fields are kept as the bytes nghttp2 delivered (`fields`); the
/// validators read those, and the Strings below are made only when asked
/// for (records, the FCM handler, tests).
struct ReceivedRequest {
    /// Header fields as received; names are lowercase (HTTP/2 requires it
    /// and nghttp2 enforces it).
    var fields = HeaderFields()
    /// The body, kept up to `bodyLimit` bytes.
    var body: [UInt8] = []
    /// The full body length, even past `bodyLimit`.
    var bodyLength = 0

    /// More than any APNs payload limit; the rest is counted, not kept.
    static let bodyLimit = 64 * 1024

    /// Header fields as Strings, in arrival order. Setting them replaces
    /// every field, none of them never-indexed.
    var headers: [(name: String, value: String)] {
        get { fields.entries.indices.map { (fields.name(at: $0), fields.value(at: $0)) } }
        set {
            fields = HeaderFields()
            for (name, value) in newValue { fields.append(name: name, value: value, neverIndexed: false) }
        }
    }

    /// Names of the fields sent as HPACK literals never indexed.
    var neverIndexedNames: [String] {
        fields.entries.indices.filter { fields.entries[$0].neverIndexed }.map { fields.name(at: $0) }
    }

    /// Appends a body chunk, keeping at most `bodyLimit` bytes.
    mutating func appendBody(_ chunk: UnsafeBufferPointer<UInt8>) {
        bodyLength += chunk.count
        let room = Self.bodyLimit - body.count
        if room > 0 { body.append(contentsOf: chunk.prefix(room)) }
    }

    /// The value of the first field named `name`, or `nil` when absent.
    func value(_ name: String) -> String? {
        fields.firstIndex(of: name).map { fields.value(at: $0) }
    }
}
