@testable import APNsSimulator
import XCTest

/// Maps larger than the reader's first room for keys keep every key's
/// position and the last value of a key written twice; a path through the
/// schema always fits the reader's `Path`.
final class FCMSendScannerTests: XCTestCase {
    func testTheDeepestSchemaPathFitsAPath() {
        func depth(_ table: FCMScanTable) -> Int {
            1 + (table.children.compactMap { $0.map(depth) }.max() ?? 0)
        }
        let deepest = depth(FCMMessageSchema.sendRequest.scanTable)
        XCTAssertEqual(deepest, 6, "message.android.notification.lightSettings.color.red")
        XCTAssertLessThanOrEqual(deepest, FCMSendScanner.Path.capacity)
    }

    func testAMapKeyWrittenWithEscapesIsTheSameKey() {
        let body = #"{"message":{"token":"t","data":{"k1":"v","k2":"v","\u006b1":1,"k\u0032":2,"k3":3}}}"#
        XCTAssertEqual(FCMSendCheck.refusal(body)?.fieldViolations.map(\.field),
                       ["message.data[0].value", "message.data[1].value", "message.data[2].value"])
    }

    func testALargeMapKeepsPositionsAndTheLastValue() {
        let members = (0..<40).map { #""k\#($0)":"v""# } + [#""k35":1"#, #""k2":"vv""#]
        let body = #"{"message":{"token":"t","data":{\#(members.joined(separator: ","))}}}"#
        let error = FCMSendCheck.refusal(body)
        XCTAssertEqual(error?.fieldViolations.map(\.field), ["message.data[35].value"])
        let fixed = body.replacingOccurrences(of: #""k35":1"#, with: #""k35":"\#(String(repeating: "x", count: 3900))""#)
        XCTAssertTrue(FCMSendCheck.accepts(fixed), "k35's earlier value no longer counts")
        let over = fixed.replacingOccurrences(of: #""k2":"vv""#, with: #""k2":"\#(String(repeating: "x", count: 100))""#)
        XCTAssertEqual(FCMSendCheck.refusal(over)?.message, "Message is too big")
    }
}
