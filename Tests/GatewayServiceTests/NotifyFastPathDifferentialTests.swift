@testable import GatewayService
import PayloadBuilder
import XCTest

/// The notify path's shortcuts against the general rules they replace:
/// the device fingerprint without the digest's array, the record merged by
/// scanning instead of through a dictionary, the histogram counted in one
/// bucket and added up when read, the dedup key written in one allocation,
/// the record packed straight into the log, the sending deadline's
/// duration worked out once.
final class NotifyFastPathDifferentialTests: XCTestCase {
    /// The fingerprint as it was defined: the first 16 bytes of the SHA-256
    /// digest array, APNs tokens lowercased.
    private static func fingerprintByDigest(_ platform: Platform, _ token: String) -> DeviceFingerprint {
        let digest = platform == .apns && token.utf8.contains(where: { $0 >= 65 && $0 <= 90 })
            ? SHA256.digest(token.lowercased().utf8) : SHA256.digest(token.utf8)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(digest[index])
            low = low << 8 | UInt64(digest[index + 8])
        }
        return DeviceFingerprint(high: high, low: low)
    }

    private static let tokens: [String] = {
        var tokens = ["", "a", "ABCDEF0123456789", String(repeating: "a1B2", count: 16), "é-ü-👍", "fcm:token_with-symbols/+="]
        // Lengths around the block and padding boundaries (55, 56, 63, 64, 119, 120, ...).
        for length in [54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 163, 4096] {
            tokens.append(String((0..<length).map { "0123456789abcdefABCDEF"[String.Index(utf16Offset: $0 % 22, in: "0123456789abcdefABCDEF")] }))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let length = Int.random(in: 0...300, using: &generator)
            tokens.append(String(decoding: (0..<length).map { _ in UInt8.random(in: 0x20...0x7e, using: &generator) }, as: UTF8.self))
        }
        return tokens
    }()

    func testFingerprintAgreesWithTheDigestRule() {
        for token in Self.tokens {
            for platform in Platform.allCases {
                XCTAssertEqual(DeviceFingerprint(platform: platform, token: token), Self.fingerprintByDigest(platform, token),
                               "\(platform) \(token)")
            }
        }
        // A bridged or substring-made token (not native UTF-8 storage) too.
        let sliced = String("xx" + Self.tokens[3] + "yy").dropFirst(2).dropLast(2)
        XCTAssertEqual(DeviceFingerprint(platform: .apns, token: String(sliced)), Self.fingerprintByDigest(.apns, String(sliced)))
    }

    func testMergingByScanAgreesWithMergingByIndex() {
        let statuses: [RecipientResult.Status] = [.sent, .failed, .invalidToken, .skipped]
        let pool = ["t1", "t2", "T1", "t3"]
        var generator = SystemRandomNumberGenerator()
        func randomResults(_ count: Int) -> [RecipientResult] {
            (0..<count).map { index in
                RecipientResult(platform: Platform.allCases.randomElement(using: &generator)!, token: pool.randomElement(using: &generator)!,
                                status: statuses.randomElement(using: &generator)!, providerID: "p\(index)",
                                reason: Bool.random(using: &generator) ? "r\(index)" : nil,
                                retryable: [nil, true, false].randomElement(using: &generator)!)
            }
        }
        for _ in 0..<2_000 {
            // Recorded events as merging builds them, and some with a device twice (as a store could hand back).
            var recorded: RecordedEvent? = Bool.random(using: &generator) ? nil
                : RecordedEvent.mergingByIndex(nil, randomResults(Int.random(in: 0...4, using: &generator)))
            if var withTwin = recorded, let first = withTwin.results.first, Bool.random(using: &generator) {
                withTwin.results.append(RecordedResult(platform: first.platform, device: first.device, status: .failed, reason: "twin"))
                recorded = withTwin
            }
            let results = randomResults(Int.random(in: 0...5, using: &generator))
            let devices = Bool.random(using: &generator)
                ? results.map { RecordedDevice(Recipient(platform: $0.platform, token: $0.token)) } : nil
            XCTAssertEqual(RecordedEvent.mergingByScan(recorded, results, devices: devices),
                           RecordedEvent.mergingByIndex(recorded, results, devices: devices))
            XCTAssertEqual(RecordedEvent.merging(recorded, results, devices: devices),
                           RecordedEvent.mergingByIndex(recorded, results, devices: devices))
        }
    }

    func testHistogramCountsAgreeWithCountingEveryBucket() {
        let registry = MetricsRegistry()
        let series = registry.series(MetricsRegistry.Family("d_seconds", "A test histogram.", type: "histogram"), ["fcm"])
        var values: [Double] = [0, -1, .nan, .infinity, 31, 30, 0.001, 0.0010001]
        values += MetricsRegistry.latencyBuckets
        for _ in 0..<500 { values.append(Double.random(in: 0...40)) }
        for value in values { series.observe(seconds: value) }
        let (buckets, count, _) = series.histogramSnapshot()
        XCTAssertEqual(buckets, MetricsRegistry.latencyBuckets.map { bound in values.filter { $0 <= bound }.count })
        XCTAssertEqual(count, values.count)
    }

    /// A scrape that lands between an observation's bucket update and its
    /// count update still gives a count (`+Inf`) no lower than any bucket,
    /// as Prometheus' format requires.
    func testAHistogramScrapeBetweenTheTwoUpdatesKeepsTheCountAboveTheBuckets() {
        let registry = MetricsRegistry()
        let series = registry.series(MetricsRegistry.Family("e_seconds", "A test histogram.", type: "histogram"), ["fcm"])
        series.observe(seconds: 0.5)
        series.buckets[0].value.add(1, ordering: .relaxed)  // observe's first half, for a value in the first bucket
        let (buckets, count, _) = series.histogramSnapshot()
        XCTAssertEqual(buckets.last, 2)
        XCTAssertEqual(count, 2)
    }

    private static func randomText(_ generator: inout SystemRandomNumberGenerator) -> String {
        let pieces = ["a", "Z", "0", ":", "\u{0}", "é", "👍", "-", "room", "x"]
        return (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    func testTheDedupKeyIsTheInterpolatedOne() {
        var generator = SystemRandomNumberGenerator()
        var hashes: [UInt64] = [0, 1, 0xf, 0x10, 0xff, 0x1234, UInt64.max, 1 << 63, (1 << 60) - 1, 1 << 60]
        for _ in 0..<300 { hashes.append(UInt64.random(in: 0...UInt64.max, using: &generator) >> UInt64.random(in: 0...63, using: &generator)) }
        for hash in hashes {
            let app = Self.randomText(&generator)
            let eventID = Self.randomText(&generator)
            XCTAssertEqual(DedupKey.joined(app: app, eventID: eventID, hash: hash),
                           "\(app)\u{0}\(eventID)\u{0}\(String(hash, radix: 16))", "\(hash)")
        }
    }

    func testARecordPackedIntoTheLogIsTheRecordPackedApart() {
        var generator = SystemRandomNumberGenerator()
        let statuses: [RecipientResult.Status] = [.sent, .failed, .invalidToken, .skipped]
        let now = ContinuousClock.now
        var direct = DedupLog(chunkSize: 512)
        var apart = DedupLog(chunkSize: 512)
        for round in 0..<500 {
            let results = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                RecordedResult(platform: Platform.allCases.randomElement(using: &generator)!,
                               device: DeviceFingerprint(high: .random(in: 0...UInt64.max, using: &generator), low: 7),
                               status: statuses.randomElement(using: &generator)!,
                               providerID: Bool.random(using: &generator) ? Self.randomText(&generator) : nil,
                               reason: Bool.random(using: &generator) ? Self.randomText(&generator) : nil,
                               retryable: [nil, true, false].randomElement(using: &generator)!,
                               invalidSince: Bool.random(using: &generator) ? .random(in: Int64.min...Int64.max, using: &generator) : nil)
            }
            let event = RecordedEvent(results: results)
            let key = Self.randomText(&generator) + String(round)
            var packed: [UInt8] = []
            PackedRecordedEvent.append(key: key, event: event, to: &packed)
            XCTAssertEqual(PackedRecordedEvent.size(key: key, event: event), packed.count)
            let hash = UInt64(round % 97)
            direct.append(hash, key: key, event: event, expires: now + .seconds(60))
            apart.append(hash, packed: packed, expires: now + .seconds(60))
            XCTAssertEqual(direct.lookup(hash, now: now).map(Array.init), packed)
            direct.sweep(now: now, capacity: 50)
            apart.sweep(now: now, capacity: 50)
            XCTAssertEqual(direct.count, apart.count)
            XCTAssertEqual(direct.records, apart.records)
        }
    }

    /// The last attempt ends a tenth of the request deadline before it, at
    /// most 250 ms before: worked out once per dispatcher, checked here
    /// against the rule's values.
    func testTheSendingDeadlineLeavesATenthOfTheDeadlineAtMost250Milliseconds() throws {
        let expected: [(deadline: Duration, sending: Duration)] = [
            (.seconds(30), .milliseconds(29_750)), (.seconds(1), .milliseconds(900)), (.milliseconds(2_400), .milliseconds(2_160)),
            (.milliseconds(2_600), .milliseconds(2_350)), (.zero, .zero), (.seconds(86_400), .seconds(86_400) - .milliseconds(250)),
        ]
        for (deadline, sending) in expected {
            var settings = Dispatcher.Settings()
            settings.requestDeadline = deadline
            let dispatcher = Dispatcher(config: try RenderConfig(apps: [AppProfile(name: "demo")]), senders: [:], avatars: UncheckedAvatars(),
                                        metrics: GatewayMetrics(),
                                        settings: settings)
            XCTAssertEqual(dispatcher.sendingTime, sending, "\(deadline)")
        }
    }

    func testTheSeriesFoundByPositionAreTheRegistrysOwn() {
        let registry = MetricsRegistry()
        let series = DispatcherSeries(registry, providers: ["apns"])
        for outcome in DispatcherSeries.Outcome.allCases {
            XCTAssertTrue(series.events(outcome) === registry.series(GatewayMetrics.events, [outcome.rawValue]), "\(outcome)")
        }
        for platform in Platform.allCases {
            for status in RecipientResult.Status.allCases {
                XCTAssertTrue(series.notifications(platform, status)
                    === registry.series(GatewayMetrics.notifications, [platform.rawValue, status.rawValue]), "\(platform) \(status)")
            }
        }
    }

    func testMergedAnswersAreTheGeneralRulesOnes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let count = Int.random(in: 0...6, using: &generator)
            var answered = [RecipientResult?](repeating: nil, count: count)
            var delivered: [Int: RecipientResult] = [:]
            for index in 0..<count {
                let result = RecipientResult(platform: Platform.allCases.randomElement(using: &generator)!, token: "t\(index)",
                                             status: .sent, providerID: "p\(Int.random(in: 0...9, using: &generator))")
                if Bool.random(using: &generator) { answered[index] = result } else { delivered[index] = result }
                // Sometimes a position is answered and delivered both: the delivered result wins.
                if answered[index] != nil, Int.random(in: 0..<4, using: &generator) == 0 {
                    delivered[index] = RecipientResult(platform: .fcm, token: "d\(index)", status: .failed, reason: "r", retryable: true)
                }
            }
            var rule = answered
            for (index, result) in delivered { rule[index] = result }
            XCTAssertEqual(Dispatcher.merged(answered, delivered), rule.map { $0! })
        }
    }
}
