/// A growable byte buffer for assembling JSON fragments.
///
/// An append is a capacity check and a copy, without the uniqueness and
/// growth bookkeeping that every `Array.append` repeats: the hand-assembled
/// payload parts make hundreds of short appends per event. Noncopyable: it
/// owns its memory, frees it in `deinit`, and hands its bytes out as a copy
/// (`bytes`) when done. Not thread-safe; a local of one function at a time.
struct ByteWriter: ~Copyable {
    // Raw memory: the standard library's safe growable buffer is `Array`, whose per-append checks are what this type avoids.
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// False while writing into a buffer given by the caller, which is
    /// never freed here; growing moves the bytes to memory of its own.
    private(set) var ownsItsMemory = true

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    /// Writes into `buffer` (at least one byte; borrowed, never freed here)
    /// until it is full, then into memory of its own.
    init(writingInto buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count > 0)
        base = buffer.baseAddress!
        capacity = buffer.count
        ownsItsMemory = false
    }

    deinit {
        if ownsItsMemory { base.deallocate() }
    }

    /// Appends to `array` what `write` writes into the writer it is given:
    /// written in place, in room for `expected` more bytes made at the
    /// array's end (which grows as appending does); more than that moves to
    /// memory of the writer's own and is copied in once.
    @inline(__always)
    static func append(to array: inout [UInt8], expected: Int, _ write: (inout ByteWriter) -> Void) {
        var overflow: [UInt8]?
        array.append(addingCapacity: max(expected, 1)) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                var writer = ByteWriter(writingInto: buffer)
                write(&writer)
                if writer.ownsItsMemory {
                    overflow = writer.bytes
                } else {
                    initialized = writer.count
                }
            }
        }
        if let overflow { array.append(contentsOf: overflow) }
    }

    /// A copy of the bytes written so far.
    var bytes: [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes in `range`.
    func bytes(_ range: Range<Int>) -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        return [UInt8](UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    /// Forgets the bytes from `newCount` on (a trial that did not fit).
    mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count)
        count = newCount
    }

    // MARK: raw appends

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toAtLeast: count + 1) }
        base[count] = byte
        count += 1
    }

    /// Appends a copy of `bytes`.
    @inline(__always)
    mutating func append(_ bytes: Span<UInt8>) {
        guard !bytes.isEmpty else { return }
        reserve(bytes.count)
        bytes.withUnsafeBufferPointer { appendReserved($0.baseAddress!, count: $0.count) }
    }

    /// Appends a copy of `bytes` (the pointer is the caller's borrow,
    /// read here only).
    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        appendReserved(source, count: bytes.count)
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toAtLeast: count + extra) }
    }

    /// Copies `length` bytes in, room already made: up to 16 bytes with two
    /// (possibly overlapping) word moves or a short loop instead of a call
    /// to `memmove`, since most pieces are short.
    @inline(__always)
    private mutating func appendReserved(_ source: UnsafePointer<UInt8>, count length: Int) {
        let destination = base + count
        if length <= 16 {
            if length >= 8 {
                let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(destination)
                let head = from.loadUnaligned(as: UInt64.self)
                let last = from.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                to.storeBytes(of: head, as: UInt64.self)
                to.storeBytes(of: last, toByteOffset: length - 8, as: UInt64.self)
            } else {
                for offset in 0..<length { destination[offset] = source[offset] }
            }
        } else {
            destination.update(from: source, count: length)
        }
        count += length
    }

    /// Appends a copy of bytes already written (`range` of this buffer):
    /// how a fragment escaped once is repeated without escaping it again.
    /// Room is made before the source is read, so growth cannot move it.
    @inline(__always)
    mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        guard !range.isEmpty else { return }
        reserve(range.count)
        appendReserved(UnsafePointer(base + range.lowerBound), count: range.count)
    }

    /// Appends `count` bytes that `write` stores into the span it is given
    /// (room for exactly `count`, bounds-checked); bytes it leaves alone
    /// are zero.
    @inline(__always)
    mutating func appendWritten(count length: Int, _ write: (inout MutableRawSpan) -> Void) {
        reserve(length)
        let room = UnsafeMutableRawBufferPointer(start: base + count, count: length)
        room.initializeMemory(as: UInt8.self, repeating: 0)
        var span = room.mutableBytes
        write(&span)
        count += length
    }

    /// Appends a copy of the bytes in `range` of another writer.
    @inline(__always)
    mutating func append(_ range: Range<Int>, of other: borrowing ByteWriter) {
        precondition(range.lowerBound >= 0 && range.upperBound <= other.count)
        guard !range.isEmpty else { return }
        reserve(range.count)
        appendReserved(UnsafePointer(other.base + range.lowerBound), count: range.count)
    }

    mutating func append(_ bytes: [UInt8]) {
        append(bytes.span)
    }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        append(bytes.span)
    }

    @inline(__always)
    mutating func appendLiteral(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        if ownsItsMemory { base.deallocate() }
        ownsItsMemory = true
        base = newBase
        capacity = newCapacity
    }

    // MARK: JSON

    /// `text` JSON-escaped, without quotes, as `appendJSONStringContent` writes it.
    static func escaped(_ text: String) -> [UInt8] {
        var writer = ByteWriter(capacity: text.utf8.count + 16)
        writer.appendJSONStringContent(text)
        return writer.bytes
    }

    /// `text` as a quoted JSON string, as `appendJSONString` writes it.
    static func quoted(_ text: String) -> [UInt8] {
        var writer = ByteWriter(capacity: text.utf8.count + 16)
        writer.appendJSONString(text)
        return writer.bytes
    }

    /// Appends `text` as a quoted JSON string.
    mutating func appendJSONString(_ text: String) {
        append(UInt8(ascii: "\""))
        appendJSONStringContent(text)
        append(UInt8(ascii: "\""))
    }

    /// Appends `text` escaped, without quotes (a piece of a longer string),
    /// read in place: no copy of the string.
    mutating func appendJSONStringContent(_ text: String) {
        appendJSONStringContent(utf8: text.utf8.span)
    }

    /// Appends UTF-8 bytes escaped, without quotes: room for the whole text
    /// is made once, and text with nothing to escape is one copy. Never
    /// inlined: inlined into its caller, its scan was left as a call to the
    /// general one (the kind of scan a run-time flag).
    @inline(never)
    mutating func appendJSONStringContent(utf8: Span<UInt8>) {
        var index = JSONEscaping.firstToEscape(in: utf8, from: 0)
        reserve(utf8.count)
        if index == utf8.count { return append(utf8) }
        var runStart = 0
        while index < utf8.count {
            append(utf8.extracting(runStart..<index))
            let escape = JSONEscaping.Escape(of: utf8[index])
            append(escape.bytes.span.extracting(0..<escape.count))
            runStart = index + 1
            index = JSONEscaping.firstToEscape(in: utf8, from: runStart)
        }
        append(utf8.extracting(runStart..<utf8.count))
    }

    /// Appends `"key":"value"` (the key is written as given, already safe).
    mutating func appendMember(_ key: StaticString, _ value: String) {
        append(UInt8(ascii: "\""))
        appendLiteral(key)
        append(UInt8(ascii: "\""))
        append(UInt8(ascii: ":"))
        appendJSONString(value)
    }

    /// Appends `"key":"value"` for a runtime key (escaped).
    mutating func appendMember(dynamicKey key: String, _ value: String) {
        appendJSONString(key)
        append(UInt8(ascii: ":"))
        appendJSONString(value)
    }

    /// Appends `value` in decimal (a minus sign first when negative), the
    /// digits written in place from the last, two at a time.
    mutating func appendDecimal(_ value: Int64) {
        var magnitude = value.magnitude
        let length = Self.decimalDigitCount(magnitude) + (value < 0 ? 1 : 0)
        reserve(length)
        var end = base + count + length
        Self.pairs.withUTF8Buffer { pairs in
            while magnitude >= 10 {
                let pair = Int(magnitude % 100) &* 2
                magnitude /= 100
                end -= 2
                end[0] = pairs[pair]
                end[1] = pairs[pair + 1]
            }
        }
        if end > base + count + (value < 0 ? 1 : 0) {
            end -= 1
            end[0] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude)
        }
        if value < 0 { base[count] = UInt8(ascii: "-") }
        count += length
    }

    /// "00" to "99": the two digits of each number below 100.
    private static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// The number of decimal digits of `value` (1 for 0).
    @inline(__always)
    private static func decimalDigitCount(_ value: UInt64) -> Int {
        var digits = 1
        var threshold: UInt64 = 10
        while value >= threshold {
            digits += 1
            // 10^19 is the last power of ten a UInt64 holds.
            guard threshold <= UInt64.max / 10 else { break }
            threshold &*= 10
        }
        return digits
    }
}
