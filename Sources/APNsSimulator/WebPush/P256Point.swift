import COpenSSL

/// P-256 keys in the raw forms web push uses (RFC 8291 §3.1, RFC 8292 §3.2):
/// a public key as its 65-byte uncompressed point (`0x04‖X‖Y`), a private
/// key as its 32-byte scalar, and ECDH between them.
///
/// OpenSSL reads keys from DER, so the raw forms are wrapped in the fixed
/// DER prefixes of P-256 (a SubjectPublicKeyInfo, an RFC 5915
/// `ECPrivateKey`) and parsed with `d2i_PUBKEY` / `d2i_PrivateKey`. Parsing
/// a point checks that it lies on the curve.
enum P256Point {
    /// The length of an uncompressed point.
    static let pointLength = 65

    /// SubjectPublicKeyInfo up to the point: SEQUENCE { SEQUENCE { id-ecPublicKey,
    /// prime256v1 }, BIT STRING (66 bytes: no unused bits, then the point) }.
    private static let publicKeyPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The public key whose uncompressed point is `point`, or `nil` when it
    /// is not 65 bytes, not uncompressed, or not on P-256.
    static func publicKey(point: [UInt8]) -> OwnedKey? {
        guard point.count == pointLength, point[0] == 0x04 else { return nil }
        let der = publicKeyPrefix + point
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else {
            OpenSSLFailure.drainQueue()
            return nil
        }
        let owned = OwnedKey(taking: key)
        return owned.isP256 ? owned : nil
    }

    /// The private key whose scalar is `scalar` (32 bytes, big-endian); its
    /// public point is computed by OpenSSL.
    static func privateKey(scalar: [UInt8]) throws(APNsSimulatorError) -> OwnedKey {
        guard scalar.count == 32 else {
            throw APNsSimulatorError(operation: "P-256 private key", detail: "a scalar is 32 bytes, not \(scalar.count)")
        }
        // ECPrivateKey { version 1, privateKey OCTET STRING, [0] prime256v1 }.
        let der: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + scalar
            + [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PrivateKey(EVP_PKEY_EC, nil, &cursor, buffer.count)
        }
        guard let key else { throw OpenSSLFailure.error("d2i_PrivateKey") }
        return OwnedKey(taking: key)
    }

    /// The uncompressed point of `key`'s public half.
    static func point(of key: OwnedKey) throws(APNsSimulatorError) -> [UInt8] {
        let length = i2d_PUBKEY(key.pointer, nil)
        guard length == Int32(publicKeyPrefix.count + pointLength) else { throw OpenSSLFailure.error("i2d_PUBKEY") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(key.pointer, &cursor)
        }
        guard written == length, Array(der.prefix(publicKeyPrefix.count)) == publicKeyPrefix else {
            throw OpenSSLFailure.error("i2d_PUBKEY")
        }
        return Array(der.suffix(pointLength))
    }

    /// The ECDH shared secret (the X coordinate, 32 bytes) of `privateKey`
    /// and `peer`, or `nil` when OpenSSL refuses the pair.
    static func sharedSecret(privateKey: OwnedKey, peer: OwnedKey) -> [UInt8]? {
        defer { OpenSSLFailure.drainQueue() }
        guard let context = EVP_PKEY_CTX_new(privateKey.pointer, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peer.pointer) == 1 else { return nil }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1, length == 32 else { return nil }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == 32 else { return nil }
        return secret
    }
}
