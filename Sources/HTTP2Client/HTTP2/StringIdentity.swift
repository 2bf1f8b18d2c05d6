/// The two machine words a `String` (or a `String?`) is made of, read in
/// place from memory without a retain: a way to ask "is this the very string
/// I kept?" in a few instructions, where reading its bytes costs a retain and
/// a release of its storage.
///
/// Equal words mean equal bytes *when the other string is kept alive* by
/// whoever compares: a small string holds its bytes in the words themselves;
/// a large one's words are its length, flags and storage address, and
/// storage that a kept string shares is never changed in place (a mutation
/// copies shared storage first) nor freed and reused for another string.
/// `nil` has words no string has, so two optionals with equal words are both
/// `nil` or the same string. Unequal words say nothing: the bytes may still
/// be equal (a copy made elsewhere), and the caller then treats them as new.
struct StringIdentity: Equatable {
    private let low: UInt64
    private let high: UInt64

    /// The words of the `String` or `String?` stored at `address`.
    init(at address: UnsafeRawPointer) {
        // Both are two words on the 64-bit platforms this package builds for
        // (the optional uses the string's spare bit patterns for `nil`).
        precondition(MemoryLayout<String>.size == 16 && MemoryLayout<String?>.size == 16, "String is not two 64-bit words here")
        low = address.load(as: UInt64.self)
        high = address.load(fromByteOffset: 8, as: UInt64.self)
    }

    /// The words of `text` itself (for strings held in local values).
    init(of text: String) {
        self = withUnsafeBytes(of: text) { StringIdentity(at: $0.baseAddress!) }
    }
}
