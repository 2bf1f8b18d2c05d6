/// Joins a few strings into one with a single allocation and one copy of
/// each piece: what `"\(a)\(b)"` gives, without interpolation appending
/// piece by piece (growing the result as it goes) on the per-event path.
enum Concatenation {
    /// `a + b + c + d`, byte for byte.
    static func join(_ a: String, _ b: String, _ c: String = "", _ d: String = "") -> String {
        let total = a.utf8.count + b.utf8.count + c.utf8.count + d.utf8.count
        // `String` has no safe initializer that writes in place (no `OutputSpan` form).
        return String(unsafeUninitializedCapacity: total) { buffer in
            var position = 0
            copy(a, into: buffer, at: &position)
            copy(b, into: buffer, at: &position)
            copy(c, into: buffer, at: &position)
            copy(d, into: buffer, at: &position)
            return position
        }
    }

    /// `prefix + text`, byte for byte: the prefix's bytes are the
    /// program's own (no string to read), the text is read in place.
    static func join(literal prefix: StaticString, _ text: String) -> String {
        let prefixCount = prefix.utf8CodeUnitCount
        return String(unsafeUninitializedCapacity: prefixCount + text.utf8.count) { buffer in
            buffer.baseAddress!.update(from: prefix.utf8Start, count: prefixCount)
            var position = prefixCount
            copy(text, into: buffer, at: &position)
            return position
        }
    }

    @inline(__always)
    private static func copy(_ text: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at position: inout Int) {
        let count = text.utf8.count
        guard count > 0 else { return }
        let lent: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            (buffer.baseAddress! + position).update(from: utf8.baseAddress!, count: count)
        }
        if lent == nil {
            for (offset, byte) in text.utf8.enumerated() { buffer[position + offset] = byte }
        }
        position += count
    }
}
