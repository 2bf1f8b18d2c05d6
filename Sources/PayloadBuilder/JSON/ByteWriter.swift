/// A growable byte buffer for assembling JSON fragments.
///
/// An append is a capacity check and a copy, without the uniqueness and
/// growth bookkeeping that every `Array.append` repeats: the hand-assembled
/// payload parts make hundreds of short appends per event. Noncopyable: it
/// owns its memory, frees it in `deinit`, and hands its bytes out as a copy
/// (`bytes`) when done. Not thread-safe; a local of one function at a time.
struct ByteWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
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

    // MARK: raw appends

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toAtLeast: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(toAtLeast: count + bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func appendLiteral(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    // MARK: JSON

    /// Appends `text` as a quoted JSON string.
    mutating func appendJSONString(_ text: String) {
        append(UInt8(ascii: "\""))
        appendJSONStringContent(text)
        append(UInt8(ascii: "\""))
    }

    /// Appends `text` escaped, without quotes (a piece of a longer string).
    mutating func appendJSONStringContent(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            var index = JSONEscaping.firstToEscape(in: utf8, from: 0)
            while index < utf8.count {
                append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                JSONEscaping.withEscape(of: utf8[index]) { append($0) }
                runStart = index + 1
                index = JSONEscaping.firstToEscape(in: utf8, from: runStart)
            }
            append(UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
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

    mutating func appendDecimal(_ value: Int64) {
        JSONWriter.withDecimal(value) { append($0) }
    }
}
