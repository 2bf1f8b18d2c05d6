import PayloadBuilder

/// How `InMemoryDedupStore` writes a `RecordedEvent`, and the key it was
/// recorded under, as bytes in its log, and reads it back.
///
/// Layout: the key, the number of results, then per result its platform,
/// status, retryable flag (0 none, 1 false, 2 true), device fingerprint
/// (16 bytes), provider id, reason and the token's invalid-since time. Strings are a 32-bit
/// length and their UTF-8 bytes; an optional value has a presence byte first; integers are
/// little-endian. Platform and status are their raw
/// values, so the packing survives new enum cases.
enum PackedRecordedEvent {
    /// Appends the packed event to `bytes`.
    static func append(key: String, event: RecordedEvent, to bytes: inout [UInt8]) {
        append(key, to: &bytes)
        append(UInt32(event.results.count), to: &bytes)
        for result in event.results {
            append(result.platform.rawValue, to: &bytes)
            append(result.status.rawValue, to: &bytes)
            bytes.append(result.retryable.map { $0 ? 2 : 1 } ?? 0)
            append(result.device.high, to: &bytes)
            append(result.device.low, to: &bytes)
            appendOptional(result.providerID, to: &bytes)
            appendOptional(result.reason, to: &bytes)
            if let invalidSince = result.invalidSince {
                bytes.append(1)
                append(invalidSince, to: &bytes)
            } else {
                bytes.append(0)
            }
        }
    }

    /// How many bytes `append(key:event:to:)` appends.
    static func size(key: String, event: RecordedEvent) -> Int {
        var size = 4 + key.utf8.count + 4
        for result in event.results {
            size += 4 + result.platform.rawValue.utf8.count + 4 + result.status.rawValue.utf8.count + 1 + 16
            size += result.providerID.map { 5 + $0.utf8.count } ?? 1
            size += result.reason.map { 5 + $0.utf8.count } ?? 1
            size += result.invalidSince == nil ? 1 : 9
        }
        return size
    }

    /// True when `packed` was recorded under exactly `key`.
    static func isRecorded(_ packed: ArraySlice<UInt8>, under key: String) -> Bool {
        var reader = Reader(bytes: packed)
        return reader.stringBytes().elementsEqual(key.utf8)
    }

    /// The event in `packed`.
    static func unpack(_ packed: ArraySlice<UInt8>) -> RecordedEvent {
        var reader = Reader(bytes: packed)
        _ = reader.stringBytes()
        let count = Int(reader.uint32())
        var results: [RecordedResult] = []
        results.reserveCapacity(count)
        for _ in 0..<count {
            let platform = Platform(rawValue: reader.string())!
            let status = RecipientResult.Status(rawValue: reader.string())!
            let retryable: Bool? = switch reader.byte() { case 0: nil; case 1: false; default: true }
            let device = DeviceFingerprint(high: reader.uint64(), low: reader.uint64())
            let providerID = reader.optionalString()
            let reason = reader.optionalString()
            let invalidSince: Int64? = reader.byte() == 0 ? nil : Int64(bitPattern: reader.uint64())
            results.append(RecordedResult(platform: platform, device: device, status: status, providerID: providerID,
                                          reason: reason, retryable: retryable, invalidSince: invalidSince))
        }
        return RecordedEvent(results: results)
    }

    /// Appends an integer's bytes, little-endian (the log's record headers
    /// use it too): the room made once, the bytes stored into it.
    static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        bytes.append(addingCapacity: Integer.bitWidth / 8) { room in
            for shift in stride(from: 0, to: Integer.bitWidth, by: 8) {
                room.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        append(UInt32(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    private static func appendOptional(_ text: String?, to bytes: inout [UInt8]) {
        guard let text else { return bytes.append(0) }
        bytes.append(1)
        append(text, to: &bytes)
    }

    /// Reads back what `append` wrote; the layout is ours, so it is trusted.
    struct Reader {
        let bytes: ArraySlice<UInt8>
        private var offset: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            offset = bytes.startIndex
        }

        mutating func byte() -> UInt8 {
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint32() -> UInt32 {
            var value: UInt32 = 0
            for shift in stride(from: 0, to: 32, by: 8) { value |= UInt32(byte()) << UInt32(shift) }
            return value
        }

        mutating func uint64() -> UInt64 {
            UInt64(uint32()) | UInt64(uint32()) << 32
        }

        mutating func stringBytes() -> ArraySlice<UInt8> {
            let count = Int(uint32())
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func string() -> String {
            String(decoding: stringBytes(), as: UTF8.self)
        }

        mutating func optionalString() -> String? {
            byte() == 0 ? nil : string()
        }
    }
}
