/*
** The successors of a position: the one move generator of both exhaustive searches, search.c's
** in memory and external.c's on disk, in the reference's order (search.py's successors()): each
** column's top card to its foundation, onto another column, into a free cell; each free cell's
** card to its foundation, onto a column; with foundation moves, each foundation's top card back
** onto a column; under autoplay, each successor settled (columns.h).
**
** The two spell a key differently (search.c four bytes of foundations, external.c a nibble
** each), so the file that includes this defines
**
**     ALWAYS_INLINE void put_successor(const Moves *m, uint8_t *key, const uint8_t *found,
**                                      const uint8_t *occ, int nocc, uint32_t *ids);
**
** which writes one successor's key at `key` from its parts (the ids are its own to reorder) and
** what m says of the keys (ncells, fixed_columns, width). It is forced inline into emit(): the
** generator then compiles, in each file, to what a copy written for that file's keys would, and
** the one source costs no instructions over the two copies it replaced (benchmarks/README.md,
** bench_generator.py). The win solver (solver.c) orders its moves its own way (move_order.h).
*/
#ifndef CERTIFY_SUCCESSORS_H
#define CERTIFY_SUCCESSORS_H

#include <stdint.h>
#include <string.h>

#include "cards.h"
#include "columns.h"
#include "rules.h"

/* A position taken apart: what a key says. */
typedef struct {
    uint8_t found[4];
    uint8_t occ[8];      /* the occupied cells, ascending */
    int nocc;
    uint32_t ids[8];     /* each column's id (columns.h) */
} Parts;

/* parents[c]: the cards c may lie on (one rank higher, other colour), ascending, -1 ended. */
static int parents[NCARDS][3];

static void init_parents(void) {
    for (int c = 0; c < NCARDS; c++) {
        int n = 0;
        for (int p = 0; p < NCARDS; p++)
            if (stacks_on(c, p)) parents[c][n++] = p;
        parents[c][n] = -1;
    }
}

/* One position being expanded: where its successors go, the rules as plain values (read on
** every move: one load each, not two through a pointer), and the facts every move looks at. */
typedef struct {
    Columns *columns;
    uint8_t *next;       /* where the next successor's key goes */
    size_t keylen;
    int nout;
    int ncells, fixed_columns, autoplay;
    int width;           /* bytes a column id takes in the key: put_successor()'s to read */
    int tops[8];
    int where[NCARDS];   /* the column whose top card this is, or -1 */
    int empty;           /* the first empty column, or -1 */
} Moves;

/* Inlined into emit(), its one caller: the key written where the successor is made, with no
** call and no state passed but m. */
ALWAYS_INLINE void put_successor(const Moves *m, uint8_t *key, const uint8_t *found,
                                const uint8_t *occ, int nocc, uint32_t *ids);

/* The successor of parts (found, occupied cells, ids), settled under autoplay, as the next key.
** ids is the caller's scratch copy, sorted and settled here in place; found and occ are only
** read, and copied only when autoplay changes them. */
static void emit(Moves *m, const uint8_t *found, const uint8_t *occ, int nocc, uint32_t *ids) {
    if (m->autoplay) {
        uint8_t found2[4], occ2[8];
        memcpy(found2, found, 4);
        memcpy(occ2, occ, sizeof occ2);   /* (all 8: a fixed copy, cheaper than nocc bytes) */
        /* A column that did not fit left garbage in ids (columns->full says so): the expansion
        ** is then done again, and nothing of this one is used. */
        if (m->columns->full || settle(m->columns, found2, occ2, &nocc, ids) != FITS) return;
        put_successor(m, m->next, found2, occ2, nocc, ids);
    } else {
        put_successor(m, m->next, found, occ, nocc, ids);
    }
    m->next += m->keylen;
    m->nout++;
}

/* Every column `card` may land on from `source` (a column, or -1), as search.py's land(). */
static void land(Moves *m, int card, int source, const uint8_t *found, const uint8_t *occ,
                 int nocc, const uint32_t *ids) {
    Columns *t = m->columns;
    uint32_t fresh[8];
    for (const int *p = parents[card]; *p >= 0; p++) {
        int j = m->where[*p];
        if (j >= 0 && j != source) {
            memcpy(fresh, ids, sizeof fresh);
            fresh[j] = (uint32_t)column_push(t, ids[j], card);
            emit(m, found, occ, nocc, fresh);
        }
    }
    if (m->empty < 0) return;
    for (int j = m->fixed_columns ? 0 : m->empty; j < 8; j++) {
        if (m->tops[j] < 0 && j != source) {
            memcpy(fresh, ids, sizeof fresh);
            fresh[j] = (uint32_t)column_push(t, ids[j], card);
            emit(m, found, occ, nocc, fresh);
        }
        /* up to column order, every empty column is the same */
        if (!m->fixed_columns) break;
    }
}

/* The successors of position p (its ids all in t) under `rules`, as keys at out, keylen bytes
** apart, each written by put_successor() with ids `width` bytes wide: how many, or IDS_FULL
** when a new column did not fit at this width (nothing else changed but memos: expand again
** once wider), or ALLOC_FAILED (the columns are whole: only this expansion is lost). */
static int successors(const Rules *rules, Columns *t, const Parts *p, uint8_t *out,
                      size_t keylen, int width) {
    Moves m;
    m.columns = t;
    m.next = out;
    m.keylen = keylen;
    m.nout = 0;
    m.ncells = rules->ncells;
    m.fixed_columns = rules->fixed_columns;
    m.autoplay = rules->autoplay;
    m.width = width;
    for (int i = 0; i < NCARDS; i++) m.where[i] = -1;
    m.empty = -1;
    for (int i = 0; i < 8; i++) {
        m.tops[i] = t->col[p->ids[i]].top;
        if (m.tops[i] >= 0) m.where[m.tops[i]] = i;
        else if (m.empty < 0) m.empty = i;
    }
    t->full = 0;
    int room = p->nocc < rules->ncells;
    uint32_t rest[8], ids[8];
    uint8_t found2[4], occ2[8];

    for (int i = 0; i < 8; i++) {   /* the top card of a column ... */
        int card = m.tops[i];
        if (card < 0) continue;
        memcpy(rest, p->ids, sizeof rest);
        rest[i] = (uint32_t)column_pop(t, p->ids[i]);   /* garbage if full: never used */
        int suit = card_suit(card), rank = card_rank(card);
        if (p->found[suit] == rank) {   /* ... to its foundation */
            memcpy(found2, p->found, 4);
            found2[suit]++;
            memcpy(ids, rest, sizeof ids);
            emit(&m, found2, p->occ, p->nocc, ids);
        }
        land(&m, card, i, p->found, p->occ, p->nocc, rest);   /* ... onto another column */
        if (room) {   /* ... into a free cell: the cells stay ascending */
            int n = 0, placed = 0;
            for (int c = 0; c < p->nocc; c++) {
                if (!placed && p->occ[c] > card) { occ2[n++] = (uint8_t)card; placed = 1; }
                occ2[n++] = p->occ[c];
            }
            if (!placed) occ2[n++] = (uint8_t)card;
            emit(&m, p->found, occ2, n, rest);   /* (rest's last use: emit's to change) */
        }
    }
    for (int c = 0; c < p->nocc; c++) {   /* a card in a free cell ... */
        int card = p->occ[c], n = 0;
        for (int d = 0; d < p->nocc; d++)
            if (d != c) occ2[n++] = p->occ[d];
        int suit = card_suit(card), rank = card_rank(card);
        if (p->found[suit] == rank) {   /* ... to its foundation */
            memcpy(found2, p->found, 4);
            found2[suit]++;
            memcpy(ids, p->ids, sizeof ids);
            emit(&m, found2, occ2, n, ids);
        }
        land(&m, card, -1, p->found, occ2, n, p->ids);   /* ... onto a column */
    }
    if (rules->foundation_moves) {   /* a foundation's top card back onto a column (a variant) */
        for (int suit = 0; suit < 4; suit++) {
            int rank = p->found[suit];
            if (!rank) continue;
            memcpy(found2, p->found, 4);
            found2[suit]--;
            land(&m, card_of(rank - 1, suit), -1, found2, p->occ, p->nocc, p->ids);
        }
    }
    if (t->full) return t->full;
    return m.nout;
}

#endif
