@testable import APNsSimulator
import XCTest

/// Every body of `FCMSendCorpus` gets its recorded answer from
/// `FCMSendScanner.check`, the simulator's one reader of a `messages:send`
/// body.
final class FCMSendCorpusTests: XCTestCase {
    static func answer(_ body: String) -> String {
        switch FCMSendScanner.check(Array(body.utf8)) {
        case .success(let message):
            return "200 token=\(message.token ?? "-") topic=\(message.topic ?? "-") condition=\(message.condition ?? "-")"
                + " validateOnly=\(message.validateOnly)"
        case .failure(let error):
            return "\(error.httpStatus) " + String(decoding: error.body, as: UTF8.self)
        }
    }

    func testEveryBodyGetsItsRecordedAnswer() {
        XCTAssertEqual(FCMSendCorpus.bodies.count, FCMSendCorpus.answers.count)
        for (body, expected) in zip(FCMSendCorpus.bodies, FCMSendCorpus.answers) {
            XCTAssertEqual(Self.answer(body), expected, String(body.prefix(300)))
        }
    }
}
