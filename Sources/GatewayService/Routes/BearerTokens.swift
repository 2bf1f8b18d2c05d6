/// The bearer tokens that may call the API, compared in constant time.
/// Several may be active at once, so tokens can be rotated without downtime.
public struct BearerTokens: Sendable {
    private let tokens: [[UInt8]]

    public init(_ tokens: [String]) {
        self.tokens = tokens.filter { !$0.isEmpty }.map { Array($0.utf8) }
    }

    public var isEmpty: Bool { tokens.isEmpty }

    /// True when `authorization` is `Bearer <one of the tokens>` (spaces after
    /// the scheme and around the token allowed). Every
    /// configured token is compared, each over its whole length, so timing
    /// reveals neither which token nor how much of it matched. The header is
    /// read in place: nothing is allocated per request.
    public func authorizes(_ authorization: String?) -> Bool {
        guard var authorization else { return false }
        // A native string lends its bytes in place; any other is made native first.
        authorization.makeContiguousUTF8()
        return authorizes(header: authorization.utf8.span)
    }

    private func authorizes(header bytes: Span<UInt8>) -> Bool {
        guard bytes.count > 7, Self.startsWithBearerScheme(bytes) else { return false }
        // `Bearer` 1*SP token (RFC 6750 §2.1), and no whitespace around a field
        // value is part of it (RFC 9110 §5.5): spaces after the scheme and
        // trailing spaces or tabs are not part of the token.
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var start = 7
        var end = bytes.count
        while start < end, bytes[start] == UInt8(ascii: " ") { start += 1 }
        while end > start, blank(bytes[end - 1]) { end -= 1 }
        guard start < end else { return false }
        let presented = bytes.extracting(start..<end)
        var matched = false
        for token in tokens {
            matched = Self.constantTimeEqual(presented, token.span) || matched
        }
        return matched
    }

    /// Whether the first seven bytes, lowercased, are `bearer `: ASCII
    /// letters compared without case. The same answer as lowercasing them as
    /// a string: no other character lowercases to one of `bearer ` (only the
    /// Kelvin sign lowercases to an ASCII letter, `k`; an invalid byte
    /// decodes to U+FFFD), as `BearerTokensTests` checks over all of Unicode.
    static func startsWithBearerScheme(_ bytes: Span<UInt8>) -> Bool {
        guard bytes.count >= 7 else { return false }
        var offset = 0
        for expected in "bearer ".utf8 {
            var byte = bytes[offset]
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { byte |= 0x20 }
            if byte != expected { return false }
            offset += 1
        }
        return true
    }

    /// Compares over the whole of `rhs` (the configured token) whatever
    /// `lhs` holds, so that the time depends on the token's length only.
    /// The lengths are compared whole: their difference folded into a byte
    /// would let a token followed by 256 × k more bytes through.
    ///
    /// Eight bytes at a time (every request passes here). When `lhs` is
    /// shorter the lengths already differ, so `rhs` is read against itself:
    /// the same reads, over the same length, whichever it holds. The
    /// differences are gathered without a branch on the bytes.
    static func constantTimeEqual(_ lhs: Span<UInt8>, _ rhs: Span<UInt8>) -> Bool {
        var difference = UInt64(UInt(bitPattern: lhs.count ^ rhs.count))
        let left = lhs.count >= rhs.count ? lhs.extracting(0..<rhs.count) : rhs
        let words = rhs.count / 8
        for word in 0..<words {
            difference |= Self.word(left, at: word * 8) ^ Self.word(rhs, at: word * 8)
        }
        for index in words * 8..<rhs.count {
            difference |= UInt64(left[index] ^ rhs[index])
        }
        return difference == 0
    }

    /// The eight bytes from `offset` as one word: one check of the range,
    /// then bytes the compiler reads as a single load.
    @inline(__always)
    private static func word(_ bytes: Span<UInt8>, at offset: Int) -> UInt64 {
        let bytes = bytes.extracting(offset..<offset + 8)
        var word: UInt64 = 0
        for index in 0..<8 { word |= UInt64(bytes[index]) << (index &* 8) }
        return word
    }
}
