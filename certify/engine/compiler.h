/*
** HEADER_FUNCTION: how the C engine's shared headers (columns.h, ids.h, zeroed.h) define their
** functions. Static, so that each C file has its own copy, compiled as if written there; marked
** unused, because a file may call only some of a header's functions and GCC and Clang would warn
** of the rest. Not `inline`: that hint changes what GCC inlines into the search's loops.
**
** ALWAYS_INLINE: a function its caller must have inlined, whatever the compiler would weigh:
** successors.h's put_successor(), which each search defines for its own keys, costs the generator
** a call and its state on every successor otherwise (benchmarks/README.md).
*/

#ifndef COMPILER_H
#define COMPILER_H

#if defined(__GNUC__) || defined(__clang__)
#define HEADER_FUNCTION static __attribute__((unused))
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define HEADER_FUNCTION static
#define ALWAYS_INLINE static inline
#endif

#endif
