import COpenSSL
import COpenSSLShims

/// Moves PEM text in and out of OpenSSL memory BIOs.
enum PEM {
    /// Runs `body` with a read-only memory BIO over `text`.
    static func withBIO<T, E: Error>(_ text: String, _ body: (OpaquePointer) throws(E) -> T) throws(E) -> T {
        var bytes = Array(text.utf8)
        let result: Result<T, E> = bytes.withUnsafeMutableBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                preconditionFailure("BIO_new_mem_buf failed: out of memory")
            }
            defer { BIO_free(bio) }
            do throws(E) {
                return .success(try body(bio))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Runs `write` against a fresh memory BIO and returns what it wrote.
    /// `write` returns OpenSSL's 1-for-success.
    static func write(_ operation: String, _ write: (OpaquePointer) -> Int32) throws(APNsSimulatorError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLFailure.error("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw OpenSSLFailure.error(operation) }
        var data: UnsafePointer<CChar>?
        let length = pgw_bio_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw OpenSSLFailure.error(operation) }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
