/// The scanner's byte searches, and its making of a `String`, for a reader
/// of the same grammar that holds its input as a span (`JSONParser`): the
/// pointers they run on are made and dropped here, inside the scanner.
extension JSONScanner {
    /// `JSONEscaping.firstToEscapeOrNonASCII` over `bytes`.
    @inline(__always)
    static func firstToEscapeOrNonASCII(in bytes: Span<UInt8>, from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { JSONEscaping.firstToEscapeOrNonASCII(in: $0, from: start) }
    }

    /// `JSONTextRules.multibyteScalar` over `bytes`.
    @inline(__always)
    static func multibyteScalar(in bytes: Span<UInt8>, at position: Int) -> JSONTextRules.MultibyteScalar {
        bytes.withUnsafeBufferPointer { JSONTextRules.multibyteScalar(in: $0, at: position) }
    }

    /// The text of `range` of `bytes`, which the caller has checked to be
    /// UTF-8 (so decoding repairs nothing).
    static func string(_ bytes: Span<UInt8>, _ range: Range<Int>) -> String {
        bytes.extracting(range).withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    }
}
