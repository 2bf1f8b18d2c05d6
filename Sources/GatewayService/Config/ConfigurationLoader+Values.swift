import Foundation
import Glibc
import PayloadBuilder

/// Checks of single values, shared by the file and the environment; each
/// error names the setting it was given under.
extension ConfigurationLoader {
    /// The message for a file setting whose file cannot be read, with the
    /// reason. The value is shown only when `shown` (it looks like a path):
    /// a secret put in a `*_FILE` setting by mistake must not reach the log.
    static func cannotRead(_ value: String, _ error: FileReadError, shown: Bool = true) -> String {
        guard shown else {
            return "cannot read the file it names (\(error.reason); the value is not shown: it does not look like a path, and may "
                + "be a secret given instead of a file; give the path of a file that holds it)"
        }
        return "cannot read \(value): \(error.reason)"
    }

    /// Whether a `*_FILE` value looks like a path rather than a secret: an
    /// absolute or `./`, `../`, `~/` path, or a relative one made of file-name
    /// characters that is short or has a `.` or `/`, with no long segment.
    static func isShowable(_ value: String) -> Bool {
        guard !value.contains(where: \.isNewline), value.count <= 4096 else { return false }
        if ["/", "./", "../", "~/"].contains(where: { value.hasPrefix($0) }) { return true }
        let fileNameCharacters = value.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2D, 0x2E, 0x2F, 0x5F].contains($0)
        }
        let longestSegment = value.split(separator: "/").map(\.count).max() ?? 0
        return fileNameCharacters && longestSegment <= 40 && (value.count < 16 || value.contains(".") || value.contains("/"))
    }

    static func setListen(_ text: String, setting: String, on configuration: inout GatewayConfiguration) throws(ServiceError) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ServiceError(setting: setting, "\"\(text)\": use address:port, e.g. 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080")
        }
        var address = String(text[..<colon])
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        var buffer = in6_addr()
        guard inet_pton(AF_INET, address, &buffer) == 1 || inet_pton(AF_INET6, address, &buffer) == 1 else {
            throw ServiceError(setting: setting, "\"\(address)\" is not an IP address: use e.g. 127.0.0.1, 0.0.0.0 or [::1] "
                + "(host names are not resolved)")
        }
        configuration.listenAddress = address
        configuration.listenPort = port
        configuration.listenSetting = setting
    }

    /// Bearer tokens as given by a file (`fromFile`) or a comma-separated
    /// list: at least one, each at least 16 printable characters.
    static func checked(tokens: [String], setting: String, source: String, fromFile: Bool) throws(ServiceError) -> [String] {
        guard !tokens.isEmpty else { throw ServiceError(setting: setting, "\(source) holds no token") }
        if tokens.contains(where: { $0.count < 16 }) {
            throw ServiceError(setting: setting, "tokens must be at least 16 characters (use e.g. `openssl rand -hex 32`)")
        }
        // A client sends `Bearer <token>`: a space inside a token (say, a `#`
        // comment after it on the same line) would make a token nobody can send.
        if tokens.contains(where: { !$0.utf8.allSatisfy { (0x21...0x7E).contains($0) } }) {
            throw ServiceError(setting: setting, fromFile
                ? "tokens are printable ASCII without spaces, one per line; a # comment must be on a line of its own"
                : "tokens are printable ASCII without spaces, separated by commas")
        }
        return tokens
    }

    static func bool(_ text: String, _ setting: String) throws(ServiceError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ServiceError(setting: setting, "\"\(text)\": use true or false")
        }
    }

    /// The avatar host allow-list, each entry checked: a host name, `*.`
    /// and a domain, an IPv4 address or an IPv6 address in brackets. An
    /// entry that could never match a URL's host (a URL, a port, a bare
    /// IPv6 address) is refused rather than silently matching nothing, and
    /// an empty list rather than silently allowing every host.
    static func avatarHosts(_ entries: [String], _ setting: String) throws(ServiceError) -> [String] {
        let example = "e.g. cdn.example.com, *.example.com, 192.0.2.7 or [2001:db8::7]"
        guard !entries.isEmpty else {
            throw ServiceError(setting: setting, "an empty list: leave the setting out to allow any public host, or name the hosts, \(example)")
        }
        for entry in entries {
            guard !entry.isEmpty else {
                throw ServiceError(setting: setting, "an empty entry (an extra comma?): name each host, \(example)")
            }
            // An IPv6 address in brackets, read as the avatar guard reads
            // addresses (no zone: a URL's host never matches one).
            if entry.hasPrefix("["), entry.hasSuffix("]"), !entry.contains("%"),
               let address = AvatarIPAddress(literal: entry), !address.isIPv4 {
                continue
            }
            let name = entry.hasPrefix("*.") ? entry.dropFirst(2) : Substring(entry)
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            let isHostName = !name.isEmpty && labels.allSatisfy { label in
                !label.isEmpty && label.utf8.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                         UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): return true
                    default: return false
                    }
                }
            }
            guard isHostName else {
                let hint = entry.contains("://") || entry.contains("/") ? "write the host alone, without scheme or path"
                    : entry.filter({ $0 == ":" }).count > 1 ? "write an IPv6 address in brackets"
                    : entry.contains(":") ? "write the host without a port (avatars may use any port)"
                    : "not a host name"
                throw ServiceError(setting: setting, "\"\(entry)\": \(hint), \(example)")
            }
        }
        return entries
    }

    /// The private networks avatars may come from, each a CIDR block or a
    /// single address. A block written with host bits set (`10.20.1.0/16`)
    /// is refused: it would admit more than it seems to.
    static func avatarNetworks(_ entries: [String], _ setting: String) throws(ServiceError) -> [AvatarAddressRange] {
        let example = "e.g. 10.20.0.0/16, fd12:3456::/48 or 192.168.1.7"
        guard !entries.isEmpty else {
            throw ServiceError(setting: setting, "an empty list: leave the setting out, or name the networks, \(example)")
        }
        var networks: [AvatarAddressRange] = []
        for entry in entries {
            guard !entry.isEmpty else {
                throw ServiceError(setting: setting, "an empty entry (an extra comma?): name each network, \(example)")
            }
            guard let network = AvatarAddressRange(entry) else {
                throw ServiceError(setting: setting, "\"\(entry)\": not an IP address or address/prefix-length, \(example)")
            }
            let address = entry.split(separator: "/").first.flatMap { AvatarIPAddress(literal: String($0)) }
            guard address == network.network else {
                throw ServiceError(setting: setting, "\"\(entry)\": the address has bits set beyond the prefix; "
                    + "the network is \(network), write that (or the prefix you meant)")
            }
            networks.append(network)
        }
        return networks
    }

    static func number(_ text: String, _ setting: String, _ range: ClosedRange<Int>) throws(ServiceError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ServiceError(setting: setting, "\"\(text)\": a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    static func logLevel(_ text: String, _ setting: String) throws(ServiceError) -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ServiceError(setting: setting, "\"\(text)\": use debug, info, warning or error")
        }
        return level
    }

    /// A placeholder language PayloadBuilder has texts for (`Locales.supported`);
    /// a region is allowed and ignored (`vi-VN` is `vi`).
    static func locale(_ text: String, _ setting: String) throws(ServiceError) -> String {
        let primary = Locales.primarySubtag(text)
        guard Locales.supported.contains(primary), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ServiceError(setting: setting, "\"\(text)\": use one of \(Locales.supported.sorted().joined(separator: ", ")) "
                + "(placeholder texts exist only for these)")
        }
        return primary
    }

    /// An `https://host[:port]` origin: no user name or password, path,
    /// query or fragment (a trailing `/` is dropped). Errors never repeat
    /// the value, which may hold a password.
    static func origin(_ text: String, _ setting: String) throws(ServiceError) -> String {
        guard text.lowercased().hasPrefix("https://") else {
            throw ServiceError(setting: setting, "must be an https:// origin, e.g. https://api.push.apple.com or https://127.0.0.1:8443")
        }
        var rest = Substring(text.dropFirst(8))
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        let shape = "give only https://host[:port]"
        if rest.contains("@") { throw ServiceError(setting: setting, "must not hold a user name or password (not shown): \(shape)") }
        if rest.contains("?") || rest.contains("#") { throw ServiceError(setting: setting, "must not have a query or fragment: \(shape)") }
        if rest.contains("/") { throw ServiceError(setting: setting, "must not have a path: \(shape)") }
        var host = rest
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw ServiceError(setting: setting, "an IPv6 host needs its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ServiceError(setting: setting, "expected :port after the IPv6 host: \(shape)") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw ServiceError(setting: setting, "no host: \(shape)")
        }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw ServiceError(setting: setting, "the port must be a number from 1 to 65535: \(shape)")
            }
        }
        return "https://" + rest
    }

    /// A CA file: readable, with at least one PEM certificate. Not read for
    /// an offline render.
    func checkCAFile(_ file: Sourced, use: Use) throws(ServiceError) {
        guard use == .service else { return }
        let bytes = try read(file)
        guard String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw ServiceError(setting: file.setting, "\(file.shown ? file.value : "the file") holds no PEM certificate "
                + "(-----BEGIN CERTIFICATE-----): give a PEM file of the CAs to trust")
        }
    }
}
