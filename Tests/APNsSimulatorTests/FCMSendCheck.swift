@testable import APNsSimulator
import XCTest

/// Runs a `messages:send` body through the FCM simulator's reader
/// (`FCMSendScanner.check`), for tests that expect a refusal or an
/// acceptance.
enum FCMSendCheck {
    /// The refusal of `body`; fails when it is accepted.
    static func refusal(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> GoogleError? {
        switch FCMSendScanner.check(Array(body.utf8)) {
        case .failure(let error): return error
        case .success: XCTFail("accepted: \(body.prefix(300))", file: file, line: line)
        }
        return nil
    }

    /// Whether `body` is accepted.
    static func accepts(_ body: String) -> Bool {
        guard case .success = FCMSendScanner.check(Array(body.utf8)) else { return false }
        return true
    }

    /// The accepted message of `body`, if it is accepted.
    static func message(_ body: String) -> FCMMessageValidator.ValidMessage? {
        try? FCMSendScanner.check(Array(body.utf8)).get()
    }
}
