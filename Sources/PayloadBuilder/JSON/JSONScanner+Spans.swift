/// The scanner's making of a `String`, for a reader of the same grammar
/// that holds its input as a span (`JSONParser`): the pointer it is made
/// from is made and dropped here, inside the scanner.
extension JSONScanner {
    /// The text of `range` of `bytes`, which the caller has checked to be
    /// UTF-8 (so decoding repairs nothing).
    static func string(_ bytes: Span<UInt8>, _ range: Range<Int>) -> String {
        bytes.extracting(range).withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    }
}
