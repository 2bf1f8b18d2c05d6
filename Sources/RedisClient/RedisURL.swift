/// Where a Redis server is and how to log in:
/// `redis://[user[:password]@]host[:port][/db]`, or `rediss://` for TLS.
///
/// User and password are percent-decoded (`%40` for `@`); a host in
/// brackets is an IPv6 address; the port defaults to 6379, the database to
/// 0. A password without a user (`redis://:secret@host`) logs in as the
/// `default` user (`AUTH password`). `description` shows the URL with the
/// password replaced by `***`, so a URL can be logged.
public struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    /// `rediss://`: TLS.
    public var usesTLS: Bool
    public var host: String
    public var port: Int
    /// The ACL user, if any.
    public var user: String?
    public var password: String?
    /// The database to SELECT after connecting.
    public var database: Int

    public init(host: String, port: Int = 6379, usesTLS: Bool = false, user: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses a `redis://` or `rediss://` URL; the error names what is wrong
    /// and never repeats the password.
    public init(_ text: String) throws(RedisURLError) {
        let rest: Substring
        if text.hasPrefix("redis://") {
            usesTLS = false
            rest = text.dropFirst("redis://".count)
        } else if text.hasPrefix("rediss://") {
            usesTLS = true
            rest = text.dropFirst("rediss://".count)
        } else {
            throw RedisURLError("the scheme must be redis:// or rediss://")
        }
        var authority = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        }
        guard !path.contains("?"), !path.contains("#"), !authority.contains("?"), !authority.contains("#") else {
            throw RedisURLError("query strings and fragments are not supported")
        }
        user = nil
        password = nil
        // The last @ ends the credentials: a raw @ in a password is taken as part of it.
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let name = try Self.decode(credentials[..<colon], what: "user")
                user = name.isEmpty ? nil : name
                password = try Self.decode(credentials[credentials.index(after: colon)...], what: "password")
            } else {
                let name = try Self.decode(credentials, what: "user")
                user = name.isEmpty ? nil : name
            }
        }
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw RedisURLError("the IPv6 address has no closing ]") }
            hostPart = authority[authority.index(after: authority.startIndex) ..< close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw RedisURLError("unexpected text after the IPv6 address") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw RedisURLError("the host is missing") }
        host = String(hostPart)
        if let portPart {
            guard let number = Int(portPart), (1 ... 65535).contains(number), portPart.allSatisfy(\.isASCII) else {
                throw RedisURLError("the port \"\(portPart)\" is not a number from 1 to 65535")
            }
            port = number
        } else {
            port = 6379
        }
        if path.isEmpty {
            database = 0
        } else {
            guard let number = Int(path), number >= 0, path.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw RedisURLError("the database \"\(path)\" is not a number of 0 or more")
            }
            database = number
        }
    }

    /// The URL with the password masked.
    public var description: String {
        var text = usesTLS ? "rediss://" : "redis://"
        if user != nil || password != nil {
            text += Self.encode(user ?? "")
            if password != nil { text += ":***" }
            text += "@"
        }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)"
        if database != 0 { text += "/\(database)" }
        return text
    }

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
/// (and never contains the password).
public struct RedisURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
