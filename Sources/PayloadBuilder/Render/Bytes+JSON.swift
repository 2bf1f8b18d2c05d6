/// Small appenders for byte arrays: the simple way per-device bodies are
/// written (the fast paths assemble them with `ByteFiller`, and the tests
/// compare the two).
extension Array where Element == UInt8 {
    mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func appendJSONString(_ text: String) {
        JSONWriter.appendEscaped(text, to: &self)
    }

    /// The bytes `write` writes, written straight into the array's storage
    /// of `estimatedCount` bytes: no copy when the estimate holds; when it
    /// does not, the writer moves to memory of its own and its bytes are copied.
    init(estimatedCount: Int, write: (inout ByteWriter) -> Void) {
        var overflow: [UInt8]?
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

    /// An array of exactly `count` bytes, all written by `fill`: one
    /// allocation of the final size and plain copies, with none of the
    /// uniqueness and capacity checks of repeated `append`s.
    init(exactCount count: Int, _ fill: (inout ByteFiller) -> Void) {
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            var filler = ByteFiller(buffer)
            fill(&filler)
            precondition(filler.position == count, "ByteFiller wrote \(filler.position) of \(count) bytes")
            initialized = count
        }
    }
}

/// Writes pieces one after another into a buffer sized in advance
/// (`Array(exactCount:_:)`); every write is bounds-checked.
struct ByteFiller {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var position = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(bytes.count <= buffer.count - position)
        (buffer.baseAddress! + position).initialize(from: source, count: bytes.count)
        position += bytes.count
    }

    @inline(__always)
    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        precondition(position < buffer.count)
        buffer[position] = byte
        position += 1
    }
}
