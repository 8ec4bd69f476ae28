/* zeroed(count, size): what calloc(count, size) gives, with every page already written.
**
** For the hash sets' slot arrays, which are probed (read) before they are written. calloc takes
** fresh pages from the kernel and leaves them unwritten; the first read of such a page maps the
** kernel's shared zero page, and the write after it must replace that mapping and flush it from
** the TLB of every processor running this process. When `certify DEAL` runs the solver and the
** search on two threads, each of those flushes interrupts the other processor (costly, the more
** so in a virtual machine; benchmarks/README.md has the figures). Zeros written here map each
** page once, writable. The memset goes through a volatile pointer because compilers turn malloc
** followed by memset(0) back into calloc. */
#ifndef ZEROED_H
#define ZEROED_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"

static void *(*volatile write_bytes)(void *, int, size_t) = memset;

HEADER_FUNCTION void *zeroed(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    size_t bytes = count * size;
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p) write_bytes(p, 0, bytes);
    return p;
}

#endif
