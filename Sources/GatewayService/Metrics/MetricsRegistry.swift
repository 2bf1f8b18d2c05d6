import Synchronization
import PushGWSync

/// The gateway's Prometheus metrics: counters and gauges with bounded label
/// sets (provider, status, route, reason — never a token or a URL) and
/// latency histograms in seconds, rendered in text exposition format 0.0.4.
///
/// Thread-safe. Each series is a `MetricSeries` of atomics: the mutex only
/// guards finding a series by family and labels, and hot paths keep the
/// series they update (`series(_:_:)`) and never take it.
public final class MetricsRegistry: Sendable {
    /// A metric's name, help and type, declared once; known by its name.
    public struct Family: Sendable, Hashable {
        public let name: String
        public let help: String
        public let type: String

        public init(_ name: String, _ help: String, type: String) {
            self.name = name
            self.help = help
            self.type = type
        }

        public static func == (lhs: Family, rhs: Family) -> Bool { lhs.name == rhs.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }

    private struct Key: Hashable {
        let family: String
        let labels: [String]
    }

    private struct Storage {
        var series: [Key: MetricSeries] = [:]
        /// Declared families and their label names, in declaration order.
        var families: [Family: [String]] = [:]
    }

    /// Upper bounds of the latency buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private let storage = Locked(Storage())

    public init() {}

    /// Declares a family with its label names, so it is exported even before
    /// its first sample.
    public func declare(_ family: Family, labels: [String]) {
        storage.withLock { $0.families[family] = labels }
    }

    /// The series of `family` with `labels`, created on first use: keep it to
    /// update it without looking it up again.
    public func series(_ family: Family, _ labels: [String] = []) -> MetricSeries {
        storage.withLock { storage in
            let key = Key(family: family.name, labels: labels)
            if let series = storage.series[key] { return series }
            if storage.families[family] == nil { storage.families[family] = [] }
            let series = MetricSeries(family: family, labels: labels, histogram: family.type == "histogram")
            storage.series[key] = series
            return series
        }
    }

    public func increment(_ family: Family, _ labels: [String] = [], by amount: Double = 1) {
        series(family, labels).add(amount)
    }

    public func set(_ family: Family, _ labels: [String] = [], to value: Double) {
        series(family, labels).set(value)
    }

    public func observe(_ family: Family, _ labels: [String] = [], seconds: Double) {
        series(family, labels).observe(seconds: seconds)
    }

    /// The value of one counter or gauge series (tests, readiness).
    public func value(_ family: Family, _ labels: [String] = []) -> Double {
        storage.withLock { $0.series[Key(family: family.name, labels: labels)]?.value ?? 0 }
    }

    /// The whole registry in Prometheus text format 0.0.4.
    public func exposition() -> String {
        let (families, series) = storage.withLock { ($0.families, Array($0.series.values)) }
        let byFamily = Dictionary(grouping: series, by: \.family.name)
        var lines: [String] = []
        for (family, names) in families.sorted(by: { $0.key.name < $1.key.name }) {
            lines.append("# HELP \(family.name) \(family.help)")
            lines.append("# TYPE \(family.name) \(family.type)")
            let members = (byFamily[family.name] ?? []).sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
            for member in members {
                if family.type == "histogram" {
                    let (buckets, count, sum) = member.histogramSnapshot()
                    for (index, bound) in Self.latencyBuckets.enumerated() {
                        lines.append("\(family.name)_bucket\(Self.render(names + ["le"], member.labels + [Self.format(bound)])) \(buckets[index])")
                    }
                    lines.append("\(family.name)_bucket\(Self.render(names + ["le"], member.labels + ["+Inf"])) \(count)")
                    lines.append("\(family.name)_sum\(Self.render(names, member.labels)) \(Self.format(sum))")
                    lines.append("\(family.name)_count\(Self.render(names, member.labels)) \(count)")
                } else {
                    lines.append("\(family.name)\(Self.render(names, member.labels)) \(Self.format(member.value))")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func render(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { name, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            return "\(name)=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded(.towardZero), value.magnitude < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// One series of a family (one set of label values): a counter or gauge
/// value, or a latency histogram, updated with atomics from any thread.
public final class MetricSeries: Sendable {
    let family: MetricsRegistry.Family
    let labels: [String]
    /// The counter or gauge value, or the histogram's sum, as `Double` bits.
    private let bits = Atomic<UInt64>(0.0.bitPattern)
    private let count = Atomic<Int>(0)
    /// Per bucket, not cumulative (internal: a test sets the state a scrape
    /// can meet between `observe`'s two updates).
    let buckets: [BucketCount]

    /// One histogram bucket's count (an `Atomic` cannot sit in an array).
    final class BucketCount: Sendable {
        let value = Atomic<Int>(0)
    }

    init(family: MetricsRegistry.Family, labels: [String], histogram: Bool) {
        self.family = family
        self.labels = labels
        buckets = histogram ? MetricsRegistry.latencyBuckets.map { _ in BucketCount() } : []
    }

    /// Adds `amount` (negative for a gauge going down).
    public func add(_ amount: Double) {
        var current = bits.load(ordering: .relaxed)
        while true {
            let (exchanged, original) = bits.compareExchange(expected: current, desired: (Double(bitPattern: current) + amount).bitPattern,
                                                             ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    public func set(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    /// Counts one latency in the histogram: in the first bucket whose bound
    /// holds it (one atomic update, not one per bucket), none past the last;
    /// `histogramSnapshot` adds them up into Prometheus' cumulative counts.
    public func observe(seconds: Double) {
        if let index = MetricsRegistry.latencyBuckets.firstIndex(where: { seconds <= $0 }) {
            buckets[index].value.add(1, ordering: .relaxed)
        }
        count.add(1, ordering: .relaxed)
        add(seconds)
    }

    /// The counter or gauge value.
    public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }

    /// Cumulative bucket counts, count and sum of a histogram.
    /// A scrape between `observe`'s bucket and count updates would see a
    /// bucket above the count (`+Inf`), which Prometheus' format forbids:
    /// the count given is never below the buckets' total (an observation
    /// seen in a bucket has happened; the next scrape counts it anyway).
    func histogramSnapshot() -> (buckets: [Int], count: Int, sum: Double) {
        var total = 0
        let cumulative = buckets.map { bucket in
            total += bucket.value.load(ordering: .relaxed)
            return total
        }
        return (cumulative, max(count.load(ordering: .relaxed), total), value)
    }
}

/// The series of one single-label family, found by that label without
/// building a key of the family and a label array on each update: for hot
/// paths whose label is only known at the call (an avatar result, say). The
/// labels stay whatever bounded set the caller passes: a few short words,
/// found by comparing them in turn (cheaper than hashing one).
public final class SeriesByLabel: Sendable {
    private let registry: MetricsRegistry
    private let family: MetricsRegistry.Family
    private let known = Locked<[(label: String, series: MetricSeries)]>([])

    public init(_ registry: MetricsRegistry, _ family: MetricsRegistry.Family) {
        self.registry = registry
        self.family = family
    }

    /// The series of `label`, created in the registry on first use.
    public func series(_ label: String) -> MetricSeries {
        if let series = known.withLock({ $0.first { $0.label == label }?.series }) { return series }
        let series = registry.series(family, [label])
        known.withLock { known in
            if !known.contains(where: { $0.label == label }) { known.append((label, series)) }
        }
        return series
    }
}
