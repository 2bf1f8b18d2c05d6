internal import Glibc

/// Translates `errno` into an `APNsSimulatorError` naming the failed call.
enum SystemCallFailure {
    /// Builds an error for `operation` from the current `errno`.
    static func error(_ operation: String) -> APNsSimulatorError {
        errorForCode(operation, errno)
    }

    /// Builds an error for `operation` from an explicit error number
    /// (pthread functions return theirs instead of setting `errno`).
    static func errorForCode(_ operation: String, _ code: Int32) -> APNsSimulatorError {
        let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        return APNsSimulatorError(operation: operation, detail: text)
    }
}
