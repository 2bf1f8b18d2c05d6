/// A connected, non-blocking byte stream: a plain `TCPSocket` or a
/// `TLSSocket`, for a protocol that speaks either (RESP over `redis://`
/// and `rediss://`). The HTTP/2 connection uses `TLSSocket` directly,
/// so its read and write are direct calls; this protocol is for code where
/// one indirect call per read or write does not matter.
public protocol ByteStreamSocket: AnyObject, Sendable {
    /// The descriptor to `poll`.
    var descriptor: Int32 { get }
    /// Bytes already read from the kernel and buffered above it (TLS
    /// records), which `poll` cannot see: read before polling.
    var hasBufferedInput: Bool { get }
    /// Reads what is there, up to `buffer.count` bytes.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIOResult
    /// Writes what it can of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) -> SocketIOResult
}
