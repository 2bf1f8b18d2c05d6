@testable import PayloadBuilder
import XCTest

/// `EventRenderer.renderReport` writes the `/v1/render` answer while it
/// renders, without making the requests; it must give exactly the bytes of
/// `RenderReport.json(render(…), pretty: false)` (and the same error), for
/// every golden event and avatar state, skipped recipients, awkward strings
/// in every field the report copies, custom origins, and shortened text.
final class ReportOutputTests: XCTestCase {
    private static let now: Int64 = 1_767_225_600

    private func assertReportMatchesRender(_ event: Event, app: AppProfile, config: RenderConfig, avatar: AvatarState,
                                           _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let renderer = EventRenderer(config: config)
        let reference = Result { () throws(EventError) -> [UInt8] in
            RenderReport.json(try renderer.render(event, app: app, avatar: avatar, now: Self.now), pretty: false)
        }
        let direct = Result { () throws(EventError) -> [UInt8] in
            try renderer.renderReport(event, app: app, avatar: avatar, now: Self.now)
        }
        switch (direct, reference) {
        case let (.success(direct), .success(reference)):
            // Bytes, not strings: String == is canonical equivalence and would hide a byte difference.
            XCTAssertTrue(direct == reference, "\(what): \(String(decoding: direct, as: UTF8.self)) "
                          + "against \(String(decoding: reference, as: UTF8.self))", file: file, line: line)
        case let (.failure(direct), .failure(reference)):
            XCTAssertEqual(direct, reference, what, file: file, line: line)
        default:
            XCTFail("\(what): renderReport gives \(direct), render \(reference)", file: file, line: line)
        }
    }

    private func baseEvent(config: RenderConfig = EventFixture.demo) throws -> (Event, AppProfile) {
        try EventDecoder(config: config).decode(EventFixture.eventBytes())
    }

    func testEveryGoldenEventInEveryAvatarState() throws {
        let url = "https://example.com/a.jpeg"
        for name in try GoldenPayloadTests.caseNames() {
            let (event, app, config) = try GoldenPayloadTests.decoded(name)
            let avatars: [AvatarState] = [
                AvatarState(unresolvedURL: event.sender.avatarURL), .none, .unchecked(url: url),
                .ok(url: url, mime: "image/jpeg", bytes: 2048, sha256: String(repeating: "ab", count: 32)),
                .dropped(url: url, reason: "timeout \"after\" 2 s\n"),
            ]
            for avatar in avatars {
                assertReportMatchesRender(event, app: app, config: config, avatar: avatar, "\(name) with \(avatar)")
            }
        }
    }

    /// The app given by its index (`decodeIndexed`), written into reused
    /// memory or not, gives the answer the app given as a value gives, for
    /// every golden event: into nothing, into memory too small (grown),
    /// into memory large enough holding other bytes, and into an array
    /// shared with another value (which must keep its bytes).
    func testTheAppByIndexIntoReusedMemoryGivesTheSameAnswerAsTheAppByValue() throws {
        var reusedInPlace = 0
        for name in try GoldenPayloadTests.caseNames() {
            let (body, config) = try GoldenPayloadTests.input(name)
            let (event, appIndex) = try EventDecoder(config: config).decodeIndexed(body)
            let (_, app) = try EventDecoder(config: config).decode(body)
            let renderer = EventRenderer(config: config)
            let avatar = AvatarState(unresolvedURL: event.sender.avatarURL)
            let reference = try renderer.renderReport(event, app: app, avatar: avatar, now: Self.now)
            let shared = [UInt8](repeating: 0x41, count: 20_000)
            let storages: [(String, [UInt8])] = [("none", []), ("too small", [1, 2, 3]), ("shared", shared)]
            for (what, storage) in storages {
                let answer = try renderer.renderReport(event, appIndex: appIndex, avatar: avatar, now: Self.now, reusing: storage)
                XCTAssertTrue(answer == reference, "\(name), \(what): \(String(decoding: answer, as: UTF8.self))")
            }
            XCTAssertEqual(shared, [UInt8](repeating: 0x41, count: 20_000), "a shared array keeps its bytes")
            // Memory of its own, large and dirty, handed over (consumed): the
            // answer is written over the old bytes, in place (the array above
            // still held by `storages` was always copied).
            var large: [UInt8] = Array(repeating: 0x5A, count: 300)
            large.reserveCapacity(64 * 1024)
            large.append(contentsOf: [UInt8](repeating: 0x7B, count: 60 * 1024))
            let address = large.withUnsafeBufferPointer { $0.baseAddress }
            let capacity = large.capacity
            let answer = try renderer.renderReport(event, appIndex: appIndex, avatar: avatar, now: Self.now, reusing: consume large)
            XCTAssertTrue(answer == reference, "\(name), large: \(String(decoding: answer, as: UTF8.self))")
            // The same address alone could be malloc handing back the freed
            // block; the capacity kept is the memory's own.
            if answer.withUnsafeBufferPointer({ $0.baseAddress }) == address, answer.capacity >= capacity { reusedInPlace += 1 }
        }
        XCTAssertGreaterThan(reusedInPlace, 10, "most answers were written into the memory handed over")
    }

    /// An answer larger than its room (moved to memory of its own) is the
    /// same when written into reused memory.
    func testALargeAnswerIntoReusedMemoryIsTheSame() throws {
        let (base, app) = try baseEvent()
        var event = base
        // Each request near the 4 KiB payload limit: past the 2 KiB per
        // device the answer's room is made for.
        event.message.text = String(repeating: "a long text ", count: 400)
        let renderer = EventRenderer(config: EventFixture.demo)
        let avatar = AvatarState(unresolvedURL: event.sender.avatarURL)
        let reference = try renderer.renderReport(event, app: app, avatar: avatar, now: Self.now)
        var storage = [UInt8](repeating: 0x7B, count: 100)
        storage.reserveCapacity(12 * 1024)
        let answer = try renderer.renderReport(event, appIndex: 0, avatar: avatar, now: Self.now, reusing: consume storage)
        XCTAssertGreaterThan(reference.count, ReportOutput.estimatedCount(recipients: event.recipients.count), "moved")
        XCTAssertTrue(answer == reference)
    }

    /// Strings that need escapes (or are not ASCII, or are empty) in every
    /// field the report writes: event id, tokens (also in the APNs path and
    /// the FCM body), topic, project, origins, persona and avatar.
    func testAwkwardStringsInEveryFieldTheReportWrites() throws {
        let (base, _) = try baseEvent()
        let awkward = ["", "plain", "q\"uote", "back\\slash", "new\nline\t\u{1}", "Nghĩa 🎧", "/slash\u{7F}",
                       String(repeating: "long\"", count: 300)]
        for text in awkward {
            let apps = [
                AppProfile(name: "chat", apns: APNsTarget(topic: text, baseURL: "https://h\"o\\st/" + text),
                           fcm: FCMTarget(projectID: text, baseURL: "https://" + text)),
                AppProfile(name: "chat", apns: APNsTarget(topic: "com.example", baseURL: APNsTarget.sandbox),
                           fcm: FCMTarget(projectID: "p")),
            ]
            for app in apps {
                let config = EventFixture.demo  // the app is passed as it is, unchecked
                var event = base
                event.eventID = text.isEmpty ? "e" : text
                event.recipients[0].token = text
                event.recipients[1].token = text + "x"
                event.recipients[1].userID = nil
                event.conversation.id = text
                event.sender.displayName = text.isEmpty ? "n" : text
                event.message.text = text
                assertReportMatchesRender(event, app: app, config: config, avatar: .unchecked(url: "https://a/" + text),
                                          "awkward \(text.prefix(20).debugDescription)")
            }
        }
    }

    /// The targets' escaped forms (made when set) follow every change of
    /// topic, origin and project: the answer after each change is the
    /// reference answer, with awkward strings and the production origins.
    func testTargetsChangedAfterTheyAreMadeAreWrittenAsChanged() throws {
        let (event, _) = try baseEvent()
        var apns = APNsTarget(topic: "com.example")
        var fcm = FCMTarget(projectID: "p")
        for text in ["q\"uote", "back\\slash/", "Nghĩa 🎧\u{1}", "plain"] {
            apns.topic = text
            apns.baseURL = "https://h\"" + text
            fcm.projectID = text
            fcm.baseURL = "https://f\\" + text
            assertReportMatchesRender(event, app: AppProfile(name: "chat", apns: apns, fcm: fcm), config: EventFixture.demo,
                                      avatar: .none, "changed to \(text.debugDescription)")
        }
        apns.baseURL = APNsTarget.production
        fcm.baseURL = FCMTarget.production
        assertReportMatchesRender(event, app: AppProfile(name: "chat", apns: apns, fcm: fcm), config: EventFixture.demo,
                                  avatar: .none, "production origins")
    }

    /// The persona is written from the strings the plan escaped: groups or
    /// not, with content or not (a text message with no text), a title that
    /// is the group's or overrides it (also one canonically equivalent but
    /// not the same bytes), awkward names and ids, with and without avatar.
    func testThePersonaInEveryShape() throws {
        let (base, app) = try baseEvent()
        let names = ["Nghĩa", "q\"uote\\ \u{1}", "n"]
        for group in [nil, "🎧 Zalo", "Cafe\u{301}", "g\"r\noup"] as [String?] {
            for title in [nil, group, "Café", "t\"itle"] as [String?] {
                for text in ["", "Hello", "  "] {
                    for kind in [MessageKind.text, .video] {
                        for name in names {
                            var event = base
                            event.conversation.title = group
                            event.conversation.id = name == "n" ? "c1" : name
                            event.notification.title = title
                            event.message.text = text
                            event.message.kind = kind
                            event.sender.displayName = name
                            event.sender.id = name == "n" ? "s1" : "s\"1"
                            for avatar in [AvatarState.none, .unchecked(url: "https://a/\"b")] {
                                assertReportMatchesRender(event, app: app, config: EventFixture.demo, avatar: avatar,
                                                          "group \(group.debugDescription) title \(title.debugDescription) "
                                                          + "text \(text.debugDescription) \(kind) \(name.debugDescription)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// Recipients skipped for every reason, among sent ones, with and without
    /// a badge, in several languages, and many of them (more than the
    /// answer's first buffer holds).
    func testSkippedRecipientsBadgesLanguagesAndManyDevices() throws {
        let (base, app) = try baseEvent()
        var event = base
        event.message.text = ""
        event.message.kind = .video
        var recipients: [Recipient] = []
        for index in 0..<60 {
            let platform: Platform = index % 2 == 0 ? .fcm : .apns
            recipients.append(Recipient(platform: platform, token: "token-\(index)", badge: index % 3 == 0 ? nil : index,
                                        locale: ["vi", "fr", nil, "de-DE"][index % 4],
                                        userID: index % 7 == 0 ? event.sender.id : "u\(index)"))
        }
        event.recipients = recipients
        assertReportMatchesRender(event, app: app, config: EventFixture.demo, avatar: .none, "sixty devices")
        let noFCM = AppProfile(name: app.name, apns: app.apns, fcm: nil, dataKeys: app.dataKeys)
        assertReportMatchesRender(event, app: noFCM, config: EventFixture.demo, avatar: .none, "no FCM credentials")
        let selfSender = try RenderConfig(apps: [app], selfSenderIDs: [event.sender.id])
        assertReportMatchesRender(event, app: app, config: selfSender, avatar: .none, "a self-sender: all skipped")
    }

    /// Text shortened to fit, an avatar dropped because it cannot fit, and
    /// an event that cannot fit at all (the same error).
    func testShortenedTextADroppedAvatarAndAnEventThatCannotFit() throws {
        let (base, app) = try baseEvent()
        var long = base
        long.message.text = String(repeating: "Tiếng Việt 👋 ", count: 400)
        assertReportMatchesRender(long, app: app, config: EventFixture.demo, avatar: .unchecked(url: "https://a/b"),
                                  "shortened text")
        var hugeAvatar = base
        hugeAvatar.sender.displayName = String(repeating: "n", count: 1_500)
        let url = "https://example.com/" + String(repeating: "a", count: 2_000)
        assertReportMatchesRender(hugeAvatar, app: app, config: EventFixture.demo, avatar: .unchecked(url: url),
                                  "an avatar that cannot fit")
        var tooLarge = base
        tooLarge.data = [DataEntry("big", String(repeating: "d", count: 5_000))]
        assertReportMatchesRender(tooLarge, app: app, config: EventFixture.demo, avatar: .none, "an event that cannot fit")
    }

    /// The avatar-retry path at its hardest: the first attempt (with the
    /// avatar) writes 30 requests, outgrowing the borrowed buffer, before a
    /// last device's template cannot fit; the second attempt starts over
    /// without the avatar. Sender names are tried until one fits FCM with the
    /// avatar and APNs without it (or the other way round).
    func testARetryAfterTheFirstAttemptOutgrewItsBufferStartsOver() throws {
        let app = AppProfile(name: "demo", apns: APNsTarget(topic: "com.example"), fcm: FCMTarget(projectID: "p"))
        let config = try RenderConfig(apps: [app])
        let renderer = EventRenderer(config: config)
        let url = "https://example.com/" + String(repeating: "a", count: 1200)
        let apnsToken = String(repeating: "ab", count: 32)
        func event(nameLength: Int, _ recipients: [Recipient]) -> Event {
            Event(eventID: "e1", conversation: Conversation(id: "c1", title: nil), message: Message(id: "m1", text: "hi"),
                  sender: Sender(id: "s1", displayName: String(repeating: "n", count: nameLength), avatarURL: url),
                  recipients: recipients)
        }
        func keepsAvatar(_ platform: Platform, nameLength: Int) -> Bool? {
            let token = platform == .fcm ? "t" : apnsToken
            guard let rendered = try? renderer.render(event(nameLength: nameLength, [Recipient(platform: platform, token: token)]),
                                                      app: app, avatar: .unchecked(url: url), now: Self.now) else { return nil }
            if case .unchecked = rendered.avatar { return true }
            return false
        }
        var found = 0
        for nameLength in 100..<2500 where found < 3 {
            guard let fcmKeeps = keepsAvatar(.fcm, nameLength: nameLength), let apnsKeeps = keepsAvatar(.apns, nameLength: nameLength),
                  fcmKeeps != apnsKeeps else { continue }
            found += 1
            let first: Platform = fcmKeeps ? .fcm : .apns
            var recipients = (0..<30).map { index in
                Recipient(platform: first, token: first == .fcm ? "token-\(index)" : String(repeating: String(format: "%02x", index), count: 32))
            }
            recipients.append(Recipient(platform: first == .fcm ? .apns : .fcm, token: first == .fcm ? apnsToken : "last"))
            let retried = event(nameLength: nameLength, recipients)
            assertReportMatchesRender(retried, app: app, config: config, avatar: .unchecked(url: url), "name of \(nameLength)")
            let answer = try renderer.renderReport(retried, app: app, avatar: .unchecked(url: url), now: Self.now)
            // The first attempt's 30 requests alone outgrow the buffer sized for 31 devices.
            let firstAttempt = try renderer.renderReport(event(nameLength: nameLength, Array(recipients.prefix(30))), app: app,
                                                         avatar: .unchecked(url: url), now: Self.now)
            XCTAssertFalse(String(decoding: firstAttempt, as: UTF8.self).contains(#""state":"dropped""#), "it keeps the avatar")
            XCTAssertGreaterThan(firstAttempt.count, ReportOutput.estimatedCount(recipients: recipients.count))
            XCTAssertTrue(String(decoding: answer, as: UTF8.self).contains(#""state":"dropped""#), "the retry dropped the avatar")
        }
        XCTAssertGreaterThan(found, 0, "no sender name fits one platform with the avatar and not the other")
    }

    /// Answers just under, at and over the size the buffer is estimated
    /// for, for 0, 1 and 2 devices: the same bytes either side.
    func testAnswersAroundTheEstimatedSizeMatch() throws {
        let app = AppProfile(name: "demo", apns: APNsTarget(topic: "com.example"), fcm: FCMTarget(projectID: "p"))
        let config = try RenderConfig(apps: [app])
        let renderer = EventRenderer(config: config)
        var sides = Set<Bool>()
        for devices in 0...2 {
            for extra in stride(from: 0, to: 2600, by: 7) {
                let recipients = (0..<devices).map { index in
                    Recipient(platform: index % 2 == 0 ? .fcm : .apns, token: index % 2 == 0 ? "t\(index)" : String(repeating: "ab", count: 32))
                }
                let event = Event(eventID: "e", conversation: Conversation(id: "c"), message: Message(id: "m", text: "hi"),
                                  sender: Sender(id: "s", displayName: "S" + String(repeating: "x", count: extra / 3)),
                                  recipients: recipients, data: [DataEntry("k", String(repeating: "\"", count: extra % 3))])
                let avatar = AvatarState.unchecked(url: "https://a/" + String(repeating: "u", count: extra))
                assertReportMatchesRender(event, app: app, config: config, avatar: avatar, "\(devices) devices, \(extra)")
                if let answer = try? renderer.renderReport(event, app: app, avatar: avatar, now: Self.now) {
                    sides.insert(answer.count > ReportOutput.estimatedCount(recipients: devices))
                }
            }
        }
        XCTAssertEqual(sides, [true, false], "answers on both sides of the estimate")
    }
}
