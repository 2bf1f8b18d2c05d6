/// A request's header fields as nghttp2 delivered them, kept as bytes: names
/// and values back to back in one buffer, and one `Entry` per field saying
/// where, in arrival order. Two allocations per request whatever the number
/// of fields, and no String unless one is asked for.
struct HeaderFields {
    /// Where one field sits in `bytes`.
    struct Entry {
        /// Offset of the name; the value follows it directly.
        let start: Int
        let nameCount: Int
        let valueCount: Int
        /// Sent as an HPACK literal never indexed (RFC 7541 §6.2.3).
        let neverIndexed: Bool

        var nameRange: Range<Int> { start..<start + nameCount }
        var valueRange: Range<Int> { start + nameCount..<start + nameCount + valueCount }
    }

    /// Every name and value, back to back.
    private(set) var bytes: [UInt8] = []
    /// The fields in arrival order.
    private(set) var entries: [Entry] = []

    /// Room for a usual request's fields without growing.
    static func reserved() -> HeaderFields {
        var fields = HeaderFields()
        fields.bytes.reserveCapacity(512)
        fields.entries.reserveCapacity(16)
        return fields
    }

    var count: Int { entries.count }

    mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, neverIndexed: Bool) {
        let start = bytes.count
        bytes.append(contentsOf: name)
        bytes.append(contentsOf: value)
        entries.append(Entry(start: start, nameCount: name.count, valueCount: value.count, neverIndexed: neverIndexed))
    }

    mutating func append(name: String, value: String, neverIndexed: Bool) {
        var name = name
        var value = value
        name.withUTF8 { name in value.withUTF8 { append(name: name, value: $0, neverIndexed: neverIndexed) } }
    }

    /// The name of field `index`, decoded (invalid UTF-8 as U+FFFD).
    func name(at index: Int) -> String { string(entries[index].nameRange) }

    /// The value of field `index`, decoded (invalid UTF-8 as U+FFFD).
    func value(at index: Int) -> String { string(entries[index].valueRange) }

    /// The bytes in `range` as a String; invalid UTF-8 becomes U+FFFD.
    private func string(_ range: Range<Int>) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// The first field whose name is `name` (compared as Strings: see
    /// `TextBytes.same`).
    func firstIndex(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { all in
                entries.firstIndex { TextBytes.same(UnsafeBufferPointer(rebasing: all[$0.nameRange]), wanted) }
            }
        }
    }
}
