internal import COpenSSL

/// Translates the OpenSSL error queue into an `APNsSimulatorError`.
///
/// The one place that reads `ERR_get_error`; every OpenSSL call site that fails
/// calls `OpenSSLFailure.error(_:)` with the name of the call, which drains the
/// (thread-local) queue so the next call starts clean.
enum OpenSSLFailure {
    /// Builds an error naming `operation` and drains the thread's error queue.
    static func error(_ operation: String) -> APNsSimulatorError {
        APNsSimulatorError(operation: operation, detail: drainQueue())
    }

    /// Empties the thread's OpenSSL error queue and returns its text.
    @discardableResult
    static func drainQueue() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error recorded" : messages.joined(separator: "; ")
    }
}
