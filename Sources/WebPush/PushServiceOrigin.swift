/// The origin of a push endpoint (RFC 6454 §6.2): `scheme://host[:port]`,
/// lowercase, with the scheme's default port left out. VAPID's JWT names it
/// as its audience (RFC 8292 §2), and the authorizer caches one JWT per origin.
///
/// Parsing is deliberately narrow: `https` or `http`, a host of letters,
/// digits, dots and hyphens or a bracketed IPv6 literal, an optional port;
/// no user information. Which endpoints may be sent to at all (https only,
/// allowed push services) is the sender's policy, not this type's.
public struct PushServiceOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The serialized origin, e.g. `https://fcm.googleapis.com`.
    public let serialized: String

    public var description: String { serialized }

    /// The origin of `endpoint`, a push subscription's URL.
    /// - Throws: ``VAPIDError/invalidEndpoint(reason:)``.
    public init(endpoint: String) throws(VAPIDError) {
        let bytes = Array(endpoint.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              bytes[colon...].starts(with: Array("://".utf8))
        else { throw .invalidEndpoint(reason: "no scheme://") }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        let defaultPort: Int
        switch scheme {
        case "https": defaultPort = 443
        case "http": defaultPort = 80
        default: throw .invalidEndpoint(reason: "the scheme \"\(scheme)\" is neither https nor http")
        }
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")) else { throw .invalidEndpoint(reason: "user information in the URL") }
        var host = authority[...]
        var port: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw .invalidEndpoint(reason: "an unclosed IPv6 literal") }
            host = authority[...close]
            guard host.dropFirst().dropLast().allSatisfy({ Self.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }),
                  host.count > 2
            else { throw .invalidEndpoint(reason: "a malformed IPv6 literal") }
            let rest = authority[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { throw .invalidEndpoint(reason: "text after the IPv6 literal") }
                port = try Self.port(rest.dropFirst())
            }
        } else if let portColon = authority.firstIndex(of: UInt8(ascii: ":")) {
            host = authority[..<portColon]
            port = try Self.port(authority[(portColon + 1)...])
        }
        guard !host.isEmpty else { throw .invalidEndpoint(reason: "no host") }
        if host.first != UInt8(ascii: "[") {
            guard host.allSatisfy({ Self.isHostByte($0) }), host.first != UInt8(ascii: "."), host.first != UInt8(ascii: "-") else {
                throw .invalidEndpoint(reason: "the host has characters other than letters, digits, dots and hyphens")
            }
        }
        var origin = scheme + "://" + String(decoding: host, as: UTF8.self).lowercased()
        if let port, port != defaultPort { origin += ":\(port)" }
        serialized = origin
    }

    private static func port(_ digits: ArraySlice<UInt8>) throws(VAPIDError) -> Int? {
        // "host:" with no digits means the default port (RFC 3986 §3.2.3).
        guard !digits.isEmpty else { return nil }
        guard digits.count <= 5, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .invalidEndpoint(reason: "the port is not a number")
        }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (1...65535).contains(value) else { throw .invalidEndpoint(reason: "the port \(value) is out of range") }
        return value
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }
}
