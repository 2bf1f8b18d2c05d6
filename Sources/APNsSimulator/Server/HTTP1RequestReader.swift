/// A small, strict HTTP/1.1 request reader (RFC 9112) for a simulator that
/// serves HTTP/1.1: bytes in, whole requests out, as `ReceivedRequest`s
/// whose `:method` and `:path` fields come first, then the header fields
/// with lowercase names, so the HTTP/2 handlers answer them unchanged.
///
/// Strict where a lenient server would guess: the request line is
/// `method SP target SP HTTP/1.1`, lines end in CRLF (a bare LF is
/// refused), field names are tokens with no space before the colon,
/// obsolete line folding is refused, `Host` is required, and a body is
/// framed by one `Content-Length` only (`Transfer-Encoding` is answered
/// 501, as a server that implements no transfer coding must). The header
/// section is at most 16 KiB and the body at most `ReceivedRequest.bodyLimit`.
/// After a refusal the connection cannot be read further and is closed.
///
/// A value fed by one connection's thread.
struct HTTP1RequestReader {
    /// What the bytes so far hold.
    enum Step {
        /// A whole request; `closeAfter` when it asked for `Connection: close`.
        case request(ReceivedRequest, closeAfter: Bool)
        case needsMore
        /// The bytes are not a request this reader takes: answer `status` and close.
        case refused(status: Int, message: String)
    }

    static let headerSectionLimit = 16 * 1024

    private var buffer: [UInt8] = []

    mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(contentsOf: bytes) }

    /// The next request, if the buffer holds all of it.
    mutating func next() -> Step {
        guard let end = headerSectionEnd() else {
            if buffer.count > Self.headerSectionLimit { return .refused(status: 431, message: "The header section is over 16 KiB") }
            if buffer.contains(UInt8(ascii: "\n")), let bare = bareLineFeed(before: buffer.count) { return bare }
            return .needsMore
        }
        guard end <= Self.headerSectionLimit else { return .refused(status: 431, message: "The header section is over 16 KiB") }
        if let bare = bareLineFeed(before: end) { return bare }
        for index in 0..<end where buffer[index] == 0x0D && buffer[index + 1] != 0x0A {
            return .refused(status: 400, message: "A line holds a bare CR")
        }
        let lines = buffer[..<(end - 4)].split(separator: UInt8(ascii: "\r"), omittingEmptySubsequences: false)
            .enumerated().map { $0.offset == 0 ? $0.element[...] : $0.element.dropFirst() }  // drop each line's LF
        guard let requestLine = lines.first else { return .refused(status: 400, message: "No request line") }
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(Self.isTokenByte),
              parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .refused(status: 400, message: "The request line is not: method SP origin-form SP HTTP/1.1")
        }
        guard parts[2].elementsEqual("HTTP/1.1".utf8) else {
            return .refused(status: 505, message: "Only HTTP/1.1 is served")
        }
        var request = ReceivedRequest()
        request.fields.append(name: ":method", value: String(decoding: parts[0], as: UTF8.self), neverIndexed: false)
        request.fields.append(name: ":path", value: String(decoding: parts[1], as: UTF8.self), neverIndexed: false)
        var contentLength: Int?
        var hasHost = false
        var closeAfter = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return .refused(status: 400, message: "A header line has no colon")
            }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
                return .refused(status: 400, message: "A field name is not a token (or is folded, or has space before its colon)")
            }
            let value = line[line.index(after: colon)...].drop { $0 == 0x20 || $0 == 0x09 }
                .reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
            guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                return .refused(status: 400, message: "A field value holds a control character")
            }
            let lowercased = String(decoding: name.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
            let text = String(decoding: value, as: UTF8.self)
            switch lowercased {
            case "content-length":
                guard contentLength == nil, !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                      let length = Int(text) else {
                    return .refused(status: 400, message: "Content-Length is not one decimal length")
                }
                contentLength = length
            case "transfer-encoding":
                return .refused(status: 501, message: "Transfer-Encoding is not implemented: send Content-Length")
            case "host":
                guard !hasHost else { return .refused(status: 400, message: "More than one Host") }
                hasHost = true
            case "connection":
                closeAfter = text.lowercased().split(separator: ",").contains { $0.filter { $0 != " " && $0 != "\t" } == "close" }
            default:
                break
            }
            request.fields.append(name: lowercased, value: text, neverIndexed: false)
        }
        guard hasHost else { return .refused(status: 400, message: "HTTP/1.1 requires Host") }
        let length = contentLength ?? 0
        guard length <= ReceivedRequest.bodyLimit else { return .refused(status: 413, message: "The body is too large") }
        guard buffer.count >= end + length else { return .needsMore }
        buffer[end..<end + length].withUnsafeBufferPointer { request.appendBody($0) }
        buffer.removeFirst(end + length)
        return .request(request, closeAfter: closeAfter)
    }

    /// Where the header section ends (after its CRLF CRLF), if it has.
    private func headerSectionEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 3..<buffer.count where buffer[index] == 0x0A && buffer[index - 1] == 0x0D
            && buffer[index - 2] == 0x0A && buffer[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    /// A refusal when a line before `limit` ends in LF without CR.
    private func bareLineFeed(before limit: Int) -> Step? {
        for index in 0..<min(limit, buffer.count) where buffer[index] == 0x0A && (index == 0 || buffer[index - 1] != 0x0D) {
            return .refused(status: 400, message: "A line ends in a bare LF, not CRLF")
        }
        return nil
    }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
