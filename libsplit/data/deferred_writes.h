// Deferred buffer writes (paper Section 4.2, Fig. 2), opt-in through
// LIBSPLIT_DEFERRED_WRITES. A write's whole source pages are write-protected
// instead of copied; the copy happens when the buffer's data is next needed
// (any other command runs, an overlapping write, the store is destroyed) or
// when the app stores into a protected page (SIGSEGV handler).
#pragma once

#include "objects.h"

#include <cstddef>

namespace libsplit {

// Copies size bytes from ptr into s.shadow[begin, begin+size): bytes on
// partial pages now, whole pages later (or now when the table is full).
// Called with the exec lock held.
void deferred_write(BufferStore& s, uint64_t begin, const void* ptr, size_t size);
// Performs every pending write. Called with the exec lock held.
void deferred_flush_all();
// Performs the pending writes into s (s is being destroyed).
void deferred_flush_store(const BufferStore& s);

}  // namespace libsplit
