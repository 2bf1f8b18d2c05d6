#if canImport(Glibc)
import Glibc
#endif

/// The hosts reached directly, not through the proxy: a `NO_PROXY` list,
/// read much as curl reads it. This reading alone decides, for the HTTP/2
/// connections and the libcurl transfers alike (libcurl is told the
/// result, never the list), so the two agree on every host.
///
/// Comma- (or space-) separated entries, case-insensitive:
/// - `*` alone: no host uses the proxy;
/// - a name: that host and every host under it (`example.com` and
///   `.example.com` both match `example.com` and `api.example.com`);
/// - an IP address: that address when it is the host as written;
/// - a CIDR block (`10.0.0.0/8`, `fd00::/8`): any address host in it.
/// A `:port` after an entry is ignored (the entry applies to every port).
/// Names are compared as written; no entry is resolved.
public struct ProxyBypassList: Sendable, Equatable {
    /// One parsed entry.
    enum Entry: Sendable, Equatable {
        case everything
        case domain(String)
        case network(address: [UInt8], prefix: Int)
    }

    let entries: [Entry]

    /// An empty list: every host goes through the proxy.
    public static let none = ProxyBypassList(entries: [])

    init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses a `NO_PROXY` value; entries that cannot be read are skipped.
    public init(_ text: String) {
        var entries: [Entry] = []
        for raw in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var entry = Substring(raw.lowercased())
            if entry == "*" {
                entries.append(.everything)
                continue
            }
            if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
                entry = entry[entry.index(after: entry.startIndex)..<close]
            } else if entry.filter({ $0 == ":" }).count == 1, let colon = entry.firstIndex(of: ":") {
                entry = entry[..<colon]
            }
            if let slash = entry.firstIndex(of: "/"), let address = Self.addressBytes(String(entry[..<slash])),
               let prefix = Int(entry[entry.index(after: slash)...]), (0...address.count * 8).contains(prefix) {
                entries.append(.network(address: address, prefix: prefix))
            } else if let address = Self.addressBytes(String(entry)) {
                entries.append(.network(address: address, prefix: address.count * 8))
            } else {
                while entry.hasPrefix(".") || entry.hasPrefix("*") { entry = entry.dropFirst() }
                while entry.hasSuffix(".") { entry = entry.dropLast() }
                if !entry.isEmpty, !entry.contains("/") { entries.append(.domain(String(entry))) }
            }
        }
        self.entries = entries
    }

    /// True when `host` (a name, or an address with or without brackets) is
    /// to be reached directly.
    public func bypasses(_ host: String) -> Bool {
        guard !entries.isEmpty else { return false }
        var name = Substring(host.lowercased())
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        while name.hasSuffix(".") { name = name.dropLast() }
        let address = Self.addressBytes(String(name))
        for entry in entries {
            switch entry {
            case .everything:
                return true
            case let .domain(domain):
                if address == nil, name == domain || name.hasSuffix("." + domain) { return true }
            case let .network(network, prefix):
                if let address, address.count == network.count, Self.matches(address, network, prefix: prefix) { return true }
            }
        }
        return false
    }

    private static func matches(_ address: [UInt8], _ network: [UInt8], prefix: Int) -> Bool {
        var remaining = prefix
        for index in address.indices where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if address[index] & mask != network[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// The network-order bytes of an IPv4 or IPv6 literal; nil for a name.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
