@testable import GatewayHTTP
import XCTest

/// `AnswerStorage` keeps the memory of a few sent answers of a useful size,
/// and hands each out once.
final class AnswerStorageTests: XCTestCase {
    private func answer(capacity: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: repeatElement(7, count: min(capacity, 100)))
        return bytes
    }

    func testKeepsAnAnswersMemoryAndHandsItOutOnce() {
        let storage = AnswerStorage()
        var body = answer(capacity: 8192)
        let capacity = body.capacity
        storage.keep(&body)
        XCTAssertTrue(body.isEmpty, "moved out")
        XCTAssertEqual(storage.keptCount, 1)
        XCTAssertEqual(storage.take().capacity, capacity)
        XCTAssertEqual(storage.keptCount, 0)
        XCTAssertEqual(storage.take().capacity, 0, "nothing kept: an empty array")
    }

    func testKeepsNeitherSmallNorHugeAnswers() {
        let storage = AnswerStorage()
        for capacity in [0, 16, AnswerStorage.minimumCapacity / 2, AnswerStorage.maximumCapacity * 2] {
            var body = answer(capacity: capacity)
            storage.keep(&body)
        }
        XCTAssertEqual(storage.keptCount, 0)
    }

    func testKeepsAtMostAFew() {
        let storage = AnswerStorage()
        for _ in 0..<(AnswerStorage.kept + 3) {
            var body = answer(capacity: 4096)
            storage.keep(&body)
        }
        XCTAssertEqual(storage.keptCount, AnswerStorage.kept)
    }
}
