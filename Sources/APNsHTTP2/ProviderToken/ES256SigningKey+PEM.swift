internal import COpenSSL
internal import COpenSSLShims

/// PEM password callback that refuses: without it, OpenSSL's default
/// callback would prompt on the terminal for an encrypted key.
private let refusePassword: @convention(c) (
    UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?
) -> Int32 = { _, _, _, _ in -1 }

extension ES256SigningKey {
    /// Parses a PEM private key; the caller owns the returned `EVP_PKEY`.
    static func readPrivateKey(_ pem: [UInt8]) throws -> OpaquePointer {
        OpenSSLErrors.clear()
        if pem.isEmpty {
            throw ES256SigningKeyError.invalidPEM(reason: "empty input")
        }
        if containsASCII(pem, "-----BEGIN ENCRYPTED PRIVATE KEY-----") {
            throw ES256SigningKeyError.encryptedPEM
        }
        guard pem.count <= Int(Int32.max) else {
            throw ES256SigningKeyError.invalidPEM(reason: "input too large")
        }
        let key: OpaquePointer? = try pem.withUnsafeBytes { bytes in
            // A read-only memory BIO over our buffer; it must not outlive this closure.
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else {
                throw ES256SigningKeyError.openSSL(call: "BIO_new_mem_buf", reason: OpenSSLErrors.drain())
            }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, refusePassword, nil)
        }
        guard let key else {
            throw ES256SigningKeyError.invalidPEM(reason: "PEM_read_bio_PrivateKey failed: \(OpenSSLErrors.drain())")
        }
        return key
    }

    /// Checks that `key` is EC P-256 and renders both PEM forms. Takes
    /// ownership of `key` only on failure (frees it before throwing).
    static func checkedPEMs(consuming key: OpaquePointer) throws -> (publicKey: String, privateKey: String) {
        do {
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
    private static func requireP256(_ key: OpaquePointer) throws {
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
    private static func pemString(writtenBy call: String, _ write: (OpaquePointer) -> Int32) throws -> String {
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

    private static func containsASCII(_ haystack: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard haystack.count >= pattern.count else { return false }
        for start in 0...(haystack.count - pattern.count)
        where haystack[start..<(start + pattern.count)].elementsEqual(pattern) {
            return true
        }
        return false
    }
}
