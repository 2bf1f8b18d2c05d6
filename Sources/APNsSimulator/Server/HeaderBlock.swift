import CNGHTTP2

/// Builds an `nghttp2_nv` array over one contiguous byte buffer that lives
/// for the duration of a submit call (nghttp2 copies names and values
/// because no NO_COPY flag is set). Both live in temporary (usually stack)
/// storage: a response's header block costs no allocation.
///
/// A value unique to each response (`apns-id`) is sent as a literal that is
/// never indexed (RFC 7541 §6.2.3): indexed, each one would take a place in
/// both HPACK dynamic tables, push out the entries that do repeat, and make
/// nghttp2's encoder compare it with every other `apns-id` still there.
enum HeaderBlock {
    /// Response headers whose value is new in every response.
    static func isUniquePerResponse(_ name: String) -> Bool {
        name == "apns-id" || name == "apns-unique-id"
    }

    /// `:status` followed by `fields`.
    static func with<T>(status: Int, _ fields: [(name: String, value: String)],
                        _ body: (UnsafePointer<nghttp2_nv>, Int) -> T) -> T {
        let statusName: StaticString = ":status"
        let digits = String(status)  // a small string: no allocation
        var byteCount = statusName.utf8CodeUnitCount + digits.utf8.count
        for (name, value) in fields { byteCount += name.utf8.count + value.utf8.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount) { storage in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: fields.count + 1) { headers in
                let base = storage.baseAddress!
                var offset = 0
                func append(_ bytes: UnsafeBufferPointer<UInt8>) -> (UnsafeMutablePointer<UInt8>, Int) {
                    let start = offset
                    if let source = bytes.baseAddress { (base + start).initialize(from: source, count: bytes.count) }
                    offset += bytes.count
                    return (base + start, bytes.count)
                }
                func append(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
                    var text = text
                    return text.withUTF8 { append($0) }
                }
                func entry(_ name: (UnsafeMutablePointer<UInt8>, Int), _ value: (UnsafeMutablePointer<UInt8>, Int),
                           indexed: Bool = true) -> nghttp2_nv {
                    nghttp2_nv(name: name.0, value: value.0, namelen: name.1, valuelen: value.1,
                               flags: UInt8(indexed ? NGHTTP2_NV_FLAG_NONE.rawValue : NGHTTP2_NV_FLAG_NO_INDEX.rawValue))
                }
                let statusEntry = entry(append(UnsafeBufferPointer(start: statusName.utf8Start, count: statusName.utf8CodeUnitCount)),
                                        append(digits))
                headers.initializeElement(at: 0, to: statusEntry)
                for (index, field) in fields.enumerated() {
                    headers.initializeElement(at: index + 1, to: entry(append(field.name), append(field.value),
                                                                       indexed: !isUniquePerResponse(field.name)))
                }
                defer { headers.deinitialize() }
                return body(UnsafePointer(headers.baseAddress!), fields.count + 1)
            }
        }
    }
}
