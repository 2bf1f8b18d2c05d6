/// Small appenders for byte arrays, and an array written in place through
/// a `ByteWriter`.
extension Array where Element == UInt8 {
    /// Appends a literal's bytes (a literal string's UTF-8 is read in place).
    mutating func appendLiteral(_ text: String) {
        append(contentsOf: text.utf8)
    }

    /// The bytes `write` writes, written straight into the array's storage
    /// of `estimatedCount` bytes: no copy when the estimate holds; when it
    /// does not, the writer moves to memory of its own and its bytes are copied.
    init(estimatedCount: Int, write: (inout ByteWriter) -> Void) {
        var overflow: [UInt8]?
        // `ByteWriter` writes through raw memory, so it is lent the array's storage, not an `OutputSpan`.
        self.init(unsafeUninitializedCapacity: Swift.max(estimatedCount, 64)) { buffer, initialized in
            var writer = ByteWriter(writingInto: buffer)
            write(&writer)
            if writer.ownsItsMemory {
                overflow = writer.bytes
                initialized = 0
            } else {
                initialized = writer.count
            }
        }
        if let overflow { self = overflow }
    }
}
