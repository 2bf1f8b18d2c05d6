import XCTest
import PayloadBuilder

/// The data map is assembled per event around its `text` entry (whose value
/// can change with the language and shortening); whatever keys an app keeps,
/// FCM `message.data` and the APNs top level carry exactly the kept keys in
/// order, then the caller's extra keys.
final class DataMapTests: XCTestCase {
    private static let standardKeys = ["title", "text", "sender_id", "sender_name", "avatar_url", "is_rtf",
                                       "ps_thread_id", "ps_message_id"]

    private func render(keeping kept: Set<String>, extras: [(String, JSONValue)]) throws -> RenderedEvent {
        let renames = Self.standardKeys.map { kept.contains($0) ? #""\#($0)": "k_\#($0)""# : #""\#($0)": null"# }
        let config = EventFixture.config("""
            {"apps": [{"name": "a", "apns": {"topic": "com.example.a"}, "fcm": {"project_id": "p"},
                       "data_keys": {\(renames.joined(separator: ", "))}}]}
            """)
        let body = EventFixture.eventBytes(EventFixture.setData(extras))
        let (event, app) = try EventDecoder(config: config).decode(body)
        return try EventRenderer(config: config)
            .render(event, app: app, avatar: AvatarState(unresolvedURL: event.sender.avatarURL), now: 1_700_000_000)
    }

    func testEveryChoiceOfKeptKeysGivesThoseKeysInOrderThenTheExtras() throws {
        let choices: [Set<String>] = [
            [], ["text"], ["title"], ["title", "text"], ["sender_id"], ["text", "ps_message_id"],
            ["title", "sender_name", "avatar_url"], Set(Self.standardKeys),
            Set(Self.standardKeys).subtracting(["text"]), Set(Self.standardKeys).subtracting(["title"]),
        ]
        let extraSets: [[(String, JSONValue)]] = [[], [("x1", .string("one")), ("x\"2", .string("t\nwo"))]]
        for kept in choices {
            for extras in extraSets {
                let rendered = try render(keeping: kept, extras: extras)
                let expected = Self.standardKeys.filter(kept.contains).map { "k_" + $0 } + extras.map(\.0)
                let what = "kept \(kept.sorted()), \(extras.count) extras"
                for request in rendered.requests {
                    let body = parseJSONOrFail(request.body)
                    switch request.platform {
                    case .fcm, .fcmWeb:
                        XCTAssertEqual(body[path: "message.data"]?.memberKeys, expected, what)
                    case .apns:
                        XCTAssertEqual(body.memberKeys, ["aps", "notifee_options"] + expected, what)
                    case .webpush:
                        XCTFail("a webpush subscription is never a request")
                    }
                }
                XCTAssertEqual(rendered.requests.count, 2, what)
            }
        }
    }
}
