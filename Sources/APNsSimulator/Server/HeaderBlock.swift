import CNGHTTP2

/// Builds an `nghttp2_nv` array over one contiguous byte buffer that lives
/// for the duration of a submit call (nghttp2 copies names and values
/// because no NO_COPY flag is set).
enum HeaderBlock {
    static func with<T>(_ fields: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> T) -> T {
        var storage: [UInt8] = []
        var ranges: [(name: Range<Int>, value: Range<Int>)] = []
        for (name, value) in fields {
            let nameStart = storage.count
            storage.append(contentsOf: name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: value.utf8)
            ranges.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        return storage.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let headers = ranges.map { range in
                nghttp2_nv(
                    name: base + range.name.lowerBound,
                    value: base + range.value.lowerBound,
                    namelen: range.name.count,
                    valuelen: range.value.count,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
                )
            }
            return headers.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}
