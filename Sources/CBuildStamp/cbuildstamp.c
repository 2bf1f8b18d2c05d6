#include "cbuildstamp.h"

// commit.h, when a stamping build wrote it, defines PGW_BUILD_COMMIT as a
// string literal; it is never committed (.gitignore), so a stale hash cannot
// outlive the build that wrote it in the repository.
#if __has_include("commit.h")
#include "commit.h"
#endif

#ifndef PGW_BUILD_COMMIT
#define PGW_BUILD_COMMIT "unknown"
#endif

const char *pgw_build_commit(void) { return PGW_BUILD_COMMIT; }
