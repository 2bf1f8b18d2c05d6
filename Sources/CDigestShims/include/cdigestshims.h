#ifndef CDIGESTSHIMS_H
#define CDIGESTSHIMS_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has the SHA extensions (SHA-NI) and the SSSE3 and
/// SSE4.1 instructions `pgw_sha256_compress_blocks` also uses (CPUID).
/// Always 0 on other architectures. Swift cannot ask CPUID itself.
int pgw_sha256_extensions_available(void);

/// SHA-256's compression function (FIPS 180-4, 6.2.2) on `count` whole
/// 64-byte blocks at `blocks`, updating the eight state words in place:
/// the same words as `SHA256.compress` in Swift, with the CPU's SHA
/// extensions, which Swift cannot emit (no intrinsics). Call only when
/// `pgw_sha256_extensions_available()` is 1; elsewhere it does nothing.
void pgw_sha256_compress_blocks(uint32_t state[8], const uint8_t *blocks, size_t count);

#endif
