internal import COpenSSL

/// Reads and clears OpenSSL's thread-local error queue, for error messages
/// that name the failing call and what OpenSSL said about it.
enum OpenSSLErrors {
    static func drain() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map(UInt8.init(bitPattern:)), as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error queued" : messages.joined(separator: "; ")
    }

    /// "`call` failed: <queue>"
    static func failure(_ call: String) -> String {
        "\(call) failed: \(drain())"
    }
}
