import CCurl
import CCurlShims
import CMicroHTTPD
import CNGHTTP2
import COpenSSL
import COpenSSLShims
import XCTest

/// One call (or a short round trip) per C library, to prove the module maps,
/// link lines and shims work on this platform.
final class CLibrariesSmokeTests: XCTestCase {
    func testOpenSSLVersionAndP256SignVerify() throws {
        let version = String(cString: OpenSSL_version(OPENSSL_VERSION))
        XCTAssertTrue(version.hasPrefix("OpenSSL"), version)

        let key = try XCTUnwrap(pgw_evp_ec_gen_p256())
        defer { EVP_PKEY_free(key) }
        XCTAssertEqual(EVP_PKEY_get_bits(key), 256)

        let message = Array("pushgw smoke test".utf8)

        let signCtx = try XCTUnwrap(EVP_MD_CTX_new())
        defer { EVP_MD_CTX_free(signCtx) }
        XCTAssertEqual(EVP_DigestSignInit(signCtx, nil, EVP_sha256(), nil, key), 1)
        var signatureLength = 0
        XCTAssertEqual(EVP_DigestSign(signCtx, nil, &signatureLength, message, message.count), 1)
        var signature = [UInt8](repeating: 0, count: signatureLength)
        XCTAssertEqual(EVP_DigestSign(signCtx, &signature, &signatureLength, message, message.count), 1)
        signature.removeSubrange(signatureLength...)

        let verifyCtx = try XCTUnwrap(EVP_MD_CTX_new())
        defer { EVP_MD_CTX_free(verifyCtx) }
        XCTAssertEqual(EVP_DigestVerifyInit(verifyCtx, nil, EVP_sha256(), nil, key), 1)
        XCTAssertEqual(EVP_DigestVerify(verifyCtx, signature, signature.count, message, message.count), 1)

        // A tampered message must not verify.
        let otherCtx = try XCTUnwrap(EVP_MD_CTX_new())
        defer { EVP_MD_CTX_free(otherCtx) }
        XCTAssertEqual(EVP_DigestVerifyInit(otherCtx, nil, EVP_sha256(), nil, key), 1)
        let tampered = Array("pushgw smoke tesT".utf8)
        XCTAssertNotEqual(EVP_DigestVerify(otherCtx, signature, signature.count, tampered, tampered.count), 1)
        ERR_clear_error()
    }

    func testOpenSSLContextShims() throws {
        let ctx = try XCTUnwrap(SSL_CTX_new(TLS_client_method()))
        defer { SSL_CTX_free(ctx) }
        XCTAssertEqual(pgw_ssl_ctx_set_min_proto_version(ctx, pgw_ssl_tls1_2_version()), 1)
        XCTAssertEqual(pgw_ssl_tls1_2_version(), TLS1_2_VERSION)
        let mode = Int(SSL_MODE_RELEASE_BUFFERS)
        XCTAssertEqual(pgw_ssl_ctx_set_mode(ctx, mode) & mode, mode)
        _ = pgw_ssl_ctx_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_CLIENT))
        XCTAssertEqual(pgw_ssl_ctx_set1_groups_list(ctx, "X25519:P-256"), 1)
        let options = pgw_ssl_op_no_compression() | pgw_ssl_op_no_renegotiation()
        XCTAssertEqual(SSL_CTX_set_options(ctx, options) & options, options)
        let alpn: [UInt8] = [2] + Array("h2".utf8)
        XCTAssertEqual(SSL_CTX_set_alpn_protos(ctx, alpn, UInt32(alpn.count)), 0)  // 0 == success here

        let ssl = try XCTUnwrap(SSL_new(ctx))
        defer { SSL_free(ssl) }
        XCTAssertEqual(pgw_ssl_set_tlsext_host_name(ssl, "api.push.apple.com"), 1)

        let bio = try XCTUnwrap(BIO_new(BIO_s_mem()))
        defer { BIO_free(bio) }
        XCTAssertEqual(BIO_write(bio, "hello", 5), 5)
        XCTAssertEqual(pgw_bio_pending(bio), 5)
        var data: UnsafePointer<CChar>?
        XCTAssertEqual(pgw_bio_get_mem_data(bio, &data), 5)
        let bytes = UnsafeRawBufferPointer(start: data, count: 5)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "hello")
    }

    func testCurlVersionAndSetoptWrappers() throws {
        let info = try XCTUnwrap(curl_version_info(pgw_curl_version_now()))
        XCTAssertFalse(String(cString: info.pointee.version).isEmpty)

        let handle = try XCTUnwrap(curl_easy_init())
        defer { curl_easy_cleanup(handle) }
        XCTAssertEqual(pgw_curl_setopt_str(handle, CURLOPT_URL, "https://127.0.0.1:1/"), CURLE_OK)
        XCTAssertEqual(pgw_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), CURLE_OK)
        XCTAssertEqual(pgw_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_0), CURLE_OK)
        XCTAssertEqual(pgw_curl_setopt_ptr(handle, CURLOPT_WRITEDATA, nil), CURLE_OK)
        XCTAssertEqual(pgw_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0), CURLE_OK)
        XCTAssertEqual(pgw_curl_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION) { _, size, count, _ in size * count }, CURLE_OK)
        XCTAssertEqual(
            pgw_curl_setopt_opensocket_callback(handle, CURLOPT_OPENSOCKETFUNCTION) { _, _, _ in CURL_SOCKET_BAD },
            CURLE_OK
        )
        XCTAssertEqual(pgw_curl_setopt_xferinfo_callback(handle, CURLOPT_XFERINFOFUNCTION) { _, _, _, _, _ in 0 }, CURLE_OK)

        var code = -1
        XCTAssertEqual(pgw_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code), CURLE_OK)
        XCTAssertEqual(code, 0)
        var seconds = -1.0
        XCTAssertEqual(pgw_curl_getinfo_double(handle, CURLINFO_TOTAL_TIME, &seconds), CURLE_OK)
        var totalMicros: curl_off_t = -1
        XCTAssertEqual(pgw_curl_getinfo_off_t(handle, CURLINFO_TOTAL_TIME_T, &totalMicros), CURLE_OK)
        var url: UnsafeMutablePointer<CChar>?
        XCTAssertEqual(pgw_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &url), CURLE_OK)
    }

    func testNGHTTP2ClientSession() throws {
        let info = try XCTUnwrap(nghttp2_version(0))
        XCTAssertFalse(String(cString: info.pointee.version_str).isEmpty)

        var callbacks: OpaquePointer?
        XCTAssertEqual(nghttp2_session_callbacks_new(&callbacks), 0)
        defer { nghttp2_session_callbacks_del(callbacks) }
        var session: OpaquePointer?
        XCTAssertEqual(nghttp2_session_client_new(&session, callbacks, nil), 0)
        XCTAssertNotNil(session)
        nghttp2_session_del(session)
    }

    func testMicroHTTPDVersion() throws {
        let version = try XCTUnwrap(MHD_get_version())
        XCTAssertFalse(String(cString: version).isEmpty)
    }
}
