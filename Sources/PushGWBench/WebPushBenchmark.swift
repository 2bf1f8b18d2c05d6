import APNsSimulator
import Foundation
import HTTP2Client
import OpenSSLCrypto
import PayloadBuilder
import WebPush
import WebPushClient

/// Measures direct web push sending through `WebPushSender` (each message
/// encrypted with a fresh key and salt, the origin's cached VAPID JWT,
/// one HTTP/2 connection) against the strict web push simulator, which
/// `webpush-simulator` serves in its own process, so that a peer sender
/// (pywebpush) can send to the same server in the same run.
enum WebPushBenchmark {
    /// `pushgw-bench webpush-simulator --dir DIR [--subscriptions N] [--http11 yes]`:
    /// writes `DIR/ca.pem`, `DIR/vapid.pem` (the VAPID private key),
    /// `DIR/subscriptions.json` (`PushSubscription.toJSON()` objects) and
    /// `DIR/origin`, and serves until killed. Messages are counted, not kept.
    static func serveSimulator(_ arguments: [String]) -> Int32 {
        guard let values = options(arguments, allowed: ["--dir", "--subscriptions", "--http11"]), let directory = values["--dir"],
              let count = Int(values["--subscriptions"] ?? "100"), count > 0 else {
            return usage("webpush-simulator needs --dir DIR")
        }
        do {
            let simulator = try WebPushSimulator(configuration: WebPushSimulatorConfiguration(
                servesHTTP11: values["--http11"] == "yes", maxConnections: 256, recordsMessages: false, idleTimeout: nil))
            try simulator.start()
            let key = try VAPIDKey.generate()
            try key.privateKeyPEM.write(toFile: directory + "/vapid.pem", atomically: true, encoding: .utf8)
            try simulator.writeCA(to: directory + "/ca.pem")
            var writer = JSONWriter()
            writer.beginArray()
            for _ in 0..<count {
                let subscription = try simulator.makeSubscription(applicationServerKey: key.publicKeyBase64URL)
                writer.beginObject()
                writer.member("endpoint", subscription.endpoint)
                writer.key("keys")
                writer.beginObject()
                writer.member("p256dh", subscription.p256dh)
                writer.member("auth", subscription.auth)
                writer.endObject()
                writer.endObject()
            }
            writer.endArray()
            try Data(writer.bytes).write(to: URL(fileURLWithPath: directory + "/subscriptions.json"))
            try simulator.url.write(toFile: directory + "/origin", atomically: true, encoding: .utf8)
            while true {
                sleep(1)
                let statistics = simulator.statistics
                try? "\(statistics.acceptedTotal) \(statistics.rejectedTotal)\n".write(toFile: directory + "/counts", atomically: true,
                                                                                   encoding: .utf8)
            }
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench webpush-simulator: \(error)\n".utf8))
            return 1
        }
    }

    /// `pushgw-bench webpush --dir DIR [--concurrency C] [--batch B] [--seconds S]`:
    /// sends for S seconds, C batches of B messages out at a time, and
    /// writes the plaintext it sends to `DIR/plaintext.json`.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let values = options(arguments, allowed: ["--dir", "--concurrency", "--batch", "--seconds"]),
              let directory = values["--dir"],
              let concurrency = Int(values["--concurrency"] ?? "4"), concurrency > 0,
              let batch = Int(values["--batch"] ?? "25"), batch > 0,
              let seconds = Double(values["--seconds"] ?? "3"), seconds > 0, seconds <= 600 else {
            return usage("bad or missing options")
        }
        do {
            let key = try VAPIDKey(configurationValue: String(contentsOfFile: directory + "/vapid.pem", encoding: .utf8))
            let authorizer = try VAPIDAuthorizer(key: key, subject: "mailto:bench@pushgw.invalid")
            let sender = WebPushSender(authorizer: authorizer,
                                       policy: WebPushEndpointPolicy(allowedHosts: ["127.0.0.1"], admitsAddress: nil),
                                       tls: TLSConfiguration(caFile: directory + "/ca.pem"), connections: 1)
            let requests = try webPushRequests(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/subscriptions.json"))))
            // The plaintext every message carries, for a peer sender to send the same.
            try Data(requests[0].body).write(to: URL(fileURLWithPath: directory + "/plaintext.json"))
            let clock = ContinuousClock()
            let start = clock.now
            let deadline = start + .milliseconds(Int(seconds * 1000))
            let totals = await withTaskGroup(of: (accepted: Int, rejected: Int, failed: Int).self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        var counts = (accepted: 0, rejected: 0, failed: 0)
                        var next = worker * batch
                        while clock.now < deadline {
                            let messages = (0..<batch).map { requests[(next + $0) % requests.count] }
                            next += batch * concurrency
                            for outcome in await sender.send(messages) {
                                switch outcome {
                                case .success(.accepted): counts.accepted += 1
                                case .success(.rejected), .success(.notSent): counts.rejected += 1
                                case let .failure(error):
                                    if counts.failed == 0 { FileHandle.standardError.write(Data("webpush: a send failed: \(error)\n".utf8)) }
                                    counts.failed += 1
                                }
                            }
                        }
                        return counts
                    }
                }
                var sum = (accepted: 0, rejected: 0, failed: 0)
                for await part in group {
                    sum.accepted += part.accepted
                    sum.rejected += part.rejected
                    sum.failed += part.failed
                }
                return sum
            }
            let elapsed = clock.now - start
            sender.shutdown()
            let completed = totals.accepted + totals.rejected + totals.failed
            let rate = Double(completed) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            let protocolUsed = sender.http11OriginList.isEmpty ? "HTTP/2, 1 connection" : "HTTP/1.1"
            print("webpush: \(Int(rate)) messages/s (\(completed) completed: \(totals.accepted) accepted, \(totals.rejected) rejected, "
                + "\(totals.failed) failed; \(protocolUsed), \(concurrency) senders × batches of \(batch); "
                + "\(authorizer.signatureCount) VAPID signature(s))")
            return totals.accepted == completed ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench webpush: \(error)\n".utf8))
            return 1
        }
    }

    /// The seed-like event rendered once for a browser, then one request per
    /// subscription (the plaintext is the same for every browser of an event).
    static func webPushRequests(_ subscriptionsJSON: [UInt8]) throws -> [ProviderRequest] {
        guard case let .array(items) = try JSONParser.parse(subscriptionsJSON), !items.isEmpty else {
            throw BenchError("subscriptions.json holds no subscriptions")
        }
        var subscriptions: [(endpoint: String, p256dh: String, auth: String)] = []
        for item in items {
            guard case let .string(endpoint)? = item["endpoint"], case let .string(p256dh)? = item["keys"]?["p256dh"],
                  case let .string(auth)? = item["keys"]?["auth"] else { throw BenchError("a subscription without endpoint or keys") }
            subscriptions.append((endpoint, p256dh, auth))
        }
        let config = try RenderConfig(apps: [AppProfile(name: "bench", sendsWebPush: true)])
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("conversation"); writer.beginObject(); writer.member("id", "37791233165968"); writer.member("title", "🎧 Zalo - Tran Nghia"); writer.endObject()
        writer.key("message"); writer.beginObject(); writer.member("id", "537"); writer.member("text", "Xin chào, hẹn gặp lúc 7 giờ nhé!"); writer.endObject()
        writer.key("sender"); writer.beginObject(); writer.member("id", "6872016393687471"); writer.member("display_name", "Nghĩa"); writer.endObject()
        writer.key("recipients"); writer.beginArray()
        writer.beginObject()
        writer.member("platform", "webpush")
        writer.member("endpoint", subscriptions[0].endpoint)
        writer.key("keys"); writer.beginObject(); writer.member("p256dh", subscriptions[0].p256dh); writer.member("auth", subscriptions[0].auth)
        writer.endObject()
        writer.endObject()
        writer.endArray()
        writer.endObject()
        let (event, app) = try EventDecoder(config: config).decode(writer.bytes)
        let rendered = try EventRenderer(config: config).render(event, app: app, avatar: AvatarState(unresolvedURL: nil),
                                                                now: Int64(Date().timeIntervalSince1970))
        guard let template = rendered.requests.first else { throw BenchError("the event rendered no web push request") }
        return try subscriptions.map { subscription in
            guard let p256dh = Base64URL.decode(subscription.p256dh, allowingPadding: true),
                  let auth = Base64URL.decode(subscription.auth, allowingPadding: true) else {
                throw BenchError("a subscription's keys are not base64url")
            }
            var request = template
            let split = WebPushEndpoint.originAndPath(subscription.endpoint)
            request.token = subscription.endpoint
            request.origin = split.origin
            request.path = split.path
            request.webPushKeys = WebPushKeys(p256dh: p256dh, auth: auth)
            return request
        }
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func options(_ arguments: [String], allowed: Set<String>) -> [String: String]? {
        guard arguments.count % 2 == 0 else { return nil }
        var values: [String: String] = [:]
        for index in stride(from: 0, to: arguments.count, by: 2) {
            guard allowed.contains(arguments[index]) else { return nil }
            values[arguments[index]] = arguments[index + 1]
        }
        return values
    }

    private static func usage(_ problem: String) -> Int32 {
        FileHandle.standardError.write(Data("""
        pushgw-bench webpush: \(problem)
        usage: pushgw-bench webpush-simulator --dir DIR [--subscriptions N] [--http11 yes]
               pushgw-bench webpush --dir DIR [--concurrency C] [--batch B] [--seconds S]

        """.utf8))
        return 2
    }
}
