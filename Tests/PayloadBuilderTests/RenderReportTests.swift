@testable import PayloadBuilder
import XCTest

/// The compact `/v1/render` answer has its own direct writer; it must give
/// exactly the bytes of the report written member by member with `JSONWriter`
/// (`ReportReference`), for every golden
/// event, every avatar state, skipped recipients, and strings that need escapes.
final class RenderReportTests: XCTestCase {
    private func assertCompactMatchesWriter(_ rendered: RenderedEvent, _ what: String,
                                            file: StaticString = #filePath, line: UInt = #line) {
        let direct = RenderReport.json(rendered, pretty: false)
        let reference = ReportReference.json(rendered)
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

    /// The report writes the renderer's header names at their usual places,
    /// and the values `application/json` and `alert`, as literals; any other
    /// name or value, and any header moved, renamed, dropped or added, is
    /// escaped, giving the reference's bytes either way.
    func testHeadersUsualOrNotMatchTheJSONWriterPath() throws {
        let seed = try GoldenPayloadTests.render("seed-chat-sdk")
        let names = ["content-type", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-id",
                     "apns-collapse-id", "Content-Type", "apns-topic ", "apns-i", "", "q\"\u{1}é", "x-extra"]
        let values = ["application/json", "alert", "Alert", "application/json ", "", "10", "q\"\\\u{1}\né👋",
                      String(repeating: "v", count: 40)]
        for requestIndex in seed.requests.indices {
            let usual = seed.requests[requestIndex].headers
            // Every name and every value at every place.
            for place in usual.indices {
                for name in names {
                    var rendered = seed
                    rendered.requests[requestIndex].headers[place].name = name
                    assertCompactMatchesWriter(rendered, "request \(requestIndex) header \(place) named \(name.debugDescription)")
                }
                for value in values {
                    var rendered = seed
                    rendered.requests[requestIndex].headers[place].value = value
                    assertCompactMatchesWriter(rendered, "request \(requestIndex) header \(place) = \(value.debugDescription)")
                }
            }
            // The usual headers moved: reversed, one dropped, one added before them, all gone.
            let moved: [[ProviderRequest.Header]] = [
                usual.reversed(), Array(usual.dropFirst()), [ProviderRequest.Header("x-extra", "alert")] + usual, [],
                usual + usual,
            ]
            for headers in moved {
                var rendered = seed
                rendered.requests[requestIndex].headers = headers
                assertCompactMatchesWriter(rendered, "request \(requestIndex) headers \(headers.map(\.name))")
            }
            // The other platform's headers under this platform.
            var swapped = seed
            swapped.requests[requestIndex].platform = seed.requests[requestIndex].platform == .fcm ? .apns : .fcm
            assertCompactMatchesWriter(swapped, "request \(requestIndex) with the other platform")
        }
    }

    /// The providers' usual origins are written as literals after a compare;
    /// every origin, usual or not, under either platform, matches the
    /// reference.
    func testOriginsUsualOrNotMatchTheJSONWriterPath() throws {
        let seed = try GoldenPayloadTests.render("seed-chat-sdk")
        let origins = [APNsTarget.production, APNsTarget.sandbox, FCMTarget.production,
                       String(decoding: Array(APNsTarget.production.utf8), as: UTF8.self),
                       APNsTarget.production + "/", "https://api.push.apple.co", "", "https://h\"o\\st\u{1}é"]
        for requestIndex in seed.requests.indices {
            for platform in [Platform.apns, .fcm] {
                for origin in origins {
                    var rendered = seed
                    rendered.requests[requestIndex].platform = platform
                    rendered.requests[requestIndex].origin = origin
                    assertCompactMatchesWriter(rendered, "\(platform) request \(requestIndex) from \(origin.debugDescription)")
                }
            }
        }
    }

    /// The avatar's URL is copied from the persona's when they are equal;
    /// equal or not, escaped or not, in every avatar state, the bytes are
    /// the reference's.
    func testTheAvatarURLMatchesTheJSONWriterPathWhetherOrNotItIsTheSenders() throws {
        let seed = try GoldenPayloadTests.render("seed-chat-sdk")
        let urls = ["https://example.com/a.jpeg", "https://example.com/a.jpe", "https://ex\"am\\ple\u{1}.com/é👋", "",
                    seed.persona.sender.avatarURL ?? "none"]
        for senderURL in urls.map(Optional.some) + [nil] {
            for url in urls {
                let states: [AvatarState] = [
                    .unchecked(url: url), .ok(url: url, mime: "image/jpeg", bytes: 10, sha256: "ab"),
                    .dropped(url: url, reason: "too \"big\""), .none,
                ]
                for state in states {
                    var rendered = seed
                    rendered.persona.sender.avatarURL = senderURL
                    rendered.persona.me.avatarURL = url
                    rendered.avatar = state
                    assertCompactMatchesWriter(rendered, "sender \(senderURL.debugDescription), \(state)")
                }
            }
        }
    }
}
