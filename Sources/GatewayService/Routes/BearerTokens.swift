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
        guard let authorization else { return false }
        if let answer = authorization.utf8.withContiguousStorageIfAvailable({ authorizes(header: $0) }) {
            return answer
        }
        return Array(authorization.utf8).withUnsafeBufferPointer { authorizes(header: $0) }
    }

    private func authorizes(header bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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
        let presented = UnsafeBufferPointer(rebasing: bytes[start..<end])
        var matched = false
        for token in tokens {
            matched = token.withUnsafeBufferPointer { Self.constantTimeEqual(presented, $0) } || matched
        }
        return matched
    }

    /// Whether the first seven bytes, lowercased, are `bearer `: ASCII
    /// letters compared without case. The same answer as lowercasing them as
    /// a string: no other character lowercases to one of `bearer ` (only the
    /// Kelvin sign lowercases to an ASCII letter, `k`; an invalid byte
    /// decodes to U+FFFD), as `BearerTokensTests` checks over all of Unicode.
    static func startsWithBearerScheme(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let scheme: StaticString = "bearer "
        guard bytes.count >= 7 else { return false }
        return scheme.withUTF8Buffer { expected in
            for offset in 0..<7 {
                var byte = bytes[offset]
                if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { byte |= 0x20 }
                if byte != expected[offset] { return false }
            }
            return true
        }
    }

    /// Compares over the whole of `rhs` (the configured token) whatever
    /// `lhs` holds, so that the time depends on the token's length only.
    /// The lengths are compared whole: their difference folded into a byte
    /// would let a token followed by 256 × k more bytes through.
    ///
    /// Eight bytes at a time (every request passes here). When `lhs` is
    /// shorter the lengths already differ, so `rhs` is read against itself:
    /// the same loads, over the same length, whichever it holds.
    static func constantTimeEqual(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        var difference = UInt64(UInt(bitPattern: lhs.count ^ rhs.count))
        guard let right = rhs.baseAddress else { return difference == 0 }
        let left = UnsafeRawPointer(lhs.count >= rhs.count ? lhs.baseAddress ?? right : right)
        let words = rhs.count / 8
        for word in 0..<words {
            let offset = word * 8
            difference |= left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                ^ UnsafeRawPointer(right).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        }
        for index in words * 8..<rhs.count {
            difference |= UInt64(left.load(fromByteOffset: index, as: UInt8.self) ^ right[index])
        }
        return difference == 0
    }
}
