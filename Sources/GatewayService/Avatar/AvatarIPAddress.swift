import Glibc

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16 of them).
///
/// Built from a URL's literal host, from a CIDR string in the policy, or from
/// an address libcurl is about to connect to (`CurlRequest.admitsAddress`).
struct AvatarIPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, most significant first.
    let bytes: [UInt8]

    var isIPv4: Bool { bytes.count == 4 }

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a strict dotted-quad IPv4 or an IPv6 address (brackets and a
    /// `%zone` suffix allowed and ignored). Names and shorthand forms such as
    /// `127.1` are not addresses here: libcurl's URL parser has already
    /// rewritten those to dotted quads by the time a host reaches this.
    init?(literal: String) {
        var text = Substring(literal)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(text), &v4) == 1 {
            self.bytes = Self.bytes(of: v4)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(text), &v6) == 1 {
            self.bytes = Self.bytes(of: v6)
            return
        }
        return nil
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`),
    /// else `self`.
    var unmapped: AvatarIPAddress {
        guard bytes.count == 16,
              bytes[0..<10].allSatisfy({ $0 == 0 }),
              bytes[10] == 0xFF, bytes[11] == 0xFF
        else { return self }
        return AvatarIPAddress(uncheckedBytes: Array(bytes[12..<16]))
    }

    /// The presentation form (`inet_ntop`).
    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var ok: Bool
        // The address goes to `inet_ntop` as the C structure it reads,
        // passed by reference for the call only.
        if isIPv4 {
            var v4 = in_addr(s_addr: UInt32(bigEndian: bytes.reduce(0) { $0 << 8 | UInt32($1) }))
            ok = inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil
        } else {
            let b = bytes
            var v6 = in6_addr(__in6_u: .init(__u6_addr8: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            ok = inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The four bytes of an IPv4 address, most significant first.
    static func bytes(of address: in_addr) -> [UInt8] {
        let value = UInt32(bigEndian: address.s_addr)
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    /// The sixteen bytes of an IPv6 address, most significant first.
    static func bytes(of address: in6_addr) -> [UInt8] {
        let b = address.__in6_u.__u6_addr8
        return [b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7, b.8, b.9, b.10, b.11, b.12, b.13, b.14, b.15]
    }

    init(uncheckedBytes bytes: [UInt8]) {
        self.bytes = bytes
    }
}
