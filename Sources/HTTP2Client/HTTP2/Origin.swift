/// The host and port of an `https://host[:port]` origin.
public struct Origin: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int = 443) {
        self.host = host
        self.port = port
    }

    /// Parses `https://host`, `https://host:port`, `https://[::1]:port`; a
    /// trailing `/` is allowed, any other path is not.
    public init(url: String) throws(TransportError) {
        guard url.lowercased().hasPrefix("https://") else {
            throw TransportError(.connectFailed, "\(url): provider origins must be https://host[:port]")
        }
        var rest = Substring(url.dropFirst(8))
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/") else {
            throw TransportError(.connectFailed, "\(url): expected https://host[:port] without a path")
        }
        var hostPart = rest
        var port = 443
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let parsed = Int(after.dropFirst()), (1...65535).contains(parsed) else {
                    throw TransportError(.connectFailed, "\(url): bad port")
                }
                port = parsed
            }
        } else if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            guard let parsed = Int(rest[rest.index(after: colon)...]), (1...65535).contains(parsed) else {
                throw TransportError(.connectFailed, "\(url): bad port")
            }
            port = parsed
        }
        guard !hostPart.isEmpty else { throw TransportError(.connectFailed, "\(url): no host") }
        host = String(hostPart)
        self.port = port
    }

    public var description: String { port == 443 ? "https://\(host)" : "https://\(host):\(port)" }
}
