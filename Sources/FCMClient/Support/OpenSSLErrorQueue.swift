internal import COpenSSL

/// The one place in this module that reads OpenSSL's per-thread error
/// queue, so a failure names the call and what OpenSSL said, and every
/// failure path leaves the queue empty for the next call on the thread.
enum OpenSSLErrorQueue {
    /// Reads and clears the calling thread's error queue.
    static func drain() -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error queued" : messages.joined(separator: "; ")
    }

    /// "`call` failed: <queue>"
    static func failure(_ call: String) -> String {
        "\(call) failed: \(drain())"
    }

    /// Forgets entries left by earlier, unrelated calls on this thread.
    static func clear() {
        ERR_clear_error()
    }
}
