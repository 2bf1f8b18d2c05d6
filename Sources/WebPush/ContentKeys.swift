import OpenSSLCrypto

/// The content-encryption key and nonce of one Web Push message, derived as
/// RFC 8291 §3.3–3.4 and RFC 8188 §2.2–2.3 say:
///
///     IKM   = HKDF(salt = auth, ikm = ECDH secret,
///                  info = "WebPush: info" 0x00 ‖ ua_public ‖ as_public, 32)
///     PRK   = HKDF-Extract(salt, IKM)
///     CEK   = HKDF-Expand(PRK, "Content-Encoding: aes128gcm" 0x00, 16)
///     NONCE = HKDF-Expand(PRK, "Content-Encoding: nonce" 0x00, 12)
///
/// The nonce is that of the first record (sequence number 0, XORed into its
/// last bytes, changes nothing), the only record a Web Push message has.
struct ContentKeys {
    static let keyInfoPrefix = Array("WebPush: info\0".utf8)
    static let contentKeyInfo = Array("Content-Encoding: aes128gcm\0".utf8)
    static let nonceInfo = Array("Content-Encoding: nonce\0".utf8)

    let inputKeyingMaterial: [UInt8]
    let contentKey: [UInt8]
    let nonce: [UInt8]

    init(ecdhSecret: [UInt8], auth: [UInt8], userAgentPublicKey: [UInt8], applicationServerPublicKey: [UInt8],
         salt: [UInt8]) throws(WebPushError) {
        let keyInfo = Self.keyInfoPrefix + userAgentPublicKey + applicationServerPublicKey
        (inputKeyingMaterial, contentKey, nonce) = try WebPushEncryption.crypto { () throws(CryptoError) in
            let ikm = try HKDFSHA256.deriveKey(inputKeyingMaterial: ecdhSecret, salt: auth, info: keyInfo, length: 32)
            let prk = try HKDFSHA256.extract(salt: salt, inputKeyingMaterial: ikm)
            return (ikm,
                    try HKDFSHA256.expand(pseudorandomKey: prk, info: Self.contentKeyInfo, length: AES128GCM.keyLength),
                    try HKDFSHA256.expand(pseudorandomKey: prk, info: Self.nonceInfo, length: AES128GCM.nonceLength))
        }
    }
}
