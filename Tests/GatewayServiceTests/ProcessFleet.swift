import APNsSimulator
import Foundation
import GatewayService
import OpenSSLCrypto
import PayloadBuilder
import PushGWDemo
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A fleet of real `pushgw serve` processes (the binary the package builds,
/// `.build/debug/pushgw`), each on a free loopback port, sharing a real
/// `redis-server` and one set of simulators in the test process: the demo's
/// FCM simulator and an APNs simulator on the demo's key that records every
/// notification, so that what the fleet sent is counted at the provider.
/// Every replica reads the same throwaway key files and token, as replicas
/// of one deployment read the same mounted secrets.
final class ProcessFleet {
    let providers: DemoProviders
    let apns: APNsSimulator
    let redis: RedisTestServer
    let ports: [Int]
    private(set) var replicas: [ChildProcess]
    /// The request deadline the replicas run with.
    static let deadlineSeconds = 4
    private let logFolder: String

    init(_ test: XCTestCase, replicas count: Int) async throws {
        let binary = try Self.binary()
        redis = try test.makeRedis()
        providers = try DemoProviders()
        let apnsCAFile = providers.folder + "/fleet-apns-ca.pem"
        apns = try APNsSimulator.recording(for: providers, caFile: apnsCAFile)
        logFolder = providers.folder

        // This process's environment without any PUSHGW_ setting, then the fleet's.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGW_") }
        for (name, value) in providers.gatewayEnvironment { environment[name] = value }
        environment["PUSHGW_APNS_BASE_URL"] = apns.url
        environment["PUSHGW_APNS_CA_FILE"] = apnsCAFile
        environment.removeValue(forKey: "PUSHGW_BEARER_TOKENS_FILE")
        environment["PUSHGW_BEARER_TOKENS"] = ServiceTestbed.bearer
        environment["PUSHGW_REDIS_URL"] = redis.url
        environment["PUSHGW_REQUEST_DEADLINE_SECONDS"] = String(Self.deadlineSeconds)
        // Twice the deadline is used: a dead replica's events are taken over after 8 s, not 60.
        environment["PUSHGW_REDIS_QUEUE_VISIBILITY_SECONDS"] = "1"
        environment["PUSHGW_LOG_LEVEL"] = "warning"
        var ports: [Int] = []
        var processes: [ChildProcess] = []
        for index in 0..<count {
            let port = try RedisTestServer.freeLoopbackPort()
            environment["PUSHGW_LISTEN"] = "127.0.0.1:\(port)"
            processes.append(try ChildProcess(executable: binary, arguments: ["serve"], environment: environment,
                                              output: "\(logFolder)/replica-\(index).log"))
            ports.append(port)
        }
        self.ports = ports
        replicas = processes
        for index in 0..<count {
            try await waitUntil("pushgw replica \(index) is ready on the store (log: \(log(index).suffix(2000)))",
                                within: .seconds(60), every: .milliseconds(50)) {
                guard processes[index].isRunning else {
                    throw RedisTestServerError(description: "replica \(index) exited at start: \(self.log(index).suffix(2000))")
                }
                return (try? await ServiceTestbed.call(self.url(index), "GET", "/readyz", bearer: nil, timeout: 5).status) == 200
            }
        }
    }

    /// The built `pushgw`: beside the test bundle (`swift test` runs it from
    /// the build folder), else in `.build/debug` of this package.
    static func binary() throws -> String {
        var candidates: [String] = []
        if let bundle = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("pushgw").path)
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug/pushgw").path)
        guard let found = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw RedisTestServerError(description: "the pushgw binary is not built (looked at \(candidates.joined(separator: ", "))): "
                + "run `swift build --build-tests` first")
        }
        return found
    }

    func url(_ replica: Int) -> String { "http://127.0.0.1:\(ports[replica])" }

    /// What replica `index` wrote to its standard output and error.
    func log(_ index: Int) -> String {
        (try? String(contentsOfFile: "\(logFolder)/replica-\(index).log", encoding: .utf8)) ?? ""
    }

    /// Kills replica `index` with SIGKILL, as a crash or an OOM kill would; its exit code (137).
    @discardableResult
    func kill(_ index: Int) -> Int32 {
        Glibc.kill(replicas[index].pid, SIGKILL)
        return replicas[index].wait()
    }

    /// A counter of `/metrics` on `replica` (0 when absent).
    func counter(_ name: String, on replica: Int) async throws -> Double {
        let text = String(decoding: try await ServiceTestbed.call(url(replica), "GET", "/metrics", bearer: nil).body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// Stops every replica still running (SIGTERM), then the simulators.
    func stop() {
        for replica in replicas { replica.stop(signal: SIGTERM) }
        apns.stop()
        providers.stop()
    }
}
