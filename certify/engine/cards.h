/*
** The card vocabulary the C engine shares (search.c, solver.c, external.c, move_order.h): one
** home for what a card is and what may lie on what, so that no file carries its own copy.
** certify/game/cards.py and certify/game/rules.py are the reference these mirror.
**
** A card is a byte, rank * 4 + suit: rank 0..12 is ace..king, suit 0..3 is clubs, diamonds,
** hearts, spades (so diamonds and hearts are red). A move is (card, destination), the
** destination a column 0..7, CELL (some free cell) or HOME (the card's foundation): the codes a
** certificate's lines and rules.moves use, so they are the format's, not ours to renumber.
*/

#ifndef CARDS_H
#define CARDS_H

enum { NCARDS = 52, NRANKS = 13, NSUITS = 4, NCOLUMNS = 8 };

/* The destinations of a move besides the columns 0..NCOLUMNS-1. */
enum { CELL = NCOLUMNS, HOME = NCOLUMNS + 1 };

static inline int card_rank(int card) { return card >> 2; }
static inline int card_suit(int card) { return card & 3; }
static inline int card_of(int rank, int suit) { return rank * 4 + suit; }
static inline int is_red(int card) { return card_suit(card) == 1 || card_suit(card) == 2; }

/* May `card` lie on `onto` in a column? One rank lower and the other colour. */
static inline int stacks_on(int card, int onto) {
    return card_rank(onto) == card_rank(card) + 1 && is_red(card) != is_red(onto);
}

/* May `card` go home automatically (Horne's rule, as rules.is_safe)? When it may go home (its
** foundation holds `found[suit] == rank` cards), both foundations of the other colour hold at
** least rank - 1 and the other one of its colour at least rank - 2. Suits 0 and 3 are black,
** 1 and 2 red: the other of a suit's colour is 3 - suit. */
static inline int is_safe(int card, const unsigned char *found) {
    int rank = card_rank(card), suit = card_suit(card);
    int a = is_red(card) ? 0 : 1, b = is_red(card) ? 3 : 2;   /* the other colour's suits */
    return found[suit] == rank && found[a] + 1 >= rank && found[b] + 1 >= rank &&
           found[3 - suit] + 2 >= rank;
}

#endif
