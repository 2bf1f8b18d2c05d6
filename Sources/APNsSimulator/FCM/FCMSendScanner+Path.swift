extension FCMSendScanner {
    /// Where a value sits, as plain values the reader copies down as it
    /// goes (no reference, nothing on the heap): for each member on the way
    /// from the root, its spelling number in its object's `FCMScanTable`
    /// and the offset in the body where its key was first written. The
    /// text Google's errors give (`Location`) is made from it only when a
    /// violation is found, by looking the spellings up from the root table.
    struct Path {
        /// More members than the schema's objects nest
        /// (`message.android.notification.lightSettings.color.red` is six).
        static let capacity = 8
        private var spellings = InlineArray<8, Int>(repeating: 0)
        private var offsets = InlineArray<8, Int>(repeating: 0)
        private(set) var count = 0

        /// The request object itself.
        static var root: Path { Path() }

        private init() {}

        /// The member of this object named by spelling number `spelling`,
        /// its key first written at `offset`.
        func member(_ spelling: Int, firstWrittenAt offset: Int) -> Path {
            precondition(count < Self.capacity, "schema objects nest at most \(Self.capacity) members deep")
            var path = self
            path.spellings[count] = spelling
            path.offsets[count] = offset
            path.count += 1
            return path
        }

        /// The path as Google writes it (`message.android.ttl`) and its tag.
        var location: Location {
            var table: FCMScanTable? = FCMMessageSchema.sendRequest.scanTable
            var location = Location(path: "", tag: [])
            for level in 0..<count {
                guard let object = table else { break }
                let spelling = spellings[level]
                location = location.member(object.spellingNames[spelling], firstWrittenAt: offsets[level])
                table = object.children[object.field(ofSpelling: spelling)]
            }
            return location
        }
    }
}
