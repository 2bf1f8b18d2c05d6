/// The shared store's URL, `redis://` or `rediss://` (TLS), checked only as
/// far as the service needs at start-up: scheme, host, port and database
/// number; the user and password are kept as written, for the client to
/// read. Never printed: `redacted` replaces the password, and every error
/// names the setting and the problem without the value.
///
/// `redis[s]://[[user][:password]@]host[:port][/database]`; an IPv6 host in
/// brackets; port 6379 by default; database 0 by default (a Redis Cluster
/// has only 0).
public struct RedisURL: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The URL as given, password included: for the client only.
    public let text: String
    /// `rediss://`: TLS to the store.
    public let tls: Bool
    public let user: String?
    public let hasPassword: Bool
    /// Without brackets for an IPv6 address.
    public let host: String
    public let port: Int
    public let database: Int

    public init(_ text: String, setting: String) throws(ServiceError) {
        let shape = "use redis://[user:password@]host[:port][/database] or rediss:// for TLS"
        let lowered = text.lowercased()
        let rest: Substring
        if lowered.hasPrefix("rediss://") {
            tls = true
            rest = text.dropFirst(9)
        } else if lowered.hasPrefix("redis://") {
            tls = false
            rest = text.dropFirst(8)
        } else {
            throw ServiceError(setting: setting, "not a redis:// or rediss:// URL (the value is not shown: it may hold a password); \(shape)")
        }
        guard !rest.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw ServiceError(setting: setting, "holds a space or a line break (not shown); \(shape)")
        }
        // The user information ends at the last `@`: a password may hold anything but that is written encoded.
        var hostPart = rest
        var user: String?
        var hasPassword = false
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            hostPart = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon].isEmpty ? nil : String(userInfo[..<colon])
                hasPassword = !userInfo[userInfo.index(after: colon)...].isEmpty
            } else {
                user = userInfo.isEmpty ? nil : String(userInfo)
            }
        }
        self.user = user
        self.hasPassword = hasPassword
        if hostPart.contains("?") || hostPart.contains("#") {
            throw ServiceError(setting: setting, "has a query or fragment, which pushgw does not read: \(shape)")
        }
        var path: Substring = ""
        if let slash = hostPart.firstIndex(of: "/") {
            path = hostPart[hostPart.index(after: slash)...]
            hostPart = hostPart[..<slash]
        }
        var host = hostPart
        var portText: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else {
                throw ServiceError(setting: setting, "an IPv6 host needs its closing ]: \(shape)")
            }
            host = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
            let after = hostPart[hostPart.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ServiceError(setting: setting, "expected :port after the IPv6 host: \(shape)") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPart.lastIndex(of: ":") {
            host = hostPart[..<colon]
            portText = hostPart[hostPart.index(after: colon)...]
        }
        guard !host.isEmpty else { throw ServiceError(setting: setting, "no host: \(shape)") }
        guard host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "[") && $0 != UInt8(ascii: "]") }) else {
            throw ServiceError(setting: setting, "the host is not a host name or IP address: \(shape)")
        }
        self.host = String(host)
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw ServiceError(setting: setting, "the port must be a number from 1 to 65535: \(shape)")
            }
            self.port = port
        } else {
            port = 6379
        }
        if path.isEmpty {
            database = 0
        } else {
            guard path.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int(path),
                  (0...1_000_000).contains(number) else {
                throw ServiceError(setting: setting, "the path must be a database number (e.g. /0): \(shape)")
            }
            database = number
        }
        self.text = text
    }

    /// The URL with the password replaced: safe for logs, errors and banners.
    public var redacted: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        let userInfo = user.map { "\($0)\(hasPassword ? ":<redacted>" : "")@" } ?? (hasPassword ? ":<redacted>@" : "")
        return "\(tls ? "rediss" : "redis")://\(userInfo)\(hostText):\(port)/\(database)"
    }

    /// `redacted`: printing the value never shows the password.
    public var description: String { redacted }

    /// The redacted form only, for `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": redacted]) }
}
