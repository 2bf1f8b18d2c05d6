internal import COpenSSL

/// EC P-256 keys as raw bytes, in and out of OpenSSL 3's `EVP_PKEY`: the
/// 32-byte private scalar and the 65-byte uncompressed public point
/// (`0x04 ‖ X ‖ Y`, SEC 1 §2.3.3), the forms Web Push and VAPID exchange.
/// Shared by ``P256KeyAgreementKey`` (ECDH) and ``ES256SigningKey`` (VAPID's
/// raw private key).
enum P256Key {
    /// Bytes of a private scalar.
    static let scalarLength = 32
    /// Bytes of an uncompressed public point.
    static let pointLength = 65

    /// A key pair from a big-endian scalar in 1…n−1, its public point
    /// computed as scalar × G. The caller owns the returned `EVP_PKEY`.
    static func keyPair(scalar: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard scalar.count == scalarLength else {
            throw .invalidPrivateKey(reason: "a P-256 private key is \(scalarLength) bytes, got \(scalar.count)")
        }
        OpenSSLErrors.clear()
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw .failed("EC_GROUP_new_by_curve_name(P-256)") }
        defer { EC_GROUP_free(group) }
        guard let privateNumber = BN_secure_new() else { throw .failed("BN_secure_new") }
        defer { BN_clear_free(privateNumber) }
        guard BN_bin2bn(scalar, Int32(scalar.count), privateNumber) != nil else { throw .failed("BN_bin2bn") }
        guard BN_is_zero(privateNumber) == 0, BN_cmp(privateNumber, EC_GROUP_get0_order(group)) < 0 else {
            throw .invalidPrivateKey(reason: "the scalar is not between 1 and the order of P-256 minus 1")
        }
        guard let point = EC_POINT_new(group) else { throw .failed("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(group, point, privateNumber, nil, nil, nil) == 1 else { throw .failed("EC_POINT_mul") }
        var encoded = [UInt8](repeating: 0, count: pointLength)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &encoded, pointLength, nil) == pointLength else {
            throw .failed("EC_POINT_point2oct")
        }
        return try build(point: encoded, privateNumber: privateNumber)
    }

    /// A public key from an uncompressed point, refused unless it is a point
    /// of P-256 other than infinity. The caller owns the returned `EVP_PKEY`.
    static func publicKey(point encoded: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard encoded.count == pointLength, encoded[0] == 0x04 else {
            throw .invalidPublicKey(reason: "an uncompressed P-256 point is \(pointLength) bytes starting 0x04, got \(encoded.count) bytes"
                + (encoded.first.map { " starting 0x" + String($0, radix: 16) } ?? ""))
        }
        OpenSSLErrors.clear()
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw .failed("EC_GROUP_new_by_curve_name(P-256)") }
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group) else { throw .failed("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        // oct2point checks the coordinates against the curve equation; the
        // explicit checks below keep that rule here, not in OpenSSL's version.
        guard EC_POINT_oct2point(group, point, encoded, encoded.count, nil) == 1,
              EC_POINT_is_on_curve(group, point, nil) == 1,
              EC_POINT_is_at_infinity(group, point) == 0
        else {
            _ = OpenSSLErrors.drain()
            throw .invalidPublicKey(reason: "the point is not on the P-256 curve")
        }
        return try build(point: encoded, privateNumber: nil)
    }

    /// The uncompressed public point of an EC P-256 key.
    static func point(of key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        OpenSSLErrors.clear()
        var encoded = [UInt8](repeating: 0, count: pointLength)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &encoded, encoded.count, &length) == 1 else {
            throw .failed("EVP_PKEY_get_octet_string_param(encoded-pub-key)")
        }
        guard length == pointLength, encoded[0] == 0x04 else {
            throw .openSSL(call: "EVP_PKEY_get_octet_string_param(encoded-pub-key)",
                           reason: "answered \(length) bytes, not an uncompressed P-256 point")
        }
        return encoded
    }

    /// The private scalar of an EC P-256 key, big-endian, left-padded to 32 bytes.
    static func scalar(of key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        OpenSSLErrors.clear()
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &number) == 1, let number else {
            throw .failed("EVP_PKEY_get_bn_param(priv)")
        }
        defer { BN_clear_free(number) }
        var scalar = [UInt8](repeating: 0, count: scalarLength)
        guard BN_bn2binpad(number, &scalar, Int32(scalarLength)) == Int32(scalarLength) else { throw .failed("BN_bn2binpad") }
        return scalar
    }

    // OSSL_KEYMGMT_SELECT_* values (openssl/core_dispatch.h) behind
    // EVP_PKEY_PUBLIC_KEY and EVP_PKEY_KEYPAIR, macros Swift does not import.
    private static let publicKeySelection: Int32 = 0x84 | 0x02
    private static let keyPairSelection: Int32 = publicKeySelection | 0x01

    // OSSL_PKEY_PARAM_GROUP_NAME, _PUB_KEY and _PRIV_KEY as static,
    // nul-terminated strings: OSSL_PARAM arrays point at their names.
    private static let groupKey: StaticString = "group"
    private static let publicKeyKey: StaticString = "pub"
    private static let privateKeyKey: StaticString = "priv"

    private static func cString(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// `EVP_PKEY_fromdata` on the P-256 group: a public key from its point,
    /// or a key pair when `privateNumber` is given as well.
    private static func build(point: [UInt8], privateNumber: OpaquePointer?) throws(CryptoError) -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw .failed("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The builder keeps pointers to the pushed values until it makes the
        // parameters, so both happen while the buffers are pinned; the
        // parameters keep pointers to the names, which are static.
        let made: UnsafeMutablePointer<OSSL_PARAM>? = point.withUnsafeBytes { pointBytes in
            "prime256v1".withCString { groupName in
                guard OSSL_PARAM_BLD_push_utf8_string(builder, cString(groupKey), groupName, 0) == 1,
                      OSSL_PARAM_BLD_push_octet_string(builder, cString(publicKeyKey), pointBytes.baseAddress, pointBytes.count) == 1,
                      privateNumber.map({ OSSL_PARAM_BLD_push_BN(builder, cString(privateKeyKey), $0) == 1 }) ?? true
                else { return nil }
                return OSSL_PARAM_BLD_to_param(builder)
            }
        }
        let selection = privateNumber == nil ? publicKeySelection : keyPairSelection
        guard let parameters = made else { throw .failed("OSSL_PARAM_BLD_to_param") }
        // A private scalar pushed from a secure BIGNUM lands in the
        // parameters' secure-heap block, which OSSL_PARAM_free cleanses.
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .failed("EVP_PKEY_CTX_new_from_name(EC)") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, parameters) == 1, let key else {
            throw .failed("EVP_PKEY_fromdata(EC P-256)")
        }
        return key
    }
}
