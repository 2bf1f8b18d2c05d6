/// A failure of the simulator itself (not an APNs rejection): a C call that
/// failed while generating certificates, loading keys, binding the socket or
/// starting a thread.
///
/// Rejections of requests are never errors; they are answered on the wire.
public struct APNsSimulatorError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The call or step that failed, e.g. `bind` or `PEM_read_bio_PUBKEY`.
    public let operation: String
    /// What went wrong: `errno` text, the OpenSSL error queue, or a message.
    public let detail: String

    /// Creates an error naming the failed operation.
    public init(operation: String, detail: String) {
        self.operation = operation
        self.detail = detail
    }

    public var description: String { "\(operation): \(detail)" }
}
