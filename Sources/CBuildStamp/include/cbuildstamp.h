#ifndef CBUILDSTAMP_H
#define CBUILDSTAMP_H

/// The git commit this binary was built from (short hash, "-dirty" when the
/// tree had changes), or "unknown". A C target because a build can hand it a
/// value without a package plugin: `scripts/build-release` writes
/// `commit.h` beside `cbuildstamp.c` before a build and removes it after, and
/// a build without that file (not from git, or a plain `swift build`) says
/// "unknown" rather than a commit it cannot know.
const char *pgw_build_commit(void);

#endif
