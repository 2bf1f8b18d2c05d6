/// The result of one read or write on a `TCPSocket` or `TLSSocket`.
public enum SocketIOResult: Sendable {
    /// This many bytes were read or written (never zero).
    case bytes(Int)
    /// Try again when the socket is readable (`wantsWrite == false`) or
    /// writable. TLS may need to write before it can read, or the reverse.
    case wouldBlock(wantsWrite: Bool)
    /// The peer closed the connection.
    case closed
    /// The connection failed; the message names the call and the reason.
    case failed(String)
}
