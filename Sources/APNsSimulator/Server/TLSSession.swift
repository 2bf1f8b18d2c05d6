import COpenSSL
import COpenSSLShims

/// Owns one server-side `SSL` whose network side is a pair of memory BIOs:
/// the connection moves ciphertext between them and the socket itself, with
/// `send(MSG_NOSIGNAL)`, so a peer that vanishes never raises SIGPIPE.
///
/// Thread-confined to its connection's thread.
final class TLSSession {
    private let ssl: OpaquePointer
    private let networkIn: OpaquePointer
    private let networkOut: OpaquePointer

    /// The outcome of a handshake step.
    enum HandshakeStep { case done, needsInput, failed(String) }

    /// The outcome of reading plaintext.
    enum ReadResult { case bytes(Int), needsInput, closed, failed(String) }

    init(context: TLSServerContext) throws(APNsSimulatorError) {
        guard let ssl = SSL_new(context.pointer) else { throw OpenSSLFailure.error("SSL_new") }
        guard let networkIn = BIO_new(BIO_s_mem()), let networkOut = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw OpenSSLFailure.error("BIO_new")
        }
        SSL_set_bio(ssl, networkIn, networkOut)  // the SSL now owns both BIOs
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut
    }

    deinit { SSL_free(ssl) }

    /// Hands ciphertext read from the socket to TLS.
    func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = BIO_write(networkIn, base, Int32(bytes.count))
    }

    /// Moves ciphertext TLS produced into `outbound`, for the socket.
    func drainOutput(into outbound: inout [UInt8]) {
        while true {
            let pending = Int(pgw_bio_pending(networkOut))
            guard pending > 0 else { return }
            let start = outbound.count
            outbound.append(contentsOf: repeatElement(0, count: pending))
            let read = outbound.withUnsafeMutableBytes { raw in
                BIO_read(networkOut, raw.baseAddress! + start, Int32(pending))
            }
            outbound.removeLast(pending - max(0, Int(read)))
            if read <= 0 { return }
        }
    }

    /// Advances the server handshake with the input fed so far.
    func handshake() -> HandshakeStep {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .needsInput }
        return .failed(OpenSSLFailure.drainQueue())
    }

    /// The ALPN protocol chosen in the handshake, if any.
    var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Whether `read` may have more to give without new input: ciphertext
    /// fed but not yet read by TLS, or a record read but not yet returned.
    /// When neither, another `read` could only answer `needsInput`.
    var hasBufferedInput: Bool {
        pgw_bio_pending(networkIn) > 0 || SSL_has_pending(ssl) == 1
    }

    /// Decrypts into `buffer` what the fed input allows.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        let result = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if result > 0 { return .bytes(Int(result)) }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .needsInput }
        if error == SSL_ERROR_ZERO_RETURN { return .closed }
        return .failed(OpenSSLFailure.drainQueue())
    }

    /// Encrypts `bytes`; with a memory BIO the whole buffer is always taken.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        var offset = 0
        while offset < bytes.count {
            let result = SSL_write(ssl, base + offset, Int32(bytes.count - offset))
            guard result > 0 else {
                OpenSSLFailure.drainQueue()
                return false
            }
            offset += Int(result)
        }
        return true
    }

    /// Queues a TLS close_notify (sent with the next `drainOutput`).
    func shutdown() {
        _ = SSL_shutdown(ssl)
        OpenSSLFailure.drainQueue()
    }
}
