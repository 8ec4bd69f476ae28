/*
** HEADER_FUNCTION: how the C engine's shared headers (columns.h, ids.h, zeroed.h) define their
** functions. Static, so that each C file has its own copy, compiled as if written there; marked
** unused, because a file may call only some of a header's functions and GCC and Clang would warn
** of the rest. Not `inline`: that hint changes what GCC inlines into the search's loops.
*/

#ifndef COMPILER_H
#define COMPILER_H

#if defined(__GNUC__) || defined(__clang__)
#define HEADER_FUNCTION static __attribute__((unused))
#else
#define HEADER_FUNCTION static
#endif

#endif
