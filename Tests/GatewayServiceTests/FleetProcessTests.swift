import APNsSimulator
import Foundation
import GatewayService
import PayloadBuilder
import PushGWSync
import RedisClient
import TestSupport
import XCTest

/// A fleet of `pushgw serve` processes on a real `redis-server`: a replica
/// killed with SIGKILL in the middle of async traffic loses no event, and a
/// Redis restarted under sync traffic is refused with 503 and then served
/// again by every replica, none restarted.
final class FleetProcessTests: XCTestCase {
    /// Devices per event; the batch one replica takes at once (`QueueWorker.Settings.batch`).
    private static let devicesPerEvent = 2
    private static let batch = 32

    private static func tokens(of event: Int) -> [String] {
        (0..<devicesPerEvent).map { ServiceTestbed.token(event * devicesPerEvent + $0 + 1) }
    }

    func testAReplicaKilledInTheMiddleOfAsyncTrafficLosesNoEvent() async throws {
        let fleet = try await ProcessFleet(self, replicas: 3)
        defer { fleet.stop() }
        let store = try redisConnection(fleet.redis.url)
        // Each send takes a while, so that replica 0 is killed holding events it has not acknowledged.
        fleet.apns.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(50)))
        let count = 200
        let survivors = [fleet.url(1), fleet.url(2)]
        // Replica 0 takes no POST (it is killed while they go on) but consumes the queue with the others.
        async let firstHalf = Self.post(0..<(count / 2), to: survivors)
        let victim = fleet.replicas[0].pid
        try await waitUntil("replica 0 holds events it has not acknowledged", within: .seconds(30), every: .milliseconds(2)) {
            await Self.pending(on: store, heldBy: victim) > 0
        }
        XCTAssertEqual(fleet.kill(0), 128 + SIGKILL)
        var refused = try await firstHalf
        refused += try await Self.post((count / 2)..<count, to: survivors)
        XCTAssertEqual(refused, [], "every event is queued")

        var done = Set<Int>()
        var failed: [String] = []
        var bodies: [Int: String] = [:]
        try await waitUntil("every event is done on a surviving replica", within: .seconds(120), every: .milliseconds(200)) {
            for event in 0..<count where !done.contains(event) {
                let answer = try await ServiceTestbed.call(fleet.url(1 + event % 2), "GET", "/v1/events/k-\(event)")
                let status = answer.status == 200 ? try JSONParser.parse(answer.body)["status"] : nil
                if status == .string("queued") || status == nil { return false }
                bodies[event] = String(decoding: answer.body, as: UTF8.self)
                if status != .string("done") { failed.append("k-\(event): \(String(decoding: answer.body, as: UTF8.self))") }
                done.insert(event)
            }
            return true
        }
        XCTAssertEqual(failed, [], "every event ends done")

        let notifications = fleet.apns.statistics.notifications
        var sends: [String: [String]] = [:]
        for notification in notifications { sends[notification.deviceToken, default: []].append(notification.apnsID) }
        let expected = (0..<count).flatMap(Self.tokens(of:))
        let missing = expected.filter { sends[$0] == nil }
        XCTAssertEqual(missing, [], "every device of every event reached the provider: "
            + (0..<count).filter { Self.tokens(of: $0).contains { sends[$0] == nil } }.prefix(3).map { bodies[$0] ?? "" }.joined(separator: "\n"))
        XCTAssertEqual(Set(sends.keys), Set(expected), "no other device")
        let duplicates = notifications.count - sends.count
        let resentWithAnotherID = sends.filter { Set($0.value).count > 1 }.map(\.key)
        XCTAssertEqual(resentWithAnotherID, [], "a notification sent again carries the same apns-id")
        // The dedup record keeps every device settled from being sent again: only
        // what the killed replica had sent without recording it yet (at most one
        // batch of events) may be sent twice.
        XCTAssertLessThanOrEqual(duplicates, Self.batch * Self.devicesPerEvent, "duplicates")
        var reclaimed = 0.0
        for replica in [1, 2] { reclaimed += try await fleet.counter("pushgw_queue_reclaimed_total", on: replica) }
        XCTAssertGreaterThan(reclaimed, 0, "the killed replica's events were taken over")
        print("FleetProcessTests: \(count) events, \(expected.count) devices, \(notifications.count) accepted by APNs, "
            + "\(duplicates) sent twice, \(Int(reclaimed)) events taken over from the killed replica")
    }

    /// Events of the default app's queue taken by the replica with process id `pid` and not acknowledged
    /// (its consumer name is `HOST-PID-RANDOM`).
    private static func pending(on store: RedisConnection, heldBy pid: Int32) async -> Int {
        guard let summary = await store.reply("XPENDING", "pushgw:{default}:events", "pushgw")?.array, summary.count == 4,
              let consumers = summary[3].array else { return 0 }
        for consumer in consumers {
            guard let pair = consumer.array, pair.count == 2, pair[0].string?.contains("-\(pid)-") == true else { continue }
            return Int(pair[1].string ?? "") ?? 0
        }
        return 0
    }

    /// POSTs events `range` in async mode, spread over `urls`, four at a time; those not queued (202).
    private static func post(_ range: Range<Int>, to urls: [String]) async throws -> [String] {
        let lanes = 4
        return try await withThrowingTaskGroup(of: [String].self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    var refused: [String] = []
                    for event in range where event % lanes == lane {
                        let body = ServiceTestbed.event(id: "k-\(event)", tokens: Self.tokens(of: event))
                        let answer = try await ServiceTestbed.call(urls[event % urls.count], "POST", "/v1/notify?mode=async", body: body)
                        if answer.status != 202 { refused.append("k-\(event): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))") }
                    }
                    return refused
                }
            }
            return try await group.reduce([], +)
        }
    }

    func testARedisRestartedUnderSyncTrafficIsRefusedThenServedAgain() async throws {
        let fleet = try await ProcessFleet(self, replicas: 2)
        let state = TrafficState()
        let urls = fleet.ports.map { "http://127.0.0.1:\($0)" }
        // Past the deadline with a margin for a loaded machine: an answer later than this is a hang.
        let timeout = TimeInterval(ProcessFleet.deadlineSeconds + 6)
        async let traffic: Void = Self.syncTraffic(to: urls, lanes: 4, timeout: timeout, state)
        try await waitUntil("sync traffic is served", within: .seconds(30)) { state.tally.withLock { $0.outcomes["200", default: 0] } >= 20 }
        try fleet.redis.restart()
        let before = state.tally.withLock { $0.total }
        for replica in 0..<2 {
            try await waitUntil("replica \(replica) serves 200 again after the restart", within: .seconds(30), every: .milliseconds(50)) {
                let answer = try await FleetTestbed.notify(urls[replica], FleetTestbed.event("after-\(replica):\(UUID().uuidString)"))
                return answer.status == 200
            }
        }
        state.stopped.withLock { $0 = true }
        await traffic
        let outcomes = state.tally.withLock { $0.outcomes }
        XCTAssertEqual(outcomes.keys.filter { $0 != "200" && $0 != "503 store_unavailable" }, [],
                       "every answer is 200 or 503 store_unavailable, in time: \(outcomes)")
        XCTAssertGreaterThan(state.tally.withLock { $0.total }, before, "traffic ran on past the restart")
        for replica in 0..<2 {
            XCTAssertTrue(fleet.replicas[replica].isRunning, "replica \(replica) still runs: \(fleet.log(replica).suffix(2000))")
            let readiness = try await ServiceTestbed.call(urls[replica], "GET", "/readyz", bearer: nil)
            XCTAssertEqual(readiness.status, 200, String(decoding: readiness.body, as: UTF8.self))
        }
        fleet.stop()
        print("FleetProcessTests: Redis restarted under sync traffic: \(outcomes)")
    }

    /// `lanes` of sync traffic spread over `urls`.
    private static func syncTraffic(to urls: [String], lanes: Int, timeout: TimeInterval, _ state: TrafficState) async {
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                let url = urls[lane % urls.count]
                group.addTask { await syncTraffic(lane: lane, to: url, timeout: timeout, state) }
            }
        }
    }

    /// Sync notifies of new events to `url`, one at a time, until `state.stopped` (at most 2,000), each answer counted.
    private static func syncTraffic(lane: Int, to url: String, timeout: TimeInterval, _ state: TrafficState) async {
        for request in 0..<2_000 where !state.stopped.withLock({ $0 }) {
            let body = FleetTestbed.event("restart-\(lane):\(request)")
            let outcome: String
            do {
                let answer = try await ServiceTestbed.call(url, "POST", "/v1/notify", body: body, timeout: timeout)
                let code = answer.status == 200 ? nil : try? JSONParser.parse(answer.body)["error"]?["code"]
                switch (answer.status, code) {
                case (200, _): outcome = "200"
                case (503, .string("store_unavailable")?): outcome = "503 store_unavailable"
                default: outcome = "\(answer.status) \(String(decoding: answer.body, as: UTF8.self))"
                }
            } catch {
                outcome = "no answer: \(error)"
            }
            state.tally.withLock { $0.count(outcome) }
        }
    }
}

/// The traffic's answers, and whether it should stop.
private final class TrafficState: Sendable {
    let tally = Locked(Tally())
    let stopped = Locked(false)
}

/// The answers of the traffic, by outcome.
private struct Tally {
    var outcomes: [String: Int] = [:]
    var total = 0

    mutating func count(_ outcome: String) {
        outcomes[outcome, default: 0] += 1
        total += 1
    }
}
