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
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(text), &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
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
        let family = isIPv4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { source in
            inet_ntop(family, source.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    init(uncheckedBytes bytes: [UInt8]) {
        self.bytes = bytes
    }
}
