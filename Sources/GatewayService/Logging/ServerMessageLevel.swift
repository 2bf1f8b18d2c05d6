/// The log level of a message from libmicrohttpd: most are per-connection
/// detail (debug), but a few say the operator has something to fix, and
/// those are warnings.
enum ServerMessageLevel {
    /// The parts of libmicrohttpd 0.9.75's messages that need the operator:
    /// out of file descriptors or memory ("Hit process or system resource
    /// limit…": accepting stops for a while), and an answer it could not
    /// write ("failed to create response header": its client got none).
    static let needingTheOperator = ["resource limit", "failed to create response header"]

    static func level(of message: String) -> Logger.Level {
        needingTheOperator.contains { message.contains($0) } ? .warning : .debug
    }
}
