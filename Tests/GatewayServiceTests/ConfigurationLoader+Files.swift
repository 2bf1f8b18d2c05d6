import GatewayService

extension ConfigurationLoader {
    /// A loader whose files are served from a dictionary; a missing one is "no such file".
    init(environment: [String: String], files: [String: [UInt8]]) {
        self.init(environment: environment, readFile: { path throws(FileReadError) in
            guard let bytes = files[path] else { throw .noSuchFile }
            return bytes
        })
    }
}
