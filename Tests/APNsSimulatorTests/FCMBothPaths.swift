@testable import APNsSimulator
import XCTest

/// Runs a `messages:send` body through both of the FCM simulator's paths:
/// the strict one (`FCMMessageReader` then `FCMMessageValidator`), which
/// words every refusal, and the fast one (`FCMSendScanner`), which may only
/// accept what the strict one accepts.
enum FCMBothPaths {
    static func strict(_ body: String) -> Result<FCMMessageValidator.ValidMessage, GoogleError>? {
        guard let tree = SimulatorJSONParser.parseOrdered(Array(body.utf8)) else { return nil }
        let violations = FCMMessageReader.violations(in: tree)
        guard violations.isEmpty else { return .failure(.unparsable(violations)) }
        return FCMMessageValidator.validate(tree)
    }

    /// The strict path's refusal of `body`; fails when either path accepts it.
    static func refusal(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> GoogleError? {
        XCTAssertNil(FCMSendScanner.validMessage(Array(body.utf8)), "the fast path accepts \(body.prefix(300))",
                     file: file, line: line)
        switch strict(body) {
        case .failure(let error)?: return error
        case .success?: XCTFail("the strict path accepts \(body.prefix(300))", file: file, line: line)
        case nil: XCTFail("not JSON: \(body.prefix(300))", file: file, line: line)
        }
        return nil
    }

    /// Whether both paths accept `body` (the fast one may stand aside).
    static func accepts(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        guard case .success? = strict(body) else { return false }
        return true
    }

    /// Whether the fast path settles `body` itself.
    static func fastAccepts(_ body: String) -> Bool { FCMSendScanner.validMessage(Array(body.utf8)) != nil }
}
