internal import COpenSSL

/// The one place where the provider-token code reads OpenSSL's error queue.
///
/// OpenSSL keeps a per-thread queue of error codes. Every failure path drains
/// it, so a later failure on the same thread never reports a stale entry.
enum SigningOpenSSLErrorQueue {
    /// Reads and clears the calling thread's OpenSSL error queue.
    static func drain() -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
            messages.append(String(decoding: bytes, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error queued" : messages.joined(separator: "; ")
    }

    /// A typed error naming `call` and carrying the drained queue.
    static func failure(_ call: String) -> ES256SigningKeyError {
        .openSSL(call: call, reason: drain())
    }

    /// Forgets entries left by earlier, unrelated calls on this thread.
    static func clear() {
        ERR_clear_error()
    }
}
