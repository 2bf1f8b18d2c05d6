public import OpenSSLCrypto

extension WebPushEncryption {
    /// Decrypts a Web Push message as the user agent of the subscription
    /// does: `subscriberKey` is the subscription's private key (its public
    /// half is `p256dh`) and `authSecret` its `auth`.
    ///
    /// Strict about the form RFC 8291 §4 requires: one record, a 65-byte
    /// key id holding the sender's public key, a record size of at least
    /// 18, the `0x02` delimiter of a last record (any padding after it zero).
    /// - Throws: ``WebPushError/malformedBody(reason:)``,
    ///   ``WebPushError/decryptionFailed`` for a record that does not
    ///   authenticate, ``WebPushError/invalidSubscriptionKeys(reason:)`` for
    ///   an `authSecret` of the wrong length.
    public static func decrypt(_ body: [UInt8], subscriberKey: P256KeyAgreementKey, authSecret: [UInt8]) throws(WebPushError) -> [UInt8] {
        guard authSecret.count == WebPushSubscriptionKeys.authLength else {
            throw .invalidSubscriptionKeys(reason: "auth is \(authSecret.count) bytes; it must be \(WebPushSubscriptionKeys.authLength)")
        }
        guard body.count >= 21 else { throw .malformedBody(reason: "\(body.count) bytes is shorter than the aes128gcm header") }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let keyIDLength = Int(body[20])
        guard recordSize >= 18 else { throw .malformedBody(reason: "record size \(recordSize) is below the minimum of 18") }
        guard keyIDLength == 65 else {
            throw .malformedBody(reason: "the key id is \(keyIDLength) bytes; Web Push puts the sender's 65-byte public key there")
        }
        guard body.count >= headerLength else { throw .malformedBody(reason: "the header is cut short (\(body.count) bytes)") }
        let senderPublicKey = Array(body[21..<headerLength])
        let record = Array(body[headerLength...])
        guard record.count > AES128GCM.tagLength else {
            throw .malformedBody(reason: "the record has \(record.count) bytes, too few for a tag and a delimiter")
        }
        guard record.count <= recordSize else {
            throw .malformedBody(reason: "\(record.count) bytes after the header exceed the record size \(recordSize): more than one record")
        }
        let ecdhSecret: [UInt8]
        do {
            ecdhSecret = try subscriberKey.sharedSecret(with: senderPublicKey)
        } catch {
            if case let .invalidPublicKey(reason) = error { throw .malformedBody(reason: "the key id: \(reason)") }
            throw .crypto(error)
        }
        let keys = try ContentKeys(ecdhSecret: ecdhSecret, auth: authSecret, userAgentPublicKey: subscriberKey.publicKey,
                                   applicationServerPublicKey: senderPublicKey, salt: salt)
        let padded: [UInt8]
        do {
            padded = try AES128GCM.open(record, key: keys.contentKey, nonce: keys.nonce)
        } catch {
            if error == .authenticationFailed { throw .decryptionFailed }
            throw .crypto(error)
        }
        // RFC 8188 §2: the content, a delimiter octet, then zero octets of padding.
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }) else {
            throw .malformedBody(reason: "the record has no padding delimiter")
        }
        guard padded[delimiter] == 0x02 else {
            throw .malformedBody(reason: padded[delimiter] == 0x01
                ? "the delimiter 0x01 marks a record that is not the last; Web Push sends one record"
                : "the padding delimiter is 0x\(String(padded[delimiter], radix: 16)), not 0x02")
        }
        return Array(padded[..<delimiter])
    }
}
