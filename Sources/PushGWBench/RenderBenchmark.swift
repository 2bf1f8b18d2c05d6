import Foundation
import PayloadBuilder

/// Measures rendering throughput: the seed chat SDK event (a group, an empty
/// video message, an avatar, badge 3, locale vi) for N distinct devices of
/// one platform per event, on one thread, for a bounded time (or a fixed
/// number of iterations, for instruction counts under callgrind); then the
/// whole `/v1/render` work on the seed event file as it is.
enum RenderBenchmark {
    /// How long each figure runs: wall-clock seconds, or a fixed count of
    /// iterations (events) after the warm-up.
    enum Budget {
        case seconds(Double)
        case iterations(Int)
    }

    static func run(_ arguments: [String]) -> Int32 {
        var seconds = 3.0
        var iterations: Int?
        var recipients = 100
        var only: String?
        var eventPath: String?
        var valid = true
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--seconds": seconds = Double(value) ?? -1
            case "--iterations": iterations = Int(value) ?? -1
            case "--recipients": recipients = Int(value) ?? -1
            case "--only": only = value
            case "--event": eventPath = value
            default: valid = false
            }
            index += 2
        }
        valid = valid && seconds > 0 && seconds <= 600 && (1...500).contains(recipients)
            && (iterations ?? 1) >= 1 && [nil, "fcm", "apns", "request"].contains(only)
        guard valid else {
            FileHandle.standardError.write(Data("""
            pushgw-bench render: --seconds in (0, 600] or --iterations N >= 1, --recipients in 1...500,
              --only fcm|apns|request, --event PATH (default: fixtures/payloads/seed-chat-sdk.event.json)

            """.utf8))
            return 2
        }
        let budget = iterations.map(Budget.iterations) ?? .seconds(seconds)
        let config = RenderConfig.demo()
        for platform in [Platform.fcm, .apns] where only == nil || only == platform.rawValue {
            let body = eventBody(platform: platform, recipients: recipients)
            let rate = measure(budget: budget) {
                let (event, app) = try EventDecoder(config: config).decode(body)
                return (event, app)
            } render: { event, app in
                try EventRenderer(config: config)
                    .render(event, app: app, avatar: AvatarState(unresolvedURL: event.sender.avatarURL), now: 1_767_225_600)
            }
            print("render \(platform.rawValue): \(Int(rate.renderOnly)) recipients/s")
            print("decode+render \(platform.rawValue): \(Int(rate.withDecode)) recipients/s")
        }
        if only == nil || only == "request" {
            guard let rate = measureRequest(budget: budget, config: config, eventPath: eventPath) else { return 1 }
            print("request (decode+render+report, seed event): \(Int(rate)) events/s")
        }
        switch budget {
        case let .seconds(seconds): print("(\(recipients) devices per event, \(seconds) s per figure, one thread)")
        case let .iterations(count): print("(\(recipients) devices per event, \(count) events per figure, one thread)")
        }
        return 0
    }

    /// Runs `render` on one pre-decoded event, then `decode` + `render` on the
    /// raw body, each for `seconds`; returns recipients per second.
    private static func measure(
        budget: Budget,
        decode: () throws -> (Event, AppProfile),
        render: (Event, AppProfile) throws -> RenderedEvent
    ) -> (renderOnly: Double, withDecode: Double) {
        do {
            let (event, app) = try decode()
            var sink = 0
            let renderOnly = try timed(budget) {
                let rendered = try render(event, app)
                sink &+= rendered.requests.reduce(0) { $0 &+ $1.body.count }
                return rendered.requests.count
            }
            let withDecode = try timed(budget) {
                let (event, app) = try decode()
                let rendered = try render(event, app)
                sink &+= rendered.requests.reduce(0) { $0 &+ $1.body.count }
                return rendered.requests.count
            }
            // Keeps the optimizer from dropping the rendering.
            if sink == 42 { print("") }
            return (renderOnly, withDecode)
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench: \(error)\n".utf8))
            return (0, 0)
        }
    }

    /// Runs `body` (which returns how many units it did) for the budget;
    /// returns units per second.
    static func timed(_ budget: Budget, _ body: () throws -> Int) rethrows -> Double {
        let clock = ContinuousClock()
        // Warm-up, not counted.
        for _ in 0..<20 { _ = try body() }
        let start = clock.now
        var count = 0
        switch budget {
        case let .seconds(seconds):
            let deadline = start + .milliseconds(Int(seconds * 1000))
            while clock.now < deadline { count += try body() }
        case let .iterations(iterations):
            for _ in 0..<iterations { count += try body() }
        }
        let elapsed = clock.now - start
        let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(count) / elapsedSeconds
    }

    /// The seed event rendered for `count` distinct devices of `platform`,
    /// as `app` sends them (the sending benchmarks' requests).
    static func renderedRequests(app: AppProfile, platform: Platform, count: Int) throws -> [ProviderRequest] {
        let config = try RenderConfig(apps: [app])
        let (event, resolved) = try EventDecoder(config: config).decode(eventBody(platform: platform, recipients: count))
        return try EventRenderer(config: config)
            .render(event, app: resolved, avatar: AvatarState(unresolvedURL: event.sender.avatarURL),
                    now: Int64(Date().timeIntervalSince1970)).requests
    }

    /// The seed event with `recipients` distinct devices of one platform.
    static func eventBody(platform: Platform, recipients: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("conversation")
        writer.beginObject()
        writer.member("id", "37791233165968")
        writer.member("title", "🎧 Zalo - Tran Nghia")
        writer.endObject()
        writer.key("message")
        writer.beginObject()
        writer.member("id", "537")
        writer.member("text", "")
        writer.member("kind", "video")
        writer.endObject()
        writer.key("sender")
        writer.beginObject()
        writer.member("id", "6872016393687471")
        writer.member("display_name", "Nghĩa")
        writer.member("avatar_url", "https://thumb-i-1.piscale.com/64x64/smart/100001/c1cb0279-8286-40b8-9082-66f8593316c2/IMG_6546.jpeg")
        writer.endObject()
        writer.key("recipients")
        writer.beginArray()
        for index in 0..<recipients {
            writer.beginObject()
            writer.member("platform", platform.rawValue)
            let suffix = String(index, radix: 16)
            switch platform {
            case .fcm, .fcmWeb:
                writer.member("token", "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1" + String(repeating: "0", count: 7 - suffix.count) + suffix)
            case .apns:
                writer.member("token", String(repeating: "0", count: 64 - suffix.count) + suffix)
            case .webpush:
                preconditionFailure("the render benchmark sends to tokens, not web push subscriptions")
            }
            writer.member("badge", 3)
            writer.member("locale", "vi")
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
