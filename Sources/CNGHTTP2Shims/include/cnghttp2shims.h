#ifndef PUSHGW_CNGHTTP2SHIMS_H
#define PUSHGW_CNGHTTP2SHIMS_H

/*
 * A memory pool for one nghttp2 session (nghttp2_mem). nghttp2 allocates a
 * few blocks for every stream (the stream, its outbound item, the copy of
 * its header list, received header values) and frees them when the stream
 * closes; with 100 or more streams in flight that many frees overflow
 * glibc's small per-thread cache, and each block costs a trip through
 * malloc's bins. The pool keeps freed blocks in lists by size class and
 * hands them out again: at most 1,024 blocks and 256 KiB a class (about
 * 1.5 MiB a session at worst, what its busiest moment had in use anyway).
 *
 * A pool is used by one thread at a time (the session's), has no lock, and
 * must outlive its session: delete the session, then the pool.
 */

#include <stddef.h>
#include <nghttp2/nghttp2.h>

typedef struct pgw_h2_pool pgw_h2_pool;

/* A new, empty pool; NULL when out of memory. */
pgw_h2_pool *pgw_h2_pool_new(void);

/* Frees the pool and the blocks it keeps. Blocks still handed out (a
 * session not yet deleted) must not be freed through it afterwards. */
void pgw_h2_pool_free(pgw_h2_pool *pool);

/* The allocator to give nghttp2 (nghttp2_session_client_new3). */
nghttp2_mem pgw_h2_pool_mem(pgw_h2_pool *pool);

/* Blocks kept for reuse, in all classes (for tests). */
size_t pgw_h2_pool_kept_blocks(const pgw_h2_pool *pool);

/* The largest request served from a size class; larger ones go to malloc. */
size_t pgw_h2_pool_largest_pooled(void);

/* The bytes of the pooled block that serves a request of `size` bytes
 * (its class's), or 0 when none does (`size` > pgw_h2_pool_largest_pooled()). */
size_t pgw_h2_pool_block_capacity(size_t size);

/* How many freed blocks of a class holding `size` bytes are kept at most. */
size_t pgw_h2_pool_kept_limit(size_t size);

#endif
