/* Large arrays in huge pages where the kernel allows it.
 *
 * The records and their lookup table are read at random, one position's successors after
 * another: with 4 KiB pages nearly every lookup also misses the TLB. Asking for 2 MiB pages
 * (transparent huge pages, "madvise" mode) before the arrays are first written saves most of
 * those misses. Untrusted and optional: it changes where bytes live, never what they are, and a
 * kernel that says no leaves everything as it was. */

#define _DEFAULT_SOURCE   /* madvise and MADV_HUGEPAGE */
#include <stdint.h>
#include <sys/mman.h>
#include <caml/bigarray.h>
#include <caml/mlvalues.h>

static void advise(void *start, uintptr_t size)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t from = ((uintptr_t)start + huge - 1) & ~(huge - 1);
    uintptr_t to = ((uintptr_t)start + size) & ~(huge - 1);
    if (to > from) (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)start; (void)size;
#endif
}

/* vc_advise_huge : bytes -> unit */
value vc_advise_huge(value bytes)
{
    advise(Bytes_val(bytes), caml_string_length(bytes));
    return Val_unit;
}

/* vc_advise_huge_array : ('a, 'b, 'c) Bigarray.Array1.t -> unit */
value vc_advise_huge_array(value array)
{
    advise(Caml_ba_data_val(array), caml_ba_byte_size(Caml_ba_array_val(array)));
    return Val_unit;
}
