/// Why a Redis command has no reply, or the reply was an error.
///
/// `isRetryable` tells a transport failure (the store is down, slow or
/// restarting: trying again later may work) from an answer (a `WRONGTYPE`
/// or a script error: the same command will fail the same way) and from
/// configuration (a wrong password, a certificate refused).
/// `mayHaveExecuted` says whether the server may have run the command.
public struct RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as an open set.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The server answered with an error reply (`detail` is its line,
        /// code first: `WRONGTYPE …`, `NOSCRIPT …`).
        public static let server = Kind("server")
        /// The connection is down (or was never up): the command was not sent.
        public static let notConnected = Kind("not_connected")
        /// DNS, TCP connect or TLS handshake failed, or timed out.
        public static let connectFailed = Kind("connect_failed")
        /// The connection was lost with the command written: it may have run.
        public static let connectionLost = Kind("connection_lost")
        /// No reply by the command's deadline. The connection is dropped and
        /// made again, since the replies' order is lost; the command may have run.
        public static let timeout = Kind("timeout")
        /// AUTH or SELECT on connect was refused (wrong user or password, no such database).
        public static let authenticationFailed = Kind("authentication_failed")
        /// The server's certificate did not verify, or the CA file would not load.
        public static let certificateRejected = Kind("certificate_rejected")
        /// The server sent something that is not RESP2, or over a limit.
        public static let protocolError = Kind("protocol_error")
        /// Too many commands waiting: back-pressure.
        public static let overloaded = Kind("overloaded")
        /// The connection was closed by its owner.
        public static let shutdown = Kind("shutdown")
    }

    public let kind: Kind
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// For `.server`: the error code, the reply's first word (`WRONGTYPE`).
    public var serverCode: String? {
        guard kind == .server else { return nil }
        return detail.split(separator: " ", maxSplits: 1).first.map(String.init)
    }

    /// True when the same command may succeed later without any change of
    /// configuration: transport failures, and the server errors of a server
    /// that is starting, busy or failing over.
    public var isRetryable: Bool {
        switch kind {
        case .notConnected, .connectFailed, .connectionLost, .timeout, .overloaded: true
        case .server: serverCode.map(Self.transientServerCodes.contains) ?? false
        default: false
        }
    }

    /// False only when the server certainly did not run the command.
    public var mayHaveExecuted: Bool {
        [.connectionLost, .timeout, .server, .protocolError].contains(kind)
    }

    /// Server errors of a server that is loading its data, running a
    /// long script, or not (yet) the primary.
    static let transientServerCodes: Set<String> = ["LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "READONLY", "CLUSTERDOWN"]

    public var description: String { "\(kind): \(detail)" }
}
