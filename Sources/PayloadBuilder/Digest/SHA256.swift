internal import CDigestShims

/// SHA-256 (FIPS 180-4), so that the pure core needs no C library: it
/// derives `apns-id`s and shortens long collapse ids. The compression runs
/// on the CPU's SHA extensions where it has them (our own C shim,
/// `CDigestShims`, about twenty times fewer instructions a block), else in
/// plain Swift; both give the same words (`SHA256Tests`).
/// Not constant-time, and not meant for secrets.
public struct SHA256: Sendable {
    /// Whether `pgw_sha256_compress_blocks` may run here (asked once).
    private static let hasExtensions = pgw_sha256_extensions_available() != 0

    private static let roundConstants: InlineArray<64, UInt32> = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The eight state words after hashing: the digest, big-endian word by word.
    typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    /// The 32-byte digest of `bytes`.
    public static func digest<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        let state = hash(bytes)
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            digest.append(UInt8(word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// The first 16 bytes of the digest of `text`'s UTF-8, read as two
    /// big-endian integers (`digest(text.utf8)[0..<8]` and `[8..<16]`):
    /// a fingerprint without the digest's array, hashed in place.
    public static func leading128(utf8 text: String) -> (high: UInt64, low: UInt64) {
        let state = hash(bytes: text.utf8.span)
        return (UInt64(state.0) << 32 | UInt64(state.1), UInt64(state.2) << 32 | UInt64(state.3))
    }

    /// The state words of the digest of `text`'s UTF-8, read in place.
    static func hash(_ text: String.UTF8View) -> State {
        hash(bytes: text.span)
    }

    /// The state words of the digest of `bytes` (an array is read in place,
    /// any other collection copied into one first).
    static func hash<Bytes: Collection>(_ bytes: Bytes) -> State where Bytes.Element == UInt8 {
        if let array = bytes as? [UInt8] { return hash(bytes: array.span) }
        return hash(bytes: Array(bytes).span)
    }

    /// Hashes the whole blocks of `input` where they are, then the padded
    /// tail (the rest, `0x80`, zeros, the bit length) from a small stack
    /// buffer; with the SHA extensions when the CPU has them.
    static func hash(bytes input: Span<UInt8>) -> State {
        hash(bytes: input, extensions: hasExtensions)
    }

    /// `hash(bytes:)`, compressing with the SHA extensions or in Swift as
    /// told (the tests compare the two; `extensions` only where they exist).
    static func hash(bytes input: Span<UInt8>, extensions: Bool) -> State {
        var state: State = (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
        let wholeBlocks = input.count / 64
        let rest = input.count - wholeBlocks * 64
        var tail = InlineArray<128, UInt8>(repeating: 0)
        let tailCount = rest + 9 <= 64 ? 64 : 128
        for index in 0..<rest { tail[index] = input[wholeBlocks * 64 + index] }
        tail[rest] = 0x80
        let bitLength = UInt64(input.count) &* 8
        for index in 0..<8 { tail[tailCount - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> (8 * index)) }
        let blocks = input.extracting(0..<wholeBlocks * 64), padded = tail.span.extracting(0..<tailCount)
        if extensions {
            compressWithExtensions(blocks, state: &state)
            compressWithExtensions(padded, state: &state)
        } else {
            var schedule = InlineArray<64, UInt32>(repeating: 0)
            for start in stride(from: 0, to: blocks.count, by: 64) {
                compress(block: blocks.extracting(start..<start + 64), state: &state, schedule: &schedule)
            }
            for start in stride(from: 0, to: padded.count, by: 64) {
                compress(block: padded.extracting(start..<start + 64), state: &state, schedule: &schedule)
            }
        }
        return state
    }

    /// Compresses the whole 64-byte blocks of `blocks` into `state` with
    /// the CPU's SHA extensions (`hasExtensions` must be true): the pure
    /// core's one call into C, whose pointers are borrowed for the call.
    private static func compressWithExtensions(_ blocks: Span<UInt8>, state: inout State) {
        precondition(blocks.count % 64 == 0)
        guard !blocks.isEmpty else { return }
        var words = InlineArray<8, UInt32>(repeating: 0)
        (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7]) = state
        var wordSpan = words.mutableSpan
        wordSpan.withUnsafeMutableBufferPointer { words in
            blocks.withUnsafeBufferPointer { bytes in
                pgw_sha256_compress_blocks(words.baseAddress!, bytes.baseAddress!, bytes.count / 64)
            }
        }
        state = (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7])
    }

    /// Whether `hash(bytes:extensions: true)` may be called here.
    static var extensionsAvailable: Bool { hasExtensions }

    private static func compress(block: Span<UInt8>, state: inout State, schedule: inout InlineArray<64, UInt32>) {
        // The block's sixteen big-endian words, assembled byte by byte: the
        // standard library has no safe unaligned load. The length checked
        // once here lets the compiler drop the per-byte bounds checks.
        precondition(block.count == 64)
        for index in 0..<16 {
            schedule[index] = UInt32(block[index * 4]) << 24 | UInt32(block[index * 4 + 1]) << 16
                | UInt32(block[index * 4 + 2]) << 8 | UInt32(block[index * 4 + 3])
        }
        for index in 16..<64 {
            let w15 = schedule[index - 15]
            let w2 = schedule[index - 2]
            let s0 = rotate(w15, 7) ^ rotate(w15, 18) ^ (w15 >> 3)
            let s1 = rotate(w2, 17) ^ rotate(w2, 19) ^ (w2 >> 10)
            schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state
        // Eight rounds per pass, the variables' roles rotating instead of
        // their values moving (`round` writes the new `d` and `h` in place).
        for index in stride(from: 0, to: 64, by: 8) {
            func input(_ offset: Int) -> UInt32 { roundConstants[index + offset] &+ schedule[index + offset] }
            round(a, b, c, &d, e, f, g, &h, input(0))
            round(h, a, b, &c, d, e, f, &g, input(1))
            round(g, h, a, &b, c, d, e, &f, input(2))
            round(f, g, h, &a, b, c, d, &e, input(3))
            round(e, f, g, &h, a, b, c, &d, input(4))
            round(d, e, f, &g, h, a, b, &c, input(5))
            round(c, d, e, &f, g, h, a, &b, input(6))
            round(b, c, d, &e, f, g, h, &a, input(7))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                 state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }

    /// One round: `d += temp1` and `h = temp1 + temp2`. The choice and the
    /// majority are FIPS 180-4's Ch and Maj in fewer operations, the same
    /// values bit for bit: `(e & f) ^ (~e & g)` is `g ^ (e & (f ^ g))`, and
    /// `(a & b) ^ (a & c) ^ (b & c)` is `(a & b) | (c & (a | b))`. The
    /// sums are Σ1 and Σ0 with the rotations nested (a rotation of an XOR
    /// is the XOR of the rotations): `ror6(ror5(ror14(e) ^ e) ^ e)` is
    /// `ror6(e) ^ ror11(e) ^ ror25(e)`, and `ror2(ror11(ror9(a) ^ a) ^ a)`
    /// is `ror2(a) ^ ror13(a) ^ ror22(a)`, with no copy of `e` or `a` kept
    /// for each rotation (two moves fewer per sum).
    @inline(__always)
    private static func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                              _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ input: UInt32) {
        let sum1 = rotate(rotate(rotate(e, 14) ^ e, 5) ^ e, 6)
        let choice = g ^ (e & (f ^ g))
        let temp1 = h &+ sum1 &+ choice &+ input
        let sum0 = rotate(rotate(rotate(a, 9) ^ a, 11) ^ a, 2)
        let majority = (a & b) | (c & (a | b))
        d = d &+ temp1
        h = temp1 &+ sum0 &+ majority
    }

    /// The digest as 64 lowercase hex digits.
    public static func hexDigest<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.lowercase(digest(bytes))
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }
}

/// Lowercase hex encoding.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func lowercase(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
