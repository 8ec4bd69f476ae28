/*
** Interned columns, the table search.c (the search in memory) and external.c (the search on disk)
** share: each distinct column's cards stored once and named by an id, with "take the top card"
** and "put a card on top" memoised per column, and the hash both use for it and for their keys.
** The two engines must number columns alike (tests/test_external.py holds them to the same
** positions, byte for byte), so there is one copy.
**
** COLUMN_OFFSET is the type of a column's place in the card arena: search.c's default, 4 bytes;
** external.c defines it as 8 before including this file. (The size of a Column is what both
** engines' memory accounting counts, so each keeps the one it was measured with.)
*/

#ifndef COLUMNS_H
#define COLUMNS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cards.h"
#include "compiler.h"
#include "zeroed.h"

#ifndef COLUMN_OFFSET
#define COLUMN_OFFSET uint32_t
#endif

/* What the tables' functions return when they cannot give an id, a count or room; negative, so
** that one return carries either. The tables are whole after either: only the work of the
** failed call is lost. */
enum { FITS = 0,            /* done: the room was made */
       IDS_FULL = -1,       /* a new column's id does not fit the keys' width (nothing was
                            ** added): widen the keys and expand the position again */
       ALLOC_FAILED = -2 }; /* malloc or realloc failed */

/* ---- Hashing ---------------------------------------------------------------------------- */

HEADER_FUNCTION uint64_t hash_bytes(const uint8_t *p, size_t n) {
    /* Words of 8 bytes through a multiply-xorshift mix: quick, and good enough that the
    ** table's probes stay short. Equality is always decided by memcmp, never by this. */
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, p, n);
        h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    }
    h ^= h >> 29;
    h *= 0xFF51AFD7ED558CCDull;
    return h ^ (h >> 32);
}

/* ---- Interned columns ------------------------------------------------------------------- */

typedef struct {
    COLUMN_OFFSET off;   /* where its cards are in the column arena */
    uint8_t len;
    int8_t top;          /* top card, or -1 for the empty column */
    int32_t popped;      /* id after removing the top card; -1 until needed */
    int32_t pushed[2];   /* id after putting each of the two cards that may lie on top
                         ** (told apart by card & 1); -1 until needed */
} Column;

typedef struct {
    Column *col;
    uint32_t n, cap;
    uint8_t *cards;      /* every column's cards, one after another */
    size_t ncards, cards_cap;
    int32_t *slot;       /* open addressing: id + 1, 0 for free */
    uint32_t nslots;     /* a power of two */
    int32_t onto_empty[NCARDS];  /* the empty column with one card put on it; -1 until needed */
    uint32_t limit;      /* ids the keys' width can hold */
    int full;            /* 0, or the worse of IDS_FULL and ALLOC_FAILED met since expand() began */
} Columns;

HEADER_FUNCTION const uint8_t *column_cards(const Columns *t, uint32_t id) { return t->cards + t->col[id].off; }

HEADER_FUNCTION int columns_grow_slots(Columns *t) {
    uint32_t n = t->nslots ? t->nslots * 2 : 1024;
    int32_t *slot = zeroed(n, sizeof *slot);
    if (!slot) return ALLOC_FAILED;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t h = (uint32_t)hash_bytes(column_cards(t, i), t->col[i].len) & (n - 1);
        while (slot[h]) h = (h + 1) & (n - 1);
        slot[h] = (int32_t)i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslots = n;
    return FITS;
}

/* The id of a column's contents, interned on first sight; IDS_FULL when the ids are full at this
** width (nothing is added), ALLOC_FAILED when memory runs out; either way t->full says so too. */
HEADER_FUNCTION int32_t column_id(Columns *t, const uint8_t *cards, int len) {
    uint32_t h = (uint32_t)hash_bytes(cards, (size_t)len);
    uint32_t mask = t->nslots - 1, i = h & mask;
    for (; t->slot[i]; i = (i + 1) & mask) {
        uint32_t id = (uint32_t)t->slot[i] - 1;
        if (t->col[id].len == len && memcmp(column_cards(t, id), cards, (size_t)len) == 0)
            return (int32_t)id;
    }
    if (t->n == t->limit) {
        if (!t->full) t->full = IDS_FULL;
        return IDS_FULL;
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap * 2;
        Column *c = realloc(t->col, cap * sizeof *c);
        if (!c) return t->full = ALLOC_FAILED;
        t->col = c;
        t->cap = cap;
    }
    if (t->ncards + (size_t)len > t->cards_cap) {
        size_t cap = t->cards_cap * 2 + (size_t)len;
        uint8_t *b = realloc(t->cards, cap);
        if (!b) return t->full = ALLOC_FAILED;
        t->cards = b;
        t->cards_cap = cap;
    }
    uint32_t id = t->n++;
    Column *c = &t->col[id];
    c->off = (COLUMN_OFFSET)t->ncards;
    c->len = (uint8_t)len;
    c->top = len ? (int8_t)cards[len - 1] : -1;
    c->popped = c->pushed[0] = c->pushed[1] = -1;
    memcpy(t->cards + t->ncards, cards, (size_t)len);
    t->ncards += (size_t)len;
    t->slot[i] = (int32_t)id + 1;
    if (t->n * 2 > t->nslots && columns_grow_slots(t) < 0) return t->full = ALLOC_FAILED;
    return (int32_t)id;
}

/* column_id may move t->col and t->cards (realloc), so callers hand it a copy of the cards and
** index t->col afresh after it: never a pointer taken before the call. */
HEADER_FUNCTION int32_t column_pop(Columns *t, uint32_t id) {
    int32_t j = t->col[id].popped;
    if (j < 0) {
        uint8_t buf[NCARDS];
        int len = t->col[id].len - 1;
        memcpy(buf, column_cards(t, id), (size_t)len);
        j = column_id(t, buf, len);
        if (j >= 0) t->col[id].popped = j;
    }
    return j;
}

/* The column with `card` put on top. The search only ever puts a card on an empty column or
** on one whose top card it may lie on, so two memo slots (or 52 for the empty one) suffice. */
HEADER_FUNCTION int32_t column_push(Columns *t, uint32_t id, int card) {
    int len = t->col[id].len;
    int32_t j = len ? t->col[id].pushed[card & 1] : t->onto_empty[card];
    if (j < 0) {
        uint8_t buf[53];
        memcpy(buf, column_cards(t, id), (size_t)len);
        buf[len] = (uint8_t)card;
        j = column_id(t, buf, len + 1);
        if (j >= 0 && len) t->col[id].pushed[card & 1] = j;
        else if (j >= 0) t->onto_empty[card] = j;
    }
    return j;
}

HEADER_FUNCTION int columns_init(Columns *t, uint32_t limit) {
    memset(t, 0, sizeof *t);
    t->cap = 256;
    t->col = malloc(t->cap * sizeof *t->col);
    t->cards_cap = 4096;
    t->cards = malloc(t->cards_cap);
    for (int c = 0; c < NCARDS; c++) t->onto_empty[c] = -1;
    t->limit = limit;
    if (!t->col || !t->cards || columns_grow_slots(t) < 0) return ALLOC_FAILED;
    return FITS;
}

HEADER_FUNCTION void columns_free(Columns *t) {
    free(t->col);
    free(t->cards);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

HEADER_FUNCTION size_t columns_bytes(const Columns *t) {
    return (size_t)t->cap * sizeof *t->col + t->cards_cap + (size_t)t->nslots * sizeof *t->slot;
}

/* ---- Autoplay ----------------------------------------------------------------------------- */

/* Safe moves home (cards.h's is_safe) until no card is safe, on a position's parts in place, in
** certify/engine/reference/search.py's order (settle): a column's top card first, columns in
** order, else a free cell's card, looking again from the start after each; the columns' pops
** interned as it goes.
** FITS, or the table's IDS_FULL / ALLOC_FAILED (t->full says so too): the parts are then
** garbage, and the expansion that asked is done again once there is room. */
HEADER_FUNCTION int settle(Columns *t, uint8_t *found, uint8_t *occ, int *nocc, uint32_t *ids) {
    for (;;) {
        int card = -1;
        for (int j = 0; j < 8 && card < 0; j++) {
            int top = t->col[ids[j]].top;
            if (top >= 0 && is_safe(top, found)) {
                int32_t popped = column_pop(t, ids[j]);
                if (popped < 0) return popped;
                ids[j] = (uint32_t)popped;
                card = top;
            }
        }
        for (int c = 0; c < *nocc && card < 0; c++) {
            if (is_safe(occ[c], found)) {
                card = occ[c];
                memmove(occ + c, occ + c + 1, (size_t)(*nocc - c - 1));
                (*nocc)--;
            }
        }
        if (card < 0) return FITS;
        found[card_suit(card)]++;
    }
}

#endif
