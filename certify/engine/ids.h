/*
** A position's eight column ids, as search.c's keys and writer.c's records hold them: put in
** ascending order (sort8, where columns have no fixed places: external.c's keys too), and spelled
** big-endian in 2 or 3 bytes (put_id, get_id).
*/

#ifndef IDS_H
#define IDS_H

#include <stdint.h>

#include "compiler.h"

#define SWAP_IF_GREATER(a, b) do { uint32_t lo_ = a < b ? a : b, hi_ = a < b ? b : a; \
                                   a = lo_; b = hi_; } while (0)

/* Batcher's odd-even merge network for 8: 19 compare-exchanges and no branches to mispredict,
** which measured faster than insertion sort even where only one or two ids are out of place. */
HEADER_FUNCTION void sort8(uint32_t *v) {
    uint32_t a0 = v[0], a1 = v[1], a2 = v[2], a3 = v[3], a4 = v[4], a5 = v[5], a6 = v[6],
             a7 = v[7];
    SWAP_IF_GREATER(a0, a1); SWAP_IF_GREATER(a2, a3); SWAP_IF_GREATER(a4, a5);
    SWAP_IF_GREATER(a6, a7); SWAP_IF_GREATER(a0, a2); SWAP_IF_GREATER(a1, a3);
    SWAP_IF_GREATER(a4, a6); SWAP_IF_GREATER(a5, a7); SWAP_IF_GREATER(a1, a2);
    SWAP_IF_GREATER(a5, a6); SWAP_IF_GREATER(a0, a4); SWAP_IF_GREATER(a1, a5);
    SWAP_IF_GREATER(a2, a6); SWAP_IF_GREATER(a3, a7); SWAP_IF_GREATER(a2, a4);
    SWAP_IF_GREATER(a3, a5); SWAP_IF_GREATER(a1, a2); SWAP_IF_GREATER(a3, a4);
    SWAP_IF_GREATER(a5, a6);
    v[0] = a0; v[1] = a1; v[2] = a2; v[3] = a3; v[4] = a4; v[5] = a5; v[6] = a6; v[7] = a7;
}

HEADER_FUNCTION void put_id(uint8_t *p, uint32_t id, int width) {
    if (width == 3) *p++ = (uint8_t)(id >> 16);
    p[0] = (uint8_t)(id >> 8);
    p[1] = (uint8_t)id;
}

HEADER_FUNCTION uint32_t get_id(const uint8_t *p, int width) {
    return width == 3 ? (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]
                      : (uint32_t)p[0] << 8 | p[1];
}

#endif
