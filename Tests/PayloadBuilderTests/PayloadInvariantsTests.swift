import Foundation
import PayloadBuilder
import XCTest

/// The fuzzer's oracle catches what it is for: each property, broken on
/// purpose in a real rendering, is reported by name.
final class PayloadInvariantsTests: XCTestCase {
    let invariants = PayloadInvariants()

    /// The base event rendered with the demo configuration: one FCM and one APNs request.
    func rendered() throws -> (RenderedEvent, recipients: Int) {
        let (event, app) = try EventDecoder(config: EventFixture.demo).decode(EventFixture.eventBytes { event in
            event[path: "recipients.1.user_id"] = nil
        })
        let rendered = try EventRenderer(config: EventFixture.demo)
            .render(event, app: app, avatar: .none, now: PayloadInvariants.fixedNow)
        XCTAssertEqual(rendered.requests.map(\.platform), [.fcm, .apns])
        return (rendered, event.recipients.count)
    }

    func expectViolation(_ expected: PayloadInvariants.Invariant, _ edit: (inout RenderedEvent) -> Void,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        var (rendered, recipients) = try rendered()
        XCTAssertNoThrow(try invariants.check(rendered, recipients: recipients), file: file, line: line)
        edit(&rendered)
        do {
            try invariants.check(rendered, recipients: recipients)
            XCTFail("no violation of \(expected)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.invariant, expected, "\(error)", file: file, line: line)
        }
    }

    func testARenderingOfTheBaseEventKeepsEveryProperty() throws {
        let (rendered, recipients) = try rendered()
        XCTAssertNoThrow(try invariants.check(rendered, recipients: recipients))
    }

    func testALostRecipientIsReported() throws {
        try expectViolation(.recipientAccounting) { $0.requests.removeLast() }
        try expectViolation(.recipientAccounting) { $0.requests[1].recipientIndex = 0 }
    }

    func testAnOversizedAPNsPayloadIsReported() throws {
        try expectViolation(.apnsPayloadSize) { rendered in
            rendered.requests[1].body = ArraySlice("{\"aps\":{},\"pad\":\"\(String(repeating: "x", count: 4096))\"}".utf8)
        }
    }

    func testABodyThatIsNotCanonicalCompactJSONIsReported() throws {
        try expectViolation(.canonicalBody) { $0.requests[1].body = ArraySlice("{\"aps\": {}}".utf8) }
        try expectViolation(.canonicalBody) { $0.requests[0].body.removeLast() }
    }

    func testInvalidUTF8InABodyIsReported() throws {
        try expectViolation(.validUTF8) { $0.requests[1].body = [0x7B, 0xFF, 0x7D] }
    }

    func testHeaderValuesWithControlCharactersOrSurroundingSpacesAreReported() throws {
        try expectViolation(.topicHeaderValue) { $0.requests[1].headers[0].value = "com.example\r\nx-injected: 1" }
        try expectViolation(.topicHeaderValue) { $0.requests[1].headers[0].value = "com.example " }
        try expectViolation(.headerControlCharacters) { $0.requests[1].headers[3].value = "0\n" }
        try expectViolation(.headerSurroundingWhitespace) { $0.requests[1].headers[3].value = "0 " }
    }

    func testALongCollapseIDIsReported() throws {
        try expectViolation(.collapseIDLength) { rendered in
            let index = rendered.requests[1].headers.firstIndex { $0.name == "apns-collapse-id" }!
            rendered.requests[1].headers[index].value = String(repeating: "c", count: 65)
        }
    }

    func testAPathWithASpaceIsReported() throws {
        try expectViolation(.requestTarget) { $0.requests[1].path = "/3/device/ab cd" }
    }

    func testAnFCMMessageOverItsCountedSizeIsReported() throws {
        try expectViolation(.fcmCountedSize) { rendered in
            let body = String(decoding: rendered.requests[0].body, as: UTF8.self)
                .replacingOccurrences(of: "\"data\":{", with: "\"data\":{\"pad\":\"\(String(repeating: "x", count: 3900))\",")
            rendered.requests[0].body = ArraySlice(body.utf8)
        }
    }

    func testJSONRoundTripsKeepTheNumberKind() throws {
        XCTAssertTrue(try invariants.checkJSONRoundTrip(Array(#"{"a":[1,-2.5,"\u0000é",null,true]}"#.utf8)))
        XCTAssertFalse(try invariants.checkJSONRoundTrip(Array("{".utf8)))
        // Once a violation (whole doubles came back as integers); fixed in JSONWriter.double.
        XCTAssertTrue(try invariants.checkJSONRoundTrip(Array("1.0".utf8)))
        XCTAssertTrue(try invariants.checkJSONRoundTrip(Array("[7e6,-0.0,1e300]".utf8)))
    }
}
