extension String {
    /// Whether `other` has the same UTF-8 code units: byte equality, not
    /// `==`, which is canonical equivalence (é as one scalar equals e +
    /// U+0301 there). For keys that must not repeat byte for byte, and for
    /// the renderer's copies of bytes it already escaped, which are only
    /// right for the very same bytes. Compares the lengths, then the two
    /// buffers in place, eight bytes at a time (the generic `UTF8View` or
    /// buffer `elementsEqual` cost over a thousand instructions for a URL).
    public func hasSameCodeUnits(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let same = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in Self.sameBytes(mine, theirs) }
        }
        if let same = same ?? nil { return same }
        return utf8.elementsEqual(other.utf8)
    }

    /// Two buffers of equal length with the same bytes.
    private static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0, let first = a.baseAddress, let second = b.baseAddress else { return true }
        if first == second { return true }  // one string's storage, shared by both values
        let (left, right) = (UnsafeRawPointer(first), UnsafeRawPointer(second))
        var offset = 0
        while offset + 8 <= a.count {
            guard left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        while offset < a.count {
            guard first[offset] == second[offset] else { return false }
            offset += 1
        }
        return true
    }
}
