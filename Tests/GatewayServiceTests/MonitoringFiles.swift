import Foundation

/// The monitoring files the project ships, `deploy/prometheus/alerts.yml`
/// (with its unit tests) and `deploy/grafana/pushgw.json`, read the way the
/// tests need them: each query or alert expression with where it comes from.
///
/// The YAML is read line by line, as the files are written (a `- alert:`
/// line, then its `expr:` on one line or as a `|` block), not by a general
/// YAML parser: `promtool check rules` reads the file for real, and a test
/// checks that both found the same alerts.
enum MonitoringFiles {
    static let alertsPath = RepositoryRoot.path + "/deploy/prometheus/alerts.yml"
    static let alertTestsPath = RepositoryRoot.path + "/deploy/prometheus/alerts.test.yml"
    static let dashboardPath = RepositoryRoot.path + "/deploy/grafana/pushgw.json"

    /// One PromQL expression and where it is (`alert X`, `panel "T" A`).
    struct Query {
        let origin: String
        let expr: String
    }

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// Every alert of `alerts.yml` with its expression, in file order.
    static func alerts() throws -> [Query] {
        let lines = try String(contentsOfFile: alertsPath, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var alerts: [Query] = []
        var alert: String?
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let text = line.trimmingCharacters(in: .whitespaces)
            index += 1
            if let name = value(of: "- alert:", in: text) {
                alert = name
            } else if let expr = value(of: "expr:", in: text) {
                guard let name = alert else { throw Unreadable(description: "an expr before any alert: \(line)") }
                if expr == "|" || expr == "|-" || expr == ">" || expr == ">-" {
                    // A block: the lines indented deeper than `expr:`.
                    let indent = line.prefix { $0 == " " }.count
                    var block: [Substring] = []
                    while index < lines.count,
                          lines[index].trimmingCharacters(in: .whitespaces).isEmpty || lines[index].prefix(while: { $0 == " " }).count > indent {
                        block.append(lines[index])
                        index += 1
                    }
                    alerts.append(Query(origin: "alert \(name)", expr: block.joined(separator: "\n")))
                } else {
                    alerts.append(Query(origin: "alert \(name)", expr: expr))
                }
                alert = nil
            }
        }
        return alerts
    }

    /// Per alert name, the results its unit tests expect: true for a case
    /// where it fires (`exp_alerts:` with items), false for one where it
    /// does not (`exp_alerts: []`).
    static func alertTestCases() throws -> [String: [Bool]] {
        var cases: [String: [Bool]] = [:]
        var alert: String?
        for line in try String(contentsOfFile: alertTestsPath, encoding: .utf8).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if let name = value(of: "alertname:", in: text) {
                alert = name
            } else if let expected = value(of: "exp_alerts:", in: text), let name = alert {
                cases[name, default: []].append(expected != "[]")
                alert = nil
            }
        }
        return cases
    }

    /// Every panel query of the dashboard (rows' panels included) and every
    /// query of its template variables, as written (Grafana variables in).
    static func dashboardQueries() throws -> [Query] {
        let dashboard = try dashboardJSON()
        var queries: [Query] = []
        func visit(_ panels: [[String: Any]]) {
            for panel in panels {
                let title = panel["title"] as? String ?? "untitled"
                for target in panel["targets"] as? [[String: Any]] ?? [] {
                    if let expr = target["expr"] as? String {
                        queries.append(Query(origin: "panel \"\(title)\" \(target["refId"] as? String ?? "?")", expr: expr))
                    }
                }
                visit(panel["panels"] as? [[String: Any]] ?? [])
            }
        }
        visit(dashboard["panels"] as? [[String: Any]] ?? [])
        let templating = dashboard["templating"] as? [String: Any]
        for variable in templating?["list"] as? [[String: Any]] ?? [] where variable["type"] as? String == "query" {
            let name = variable["name"] as? String ?? "?"
            let query = (variable["query"] as? [String: Any])?["query"] as? String ?? variable["query"] as? String
            guard let query else { throw Unreadable(description: "variable \(name) has no query") }
            queries.append(Query(origin: "variable \(name)", expr: try labelValuesSelector(query)))
        }
        return queries
    }

    static func dashboardJSON() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dashboardPath))
        guard let dashboard = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Unreadable(description: "the dashboard is not a JSON object")
        }
        return dashboard
    }

    /// The series selector of Grafana's `label_values(SELECTOR, label)`.
    static func labelValuesSelector(_ query: String) throws -> String {
        let text = query.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("label_values("), text.hasSuffix(")"), let comma = text.lastIndex(of: ",") else {
            throw Unreadable(description: "not label_values(selector, label): \(query)")
        }
        return String(text[text.index(text.startIndex, offsetBy: "label_values(".count)..<comma]).trimmingCharacters(in: .whitespaces)
    }

    /// The expression with Grafana's variables replaced by what Prometheus
    /// would be sent: intervals by `5m`, the dashboard's variables by `.*`
    /// (every one of them is used in a regular-expression matcher).
    static func substitutingVariables(_ expr: String) -> String {
        var text = expr
        for interval in ["$__rate_interval", "${__rate_interval}", "$__interval", "${__interval}", "$__range", "${__range}"] {
            text = text.replacingOccurrences(of: interval, with: "5m")
        }
        return text.replacingOccurrences(of: #"\$\{?[A-Za-z_][A-Za-z0-9_]*(:[a-z]+)?\}?"#, with: ".*", options: .regularExpression)
    }

    /// The text after `key` on a line that starts with it, unquoted.
    private static func value(of key: String, in text: String) -> String? {
        guard text.hasPrefix(key) else { return nil }
        var value = text.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
        if value.count >= 2, let first = value.first, first == "'" || first == "\"", value.last == first {
            value = String(value.dropFirst().dropLast())
        }
        return value
    }
}
