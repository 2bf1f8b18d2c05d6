/// The path the router sees in a request target: the query is cut off, and
/// a target in absolute form (`http://host:port/healthz`), which RFC 9112
/// §3.2.2 says a server must accept although clients send it only to
/// proxies, loses its scheme and authority (`/healthz`; `/` when nothing
/// follows the authority).
enum RequestTarget {
    static func path(_ target: UnsafeBufferPointer<UInt8>) -> String {
        var start = 0
        if let authority = authorityStart(target) {
            start = target[authority...].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? target.count
            guard start < target.count, target[start] == UInt8(ascii: "/") else { return "/" }
        }
        let end = target[start...].firstIndex(of: UInt8(ascii: "?")) ?? target.count
        let path = UnsafeBufferPointer(rebasing: target[start..<end])
        // A path that fits in a small string (the routes' do) is copied in and
        // checked there, without `String(decoding:)`'s general validation; both
        // repair invalid UTF-8 alike.
        guard path.count <= 15 else { return String(decoding: path, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: path.count) { $0.initialize(fromContentsOf: path) }
    }

    /// Where the authority begins when `target` starts with `http://` or
    /// `https://` (the scheme in any case); nil for any other target.
    private static func authorityStart(_ target: UnsafeBufferPointer<UInt8>) -> Int? {
        guard target.first != UInt8(ascii: "/") else { return nil }  // origin form, the usual case
        /// The scheme's length when `target` starts with it.
        func length(ifStartingWith scheme: StaticString) -> Int? {
            let count = scheme.utf8CodeUnitCount
            guard target.count >= count,
                  RequestScreen.equalsIgnoringCase(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: target[..<count])), scheme)
            else { return nil }
            return count
        }
        return length(ifStartingWith: "http://") ?? length(ifStartingWith: "https://")
    }
}
