/// The samples of a Prometheus text exposition, for tests that read values
/// back from a scrape: series (`name{labels}`, as written) → value.
enum ExpositionSamples {
    static func parse(_ exposition: [UInt8]) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in String(decoding: exposition, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
