#ifndef CTHREADSHIMS_H
#define CTHREADSHIMS_H

/// Names the calling thread for the kernel (top -H, perf, /proc), which
/// Foundation's Thread.name does not do on Linux: pthread_setname_np needs
/// _GNU_SOURCE, which Swift's Glibc module does not define. Linux keeps the
/// first 15 bytes. Returns 0 on success.
int pgw_name_current_thread(const char *name);

#endif
