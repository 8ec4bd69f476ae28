/*
** A line of single-card moves as format version 3 writes a win: each move as its index among
** the legal moves of the position it is made from, in the move order (to the foundation
** first, then to columns 1..8, then to a free cell; within one destination by ascending card).
** move_indices in certify/format/writer.py is the reference; search.c (engine.move_indices)
** and solver.c (the census's one call a deal) both include this file, so that there is one
** home for the order, and for the replay of a line (line_wins(): is it legal and does it end
** won).
**
** A move is (card, destination: 0..7 a column, 8 a free cell, 9 the foundation). A card is free
** to move from the top of a column, from a free cell, or, when the rules allow foundation moves
** (`foundation_moves`), from the top of its foundation; rules.moves is the statement of each move.
**
** The index is counted with bit masks of cards rather than by listing the moves: the moves to a
** destination are the cards free to move that may go there, so the moves before (card, dest)
** are those masks' sizes for the destinations before it, and the cards below `card` in its own.
*/

#ifndef MOVE_ORDER_H
#define MOVE_ORDER_H

#include <stdint.h>
#include <string.h>

#include "cards.h"

/* What a line's conversion comes to; and move_index() of a move that is not legal. */
enum { LINE_OK = 0, LINE_ILLEGAL = 1 };
enum { NOT_LEGAL = -1 };

/* A position as plain card arrays, changed move by move as a line is followed. The cells are in
** no particular order (a move into a cell appends; the order of moves counts cards, not
** places). */
typedef struct {
    uint8_t found[4];      /* cards home in each suit */
    uint8_t cells[8];      /* the cards in the free cells, ncells_used of them */
    uint8_t cols[8][NCARDS];   /* each column bottom to top, len[j] cards */
    int len[8];
    int ncells_used, ncells, foundation_moves;
} Layout;

/* children[p]: the cards that may lie on card p (one rank lower, the other colour), a bit
** each; filled by order_init() when the module is imported, before any line is converted. */
static uint64_t order_children[NCARDS];

static void order_init(void) {
    for (int p = 0; p < NCARDS; p++)
        for (int c = 0; c < NCARDS; c++)
            if (stacks_on(c, p))
                order_children[p] |= 1ULL << c;
}

/* The cards free to move, and of them the ones in a column or a cell (not on a foundation),
** and each column's top card as a mask. */
typedef struct {
    uint64_t movable, off_home, tops, next_home;
} FreeCards;

static FreeCards free_cards(const Layout *b) {
    FreeCards f = {0, 0, 0, 0};
    for (int j = 0; j < 8; j++)
        if (b->len[j])
            f.tops |= 1ULL << b->cols[j][b->len[j] - 1];
    f.off_home = f.tops;
    for (int c = 0; c < b->ncells_used; c++)
        f.off_home |= 1ULL << b->cells[c];
    f.movable = f.off_home;
    for (int s = 0; s < 4; s++) {
        if (b->found[s] < 13)
            f.next_home |= 1ULL << (b->found[s] * 4 + s);
        if (b->foundation_moves && b->found[s])
            f.movable |= 1ULL << ((b->found[s] - 1) * 4 + s);
    }
    return f;
}

/* The cards that may move to `dest` (a card never goes to the column it is on: it is that
** column's top, which is not one of its own children). */
static uint64_t may_go_to(const Layout *b, const FreeCards *f, int dest) {
    if (dest == HOME)
        return f->off_home & f->next_home;
    if (dest == CELL)
        return b->ncells_used < b->ncells ? f->tops : 0;
    if (!b->len[dest])
        return f->movable;
    return f->movable & order_children[b->cols[dest][b->len[dest] - 1]];
}

/* The destinations in the move order. */
static const int DESTINATIONS[10] = {HOME, 0, 1, 2, 3, 4, 5, 6, 7, CELL};

/* How many cards a mask holds. (Without the processor's own instruction, GCC's builtin is a
** call into libgcc, several a move: the sum of bit fields is as quick inline.) */
static int count_bits(uint64_t x) {
#if defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_popcountll(x);
#else
    x -= x >> 1 & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + (x >> 2 & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)(x * 0x0101010101010101ULL >> 56);
#endif
}

/* The index of the move (card, dest) among the legal moves of b in the move order, or
** NOT_LEGAL. */
static int move_index(const Layout *b, int card, int dest) {
    if (card < 0 || card >= NCARDS || dest < 0 || dest > HOME)
        return NOT_LEGAL;
    FreeCards f = free_cards(b);
    int before = 0;
    for (int i = 0; i < 10; i++) {
        uint64_t cards = may_go_to(b, &f, DESTINATIONS[i]);
        if (DESTINATIONS[i] == dest) {
            if (!(cards >> card & 1))
                return NOT_LEGAL;
            return before + count_bits(cards & ((1ULL << card) - 1));
        }
        before += count_bits(cards);
    }
    return NOT_LEGAL;  /* not reached: every destination is in the order */
}

/* Make the move (card, dest), which is legal in b: the card leaves the column it tops, or its
** cell, or else its foundation. */
static void layout_play(Layout *b, int card, int dest) {
    int from_col = -1, from_cell = -1;
    for (int j = 0; j < 8; j++)
        if (b->len[j] && b->cols[j][b->len[j] - 1] == card)
            from_col = j;
    for (int c = 0; c < b->ncells_used; c++)
        if (b->cells[c] == card)
            from_cell = c;
    if (from_col >= 0) {
        b->len[from_col]--;
    } else if (from_cell >= 0) {
        for (int c = from_cell; c + 1 < b->ncells_used; c++)
            b->cells[c] = b->cells[c + 1];
        b->ncells_used--;
    } else {
        b->found[card_suit(card)]--;
    }
    if (dest == HOME)
        b->found[card_suit(card)]++;
    else if (dest == CELL)
        b->cells[b->ncells_used++] = (uint8_t)card;
    else
        b->cols[dest][b->len[dest]++] = (uint8_t)card;
}

/* Is b a position: each card in exactly one place (a foundation holds the cards below its
** count), no more cards in the cells than there are cells? line_indices_kept() assumes so. */
static int order_proper(const Layout *b) {
    uint64_t seen = 0;
    int count = 0;
    if (b->ncells < 0 || b->ncells > 8 || b->ncells_used < 0 || b->ncells_used > b->ncells)
        return 0;
    for (int s = 0; s < 4; s++) {
        if (b->found[s] > 13)
            return 0;
        for (int r = 0; r < b->found[s]; r++, count++)
            seen |= 1ULL << (r * 4 + s);
    }
    for (int c = 0; c < b->ncells_used; c++, count++) {
        if (b->cells[c] >= NCARDS)
            return 0;
        seen |= 1ULL << b->cells[c];
    }
    for (int j = 0; j < 8; j++) {
        if (b->len[j] < 0 || b->len[j] > NCARDS)
            return 0;
        for (int i = 0; i < b->len[j]; i++, count++) {
            if (b->cols[j][i] >= NCARDS)
                return 0;
            seen |= 1ULL << b->cols[j][i];
        }
    }
    return count == NCARDS && seen == (1ULL << NCARDS) - 1;
}

/* How many cards x holds, when it holds at most two (a card's children, so the cards free to
** move that may go onto a column's top). */
static int count_two(uint64_t x) {
    return x ? 1 + ((x & (x - 1)) != 0) : 0;
}

/* line_indices() from a position (order_proper): move_index() and layout_play(), with the
** cards free to move kept as masks from one move to the next, and a non-empty column's count
** taken from its top's children (at most two), not counted bit by bit. The same indices. */
static int line_indices_kept(Layout *b, const uint8_t *line, size_t n, uint8_t *out,
                             size_t *bad) {
    int8_t where[NCARDS];  /* top card -> its column, for the cards in `tops` only */
    uint64_t tops = 0, in_cells = 0;
    for (int j = 0; j < 8; j++)
        if (b->len[j]) {
            int top = b->cols[j][b->len[j] - 1];
            tops |= 1ULL << top;
            where[top] = (int8_t)j;
        }
    for (int c = 0; c < b->ncells_used; c++)
        in_cells |= 1ULL << b->cells[c];
    for (size_t m = 0; m < n; m++) {
        int card = line[2 * m], dest = line[2 * m + 1];
        if (card >= NCARDS || dest > HOME) {
            *bad = m + 1;
            return LINE_ILLEGAL;
        }
        uint64_t off_home = tops | in_cells, movable = off_home, next_home = 0;
        for (int s = 0; s < 4; s++) {
            if (b->found[s] < 13)
                next_home |= 1ULL << (b->found[s] * 4 + s);
            if (b->foundation_moves && b->found[s])
                movable |= 1ULL << ((b->found[s] - 1) * 4 + s);
        }
        uint64_t home = off_home & next_home, below = (1ULL << card) - 1, cards;
        int before;
        if (dest == HOME) {
            cards = home;
            before = count_bits(home & below);
        } else {
            int last = dest == CELL ? 8 : dest, empty = -1;  /* the columns before dest */
            before = count_bits(home);
            for (int d = 0; d < last; d++) {
                if (b->len[d]) {
                    before += count_two(movable & order_children[b->cols[d][b->len[d] - 1]]);
                } else {
                    if (empty < 0)
                        empty = count_bits(movable);
                    before += empty;
                }
            }
            if (dest == CELL) {
                cards = b->ncells_used < b->ncells ? tops : 0;
                before += count_bits(cards & below);
            } else if (b->len[dest]) {
                cards = movable & order_children[b->cols[dest][b->len[dest] - 1]];
                before += count_two(cards & below);
            } else {
                cards = movable;
                before += count_bits(cards & below);
            }
        }
        if (!(cards >> card & 1)) {
            *bad = m + 1;
            return LINE_ILLEGAL;
        }
        out[m] = (uint8_t)before;
        uint64_t bit = 1ULL << card;
        if (tops & bit) {  /* it leaves the top of a column */
            int j = where[card];
            tops &= ~bit;
            if (--b->len[j]) {
                int top = b->cols[j][b->len[j] - 1];
                tops |= 1ULL << top;
                where[top] = (int8_t)j;
            }
        } else if (in_cells & bit) {  /* ... or its cell */
            int c = 0;
            while (b->cells[c] != card)
                c++;
            for (; c + 1 < b->ncells_used; c++)
                b->cells[c] = b->cells[c + 1];
            b->ncells_used--;
            in_cells &= ~bit;
        } else {  /* ... or its foundation */
            b->found[card_suit(card)]--;
        }
        if (dest == HOME) {
            b->found[card_suit(card)]++;
        } else if (dest == CELL) {
            b->cells[b->ncells_used++] = (uint8_t)card;
            in_cells |= bit;
        } else {
            if (b->len[dest])
                tops &= ~(1ULL << b->cols[dest][b->len[dest] - 1]);
            b->cols[dest][b->len[dest]++] = (uint8_t)card;
            tops |= bit;
            where[card] = (int8_t)dest;
        }
    }
    return LINE_OK;
}

/* The line (n moves, two bytes each) from b as n move indices into `out`, b followed along
** it: LINE_OK, or LINE_ILLEGAL with *bad the number (from 1) of the first move not legal. */
static int line_indices(Layout *b, const uint8_t *line, size_t n, uint8_t *out, size_t *bad) {
    if (order_proper(b))
        return line_indices_kept(b, line, n, out, bad);
    for (size_t m = 0; m < n; m++) {
        int card = line[2 * m], dest = line[2 * m + 1];
        int i = move_index(b, card, dest);
        if (i == NOT_LEGAL) {
            *bad = m + 1;
            return LINE_ILLEGAL;
        }
        out[m] = (uint8_t)i;
        layout_play(b, card, dest);
    }
    return LINE_OK;
}

/* All 52 cards home? */
static int layout_won(const Layout *b) {
    return b->found[0] == 13 && b->found[1] == 13 && b->found[2] == 13 && b->found[3] == 13;
}

/* Whether the line (n moves, two bytes each) is legal move by move from b and ends with all 52
** cards home, b followed along it: prove()'s replays_to_win (search.c's replays()), and the
** solver's check of a line it gives as moves (solver.c; a line it gives as indices is checked
** as line_indices() converts it). Each move is as rules.moves states it: the card
** free to move (the top of a column, a free cell, or with `foundation_moves` the top of its
** foundation)
** to the foundation onto exactly the rank below, to a free cell from a column with one empty,
** or to another column, empty or with a top the card may lie on. */
static int line_wins(Layout *b, const uint8_t *line, size_t n) {
    for (size_t m = 0; m < n; m++) {
        int card = line[2 * m], dest = line[2 * m + 1];
        if (card >= NCARDS || dest > HOME) return 0;
        int suit = card_suit(card), rank = card_rank(card);
        int from_col = -1, from_cell = -1, from_home = 0;
        for (int j = 0; j < 8; j++)
            if (b->len[j] && b->cols[j][b->len[j] - 1] == card) from_col = j;
        for (int c = 0; c < b->ncells_used; c++)
            if (b->cells[c] == card) from_cell = c;
        if (b->foundation_moves && b->found[suit] == rank + 1) from_home = 1;
        if (from_col < 0 && from_cell < 0 && !from_home) return 0;
        if (dest == HOME) {
            if (from_home || b->found[suit] != rank) return 0;
        } else if (dest == CELL) {
            if (from_col < 0 || b->ncells_used >= b->ncells) return 0;
        } else {
            if (dest == from_col) return 0;
            if (b->len[dest] && !stacks_on(card, b->cols[dest][b->len[dest] - 1])) return 0;
        }
        layout_play(b, card, dest);
    }
    return layout_won(b);
}

#endif
