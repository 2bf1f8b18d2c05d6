/// Which addresses an avatar download must never connect to.
///
/// Everything that is not plainly a public unicast address: the IANA
/// special-purpose registries (RFC 6890 and successors) for IPv4 and IPv6,
/// which cover private (RFC 1918), loopback, link-local (and with it the
/// 169.254.169.254 metadata service), CGNAT (100.64/10), unique-local (and
/// the fd00:ec2::254 metadata service), multicast, unspecified, reserved,
/// benchmarking and documentation blocks; and Azure's WireServer
/// (168.63.129.16), a public address that is a host service on Azure VMs. IPv6 forms that embed an IPv4
/// address — mapped (`::ffff:a.b.c.d`, handled by the caller's `unmapped`),
/// NAT64 (`64:ff9b::a.b.c.d`) and 6to4 (`2002:aabb:ccdd::`) — are judged by
/// the IPv4 address inside; IPv4-compatible (`::a.b.c.d`) and Teredo are
/// refused outright.
enum AvatarAddressClassifier {
    /// Forbidden IPv4 blocks.
    static let forbiddenIPv4: [AvatarAddressRange] = [
        "0.0.0.0/8",        // "this network", 0.0.0.0 unspecified
        "10.0.0.0/8",       // private
        "100.64.0.0/10",    // shared address space (CGNAT), also 100.100.100.200 metadata
        "127.0.0.0/8",      // loopback
        "168.63.129.16/32", // Azure's WireServer and DNS: a public address every Azure VM reaches as a host service
        "169.254.0.0/16",   // link-local, 169.254.169.254 metadata
        "172.16.0.0/12",    // private
        "192.0.0.0/24",     // IETF protocol assignments
        "192.0.2.0/24",     // documentation
        "192.88.99.0/24",   // deprecated 6to4 relay anycast
        "192.168.0.0/16",   // private
        "198.18.0.0/15",    // benchmarking
        "198.51.100.0/24",  // documentation
        "203.0.113.0/24",   // documentation
        "224.0.0.0/4",      // multicast
        "240.0.0.0/4",      // reserved, 255.255.255.255 broadcast
    ].map(range)

    /// Forbidden IPv6 blocks (after embedded IPv4 forms are taken apart).
    static let forbiddenIPv6: [AvatarAddressRange] = [
        "::/96",            // unspecified, loopback, deprecated IPv4-compatible
        "::ffff:0:0:0/96",  // IPv4-translated (SIIT)
        "64:ff9b:1::/48",   // local-use NAT64
        "100::/64",         // discard-only
        "2001::/32",        // Teredo (embeds an obfuscated IPv4 address)
        "2001:db8::/32",    // documentation
        "3fff::/20",        // documentation
        "fc00::/7",         // unique-local, fd00:ec2::254 metadata
        "fe80::/10",        // link-local
        "fec0::/10",        // deprecated site-local
        "ff00::/8",         // multicast
    ].map(range)

    /// Cloud metadata and host services: refused even when private addresses
    /// are allowed (only an explicit exception admits one). They hand out
    /// credentials to whatever on the machine asks.
    static let metadataServices: [AvatarAddressRange] = [
        "169.254.0.0/16",     // IPv4 link-local: instance metadata (169.254.169.254), ECS (.170.2), EKS Pod Identity (.170.23), DNS, time
        "168.63.129.16/32",   // Azure WireServer
        "100.100.100.200/32", // Alibaba Cloud metadata
        "fd00:ec2::/32",      // AWS's IPv6 metadata, Pod Identity and time services
        "fd20:ce::254/128",   // Google Cloud's IPv6 metadata server
        "fd00:42::42/128",    // Scaleway's IPv6 metadata
        "fd00:c1::a9fe:a9fe/128", // Oracle Cloud's IPv6 metadata
        "fe80::a9fe:a9fe/128", // OpenStack's IPv6 metadata (link-local, 169.254.169.254 spelled in hex)
    ].map(range)

    /// Whether `address`, or an IPv4 address carried inside it in any form
    /// (mapped, IPv4-compatible, SIIT, NAT64, 6to4), is a metadata service.
    static func isMetadataService(_ address: AvatarIPAddress) -> Bool {
        let inner = carriedIPv4(address) ?? address
        return metadataServices.contains { $0.contains(inner) }
    }

    /// The IPv4 address inside an IPv6 address that carries one: mapped
    /// (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), SIIT
    /// (`::ffff:0:a.b.c.d`), NAT64 or 6to4; nil for any other.
    private static func carriedIPv4(_ address: AvatarIPAddress) -> AvatarIPAddress? {
        guard !address.isIPv4 else { return nil }
        if address.unmapped.isIPv4 { return address.unmapped }
        if let embedded = embeddedIPv4(address) { return embedded }
        if compatible.contains(address) || siit.contains(address) {
            return AvatarIPAddress(uncheckedBytes: Array(address.bytes[12..<16]))
        }
        return nil
    }

    private static let compatible = range("::/96")
    private static let siit = range("::ffff:0:0:0/96")
    private static let nat64 = range("64:ff9b::/96")
    private static let sixToFour = range("2002::/16")

    /// Whether `address` is not a public unicast address. An IPv4-mapped
    /// address is judged as the IPv4 address it carries.
    static func isForbidden(_ address: AvatarIPAddress) -> Bool {
        if address.isIPv4 {
            return forbiddenIPv4.contains { $0.contains(address) }
        }
        if let embedded = embeddedIPv4(address) {
            return isForbidden(embedded)
        }
        if address.unmapped.isIPv4 {
            return isForbidden(address.unmapped)
        }
        return forbiddenIPv6.contains { $0.contains(address) }
    }

    /// The IPv4 address carried by a NAT64 or 6to4 address, if it is one.
    private static func embeddedIPv4(_ address: AvatarIPAddress) -> AvatarIPAddress? {
        if nat64.contains(address) { return AvatarIPAddress(uncheckedBytes: Array(address.bytes[12..<16])) }
        if sixToFour.contains(address) { return AvatarIPAddress(uncheckedBytes: Array(address.bytes[2..<6])) }
        return nil
    }

    /// A table entry; the tables are constants, checked by the tests.
    private static func range(_ cidr: String) -> AvatarAddressRange {
        guard let range = AvatarAddressRange(cidr) else { preconditionFailure("bad built-in CIDR \(cidr)") }
        return range
    }
}
