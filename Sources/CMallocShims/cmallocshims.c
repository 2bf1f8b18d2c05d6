#include "cmallocshims.h"
#include <malloc.h>

int pgw_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
