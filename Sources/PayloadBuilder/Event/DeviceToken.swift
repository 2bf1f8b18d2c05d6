/// The shape rules of device tokens (API.md "Limits"; a `webpush`
/// subscription's token is its endpoint, `WebPushEndpoint`). A token that fails
/// them is refused before anything is sent: sending it would only earn a
/// `BadDeviceToken` and count against the connection.
public enum DeviceToken {
    /// Why `token` is not a `platform` token, or nil when it has the right shape.
    public static func problem(with token: String, platform: Platform) -> String? {
        problem(utf8: token.utf8.span, platform: platform)
    }

    /// `problem(with:platform:)` for the token whose UTF-8 is `token`.
    static func problem(utf8 token: Span<UInt8>, platform: Platform) -> String? {
        let count = token.count
        switch platform {
        case .apns:
            guard (64...200).contains(count), count % 2 == 0 else {
                return "an APNs token is an even number (64 to 200) of hex digits; this one has \(count) characters"
            }
            guard HexDigits.all(token) else {
                return "an APNs token holds hex digits only (0-9, a-f)"
            }
            return nil
        case .fcm, .fcmWeb:
            // A web registration token has the shape of an app's.
            guard count >= 1, count <= 4096 else {
                return "an FCM token has 1 to 4096 characters; this one has \(count)"
            }
            // Each byte in 0x21...0x7E: no byte of 0x80 and above, none of 0x20 and below, no 0x7F.
            let kinds = PrintableASCII.classify(token)
            guard !kinds.nonASCII, !kinds.spaceOrControl else {
                return "an FCM token holds printable ASCII only, without spaces"
            }
            return nil
        case .webpush:
            // A subscription is named by its endpoint.
            return WebPushEndpoint.problem(utf8: token)
        }
    }
}

/// The syntax check for URLs the gateway accepts (avatars, provider origins).
public enum HTTPURL {
    /// True for `http://host…` and `https://host…` with a non-empty host and no
    /// whitespace or control characters.
    public static func isAbsolute(_ url: String) -> Bool {
        isAbsolute(url, utf8: url.utf8.span)
    }

    /// `isAbsolute(url)` for the URL whose UTF-8 is `utf8`; `url` is made
    /// only when the URL is not all ASCII.
    static func isAbsolute(_ url: @autoclosure () -> String, utf8: Span<UInt8>) -> Bool {
        if let ascii = isAbsoluteASCII(utf8) { return ascii }
        let url = url()
        // Judged on Unicode scalars, as JSON Schema's `pattern` is: by
        // characters, `https://` followed by a combining mark or an emoji
        // modifier is one character `/…` and did not start with `https://`.
        // Only ASCII letters can lowercase to the scheme's.
        var scalars = url.unicodeScalars.makeIterator()
        var scheme = ""
        while scheme.utf8.count < 8, let scalar = scalars.next() {
            let upper = (0x41...0x5A).contains(scalar.value)
            scheme.unicodeScalars.append(upper ? Unicode.Scalar(UInt8(scalar.value) | 0x20) : scalar)
            if scheme == "http://" { break }
        }
        guard scheme == "https://" || scheme == "http://", let first = scalars.next(), first != "/", first != "?", first != "#" else {
            return false
        }
        return url.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    /// `isAbsolute` for an all-ASCII URL, byte by byte (where lowercasing and
    /// characters are bytes, the rule reads the same); nil when the URL has
    /// other characters.
    private static func isAbsoluteASCII(_ url: Span<UInt8>) -> Bool? {
        let kinds = PrintableASCII.classify(url)
        guard !kinds.nonASCII else { return nil }
        let printable = !kinds.spaceOrControl
        guard let restStart = schemeLength(url), restStart < url.count else { return false }
        switch url[restStart] {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return false
        default: return printable
        }
    }

    /// The length of `https://` or `http://` when `url` starts with one,
    /// ignoring ASCII case; else nil. With eight bytes or more, compared as
    /// one word: setting 0x20 in the letters' bytes folds A-Z onto a-z, and
    /// only `H` and `h` give `h` so (the same for each letter); `:` and `/`
    /// are compared as they are.
    static func schemeLength(_ url: Span<UInt8>) -> Int? {
        guard url.count >= 8 else {
            if startsCaseInsensitively(url, with: "https://") { return 8 }
            return startsCaseInsensitively(url, with: "http://") ? 7 : nil
        }
        let word = url.littleEndianWord(at: 0)
        let letters: UInt64 = 0x20_2020_2020  // the five letters of "https"
        if word | letters == littleEndianWord("https://") { return 8 }
        let seven: UInt64 = 0xFF_FFFF_FFFF_FFFF
        return (word & seven) | (letters >> 8) == littleEndianWord("http://") ? 7 : nil
    }

    /// At most eight bytes of a literal, the first in the lowest bits (folded into a constant when inlined).
    @inline(__always)
    private static func littleEndianWord(_ text: String) -> UInt64 {
        var word: UInt64 = 0
        var shift: UInt64 = 0
        for byte in text.utf8 {
            word |= UInt64(byte) << shift
            shift &+= 8
        }
        return word
    }

    /// Whether `bytes` starts with the lowercase ASCII `prefix`, ignoring ASCII case.
    private static func startsCaseInsensitively(_ bytes: Span<UInt8>, with prefix: String) -> Bool {
        guard bytes.count >= prefix.utf8.count else { return false }
        var offset = 0
        for expected in prefix.utf8 {
            var byte = bytes[offset]
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { byte |= 0x20 }
            if byte != expected { return false }
            offset += 1
        }
        return true
    }
}
