import CNGHTTP2
import CNGHTTP2Shims
@testable import HTTP2Client
import XCTest

/// The memory pool a connection's nghttp2 session allocates from: freed
/// blocks come back for the next request of their size class, cleared by
/// calloc, moved with their bytes by realloc, and kept only up to a limit.
final class NGHTTP2MemoryPoolTests: XCTestCase {
    /// The pool's allocator, as nghttp2 calls it.
    private struct Allocator {
        let pool: OpaquePointer
        let mem: nghttp2_mem

        init() {
            pool = pgw_h2_pool_new()!
            mem = pgw_h2_pool_mem(pool)
        }

        func malloc(_ size: Int) -> UnsafeMutableRawPointer { mem.malloc(size, mem.mem_user_data)! }
        func calloc(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer { mem.calloc(count, size, mem.mem_user_data)! }
        func realloc(_ pointer: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer {
            mem.realloc(pointer, size, mem.mem_user_data)!
        }
        func free(_ pointer: UnsafeMutableRawPointer?) { mem.free(pointer, mem.mem_user_data) }
        var kept: Int { pgw_h2_pool_kept_blocks(pool) }
        func close() { pgw_h2_pool_free(pool) }
    }

    private func fill(_ pointer: UnsafeMutableRawPointer, _ count: Int, seed: UInt8) {
        for index in 0..<count { pointer.storeBytes(of: seed &+ UInt8(truncatingIfNeeded: index), toByteOffset: index, as: UInt8.self) }
    }

    private func holds(_ pointer: UnsafeMutableRawPointer, _ count: Int, seed: UInt8) -> Bool {
        (0..<count).allSatisfy { pointer.load(fromByteOffset: $0, as: UInt8.self) == seed &+ UInt8(truncatingIfNeeded: $0) }
    }

    func testAFreedBlockIsHandedOutAgainForItsSizeClass() {
        let pool = Allocator()
        defer { pool.close() }
        let first = pool.malloc(100)
        XCTAssertEqual(Int(bitPattern: first) % 16, 0, "malloc's alignment")
        pool.free(first)
        XCTAssertEqual(pool.kept, 1)
        XCTAssertEqual(pool.malloc(90), first, "the same class (65...128 bytes) reuses the block")
        XCTAssertEqual(pool.kept, 0)
        let other = pool.malloc(20)
        XCTAssertNotEqual(other, first)
        pool.free(other)
        pool.free(first)
        pool.free(nil)
        XCTAssertEqual(pool.kept, 2)
    }

    func testEachSizeGetsTheSmallestClassThatHoldsIt() {
        let largest = pgw_h2_pool_largest_pooled()
        let smallest = pgw_h2_pool_block_capacity(1)
        XCTAssertEqual(pgw_h2_pool_block_capacity(0), smallest)
        var capacities = Set<Int>()
        for size in 1...largest {
            let capacity = pgw_h2_pool_block_capacity(size)
            capacities.insert(capacity)
            XCTAssertGreaterThanOrEqual(capacity, size)
            XCTAssertTrue(capacity == smallest || capacity / 2 < size, "\(size) in a class of \(capacity)")
            XCTAssertEqual(capacity & (capacity - 1), 0, "classes are powers of two")
        }
        XCTAssertEqual(capacities.max(), largest)
        XCTAssertEqual(pgw_h2_pool_block_capacity(largest + 1), 0)
        XCTAssertEqual(pgw_h2_pool_block_capacity(Int.max), 0)
        // A block is reused for any size of its class, and stays put when reallocated within it.
        let pool = Allocator()
        defer { pool.close() }
        for capacity in capacities.sorted() {
            let block = pool.malloc(capacity)
            XCTAssertEqual(pool.realloc(block, capacity / 2 + 1), block)
            pool.free(block)
            XCTAssertEqual(pool.malloc(capacity / 2 + 1), block, "\(capacity)")
            pool.free(block)
        }
    }

    func testCallocClearsAReusedBlock() {
        let pool = Allocator()
        defer { pool.close() }
        let used = pool.malloc(200)
        fill(used, 200, seed: 0xAB)
        pool.free(used)
        let cleared = pool.calloc(4, 50)
        XCTAssertEqual(cleared, used, "the freed block is reused")
        XCTAssertTrue((0..<200).allSatisfy { cleared.load(fromByteOffset: $0, as: UInt8.self) == 0 })
        pool.free(cleared)
    }

    func testReallocKeepsTheBytesWithinAClassAcrossClassesAndBeyondThem() {
        let pool = Allocator()
        defer { pool.close() }
        let largest = pgw_h2_pool_largest_pooled()
        var block = pool.realloc(nil, 50)
        fill(block, 50, seed: 7)
        let grownInPlace = pool.realloc(block, 64)
        XCTAssertEqual(grownInPlace, block, "64 bytes still fit the block's class")
        block = pool.realloc(grownInPlace, 1000)
        XCTAssertTrue(holds(block, 50, seed: 7))
        fill(block, 1000, seed: 11)
        block = pool.realloc(block, largest + 1)
        XCTAssertTrue(holds(block, 1000, seed: 11), "into a block of no class")
        fill(block, largest + 1, seed: 13)
        block = pool.realloc(block, 3 * largest)
        XCTAssertTrue(holds(block, largest + 1, seed: 13), "from a block of no class, with its own size")
        block = pool.realloc(block, 100)
        XCTAssertTrue(holds(block, 100, seed: 13), "shrunk out of a block of no class")
        pool.free(block)
    }

    func testFreedBlocksAreKeptOnlyUpToTheLimitAndLargeOnesNever() {
        let pool = Allocator()
        defer { pool.close() }
        let size = 64
        let limit = pgw_h2_pool_kept_limit(size)
        XCTAssertGreaterThan(limit, 0)
        let blocks = (0..<(limit + 10)).map { _ in pool.malloc(size) }
        for block in blocks { pool.free(block) }
        XCTAssertEqual(pool.kept, limit, "the rest went back to malloc")
        pool.free(pool.malloc(pgw_h2_pool_largest_pooled() + 1))
        XCTAssertEqual(pool.kept, limit, "a block larger than every class is not kept")
    }
}
