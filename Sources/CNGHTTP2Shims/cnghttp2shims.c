#include "cnghttp2shims.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Every block starts with a 16-byte header (malloc's alignment is kept for
 * the caller's bytes after it): its size class, and for a block too large
 * for any class (a plain malloc, class BIG) its size. Class k holds up to
 * 64 << k bytes. A freed pooled block goes on its class's list, linked
 * through its first bytes, unless that list already keeps its limit.
 */
enum { CLASS_COUNT = 7, SMALLEST = 64 };
#define BIG ((size_t)-1)
/* Bytes a class's list keeps at most, and blocks at most. */
#define KEPT_BYTES_PER_CLASS (256 * 1024)
#define KEPT_BLOCKS_PER_CLASS 1024

typedef struct {
    size_t size_class;
    size_t big_size;
} block_header;

#define HEADER sizeof(block_header)
_Static_assert(sizeof(block_header) == 16, "the caller's bytes stay 16-byte aligned");

struct pgw_h2_pool {
    block_header *lists[CLASS_COUNT];
    size_t kept[CLASS_COUNT];
    /* pgw_h2_pool_kept_limit of each class, worked out once. */
    size_t limit[CLASS_COUNT];
};

static size_t class_capacity(size_t k) { return (size_t)SMALLEST << k; }

size_t pgw_h2_pool_largest_pooled(void) { return class_capacity(CLASS_COUNT - 1); }

size_t pgw_h2_pool_kept_limit(size_t size) {
    size_t limit = KEPT_BYTES_PER_CLASS / (size + HEADER);
    return limit > KEPT_BLOCKS_PER_CLASS ? KEPT_BLOCKS_PER_CLASS : limit;
}

/* The class for `size` bytes, or BIG: the power of two that holds it, from
 * the highest bit of size - 1 (64 << k >= size > 32 << k). */
static size_t class_for(size_t size) {
    if (size <= SMALLEST) return 0;
    size_t k = (size_t)(64 - __builtin_clzll((unsigned long long)(size - 1))) - 6;
    return k < CLASS_COUNT ? k : BIG;
}

size_t pgw_h2_pool_block_capacity(size_t size) {
    size_t k = class_for(size);
    return k == BIG ? 0 : class_capacity(k);
}

static block_header *header_of(void *pointer) { return (block_header *)pointer - 1; }

/* The list link of a kept block, in the bytes after its header. */
static block_header **link_of(block_header *block) { return (block_header **)(block + 1); }

static void *pool_malloc(size_t size, void *user_data) {
    pgw_h2_pool *pool = user_data;
    size_t k = class_for(size);
    if (k != BIG && pool->lists[k] != NULL) {
        block_header *block = pool->lists[k];
        pool->lists[k] = *link_of(block);
        pool->kept[k]--;
        return block + 1;
    }
    size_t payload = k == BIG ? size : class_capacity(k);
    if (payload > SIZE_MAX - HEADER) return NULL;
    block_header *block = malloc(HEADER + payload);
    if (block == NULL) return NULL;
    block->size_class = k;
    block->big_size = size;
    return block + 1;
}

static void pool_free(void *pointer, void *user_data) {
    if (pointer == NULL) return;
    pgw_h2_pool *pool = user_data;
    block_header *block = header_of(pointer);
    size_t k = block->size_class;
    if (k == BIG || pool->kept[k] >= pool->limit[k]) {
        free(block);
        return;
    }
    *link_of(block) = pool->lists[k];
    pool->lists[k] = block;
    pool->kept[k]++;
}

static void *pool_calloc(size_t count, size_t size, void *user_data) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *pointer = pool_malloc(count * size, user_data);
    /* A reused block holds what its last user left. */
    if (pointer != NULL) memset(pointer, 0, count * size);
    return pointer;
}

static void *pool_realloc(void *pointer, size_t size, void *user_data) {
    if (pointer == NULL) return pool_malloc(size, user_data);
    block_header *block = header_of(pointer);
    size_t k = block->size_class;
    size_t old = k == BIG ? block->big_size : class_capacity(k);
    /* A pooled block already large enough stays where it is. */
    if (k != BIG && size <= old) return pointer;
    void *moved = pool_malloc(size, user_data);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, old < size ? old : size);
    pool_free(pointer, user_data);
    return moved;
}

pgw_h2_pool *pgw_h2_pool_new(void) {
    pgw_h2_pool *pool = calloc(1, sizeof(pgw_h2_pool));
    if (pool == NULL) return NULL;
    for (size_t k = 0; k < CLASS_COUNT; k++) pool->limit[k] = pgw_h2_pool_kept_limit(class_capacity(k));
    return pool;
}

void pgw_h2_pool_free(pgw_h2_pool *pool) {
    if (pool == NULL) return;
    for (size_t k = 0; k < CLASS_COUNT; k++) {
        block_header *block = pool->lists[k];
        while (block != NULL) {
            block_header *next = *link_of(block);
            free(block);
            block = next;
        }
    }
    free(pool);
}

nghttp2_mem pgw_h2_pool_mem(pgw_h2_pool *pool) {
    nghttp2_mem mem = {pool, pool_malloc, pool_free, pool_calloc, pool_realloc};
    return mem;
}

size_t pgw_h2_pool_kept_blocks(const pgw_h2_pool *pool) {
    size_t total = 0;
    for (size_t k = 0; k < CLASS_COUNT; k++) total += pool->kept[k];
    return total;
}
