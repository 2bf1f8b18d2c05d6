internal import COpenSSL
internal import COpenSSLShims

extension ES256SigningKey {
    /// Parses a PEM private key; the caller owns the returned `EVP_PKEY`.
    static func readPrivateKey(_ pem: [UInt8]) throws(ES256SigningKeyError) -> OpaquePointer {
        do {
            return try PEMPrivateKey.read(pem)
        } catch {
            switch error {
            case .empty: throw ES256SigningKeyError.invalidPEM(reason: "empty input")
            case .tooLarge: throw ES256SigningKeyError.invalidPEM(reason: "input too large")
            case .encrypted: throw ES256SigningKeyError.encryptedPEM
            case let .unreadable(reason): throw ES256SigningKeyError.invalidPEM(reason: reason)
            }
        }
    }

    /// Checks that `key` is EC P-256 and renders both PEM forms. Takes
    /// ownership of `key` only on failure (frees it before throwing).
    static func checkedPEMs(consuming key: OpaquePointer) throws(ES256SigningKeyError) -> (publicKey: String, privateKey: String) {
        do throws(ES256SigningKeyError) {
            try requireP256(key)
            let publicKey = try pemString(writtenBy: "PEM_write_bio_PUBKEY") { bio in
                PEM_write_bio_PUBKEY(bio, key)
            }
            // With a nil cipher this writes unencrypted PKCS#8 ("PRIVATE KEY") in OpenSSL 3.
            let privateKey = try pemString(writtenBy: "PEM_write_bio_PrivateKey") { bio in
                PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil)
            }
            return (publicKey, privateKey)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
    }

    /// Throws ``ES256SigningKeyError/notECP256(found:)`` unless `key` is EC on prime256v1.
    private static func requireP256(_ key: OpaquePointer) throws(ES256SigningKeyError) {
        guard EVP_PKEY_is_a(key, "EC") == 1 else {
            let typeName = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "an unknown key type"
            throw ES256SigningKeyError.notECP256(found: typeName)
        }
        var name = [CChar](repeating: 0, count: 80)
        var nameLength = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &nameLength) == 1 else {
            _ = OpenSSLErrors.drain()
            throw ES256SigningKeyError.notECP256(found: "EC with explicit or unnamed curve parameters")
        }
        let groupName = String(decoding: name.prefix(nameLength).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard OBJ_sn2nid(groupName) == NID_X9_62_prime256v1 else {
            _ = OpenSSLErrors.drain()
            throw ES256SigningKeyError.notECP256(found: "EC \(groupName)")
        }
    }

    /// Runs `write` into a fresh memory BIO and returns what it wrote.
    /// A secure-memory BIO is used so the buffer (a private key, possibly)
    /// is cleansed when freed.
    private static func pemString(writtenBy call: String, _ write: (OpaquePointer) -> Int32) throws(ES256SigningKeyError) -> String {
        guard let bio = BIO_new(BIO_s_secmem()) else {
            throw ES256SigningKeyError.openSSL(call: "BIO_new", reason: OpenSSLErrors.drain())
        }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else {
            throw ES256SigningKeyError.openSSL(call: call, reason: OpenSSLErrors.drain())
        }
        var data: UnsafePointer<CChar>?
        let count = pgw_bio_get_mem_data(bio, &data)
        guard count > 0, let data else {
            throw ES256SigningKeyError.openSSL(call: "BIO_get_mem_data", reason: OpenSSLErrors.drain())
        }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    }
}
