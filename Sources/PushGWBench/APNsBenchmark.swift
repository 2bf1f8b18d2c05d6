import HTTP2Client
import EventLoops
import OpenSSLCrypto
import APNsHTTP2
import Foundation
import PayloadBuilder
import Synchronization

/// Measures APNs sending throughput: rendered notifications sent through
/// `APNsClient` (pool of HTTP/2 connections, provider token, response
/// classification) to an HTTP/2 server on loopback, with C sends in flight.
enum APNsBenchmark {
    struct Options {
        var origin = ""
        var caFile: String?
        var keyFile: String?
        var keyID = "ABC123DEFG"
        var teamID = "DEF123GHIJ"
        var topic = "com.example.pushgw"
        var connections = 1
        /// Event-loop threads for the connections; 0: the pool's own (one per two connections).
        var loops = 0
        var concurrency = 4
        var batch = 50
        var seconds = 3.0
        var count = 1_000_000
    }

    static func run(_ arguments: [String]) async -> Int32 {
        var options = Options()
        var index = 0
        while index + 1 < arguments.count {
            let value = arguments[index + 1]
            switch arguments[index] {
            case "--origin": options.origin = value
            case "--ca-file": options.caFile = value
            case "--key-file": options.keyFile = value
            case "--key-id": options.keyID = value
            case "--team-id": options.teamID = value
            case "--topic": options.topic = value
            case "--connections": options.connections = Int(value) ?? 0
            case "--loops": options.loops = Int(value) ?? -1
            case "--concurrency": options.concurrency = Int(value) ?? 0
            case "--batch": options.batch = Int(value) ?? 0
            case "--seconds": options.seconds = Double(value) ?? 0
            case "--count": options.count = Int(value) ?? 0
            default: return usage("unknown option \(arguments[index])")
            }
            index += 2
        }
        guard index == arguments.count, !options.origin.isEmpty, options.connections > 0, (0...64).contains(options.loops),
              options.concurrency > 0, options.batch > 0, options.seconds > 0, options.seconds <= 600, options.count > 0 else {
            return usage("bad or missing options")
        }
        do {
            let key = try options.keyFile.map { try ES256SigningKey(pem: String(contentsOfFile: $0, encoding: .utf8)) }
                ?? ES256SigningKey.generate()
            let tokens = try ProviderTokenCache(keyID: options.keyID, teamID: options.teamID, signingKey: key)
            let loops = try (0..<options.loops).map { _ throws(EventLoopError) in try EventLoop(name: "pushgw-bench-loop") }
            defer { for loop in loops { loop.retire() } }
            let client = try APNsClient(origin: options.origin, tls: TLSConfiguration(caFile: options.caFile), tokens: tokens,
                                        connections: options.connections, loops: loops.isEmpty ? nil : loops,
                                        now: { Int64(Date().timeIntervalSince1970) })
            let requests = try renderRequests(topic: options.topic, origin: options.origin, count: 500)
            let result = await measure(client: client, requests: requests, options: options)
            client.shutdown()
            let rate = Double(result.completed) / result.seconds
            print("apns: \(Int(rate)) notifications/s (\(result.completed) completed: \(result.accepted) accepted, \(result.rejected) rejected, \(result.failed) failed; \(options.connections) connection(s), \(options.concurrency) senders × batches of \(options.batch))")
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench apns: \(error)\n".utf8))
            return 1
        }
    }

    struct Result {
        var completed = 0, accepted = 0, rejected = 0, failed = 0
        var seconds = 0.0
    }

    private static func measure(client: APNsClient, requests: [ProviderRequest], options: Options) async -> Result {
        let issued = IssuedCounter()
        // The batches a sender can send (the same requests, from each start):
        // made before the clock starts, so the sender's loop measures the
        // client, not copies of rendered requests into a new array per batch.
        var batches: [Int: [ProviderRequest]] = [:]
        for worker in 0..<options.concurrency {
            var first = worker * options.batch % requests.count
            while batches[first] == nil {
                batches[first] = (0..<options.batch).map { requests[(first + $0) % requests.count] }
                first = (first + options.batch * options.concurrency) % requests.count
            }
        }
        let prepared = batches
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(Int(options.seconds * 1000))
        let totals = await withTaskGroup(of: Result.self) { group in
            for worker in 0..<options.concurrency {
                group.addTask {
                    var local = Result()
                    var next = worker * options.batch % requests.count
                    while clock.now < deadline, issued.next(options.batch) <= options.count {
                        let batch = prepared[next]!
                        next = (next + options.batch * options.concurrency) % requests.count
                        for outcome in await client.send(batch) {
                            switch outcome {
                            case .success(.accepted): local.accepted += 1
                            case .success(.rejected): local.rejected += 1
                            case .failure: local.failed += 1
                            }
                            local.completed += 1
                        }
                    }
                    return local
                }
            }
            var sum = Result()
            for await part in group {
                sum.completed += part.completed
                sum.accepted += part.accepted
                sum.rejected += part.rejected
                sum.failed += part.failed
            }
            return sum
        }
        let elapsed = clock.now - start
        var result = totals
        result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return result
    }

    /// The seed event rendered for `count` distinct APNs devices.
    static func renderRequests(topic: String, origin: String, count: Int) throws -> [ProviderRequest] {
        try RenderBenchmark.renderedRequests(app: AppProfile(name: "bench", apns: APNsTarget(topic: topic, baseURL: origin)),
                                             platform: .apns, count: count)
    }

    /// Prints the APNs payload of the seed event, exactly as the apns
    /// benchmark sends it, so peer clients can send the same bytes.
    static func printPayload() -> Int32 {
        do {
            let request = try renderRequests(topic: "com.example.pushgw", origin: "https://127.0.0.1", count: 1)[0]
            FileHandle.standardOutput.write(Data(request.body))
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench payload: \(error)\n".utf8))
            return 1
        }
    }

    /// Prints one APNs provider token (JWT) signed with the given key, so a
    /// peer client (h2load) can send the same authorized requests.
    static func printProviderToken(_ arguments: [String]) -> Int32 {
        var values: [String: String] = [:]
        var index = 0
        while index + 1 < arguments.count {
            values[arguments[index]] = arguments[index + 1]
            index += 2
        }
        guard let keyFile = values["--key-file"], let keyID = values["--key-id"], let teamID = values["--team-id"] else {
            return usage("jwt needs --key-file, --key-id and --team-id")
        }
        do {
            let key = try ES256SigningKey(pem: String(contentsOfFile: keyFile, encoding: .utf8))
            let token = try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: Int64(Date().timeIntervalSince1970),
                                              signingKey: key)
            print(token.jwt)
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench jwt: \(error)\n".utf8))
            return 1
        }
    }

    private static func usage(_ problem: String) -> Int32 {
        FileHandle.standardError.write(Data("""
        pushgw-bench apns: \(problem)
        usage: pushgw-bench apns --origin https://127.0.0.1:PORT [--ca-file CA.pem] [--key-file key.p8]
               [--key-id K] [--team-id T] [--topic TOPIC] [--connections N] [--loops L] [--concurrency C] [--batch B]
               [--seconds S] [--count N]

        """.utf8))
        return 2
    }
}

/// Counts sends issued across the benchmark's tasks.
final class IssuedCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// Claims `count` more sends; returns the total claimed so far.
    func next(_ count: Int) -> Int {
        value.add(count, ordering: .relaxed).newValue
    }
}
