/// Why `HTTPServer.start()` failed: the listening address could not be used
/// (not an IP address, in use, not permitted), or a daemon or its thread
/// could not be started. Either way the server serves nothing.
public struct HTTPServerStartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    public enum Cause: Sendable, Equatable {
        /// The address and port to listen on.
        case listen
        /// The event loops' threads or libmicrohttpd's daemons.
        case threads
    }

    public let cause: Cause
    public let message: String

    public init(_ cause: Cause, _ message: String) {
        self.cause = cause
        self.message = message
    }

    public var description: String { message }
}
