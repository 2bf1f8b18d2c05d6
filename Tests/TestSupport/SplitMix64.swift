/// A small deterministic random number generator (SplitMix64, Steele, Lea and
/// Flood 2014), shared by the test targets: a fixed seed gives the same
/// sequence on every run and machine, so a randomized test that fails can be
/// run again as it was.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` bytes: each value's bytes in memory order (little-endian), the
    /// last one cut to fit.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            let value = next()
            withUnsafeBytes(of: value) { bytes += $0.prefix(count - bytes.count) }
        }
        return bytes
    }
}
