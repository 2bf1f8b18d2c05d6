import HTTP2Client
import APNsHTTP2
import APNsSimulator
import FCMClient
import Foundation
import PayloadBuilder

/// Measures FCM sending through `FCMClient` (OAuth access token from the
/// service account's token endpoint, HTTP/2 pool) against an FCM server on
/// loopback; with `fcm-simulator`, serves the strict FCM simulator in its
/// own process, so its CPU per message can be read from `/proc` apart from
/// the client's.
enum FCMBenchmark {
    static let projectID = "pushgw-bench"

    /// `pushgw-bench fcm --origin URL --ca-file CA --service-account FILE [...]`.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let values = options(arguments, allowed: ["--origin", "--ca-file", "--service-account", "--connections",
                                                         "--concurrency", "--batch", "--seconds"]),
              let origin = values["--origin"], let caFile = values["--ca-file"], let accountFile = values["--service-account"],
              let connections = Int(values["--connections"] ?? "1"), connections > 0,
              let concurrency = Int(values["--concurrency"] ?? "4"), concurrency > 0,
              let batch = Int(values["--batch"] ?? "50"), batch > 0,
              let seconds = Double(values["--seconds"] ?? "3"), seconds > 0, seconds <= 600 else {
            return usage("bad or missing options")
        }
        do {
            let account = try ServiceAccount(json: String(contentsOfFile: accountFile, encoding: .utf8))
            let client = try FCMClient(serviceAccount: account, baseURL: origin, tls: TLSConfiguration(caFile: caFile),
                                       tokenEndpoint: TokenEndpointConfiguration(caFile: caFile), connections: connections)
            let requests = try renderRequests(projectID: account.projectID, origin: origin, count: 500)
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
                            for outcome in await client.send(messages) {
                                switch outcome {
                                case .success(.accepted): counts.accepted += 1
                                case .success(.rejected): counts.rejected += 1
                                case .failure: counts.failed += 1
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
            client.shutdown()
            let completed = totals.accepted + totals.rejected + totals.failed
            let rate = Double(completed) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            print("fcm: \(Int(rate)) messages/s (\(completed) completed: \(totals.accepted) accepted, \(totals.rejected) rejected, \(totals.failed) failed; \(connections) connection(s), \(concurrency) senders × batches of \(batch))")
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench fcm: \(error)\n".utf8))
            return 1
        }
    }

    /// `pushgw-bench fcm-simulator --dir DIR`: serves a strict FCM simulator
    /// (messages not recorded) with a throwaway service account, writes
    /// `DIR/ca.pem`, `DIR/service-account.json` and `DIR/origin`, and runs
    /// until the process is killed.
    static func serveSimulator(_ arguments: [String]) -> Int32 {
        guard let values = options(arguments, allowed: ["--dir"]), let directory = values["--dir"] else {
            return usage("fcm-simulator needs --dir DIR")
        }
        do {
            let account = try ThrowawayServiceAccount(projectID: projectID)
            var configuration = FCMSimulatorConfiguration(projectID: projectID, serviceAccounts: [account.registration])
            configuration.recordsMessages = false
            let simulator = try FCMSimulator(configuration: configuration)
            try simulator.start()
            try simulator.writeCA(to: directory + "/ca.pem")
            try account.json(tokenURI: simulator.tokenURI).write(toFile: directory + "/service-account.json", atomically: true,
                                                                  encoding: .utf8)
            try simulator.url.write(toFile: directory + "/origin", atomically: true, encoding: .utf8)
            while true { sleep(3600) }
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench fcm-simulator: \(error)\n".utf8))
            return 1
        }
    }

    /// The seed event rendered for `count` distinct FCM devices.
    static func renderRequests(projectID: String, origin: String, count: Int) throws -> [ProviderRequest] {
        try RenderBenchmark.renderedRequests(app: AppProfile(name: "bench", fcm: FCMTarget(projectID: projectID, baseURL: origin)),
                                             platform: .fcm, count: count)
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
        pushgw-bench fcm: \(problem)
        usage: pushgw-bench fcm-simulator --dir DIR
               pushgw-bench fcm --origin https://127.0.0.1:PORT --ca-file CA.pem --service-account FILE
                   [--connections N] [--concurrency C] [--batch B] [--seconds S]

        """.utf8))
        return 2
    }
}
