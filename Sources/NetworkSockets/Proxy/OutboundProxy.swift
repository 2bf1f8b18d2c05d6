/// An HTTP proxy that provider connections are tunnelled through with
/// `CONNECT`: `http://[user:password@]host[:port]` (port 80 when absent,
/// as curl and Go read it; 3128 or 8080 must be written out).
///
/// The password never leaves this value except in the `Proxy-Authorization`
/// header of a `CONNECT`: `description` and every error name the proxy by
/// `redacted`, which shows the user name only.
public struct OutboundProxy: Sendable, Equatable, CustomStringConvertible {
    /// The proxy's host name or address (an IPv6 address without brackets).
    public let host: String
    public let port: Int
    /// Basic credentials, percent-decoded from the URL.
    public let username: String?
    /// Only for the transfers that send it (`Proxy-Authorization`); never shown.
    package let password: String?

    public init(host: String, port: Int, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// Parses a proxy URL. Only `http://` proxies are accepted (the tunnel to
    /// the proxy is plain TCP; what goes through it is TLS end to end); a
    /// path other than `/`, a query or a fragment is refused. The error text
    /// never contains the password.
    public init(url: String) throws(SocketError) {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") {
            let name = rest[..<scheme.lowerBound].lowercased()
            guard name == "http" else {
                throw SocketError(.setupFailed, "proxy URL \(Self.redact(url)): only http:// proxies are supported")
            }
            rest = rest[scheme.upperBound...]
        }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            throw SocketError(.setupFailed, "proxy URL \(Self.redact(url)): expected http://[user:password@]host[:port]")
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user = userInfo.firstIndex(of: ":").map { userInfo[..<$0] } ?? userInfo
            guard let decodedUser = Self.percentDecode(user) else {
                throw SocketError(.setupFailed, "proxy URL \(Self.redact(url)): bad percent-encoding in the user name")
            }
            username = decodedUser
            if let colon = userInfo.firstIndex(of: ":") {
                guard let decoded = Self.percentDecode(userInfo[userInfo.index(after: colon)...]) else {
                    throw SocketError(.setupFailed, "proxy URL \(Self.redact(url)): bad percent-encoding in the password")
                }
                password = decoded
            }
        }
        var host = rest
        var port = 80
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let parsed = Int(after.dropFirst()), (1...65535).contains(parsed) else {
                    throw SocketError(.setupFailed, "proxy URL \(Self.redact(url)): bad port")
                }
                port = parsed
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let parsed = Int(rest[rest.index(after: colon)...]), (1...65535).contains(parsed) else {
                throw SocketError(.setupFailed, "proxy URL \(Self.redact(url)): bad port")
            }
            port = parsed
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "@" || $0 == ":" && !rest.hasPrefix("[") }) else {
            throw SocketError(.setupFailed, "proxy URL \(Self.redact(url)): no host")
        }
        self.init(host: String(host), port: port, username: username, password: password)
    }

    /// `http://host:port`, with `user:***@` when there are credentials.
    public var redacted: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let credentials = username.map { "\($0):***@" } ?? ""
        return "http://\(credentials)\(hostPart):\(port)"
    }

    public var description: String { redacted }

    /// The value of `Proxy-Authorization` (RFC 7617 Basic), nil without
    /// credentials.
    var authorization: String? {
        guard let username else { return nil }
        return "Basic " + Self.base64(Array("\(username):\(password ?? "")".utf8))
    }

    /// `url` with whatever stands between `://` and `@` replaced by `***`,
    /// for messages about a URL that did not parse.
    public static func redact(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let start = url.firstRange(of: "://").map { $0.upperBound } ?? url.startIndex
        guard start <= at else { return url }
        return String(url[..<start]) + "***" + String(url[at...])
    }

    private static func percentDecode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Standard Base64 with padding (RFC 4648 §4), as Basic auth asks.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var chunk: UInt32 = 0
            for offset in 0..<3 { chunk = chunk << 8 | UInt32(offset < count ? bytes[index + offset] : 0) }
            for position in 0..<4 {
                out.append(position <= count ? alphabet[Int(chunk >> UInt32(18 - 6 * position) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension OutboundProxy: CustomReflectable {
    /// Without the password, so that `dump` and debuggers do not show it either.
    public var customMirror: Mirror {
        Mirror(self, children: ["host": host, "port": port, "username": username as Any], displayStyle: .struct)
    }
}
