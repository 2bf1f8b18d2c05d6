/// A location inside a JSON document, written the way API errors name fields:
/// `recipients[1].token`, `data.from`.
public struct JSONPath: Sendable, Equatable, CustomStringConvertible {
    /// One step of a path: an object member or an array element.
    public enum Component: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public func appending(_ key: String) -> JSONPath {
        JSONPath(components + [.key(key)])
    }

    public func appending(index: Int) -> JSONPath {
        JSONPath(components + [.index(index)])
    }

    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case let .key(key):
                if !text.isEmpty { text += "." }
                text += key
            case let .index(index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// The path as an API `field` value: nil for the document itself.
    public var field: String? {
        components.isEmpty ? nil : description
    }
}
