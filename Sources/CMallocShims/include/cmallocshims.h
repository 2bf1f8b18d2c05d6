#ifndef CMALLOCSHIMS_H
#define CMALLOCSHIMS_H

/// Caps glibc's number of malloc arenas (mallopt M_ARENA_MAX, which Swift
/// cannot import: <malloc.h> is not in the Glibc module). Returns 1 on success.
int pgw_limit_malloc_arenas(int count);

#endif
