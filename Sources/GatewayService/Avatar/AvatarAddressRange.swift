/// A block of IP addresses in CIDR notation (`10.20.0.0/16`, `fd12:3456::/48`,
/// or a single address such as `127.0.0.1`).
///
/// Used for `AvatarPolicy.privateAddressExceptions`; the resolver also keeps
/// its own table of forbidden blocks in this form. An IPv4 block never
/// contains an IPv6 address, but an IPv4-mapped IPv6 address is judged as
/// the IPv4 address it carries before any block is consulted.
public struct AvatarAddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block (host bits cleared).
    let network: AvatarIPAddress
    /// How many leading bits are fixed (0...32 or 0...128).
    let prefixLength: Int

    /// Parses `address/prefix` or a bare address (a block of one). `nil` when
    /// the address is not a dotted-quad IPv4 or an IPv6 address, or the
    /// prefix is out of range.
    public init?(_ cidr: String) {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
              let address = AvatarIPAddress(literal: String(parts[0])),
              !parts[0].hasPrefix("[")
        else { return nil }
        let width = address.bytes.count * 8
        var prefix = width
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...width).contains(given) else { return nil }
            prefix = given
        }
        self.init(address: address, prefixLength: prefix)
    }

    init(address: AvatarIPAddress, prefixLength: Int) {
        self.prefixLength = prefixLength
        self.network = AvatarIPAddress(uncheckedBytes: Self.masked(address.bytes, prefixLength))
    }

    /// The canonical CIDR form, e.g. `10.20.0.0/16`.
    public var description: String { "\(network)/\(prefixLength)" }

    /// Whether `address` (of the same family) lies inside the block.
    func contains(_ address: AvatarIPAddress) -> Bool {
        address.bytes.count == network.bytes.count && Self.masked(address.bytes, prefixLength) == network.bytes
    }

    private static func masked(_ bytes: [UInt8], _ prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let fixedBits = min(max(prefixLength - index * 8, 0), 8)
            let mask: UInt8 = fixedBits == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - fixedBits))
            return byte & mask
        }
    }
}
