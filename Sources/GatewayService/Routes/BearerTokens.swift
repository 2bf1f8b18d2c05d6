/// The bearer tokens that may call the API, compared in constant time.
/// Several may be active at once, so tokens can be rotated without downtime.
public struct BearerTokens: Sendable {
    private let tokens: [[UInt8]]

    public init(_ tokens: [String]) {
        self.tokens = tokens.filter { !$0.isEmpty }.map { Array($0.utf8) }
    }

    public var isEmpty: Bool { tokens.isEmpty }

    /// True when `authorization` is `Bearer <one of the tokens>`. Every
    /// configured token is compared, each over its whole length, so timing
    /// reveals neither which token nor how much of it matched.
    public func authorizes(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let bytes = Array(authorization.utf8)
        guard bytes.count > 7, String(decoding: bytes.prefix(7), as: UTF8.self).lowercased() == "bearer " else { return false }
        let presented = Array(bytes.dropFirst(7))
        var matched = false
        for token in tokens {
            matched = Self.constantTimeEqual(presented, token) || matched
        }
        return matched
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<rhs.count {
            let left = index < lhs.count ? lhs[index] : 0
            difference |= left ^ rhs[index]
        }
        return difference == 0
    }
}
