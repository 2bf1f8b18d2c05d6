/// Where an object being read sits in the event, kept as a base path plus
/// at most two more steps: the readers of `conversation` or
/// `recipients[1]` allocate nothing for their location unless an error
/// has to name a field.
struct FieldLocation {
    private var base: JSONPath
    private var first: JSONPath.Component?
    private var second: JSONPath.Component?

    init(_ base: JSONPath = JSONPath()) {
        self.base = base
    }

    /// The location as a path.
    var path: JSONPath {
        var components = base.components
        if let first { components.append(first) }
        if let second { components.append(second) }
        return JSONPath(components)
    }

    /// The path of the member `key` here (built: it names a field in an error).
    func appending(_ key: String) -> JSONPath {
        path.appending(key)
    }

    /// The location of the member `key` here.
    func child(_ key: String) -> FieldLocation {
        child(.key(key))
    }

    /// The location of the element `index` here.
    func child(index: Int) -> FieldLocation {
        child(.index(index))
    }

    private func child(_ component: JSONPath.Component) -> FieldLocation {
        var location = self
        if first == nil {
            location.first = component
        } else if second == nil {
            location.second = component
        } else {
            location = FieldLocation(path)
            location.first = component
        }
        return location
    }
}
