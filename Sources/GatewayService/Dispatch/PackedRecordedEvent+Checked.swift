import PayloadBuilder

extension PackedRecordedEvent {
    /// What a packed record read from outside the process holds.
    enum Checked: Equatable {
        /// The event recorded under the key asked for.
        case event(RecordedEvent)
        /// A well-formed record of another key (two keys with one digest).
        case otherKey
        /// Not a record this layout wrote: cut short, trailing bytes, an
        /// unknown platform or status, text that is not UTF-8.
        case malformed
    }

    /// Reads `packed` as `unpack` does, checking every length and value
    /// instead of trusting them: for bytes that come back from a shared
    /// store, which another program (or another version) may have written.
    static func checked(_ packed: ArraySlice<UInt8>, under key: String) -> Checked {
        var reader = CheckedReader(bytes: packed)
        guard let recordedKey = reader.stringBytes() else { return .malformed }
        let isKey = recordedKey.elementsEqual(key.utf8)
        guard let count = reader.uint32().map(Int.init) else { return .malformed }
        // Each result takes at least 27 bytes: a count beyond what is left is a lie.
        guard count <= reader.remaining / 27 else { return .malformed }
        var results: [RecordedResult] = []
        results.reserveCapacity(count)
        for _ in 0..<count {
            guard let platform = reader.string().flatMap(Platform.init(rawValue:)),
                  let status = reader.string().flatMap(RecipientResult.Status.init(rawValue:)),
                  let retryableByte = reader.byte(), retryableByte <= 2,
                  let high = reader.uint64(), let low = reader.uint64(),
                  let providerID = reader.optionalString(), let reason = reader.optionalString(),
                  let invalidSince = reader.optionalInteger()
            else { return .malformed }
            let retryable: Bool? = retryableByte == 0 ? nil : retryableByte == 2
            results.append(RecordedResult(platform: platform, device: DeviceFingerprint(high: high, low: low), status: status,
                                          providerID: providerID, reason: reason, retryable: retryable,
                                          invalidSince: invalidSince.map { Int64(bitPattern: $0) }))
        }
        guard reader.remaining == 0 else { return .malformed }
        return isKey ? .event(RecordedEvent(results: results)) : .otherKey
    }

    /// `Reader` with every read checked: nil past the end or for text that
    /// is not UTF-8.
    struct CheckedReader {
        let bytes: ArraySlice<UInt8>
        private var offset: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            offset = bytes.startIndex
        }

        var remaining: Int { bytes.endIndex - offset }

        mutating func byte() -> UInt8? {
            guard offset < bytes.endIndex else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint32() -> UInt32? {
            guard remaining >= 4 else { return nil }
            var value: UInt32 = 0
            for shift in stride(from: 0, to: 32, by: 8) { value |= UInt32(bytes[offset]) << UInt32(shift); offset += 1 }
            return value
        }

        mutating func uint64() -> UInt64? {
            guard let low = uint32(), let high = uint32() else { return nil }
            return UInt64(low) | UInt64(high) << 32
        }

        mutating func stringBytes() -> ArraySlice<UInt8>? {
            guard let count = uint32().map(Int.init), count <= remaining else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func string() -> String? {
            stringBytes().flatMap { String(validating: $0, as: UTF8.self) }
        }

        /// A present-or-absent string: `.some(nil)` when absent, nil when malformed.
        mutating func optionalString() -> String?? {
            switch byte() {
            case 0: return .some(nil)
            case 1:
                guard let text = string() else { return nil }
                return .some(text)
            default: return nil
            }
        }

        /// A present-or-absent 64-bit integer: `.some(nil)` when absent, nil when malformed.
        mutating func optionalInteger() -> UInt64?? {
            switch byte() {
            case 0: return .some(nil)
            case 1:
                guard let value = uint64() else { return nil }
                return .some(value)
            default: return nil
            }
        }
    }
}
