/// Where a Redis server is and how to log in:
/// `redis://[user[:password]@]host[:port][/db]`, or `rediss://` for TLS.
///
/// The scheme is read without regard to case. User and password are
/// percent-decoded (`%40` for `@`); the credentials end at the last `@`, so
/// a raw `/` or `@` in a password is taken as part of it. A host in
/// brackets is an IPv6 address; the port defaults to 6379, the database to
/// 0 (a Redis Cluster has only 0). A password without a user
/// (`redis://:secret@host`) logs in as the `default` user (`AUTH
/// password`).
///
/// The password is never shown: `description` (and `redacted`) replace it
/// with `<redacted>`, `dump` and debuggers see only that form, and a URL
/// that cannot be parsed is refused with a message that repeats no part of
/// it.
public struct RedisURL: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// `rediss://`: TLS.
    public var usesTLS: Bool
    /// Without brackets for an IPv6 address.
    public var host: String
    public var port: Int
    /// The ACL user, if any.
    public var user: String?
    public var password: String?
    /// The database to SELECT after connecting.
    public var database: Int

    /// The largest database number accepted (Redis has 16 by default;
    /// `databases` can raise it).
    public static let maximumDatabase = 1_000_000

    public init(host: String, port: Int = 6379, usesTLS: Bool = false, user: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses a `redis://` or `rediss://` URL; the error names what is wrong
    /// and never repeats any part of the text (it may hold a password).
    public init(_ text: String) throws(RedisURLError) {
        let rest: Substring
        let lowered = text.prefix(9).lowercased()
        if lowered.hasPrefix("redis://") {
            usesTLS = false
            rest = text.dropFirst("redis://".count)
        } else if lowered.hasPrefix("rediss://") {
            usesTLS = true
            rest = text.dropFirst("rediss://".count)
        } else {
            throw RedisURLError("the scheme must be redis:// or rediss://")
        }
        guard !rest.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) else {
            throw RedisURLError("it holds a space, a line break or a control character")
        }
        user = nil
        password = nil
        var location = rest
        // The last @ ends the credentials: a raw @ or / in a password is taken as part of it.
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            location = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let name = try Self.decode(credentials[..<colon], what: "user")
                user = name.isEmpty ? nil : name
                password = try Self.decode(credentials[credentials.index(after: colon)...], what: "password")
            } else {
                let name = try Self.decode(credentials, what: "user")
                user = name.isEmpty ? nil : name
            }
        }
        guard !location.contains("?"), !location.contains("#") else {
            throw RedisURLError("query strings and fragments are not supported")
        }
        var authority = location
        var path: Substring = ""
        if let slash = location.firstIndex(of: "/") {
            authority = location[..<slash]
            path = location[location.index(after: slash)...]
        }
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw RedisURLError("the IPv6 address has no closing ]") }
            hostPart = authority[authority.index(after: authority.startIndex) ..< close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw RedisURLError("expected :port after the IPv6 address") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw RedisURLError("the host is missing") }
        guard hostPart.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "[") && $0 != UInt8(ascii: "]") }) else {
            throw RedisURLError("the host is not a host name or IP address")
        }
        host = String(hostPart)
        if let portPart {
            guard portPart.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int(portPart),
                  (1 ... 65535).contains(number) else {
                throw RedisURLError("the port is not a number from 1 to 65535")
            }
            port = number
        } else {
            port = 6379
        }
        if path.isEmpty {
            database = 0
        } else {
            guard path.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int(path),
                  (0 ... Self.maximumDatabase).contains(number) else {
                throw RedisURLError("the database (the path) is not a number from 0 to \(Self.maximumDatabase)")
            }
            database = number
        }
    }

    /// True when the URL carries a password (possibly empty).
    public var hasPassword: Bool { password != nil }

    /// The URL with the password replaced by `<redacted>`, and the port and
    /// database always written: `rediss://user:<redacted>@host:6379/0`.
    /// Safe for logs, errors and banners.
    public var redacted: String {
        var text = usesTLS ? "rediss://" : "redis://"
        if user != nil || password != nil {
            text += Self.encode(user ?? "")
            if password != nil { text += ":<redacted>" }
            text += "@"
        }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)/\(database)"
        return text
    }

    /// `redacted`: printing the value never shows the password.
    public var description: String { redacted }

    /// The redacted form only, for `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": redacted]) }

    private static func decode(_ text: Substring, what: String) throws(RedisURLError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard iterator.count >= 2, let high = hexValue(iterator.removeFirst()), let low = hexValue(iterator.removeFirst()) else {
                throw RedisURLError("the \(what) has a % not followed by two hexadecimal digits")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw RedisURLError("the \(what) is not UTF-8 once percent-decoded")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Percent-encodes what would break the URL's structure.
    private static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let character = Character(UnicodeScalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "-._~".contains(character) {
                out.append(character)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded()
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded() -> String { count < 2 ? "0" + self : self }
}

/// A Redis URL that could not be parsed: the message says what is wrong
/// (and never contains any part of the URL).
public struct RedisURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
