internal import COpenSSL

/// AES-128 in Galois/Counter Mode (NIST SP 800-38D) through OpenSSL's EVP
/// interface, with 96-bit nonces and 128-bit tags: the content encryption of
/// RFC 8188's `aes128gcm` that Web Push uses.
///
/// A nonce must never be used twice with one key; Web Push derives a fresh
/// key and nonce for every message, from a random salt and a fresh ECDH key.
public enum AES128GCM {
    /// Key length in bytes.
    public static let keyLength = 16
    /// Nonce length in bytes.
    public static let nonceLength = 12
    /// Tag length in bytes, appended to the ciphertext.
    public static let tagLength = 16

    /// Encrypts `plaintext`; answers the ciphertext followed by the 16-byte tag.
    /// - Throws: ``CryptoError/invalidArgument(reason:)`` for a wrong key or
    ///   nonce length, ``CryptoError/openSSL(call:reason:)`` otherwise.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8],
                            authenticating aad: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try checkLengths(key: key, nonce: nonce, input: plaintext.count)
        OpenSSLErrors.clear()
        guard let context = EVP_CIPHER_CTX_new() else { throw .failed("EVP_CIPHER_CTX_new") }
        // Freeing the context also cleanses the key schedule it holds.
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1 else {
            throw .failed("EVP_EncryptInit_ex(AES-128-GCM)")
        }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else {
                throw .failed("EVP_EncryptUpdate(AAD)")
            }
        }
        // GCM is a stream mode: the ciphertext is exactly as long as the plaintext.
        var output = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var written = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &output, &length, plaintext, Int32(plaintext.count)) == 1 else {
                throw .failed("EVP_EncryptUpdate")
            }
            written = Int(length)
        }
        let final = output.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + written, &length)
        }
        guard final == 1, written + Int(length) == plaintext.count else { throw .failed("EVP_EncryptFinal_ex") }
        let tagged = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), buffer.baseAddress! + plaintext.count)
        }
        guard tagged == 1 else { throw .failed("EVP_CIPHER_CTX_ctrl(GET_TAG)") }
        return output
    }

    /// Decrypts `sealed` (ciphertext followed by its 16-byte tag) and checks the tag.
    /// - Throws: ``CryptoError/authenticationFailed`` when the tag does not
    ///   match (no plaintext is ever returned then), ``CryptoError/invalidArgument(reason:)``
    ///   for a wrong key or nonce length or input shorter than a tag.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8],
                            authenticating aad: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= tagLength else {
            throw .invalidArgument(reason: "an AES-GCM ciphertext is at least its \(tagLength)-byte tag, got \(sealed.count) bytes")
        }
        try checkLengths(key: key, nonce: nonce, input: sealed.count)
        let ciphertextLength = sealed.count - tagLength
        OpenSSLErrors.clear()
        guard let context = EVP_CIPHER_CTX_new() else { throw .failed("EVP_CIPHER_CTX_new") }
        // Freeing the context also cleanses the key schedule it holds.
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1 else {
            throw .failed("EVP_DecryptInit_ex(AES-128-GCM)")
        }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else {
                throw .failed("EVP_DecryptUpdate(AAD)")
            }
        }
        var output = [UInt8](repeating: 0, count: ciphertextLength + 1)
        var written = 0
        if ciphertextLength > 0 {
            guard EVP_DecryptUpdate(context, &output, &length, sealed, Int32(ciphertextLength)) == 1 else {
                throw .failed("EVP_DecryptUpdate")
            }
            written = Int(length)
        }
        var tag = Array(sealed.suffix(tagLength))
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1 else {
            throw .failed("EVP_CIPHER_CTX_ctrl(SET_TAG)")
        }
        let final = output.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + written, &length)
        }
        guard final == 1 else {
            // The only way DecryptFinal fails in GCM is a tag mismatch; the
            // partial plaintext in `output` is discarded with it.
            _ = OpenSSLErrors.drain()
            throw .authenticationFailed
        }
        return Array(output.prefix(written + Int(length)))
    }

    private static func checkLengths(key: [UInt8], nonce: [UInt8], input: Int) throws(CryptoError) {
        guard key.count == keyLength else {
            throw .invalidArgument(reason: "an AES-128 key is \(keyLength) bytes, got \(key.count)")
        }
        guard nonce.count == nonceLength else {
            throw .invalidArgument(reason: "an AES-GCM nonce here is \(nonceLength) bytes, got \(nonce.count)")
        }
        guard input < Int(Int32.max) - tagLength else {
            throw .invalidArgument(reason: "input of \(input) bytes is too long for one AES-GCM call")
        }
    }
}
