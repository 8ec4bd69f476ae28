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
**     static void put_successor(void *to, uint8_t *key, const uint8_t *found,
**                               const uint8_t *occ, int nocc, uint32_t *ids);
**
** which writes one successor's key at `key` from its parts (the ids are its own to reorder;
** `to` is what the file handed successors()). A plain call, not a pointer: the compiler sees the
** one callee. The win solver (solver.c) orders its moves its own way (move_order.h).
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

static void put_successor(void *to, uint8_t *key, const uint8_t *found, const uint8_t *occ,
                          int nocc, uint32_t *ids);

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

/* One position being expanded: where its successors go and the facts every move looks at. */
typedef struct {
    const Rules *rules;
    Columns *columns;
    void *to;
    uint8_t *out;        /* successor i's key at out + i * keylen */
    size_t keylen;
    int nout;
    int tops[8];
    int where[NCARDS];   /* the column whose top card this is, or -1 */
    int empty;           /* the first empty column, or -1 */
} Moves;

/* The successor of parts (found, occupied cells, ids), settled under autoplay, as the next key. */
static void emit(Moves *m, const uint8_t *found_in, const uint8_t *occ_in, int nocc,
                 const uint32_t *ids_in) {
    uint32_t ids[8];
    uint8_t found[4], occ[8];
    memcpy(ids, ids_in, sizeof ids);
    memcpy(found, found_in, 4);
    memcpy(occ, occ_in, (size_t)nocc);
    /* A column that did not fit left garbage in ids (columns->full says so): the expansion is
    ** then done again, and nothing of this one is used. */
    if (m->rules->autoplay && (m->columns->full ||
                               settle(m->columns, found, occ, &nocc, ids) != FITS))
        return;
    put_successor(m->to, m->out + (size_t)m->nout++ * m->keylen, found, occ, nocc, ids);
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
    for (int j = m->rules->fixed_columns ? 0 : m->empty; j < 8; j++) {
        if (m->tops[j] < 0 && j != source) {
            memcpy(fresh, ids, sizeof fresh);
            fresh[j] = (uint32_t)column_push(t, ids[j], card);
            emit(m, found, occ, nocc, fresh);
        }
        /* up to column order, every empty column is the same */
        if (!m->rules->fixed_columns) break;
    }
}

/* The successors of position p (its ids all in t) as keys at out, keylen bytes apart, each
** written by put_successor(to, ...): how many, or IDS_FULL when a new column did not fit at
** this width (nothing else changed but memos: expand again once wider), or ALLOC_FAILED (the
** columns are whole: only this expansion is lost). */
static int successors(const Rules *rules, Columns *t, const Parts *p, uint8_t *out,
                      size_t keylen, void *to) {
    Moves m;
    m.rules = rules;
    m.columns = t;
    m.to = to;
    m.out = out;
    m.keylen = keylen;
    m.nout = 0;
    for (int i = 0; i < NCARDS; i++) m.where[i] = -1;
    m.empty = -1;
    for (int i = 0; i < 8; i++) {
        m.tops[i] = t->col[p->ids[i]].top;
        if (m.tops[i] >= 0) m.where[m.tops[i]] = i;
        else if (m.empty < 0) m.empty = i;
    }
    t->full = 0;
    int room = p->nocc < rules->ncells;
    uint32_t rest[8];
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
            emit(&m, found2, p->occ, p->nocc, rest);
        }
        land(&m, card, i, p->found, p->occ, p->nocc, rest);   /* ... onto another column */
        if (room) {   /* ... into a free cell: the cells stay ascending */
            int n = 0, placed = 0;
            for (int c = 0; c < p->nocc; c++) {
                if (!placed && p->occ[c] > card) { occ2[n++] = (uint8_t)card; placed = 1; }
                occ2[n++] = p->occ[c];
            }
            if (!placed) occ2[n++] = (uint8_t)card;
            emit(&m, p->found, occ2, n, rest);
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
            emit(&m, found2, occ2, n, p->ids);
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
