import OpenSSLCrypto
internal import COpenSSL
internal import COpenSSLShims

/// Owns one OpenSSL client `SSL_CTX`: TLS 1.2+, the ALPN protocols of its
/// settings (none, or `h2`), system CAs or a CA file, peer verification.
/// One context serves every connection to a server (a pool's, a Redis
/// client's reconnects).
///
/// `@unchecked Sendable`: the context is fully configured in `init` and never
/// mutated afterwards; OpenSSL documents creating `SSL` objects from a shared,
/// configured `SSL_CTX` as thread-safe (it locks its own reference count and
/// session cache).
public final class TLSClientContext: @unchecked Sendable {
    let context: OpaquePointer
    let verifyPeer: Bool
    /// The protocols offered, as OpenSSL's selected name will be compared.
    let alpnProtocols: [[UInt8]]
    /// The protocols the server must have selected (the offered ones unless narrowed).
    let acceptedALPNProtocols: [[UInt8]]

    public init(_ settings: TLSClientSettings) throws(SocketError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw SocketError(.setupFailed, OpenSSLErrors.failure("SSL_CTX_new"))
        }
        self.context = context
        verifyPeer = settings.verifyPeer
        alpnProtocols = settings.alpnProtocols.map { Array($0.utf8) }
        acceptedALPNProtocols = (settings.acceptedALPNProtocols ?? settings.alpnProtocols).map { Array($0.utf8) }
        guard pgw_ssl_ctx_set_min_proto_version(context, pgw_ssl_tls1_2_version()) == 1 else {
            throw SocketError(.setupFailed, OpenSSLErrors.failure("SSL_CTX_set_min_proto_version"))
        }
        _ = pgw_ssl_ctx_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // One recv for what the socket holds (up to a record buffer), instead
        // of one for each record's header and one for its body. Safe with the
        // connection loops because they read until "would block" before they
        // poll (see `TLSSocket.read`).
        pgw_ssl_ctx_set_read_ahead(context, 1)
        SSL_CTX_set_options(context, pgw_ssl_op_no_compression() | pgw_ssl_op_no_renegotiation())
        if !alpnProtocols.isEmpty {
            // The wire format: each name preceded by its length.
            let wire = alpnProtocols.flatMap { [UInt8($0.count)] + $0 }
            // Returns 0 on success (unlike most of OpenSSL).
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw SocketError(.setupFailed, OpenSSLErrors.failure("SSL_CTX_set_alpn_protos"))
            }
        }
        if settings.verifyPeer {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if let caFile = settings.caFile {
                guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                    throw SocketError(.certificateRejected, OpenSSLErrors.failure("loading CA file \(caFile)"))
                }
            } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                throw SocketError(.setupFailed, OpenSSLErrors.failure("SSL_CTX_set_default_verify_paths"))
            }
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
    }

    deinit {
        SSL_CTX_free(context)
    }
}
