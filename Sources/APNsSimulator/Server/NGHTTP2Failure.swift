import CNGHTTP2

/// Translates an nghttp2 return code into an `APNsSimulatorError`.
enum NGHTTP2Failure {
    static func error(_ operation: String, _ code: some BinaryInteger) -> APNsSimulatorError {
        let text = nghttp2_strerror(Int32(truncatingIfNeeded: code)).map { String(cString: $0) } ?? "error \(code)"
        return APNsSimulatorError(operation: operation, detail: text)
    }
}
