import OpenSSLCrypto
internal import COpenSSL
internal import COpenSSLShims

/// TLS settings for provider connections. Certificate verification is on
/// unless a test explicitly turns it off.
public struct TLSConfiguration: Sendable {
    /// A PEM file of CA certificates to trust instead of the system's.
    public var caFile: String?
    /// Verify the server's certificate chain and host name. Never off by default.
    public var verifyPeer: Bool

    public init(caFile: String? = nil, verifyPeer: Bool = true) {
        self.caFile = caFile
        self.verifyPeer = verifyPeer
    }
}

/// Owns one OpenSSL client `SSL_CTX`: TLS 1.2+, ALPN `h2` only, system CAs or
/// a CA file, peer verification.
///
/// `@unchecked Sendable`: the context is fully configured in `init` and never
/// mutated afterwards; OpenSSL documents creating `SSL` objects from a shared,
/// configured `SSL_CTX` as thread-safe (it locks its own reference count and
/// session cache).
final class TLSClientContext: @unchecked Sendable {
    let context: OpaquePointer
    let verifyPeer: Bool

    init(_ configuration: TLSConfiguration) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError(.protocolError, OpenSSLErrors.failure("SSL_CTX_new"))
        }
        self.context = context
        verifyPeer = configuration.verifyPeer
        guard pgw_ssl_ctx_set_min_proto_version(context, pgw_ssl_tls1_2_version()) == 1 else {
            throw TransportError(.protocolError, OpenSSLErrors.failure("SSL_CTX_set_min_proto_version"))
        }
        _ = pgw_ssl_ctx_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // One recv for what the socket holds (up to a record buffer), instead
        // of one for each record's header and one for its body. Safe with the
        // connection loop because it reads until "would block" before it polls
        // (see `TLSSocket.read`).
        pgw_ssl_ctx_set_read_ahead(context, 1)
        SSL_CTX_set_options(context, pgw_ssl_op_no_compression() | pgw_ssl_op_no_renegotiation())
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        // Returns 0 on success (unlike most of OpenSSL).
        guard SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0 else {
            throw TransportError(.protocolError, OpenSSLErrors.failure("SSL_CTX_set_alpn_protos"))
        }
        if configuration.verifyPeer {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if let caFile = configuration.caFile {
                guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                    throw TransportError(.certificateRejected, OpenSSLErrors.failure("loading CA file \(caFile)"))
                }
            } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                throw TransportError(.protocolError, OpenSSLErrors.failure("SSL_CTX_set_default_verify_paths"))
            }
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
    }

    deinit {
        SSL_CTX_free(context)
    }
}
