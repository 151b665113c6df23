#ifndef BOOKSHELF_CMEMORYACCESS_H
#define BOOKSHELF_CMEMORYACCESS_H

// What the search engine asks of memory that Swift has no spelling for.

// Asks the processor to start loading the cache line at `address`: the kept rows of a search
// are read at known places spread through a large copy, and loading several at once hides
// most of each one's wait for memory. Swift has no spelling for the instruction.
static inline void shim_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#ifdef __linux__
#include <stddef.h>
// glibc's, declared here: its header hides it behind _GNU_SOURCE, which a module cannot set.
void *mremap(void *old_address, size_t old_size, size_t new_size, int flags, ...);

// Lengthens a mapping, moving it if it must (MREMAP_MAYMOVE). Unlike a new mapping, the moved
// one keeps the page table entries of the pages already touched: a scratch file read at
// random places after it grew would otherwise take a page fault at each first touch, which
// a prefetch cannot start. Swift cannot call the variadic function itself.
static inline void *shim_mremap_maymove(void *old_address, size_t old_size, size_t new_size) {
    return mremap(old_address, old_size, new_size, 1);
}
#endif

#endif
