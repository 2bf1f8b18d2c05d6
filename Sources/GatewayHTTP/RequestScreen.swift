public import PayloadBuilder

/// Refuses requests whose framing is ambiguous or whose bytes would be
/// silently cut, before any handler sees them. libmicrohttpd 0.9.75
/// accepts these and picks one reading: a second `Content-Length` is
/// ignored (request smuggling behind a proxy that reads the other), an
/// unknown `Transfer-Encoding` leaves the body length undefined, a NUL byte
/// ends the path early (`/healthz\0junk` would read as `/healthz`), and a
/// bare CR stays inside a header value. A NUL inside a header value, which
/// libmicrohttpd 0.9.75 reports as the value's end, is caught by the line
/// check below.
///
/// RFC 9112 §6.1 and §6.3: a server may reject a message with both
/// `Transfer-Encoding` and `Content-Length`, must treat differing
/// `Content-Length`s as unrecoverable, should answer 501 to a transfer
/// coding it does not know, and must treat an HTTP/1.0 message with
/// `Transfer-Encoding` as faulty framing. RFC 9112 §3.2: an HTTP/1.1
/// request without a `Host`, or with more than one, must be answered 400.
///
/// Whitespace around a value: RFC 9110 §5.5 leaves it out of the value;
/// libmicrohttpd 0.9.75 drops the leading whitespace and keeps the
/// trailing, so it reads `Transfer-Encoding: chunked ` as an unknown
/// coding and `Content-Length: 2 ` as no number. A framing header with
/// trailing whitespace is refused; elsewhere (`Authorization`) the value is
/// read without it, as the RFC says.
///
/// Lines: a bare LF ending a line (RFC 9112 §2.2 lets a server refuse to
/// recognise it) and obsolete line folding (§5.2: 400) are read differently
/// by different parsers; libmicrohttpd joins a folded line to the header's
/// name. The server checks that every parsed line lies where a line ended
/// by CRLF would (`noteMisplacedLine`), which catches both, and a NUL
/// inside a header value (libmicrohttpd ends the value there).
struct RequestScreen {
    struct Header {
        var name: [UInt8]
        var value: [UInt8]
    }

    /// nil when the request may proceed; else the answer (the connection is
    /// then closed, its body unread).
    static func refusal(headers: [Header], targetIntact: Bool, hostRequired: Bool = false) -> HTTPResponse? {
        screened(headers).refusal(targetIntact: targetIntact, hostRequired: hostRequired)
    }

    /// The screen after every header of `headers`.
    static func screened(_ headers: [Header]) -> Screening {
        var screening = Screening()
        for header in headers {
            header.name.withUnsafeBytes { name in header.value.withUnsafeBytes { value in screening.add(name: name, value: value) } }
        }
        return screening
    }

    /// The screen fed one header at a time, straight from libmicrohttpd's
    /// buffers: nothing is copied or allocated for an ordinary request.
    struct Screening {
        private var badByte = false
        /// A header name that is empty or not a token: `Content-Length : 5`
        /// (a space before the colon) reads to libmicrohttpd as another
        /// header, and its body as the next request (RFC 9112 §5.1: 400).
        private var badName = false
        private var contentLengths = 0
        private var transferEncodings = 0
        /// A `Transfer-Encoding` was given: a chunked body, which may end
        /// with trailers (they take room in the connection's memory too).
        var isChunked: Bool { transferEncodings > 0 }
        private var onlyChunked = true
        /// A `Transfer-Encoding` or `Content-Length` value with whitespace
        /// after it, which libmicrohttpd keeps as part of the value.
        private var paddedFraming = false
        /// A `Content-Length` that is not a decimal number.
        private var unreadableLength = false
        /// A line that did not end with CRLF where it should (a bare LF, a
        /// folded line, a NUL inside a value): `noteMisplacedLine`.
        private var misplacedLine = false
        private var authorizations = 0
        private var encodedContent = false
        /// A Content-Length other than 0 (a body is coming).
        private var announcedContent = false
        private var hosts = 0
        /// The body length the last `Content-Length` announces: nil without
        /// one or when it is not a number (libmicrohttpd refuses those);
        /// `Int.max` when it is a number too large for `Int`, which is
        /// beyond any limit all the same.
        private(set) var announcedLength: Int?
        /// An `Expect` header was sent (the client may wait for `100
        /// Continue`): noted here, where every header passes anyway, rather
        /// than looked up again by name.
        private(set) var expects = false
        /// The first `Authorization` header's value (the only one, unless
        /// the screen refuses the request), made from the bytes the screen
        /// is handed: no second lookup by name and no `strlen` for it.
        private(set) var authorization: String?

        /// The room the headers take in the connection's memory: their bytes
        /// as sent and libmicrohttpd's entry for each (`headerEntryBytes`).
        private(set) var headerBytes = 0

        mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            if !RequestScreen.isToken(name) { badName = true }
            if RequestScreen.holdsNULOrCR(value) { badByte = true }
            headerBytes &+= name.count &+ value.count &+ RequestScreen.headerEntryBytes
            // Only these names matter; their lengths tell them apart before any byte is compared.
            switch name.count {
            case 14 where RequestScreen.equalsIgnoringCase(name, "content-length"):
                contentLengths += 1
                if RequestScreen.endsInBlank(value) { paddedFraming = true }
                let digits = RequestScreen.trimmed(value)
                if digits.contains(where: { $0 != UInt8(ascii: "0") }) { announcedContent = true }
                announcedLength = RequestScreen.saturatingDecimal(digits)
                if announcedLength == nil { unreadableLength = true }
            case 17 where RequestScreen.equalsIgnoringCase(name, "transfer-encoding"):
                transferEncodings += 1
                if RequestScreen.endsInBlank(value) { paddedFraming = true }
                if !RequestScreen.equalsIgnoringCase(RequestScreen.trimmed(value), "chunked") { onlyChunked = false }
            case 13 where RequestScreen.equalsIgnoringCase(name, "authorization"):
                authorizations += 1
                if authorization == nil { authorization = String(decoding: RequestScreen.trimmed(value), as: UTF8.self) }
            case 4 where RequestScreen.equalsIgnoringCase(name, "host"):
                hosts += 1
            case 6 where RequestScreen.equalsIgnoringCase(name, "expect"):
                expects = true
            case 16 where RequestScreen.equalsIgnoringCase(name, "content-encoding"):
                let coding = RequestScreen.trimmed(value)
                if !coding.isEmpty, !RequestScreen.equalsIgnoringCase(coding, "identity") { encodedContent = true }
            default:
                break
            }
        }

        /// A line of the head did not lie where a line ended by CRLF would:
        /// a bare LF, obsolete line folding or a NUL inside a header value.
        mutating func noteMisplacedLine() {
            misplacedLine = true
        }

        /// `hostRequired`: the request is HTTP/1.1 (HTTP/1.0 has no `Host` rule).
        /// `http10`: the request is HTTP/1.0 (which has no transfer codings).
        /// `headerRoom`: the most `headerBytes` that leaves room for the answer's own header.
        func refusal(targetIntact: Bool, hostRequired: Bool = false, http10: Bool = false, headerRoom: Int = .max) -> HTTPResponse? {
            guard targetIntact else { return error(.badRequest, "the request target contains a NUL byte") }
            if headerBytes > headerRoom { return RequestScreen.headersTooLarge(room: headerRoom) }
            if misplacedLine {
                return error(.badRequest, "every line of the request head must end with CRLF, with no line folded onto the next and no NUL byte in a header")
            }
            if badName { return error(.badRequest, "a header name is empty or holds a character other than letters, digits and !#$%&'*+-.^_`|~ (a space before the colon?)") }
            if badByte { return error(.badRequest, "a header contains a NUL or CR byte") }
            if paddedFraming { return error(.badRequest, "Transfer-Encoding and Content-Length must not end with a space or a tab") }
            if hosts > 1 { return error(.badRequest, "Host is given more than once") }
            if hosts == 0, hostRequired { return error(.badRequest, "an HTTP/1.1 request needs a Host header") }
            if contentLengths > 1 { return error(.badRequest, "Content-Length is given more than once") }
            if unreadableLength { return RequestScreen.unreadableContentLength }
            // Which one would count depends on the reader: refuse rather than pick.
            if authorizations > 1 { return error(.badRequest, "Authorization is given more than once") }
            // Only a body that is coming is refused: a proxy may add the
            // header to a body-less GET (a health check).
            if encodedContent, announcedContent || transferEncodings > 0 {
                var refusal = error(.unsupportedMediaType, "Content-Encoding is not supported: send the JSON body as it is")
                refusal.headers = [HTTPHeaderField("Accept-Encoding", "identity")]  // RFC 9110 §15.5.16
                return refusal
            }
            if transferEncodings > 0 {
                if http10 { return error(.badRequest, "an HTTP/1.0 request cannot use Transfer-Encoding: send Content-Length") }
                if contentLengths > 0 { return error(.badRequest, "send either Content-Length or Transfer-Encoding, not both") }
                guard transferEncodings == 1, onlyChunked else {
                    return error(.notImplemented, "the only transfer coding accepted is chunked")
                }
            }
            return nil
        }
    }

    /// What one header takes in libmicrohttpd 0.9.75's connection memory
    /// besides its name and value: `: ` and CRLF, read in place, and its
    /// entry in the header list (five words and the kind, 48 bytes).
    static let headerEntryBytes = 4 + 48

    /// 431 `header_fields_too_large`: headers (or a chunked body's
    /// trailers with them) beyond `room` bytes.
    static func headersTooLarge(room: Int) -> HTTPResponse {
        error(.headerFieldsTooLarge, "the request's headers and trailers are too large (keep them under \(max(0, room) / 1024) KiB)")
    }

    /// Room kept in the connection's memory for the answer's status line
    /// and headers, which libmicrohttpd builds there too: without it a
    /// request whose headers just fit was handled and then got no answer.
    static let answerHeaderRoom = 1024

    /// The answer to a `Content-Length` libmicrohttpd cannot read (its
    /// `value` as it reports it, leading whitespace dropped): 400 for one
    /// that is not a decimal number (trailing whitespace included), 413 for
    /// one beyond 64 bits; nil for a number it reads. libmicrohttpd would
    /// answer these itself (`HTTPServer+EarlyAnswers.swift`).
    static func contentLengthRefusal(_ value: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return unreadableContentLength
        }
        var number: UInt64 = 0
        for digit in value {
            let (times10, over1) = number.multipliedReportingOverflow(by: 10)
            let (sum, over2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            if over1 || over2 { return contentLengthBeyond64Bits }
            number = sum
        }
        return nil
    }

    static let unreadableContentLength = error(.badRequest, "Content-Length must be one decimal number of bytes, with nothing around it")
    static let contentLengthBeyond64Bits = HTTPResponse(status: 413, body: EventError(
        .bodyTooLarge, field: nil, "the body announced by Content-Length is beyond 64 bits, over any limit").jsonBody)

    private static func error(_ code: ErrorCode, _ message: String) -> HTTPResponse {
        HTTPResponse(status: code.httpStatus, body: EventError(code, field: nil, message).jsonBody)
    }

    /// ASCII case-insensitive equality with a lowercase `expected`.
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ expected: StaticString) -> Bool {
        guard bytes.count == expected.utf8CodeUnitCount else { return false }
        let wanted = expected.utf8Start
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if (byte >= 65 && byte <= 90 ? byte + 32 : byte) != wanted[index] { return false }
        }
        return true
    }

    /// Whether `name` is a token (RFC 9110 §5.6.2), as a field name must be:
    /// not empty, only letters, digits and ``!#$%&'*+-.^_`|~``. Each byte is
    /// looked up in two constant words, one bit per ASCII byte (bit `b & 63`
    /// of the low word for `b` < 64, of the high word for 64...127).
    static func isToken(_ name: UnsafeRawBufferPointer) -> Bool {
        guard !name.isEmpty else { return false }
        for byte in name {
            let word = byte < 64 ? tokenBytesLow : byte < 128 ? tokenBytesHigh : 0
            if word >> UInt64(byte & 63) & 1 == 0 { return false }
        }
        return true
    }

    private static let tokenBytesLow: UInt64 = 0x03FF_6CFA_0000_0000
    private static let tokenBytesHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    /// Whether `bytes` holds a NUL or a CR (every header of every request
    /// passes here): sixteen bytes at a time, a shorter header as two
    /// overlapping words or half-words (a byte read twice is still the same
    /// byte), and only fewer than four bytes one by one.
    static func holdsNULOrCR(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        if count >= 16 {
            var index = 0
            while index + 16 <= count {
                if holdsNULOrCR(base.loadUnaligned(fromByteOffset: index, as: Lanes.self)) { return true }
                index += 16
            }
            return index < count && holdsNULOrCR(base.loadUnaligned(fromByteOffset: count - 16, as: Lanes.self))
        }
        if count >= 8 {
            return holdsNULOrCR(base.loadUnaligned(as: UInt64.self))
                || holdsNULOrCR(base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        }
        if count >= 4 {
            let low = UInt64(base.loadUnaligned(as: UInt32.self))
            let high = UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            return holdsNULOrCR(low | high << 32)
        }
        for index in 0..<count where bytes[index] == 0 || bytes[index] == 13 { return true }
        return false
    }

    private typealias Lanes = SIMD16<UInt8>

    /// Some lane is 0 or 13. The constants are typed vectors: against a
    /// scalar (or an inferred type) the compiler compares lane by lane.
    @inline(__always)
    private static func holdsNULOrCR(_ lanes: Lanes) -> Bool {
        let zero: Lanes = Lanes(repeating: 0), carriageReturn: Lanes = Lanes(repeating: 13)
        return any((lanes .== zero) .| (lanes .== carriageReturn))
    }

    /// Some byte of `word` is 0 or 13: the SWAR "has a zero byte" test on
    /// the word and on the word XOR 13s (a nonzero word never passes).
    @inline(__always)
    private static func holdsNULOrCR(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let carriageReturns: UInt64 = 0x0D0D_0D0D_0D0D_0D0D
        func holdsZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        return holdsZero(word) || holdsZero(word ^ carriageReturns)
    }

    /// The decimal number `digits` spells, `Int.max` when it is larger; nil
    /// when it is empty or holds anything but the digits 0 to 9.
    static func saturatingDecimal(_ digits: UnsafeRawBufferPointer) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        var overflowed = false
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            guard !overflowed else { continue }
            let (times10, over1) = value.multipliedReportingOverflow(by: 10)
            let (sum, over2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            if over1 || over2 { overflowed = true } else { value = sum }
        }
        return overflowed ? Int.max : value
    }

    /// Whether the last byte is a space or a tab.
    private static func endsInBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let last = bytes.last else { return false }
        return last == 32 || last == 9
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let blank: (UInt8) -> Bool = { $0 == 32 || $0 == 9 }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
            return UnsafeRawBufferPointer(rebasing: bytes[0..<0])
        }
        return UnsafeRawBufferPointer(rebasing: bytes[first...last])
    }
}

extension ErrorCode {
    /// Malformed or ambiguous HTTP framing (the server's, not the event's).
    public static let badRequest = ErrorCode("bad_request", httpStatus: 400)
    /// A transfer coding other than chunked.
    public static let notImplemented = ErrorCode("not_implemented", httpStatus: 501)
    /// A content coding (gzip, deflate…): the body is read as JSON only.
    public static let unsupportedMediaType = ErrorCode("unsupported_media_type", httpStatus: 415)
    /// The request's headers leave no room for an answer in the connection's memory.
    public static let headerFieldsTooLarge = ErrorCode("header_fields_too_large", httpStatus: 431)
    /// The server stopped before the request's answer was ready.
    public static let shuttingDown = ErrorCode("shutting_down", httpStatus: 503)
}
