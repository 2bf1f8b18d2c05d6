import COpenSSL
import COpenSSLShims

/// ALPN selection: choose `h2` when the client offers it, otherwise fail
/// the handshake with a fatal `no_application_protocol` alert. A file-level
/// constant, as C callbacks must be; it needs no context.
private let selectH2: SSL_CTX_alpn_select_cb_func = { _, selected, selectedLength, offered, offeredLength, _ in
    select(Array("h2".utf8), selected, selectedLength, offered, offeredLength)
}

/// ALPN selection for a server of HTTP/1.1 only: `http/1.1` when offered,
/// otherwise the fatal alert (a client offering only `h2` cannot be served).
private let selectHTTP11: SSL_CTX_alpn_select_cb_func = { _, selected, selectedLength, offered, offeredLength, _ in
    select(Array("http/1.1".utf8), selected, selectedLength, offered, offeredLength)
}

/// Points `selected` at `wanted` in the client's ALPN list, if it is there.
private func select(_ wanted: [UInt8], _ selected: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
                    _ selectedLength: UnsafeMutablePointer<UInt8>?, _ offered: UnsafePointer<UInt8>?,
                    _ offeredLength: UInt32) -> Int32 {
    guard let selected, let selectedLength, let offered else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    var index = 0
    let total = Int(offeredLength)
    while index < total {
        let length = Int(offered[index])
        guard index + 1 + length <= total else { break }
        if length == wanted.count, (0..<length).allSatisfy({ offered[index + 1 + $0] == wanted[$0] }) {
            selected.pointee = offered + index + 1
            selectedLength.pointee = UInt8(length)
            return SSL_TLSEXT_ERR_OK
        }
        index += 1 + length
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}

/// Owns the server `SSL_CTX`: TLS 1.2 or later, no compression or
/// renegotiation, the throwaway certificate and key, ALPN `h2` only (or
/// `http/1.1` only, for a service that serves HTTP/1.1).
///
/// Built once per simulator (`SimulatorServer.start()`), when the PEM key and
/// certificate are parsed; every connection makes its `SSL` from it.
///
/// `@unchecked Sendable`: the context is fully configured in `init` and never
/// mutated afterwards (no method changes it; `pointer` is only handed to
/// `SSL_new`); OpenSSL documents creating `SSL` objects from a shared,
/// configured `SSL_CTX` as thread-safe (it locks its own reference count and
/// session cache), and each `SSL` holds a reference, so the context outlives
/// every connection made from it.
final class TLSServerContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(pki: ThrowawayPKI, applicationProtocol: ApplicationProtocol = .http2) throws(APNsSimulatorError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw OpenSSLFailure.error("SSL_CTX_new") }
        pointer = context
        guard pgw_ssl_ctx_set_min_proto_version(context, pgw_ssl_tls1_2_version()) == 1 else {
            throw OpenSSLFailure.error("SSL_CTX_set_min_proto_version")
        }
        _ = SSL_CTX_set_options(context, pgw_ssl_op_no_compression() | pgw_ssl_op_no_renegotiation() | pgw_ssl_op_cipher_server_preference())
        _ = pgw_ssl_ctx_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        let certificate = try OwnedCertificate.parse(pem: pki.certificatePEM)
        guard SSL_CTX_use_certificate(context, certificate.pointer) == 1 else {
            throw OpenSSLFailure.error("SSL_CTX_use_certificate")
        }
        let key = try OwnedKey.privateKey(pem: pki.privateKeyPEM)
        guard SSL_CTX_use_PrivateKey(context, key.pointer) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw OpenSSLFailure.error("SSL_CTX_use_PrivateKey")
        }
        SSL_CTX_set_alpn_select_cb(context, applicationProtocol == .http2 ? selectH2 : selectHTTP11, nil)
    }

    deinit { SSL_CTX_free(pointer) }
}
