@testable import GatewayService
import PayloadBuilder
import XCTest

/// The dedup store's log: records across chunks, sweeping from the oldest,
/// replaced records skipped, records larger than a chunk.
final class DedupLogTests: XCTestCase {
    private func packed(_ key: String, recipients: Int = 1) -> [UInt8] {
        let results = (0..<recipients).map {
            RecordedResult(RecipientResult(platform: .apns, token: "token-\($0)", status: .sent, providerID: "id-\($0)"))
        }
        var bytes: [UInt8] = []
        PackedRecordedEvent.append(key: key, event: RecordedEvent(results: results), to: &bytes)
        return bytes
    }

    private func key(_ slice: ArraySlice<UInt8>?) -> String? {
        guard let slice else { return nil }
        var reader = PackedRecordedEvent.Reader(bytes: slice)
        return reader.string()
    }

    func testAPackedEventReadsBackEveryField() {
        let results = [
            RecordedResult(RecipientResult(platform: .apns, token: "a", status: .invalidToken, reason: "Unregistered",
                                           invalidSince: -1)),
            RecordedResult(RecipientResult(platform: .apns, token: "b", status: .invalidToken, reason: "Unregistered",
                                           invalidSince: 1_767_225_600_123)),
            RecordedResult(RecipientResult(platform: .fcm, token: "c", status: .failed, reason: "UNAVAILABLE", retryable: true)),
            RecordedResult(RecipientResult(platform: .fcm, token: "d", status: .sent, providerID: "projects/p/messages/1")),
        ]
        var bytes: [UInt8] = []
        PackedRecordedEvent.append(key: "k", event: RecordedEvent(results: results), to: &bytes)
        XCTAssertEqual(PackedRecordedEvent.unpack(bytes[...]).results, results)
        XCTAssertEqual(PackedRecordedEvent.checked(bytes[...], under: "k"), .event(RecordedEvent(results: results)),
                       "the checked reading agrees")
    }

    /// Bytes from a shared store are read checked: every cut, a byte too
    /// many, and any single byte changed read as malformed or as another
    /// record, never trap.
    func testACheckedReadingOfDamagedBytesNeverTraps() {
        let event = RecordedEvent(results: [
            RecordedResult(RecipientResult(platform: .apns, token: "a", status: .sent, providerID: "id-1")),
            RecordedResult(RecipientResult(platform: .fcm, token: "b", status: .invalidToken, reason: "UNREGISTERED",
                                           retryable: false, invalidSince: 7)),
        ])
        var bytes: [UInt8] = []
        PackedRecordedEvent.append(key: "app\u{0}event-1", event: event, to: &bytes)
        XCTAssertEqual(PackedRecordedEvent.checked(bytes[...], under: "app\u{0}event-2"), .otherKey)
        for length in 0..<bytes.count {
            XCTAssertEqual(PackedRecordedEvent.checked(bytes[..<length], under: "app\u{0}event-1"), .malformed, "cut at \(length)")
        }
        XCTAssertEqual(PackedRecordedEvent.checked((bytes + [0])[...], under: "app\u{0}event-1"), .malformed)
        for index in bytes.indices {
            for value: UInt8 in [0, 1, 2, 0x7F, 0xFF] where value != bytes[index] {
                var damaged = bytes
                damaged[index] = value
                _ = PackedRecordedEvent.checked(damaged[...], under: "app\u{0}event-1")
            }
        }
    }

    func testRecordsSpanningManyChunksAreFoundAndTheOldestAreSweptFirst() {
        var log = DedupLog(chunkSize: 256)
        let now = ContinuousClock.now
        for index in 0..<1_000 {
            log.append(UInt64(index), packed: packed("event-\(index)"), expires: now + .seconds(60))
            log.sweep(now: now, capacity: 100)
        }
        XCTAssertEqual(log.count, 100)
        XCTAssertEqual(key(log.lookup(999, now: now)), "event-999")
        XCTAssertEqual(key(log.lookup(900, now: now)), "event-900")
        XCTAssertNil(log.lookup(899, now: now))
        XCTAssertNil(log.lookup(0, now: now))
    }

    func testARecordedAgainHashPointsAtTheNewestRecordAndTheOlderIsSkipped() {
        var log = DedupLog(chunkSize: 256)
        let now = ContinuousClock.now
        log.append(7, packed: packed("first"), expires: now + .seconds(60))
        for index in 0..<20 { log.append(UInt64(100 + index), packed: packed("filler-\(index)"), expires: now + .seconds(60)) }
        log.append(7, packed: packed("second"), expires: now + .seconds(60))
        log.sweep(now: now, capacity: 10)
        XCTAssertEqual(log.count, 10)
        XCTAssertEqual(key(log.lookup(7, now: now)), "second", "the dead first record is skipped, the newest stays")
    }

    func testAKeyRecordedAgainAndAgainCannotGrowTheLogPastTheCapacity() {
        var log = DedupLog(chunkSize: 256)
        let now = ContinuousClock.now
        log.append(1, packed: packed("long-lived"), expires: now + .seconds(600))
        for _ in 0..<10_000 {
            log.append(2, packed: packed("retried"), expires: now + .seconds(600))
            log.sweep(now: now, capacity: 100)
        }
        XCTAssertLessThanOrEqual(log.records, 100, "dead copies count against the capacity")
        XCTAssertEqual(key(log.lookup(2, now: now)), "retried")
        XCTAssertNil(log.lookup(1, now: now), "the oldest live record is forgotten early, as the capacity says")
    }

    func testExpiredRecordsGoEvenUnderCapacityAndTheChunkIsReused() {
        var log = DedupLog(chunkSize: 256)
        let now = ContinuousClock.now
        for index in 0..<50 { log.append(UInt64(index), packed: packed("old-\(index)"), expires: now - .seconds(1)) }
        log.append(1_000, packed: packed("new"), expires: now + .seconds(60))
        log.sweep(now: now, capacity: 100)
        XCTAssertEqual(log.count, 1)
        XCTAssertNil(log.lookup(3, now: now))
        XCTAssertEqual(key(log.lookup(1_000, now: now)), "new")
        XCTAssertNil(log.lookup(1_000, now: now + .seconds(60)), "a record is not returned once expired")
    }

    func testARecordLargerThanAChunkGetsAChunkOfItsOwn() {
        var log = DedupLog(chunkSize: 64)
        let now = ContinuousClock.now
        let big = packed("big", recipients: 50)
        XCTAssertGreaterThan(big.count, 64)
        log.append(1, packed: packed("small"), expires: now + .seconds(60))
        log.append(2, packed: big, expires: now + .seconds(60))
        log.append(3, packed: packed("after"), expires: now + .seconds(60))
        log.sweep(now: now, capacity: 10)
        XCTAssertEqual(log.lookup(2, now: now).map(Array.init), big)
        XCTAssertEqual(PackedRecordedEvent.unpack(log.lookup(2, now: now)!).results.count, 50)
        XCTAssertEqual(key(log.lookup(1, now: now)), "small")
        XCTAssertEqual(key(log.lookup(3, now: now)), "after")
    }

    func testSweepingEverythingLeavesAnEmptyLogThatStillRecords() {
        var log = DedupLog(chunkSize: 128)
        let now = ContinuousClock.now
        for index in 0..<30 { log.append(UInt64(index), packed: packed("e\(index)"), expires: now + .seconds(1)) }
        log.sweep(now: now + .seconds(2), capacity: 100)
        XCTAssertEqual(log.count, 0)
        log.append(99, packed: packed("again"), expires: now + .seconds(60))
        XCTAssertEqual(key(log.lookup(99, now: now)), "again")
    }
}
