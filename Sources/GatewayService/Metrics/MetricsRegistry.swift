import Synchronization
import PushGWSync

/// The gateway's Prometheus metrics: counters and gauges with bounded label
/// sets (provider, status, route, reason — never a token or a URL) and
/// latency histograms in seconds, rendered in text exposition format 0.0.4.
///
/// Thread-safe: one mutex around plain dictionaries; updates are a hash and
/// an add, far cheaper than the provider round trip they measure.
public final class MetricsRegistry: Sendable {
    /// A metric's name, help and type, declared once.
    public struct Family: Sendable, Hashable {
        public let name: String
        public let help: String
        public let type: String

        public init(_ name: String, _ help: String, type: String) {
            self.name = name
            self.help = help
            self.type = type
        }
    }

    private struct Histogram {
        var buckets: [Int]
        var sum = 0.0
        var count = 0
    }

    private struct Storage {
        var values: [Family: [[String]: Double]] = [:]
        var histograms: [Family: [[String]: Histogram]] = [:]
        var labelNames: [Family: [String]] = [:]
    }

    /// Upper bounds of the latency buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private let storage = Locked(Storage())

    public init() {}

    /// Declares a family with its label names, so it is exported even before
    /// its first sample.
    public func declare(_ family: Family, labels: [String]) {
        storage.withLock { storage in
            storage.labelNames[family] = labels
            if family.type == "histogram" {
                if storage.histograms[family] == nil { storage.histograms[family] = [:] }
            } else if storage.values[family] == nil {
                storage.values[family] = [:]
            }
        }
    }

    public func increment(_ family: Family, _ labels: [String] = [], by amount: Double = 1) {
        storage.withLock { $0.values[family, default: [:]][labels, default: 0] += amount }
    }

    public func set(_ family: Family, _ labels: [String] = [], to value: Double) {
        storage.withLock { $0.values[family, default: [:]][labels] = value }
    }

    public func observe(_ family: Family, _ labels: [String] = [], seconds: Double) {
        storage.withLock { storage in
            var histogram = storage.histograms[family, default: [:]][labels]
                ?? Histogram(buckets: Array(repeating: 0, count: Self.latencyBuckets.count))
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound {
                histogram.buckets[index] += 1
            }
            histogram.sum += seconds
            histogram.count += 1
            storage.histograms[family, default: [:]][labels] = histogram
        }
    }

    /// The value of one counter or gauge series (tests, readiness).
    public func value(_ family: Family, _ labels: [String] = []) -> Double {
        storage.withLock { $0.values[family]?[labels] ?? 0 }
    }

    /// The whole registry in Prometheus text format 0.0.4.
    public func exposition() -> String {
        storage.withLock { storage in
            var lines: [String] = []
            let families = Set(storage.values.keys).union(storage.histograms.keys).sorted { $0.name < $1.name }
            for family in families {
                let names = storage.labelNames[family] ?? []
                lines.append("# HELP \(family.name) \(family.help)")
                lines.append("# TYPE \(family.name) \(family.type)")
                if let series = storage.histograms[family] {
                    for (labels, histogram) in series.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                        for (index, bound) in Self.latencyBuckets.enumerated() {
                            lines.append("\(family.name)_bucket\(Self.render(names + ["le"], labels + [Self.format(bound)])) \(histogram.buckets[index])")
                        }
                        lines.append("\(family.name)_bucket\(Self.render(names + ["le"], labels + ["+Inf"])) \(histogram.count)")
                        lines.append("\(family.name)_sum\(Self.render(names, labels)) \(Self.format(histogram.sum))")
                        lines.append("\(family.name)_count\(Self.render(names, labels)) \(histogram.count)")
                    }
                } else if let series = storage.values[family] {
                    for (labels, value) in series.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                        lines.append("\(family.name)\(Self.render(names, labels)) \(Self.format(value))")
                    }
                }
            }
            return lines.joined(separator: "\n") + "\n"
        }
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
