import COpenSSL

/// Decrypts a web push message body: the `aes128gcm` content coding of
/// RFC 8188 with the key derivation of RFC 8291, as a browser does.
///
/// The body is `salt(16) ‖ rs(4, big-endian) ‖ idlen(1) ‖ keyid(idlen) ‖
/// records`. RFC 8291 §4 fixes what a push service may receive: `keyid` is
/// the sender's ephemeral public key (65 bytes, uncompressed P-256) and the
/// message is one record (`rs` larger than the record), whose plaintext
/// ends with the padding delimiter 0x02 and zero or more zero bytes.
///
/// The keys (RFC 8291 §3.3, 3.4, RFC 8188 §2.2, 2.3):
///
///     ecdh_secret = ECDH(ua_private, as_public)
///     PRK_key     = HMAC-SHA-256(auth_secret, ecdh_secret)
///     IKM         = HMAC-SHA-256(PRK_key, "WebPush: info" ‖ 0x00 ‖ ua_public ‖ as_public ‖ 0x01)
///     PRK         = HMAC-SHA-256(salt, IKM)
///     CEK         = HMAC-SHA-256(PRK, "Content-Encoding: aes128gcm" ‖ 0x00 ‖ 0x01)[0..<16]
///     NONCE       = HMAC-SHA-256(PRK, "Content-Encoding: nonce" ‖ 0x00 ‖ 0x01)[0..<12]
///
/// (HKDF-Expand to at most 32 bytes is one HMAC with the counter 0x01.)
/// The record is AES-128-GCM with the last 16 bytes as its tag; the nonce
/// of the first record is NONCE itself.
enum WebPushContentDecoder {
    /// Why a body could not be decrypted; the text goes into the 400 answer.
    struct Failure: Error, Equatable {
        let message: String
    }

    /// The header before the record: salt, rs, idlen and a 65-byte keyid.
    static let headerLength = 16 + 4 + 1 + P256Point.pointLength
    /// RFC 8188 §2: the smallest record size, a tag and a delimiter.
    static let minimumRecordSize = 18

    /// The plaintext of `body` for the subscription whose private key and
    /// public point are `receiverKey` and `receiverPoint`, with `authSecret`.
    static func decrypt(_ body: [UInt8], receiverKey: OwnedKey, receiverPoint: [UInt8],
                        authSecret: [UInt8]) -> Result<[UInt8], Failure> {
        guard body.count >= 21 else { return .failure(Failure(message: "the aes128gcm header is cut short")) }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let keyIDLength = Int(body[20])
        guard recordSize >= minimumRecordSize else {
            return .failure(Failure(message: "the record size \(recordSize) is below 18 (RFC 8188 section 2)"))
        }
        guard keyIDLength == P256Point.pointLength else {
            return .failure(Failure(
                message: "the keyid is \(keyIDLength) bytes, not the sender's 65-byte public key (RFC 8291 section 4)"))
        }
        guard body.count >= headerLength + 17 else {
            return .failure(Failure(message: "the body holds no record after its header"))
        }
        let senderPoint = Array(body[21..<headerLength])
        let record = Array(body[headerLength...])
        guard record.count <= recordSize else {
            return .failure(Failure(message: "the message is more than one record (\(record.count) bytes after the header, "
                                        + "rs \(recordSize)); RFC 8291 section 4 allows one"))
        }
        guard let sender = P256Point.publicKey(point: senderPoint) else {
            return .failure(Failure(message: "the keyid is not a P-256 point"))
        }
        guard let ecdhSecret = P256Point.sharedSecret(privateKey: receiverKey, peer: sender) else {
            return .failure(Failure(message: "ECDH with the keyid failed"))
        }
        let keyInfo = Array("WebPush: info".utf8) + [0] + receiverPoint + senderPoint + [1]
        let inputKey = hmac(key: hmac(key: authSecret, data: ecdhSecret), data: keyInfo)
        let pseudorandomKey = hmac(key: salt, data: inputKey)
        let contentKey = Array(hmac(key: pseudorandomKey, data: Array("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16))
        let nonce = Array(hmac(key: pseudorandomKey, data: Array("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12))
        guard let padded = openRecord(record, key: contentKey, nonce: nonce) else {
            return .failure(Failure(message: "the record does not decrypt (AES-128-GCM tag mismatch: wrong keys or altered bytes)"))
        }
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }) else {
            return .failure(Failure(message: "the record has no padding delimiter"))
        }
        guard padded[delimiter] == 0x02 else {
            let found = String(padded[delimiter], radix: 16)
            return .failure(Failure(message: "the record's padding delimiter is 0x\(found), not 0x02 (the last record)"))
        }
        return .success(Array(padded[..<delimiter]))
    }

    /// HMAC-SHA-256 of `data` under `key`.
    static func hmac(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &output, &length)
        precondition(done != nil && length == 32, "HMAC-SHA-256 failed")
        return output
    }

    /// AES-128-GCM decryption of one record (ciphertext ‖ 16-byte tag), or
    /// `nil` when the tag does not verify.
    private static func openRecord(_ record: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        defer { OpenSSLFailure.drainQueue() }
        let cipherLength = record.count - 16
        guard cipherLength > 0, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1 else { return nil }
        var plain = [UInt8](repeating: 0, count: cipherLength + 16)
        var written: Int32 = 0
        guard EVP_DecryptUpdate(context, &plain, &written, record, Int32(cipherLength)) == 1 else { return nil }
        var tag = Array(record.suffix(16))
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else { return nil }
        var final: Int32 = 0
        let opened = plain.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(written), &final)
        }
        guard opened == 1 else { return nil }
        return Array(plain.prefix(Int(written + final)))
    }
}
