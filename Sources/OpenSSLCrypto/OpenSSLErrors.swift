internal import COpenSSL

/// The one place that reads OpenSSL's per-thread error queue, for error
/// messages that name the failing call and what OpenSSL said. Every failure
/// path drains it, so a later failure on the same thread never reports a
/// stale entry. Package-visible: the FCM client's RS256 signing uses it too.
package enum OpenSSLErrors {
    /// Reads and clears the calling thread's error queue.
    package static func drain() -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error queued" : messages.joined(separator: "; ")
    }

    /// "`call` failed: <queue>"
    package static func failure(_ call: String) -> String {
        "\(call) failed: \(drain())"
    }

    /// Forgets entries left by earlier, unrelated calls on this thread.
    package static func clear() {
        ERR_clear_error()
    }
}
