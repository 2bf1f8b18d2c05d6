@testable import PayloadBuilder
import XCTest

/// The compact `/v1/render` answer has its own direct writer; it must give
/// exactly the bytes of the `JSONWriter` path it replaces, for every golden
/// event, every avatar state, skipped recipients, and strings that need escapes.
final class RenderReportTests: XCTestCase {
    private func assertCompactMatchesWriter(_ rendered: RenderedEvent, _ what: String,
                                            file: StaticString = #filePath, line: UInt = #line) {
        let direct = RenderReport.json(rendered, pretty: false)
        let reference = RenderReport.writerJSON(rendered, pretty: false)
        XCTAssertEqual(String(decoding: direct, as: UTF8.self), String(decoding: reference, as: UTF8.self), what,
                       file: file, line: line)
    }

    func testTheDirectCompactWriterMatchesJSONWriterForEveryGoldenEvent() throws {
        let avatars: [AvatarState] = [
            .none,
            .ok(url: "https://example.com/a.jpeg", mime: "image/jpeg", bytes: 2048, sha256: String(repeating: "ab", count: 32)),
            .dropped(url: "https://example.com/a.jpeg", reason: "timeout \"after\" 2 s\n"),
        ]
        for name in try GoldenPayloadTests.caseNames() {
            var rendered = try GoldenPayloadTests.render(name)
            assertCompactMatchesWriter(rendered, name)
            for avatar in avatars {
                rendered.avatar = avatar
                rendered.persona.sender.avatarURL = avatar.forwardedURL
                assertCompactMatchesWriter(rendered, "\(name) with \(avatar)")
            }
        }
    }

    func testTheDirectCompactWriterEscapesEveryStringItWrites() throws {
        var rendered = try GoldenPayloadTests.render("seed-chat-sdk")
        let awkward = "q\"b\\s/c\u{1}n\nt\té👋"
        rendered.eventID = awkward
        rendered.requests[0].token = awkward
        rendered.requests[0].origin = "https://h\"ost"
        rendered.requests[0].path = "/p\\ath\u{7F}"
        rendered.requests[0].headers.append(ProviderRequest.Header("x-\"name", awkward))
        rendered.skipped = [
            SkippedRecipient(recipientIndex: 0, platform: .apns, token: awkward, reason: "self"),
            SkippedRecipient(recipientIndex: 3, platform: .fcm, token: "t", reason: awkward),
        ]
        rendered.persona.conversationID = awkward
        rendered.persona.groupName = nil
        rendered.persona.content = awkward
        rendered.persona.sender.displayName = awkward
        rendered.persona.me.id = awkward
        rendered.avatar = .unchecked(url: awkward)
        assertCompactMatchesWriter(rendered, "awkward strings")
        rendered.requests = []
        rendered.skipped = []
        assertCompactMatchesWriter(rendered, "nothing to send")
    }
}
