/*
** certify.engine._solver: the best-first win solver of certify/engine/reference/solver.py, in C.
**
**   solve(found, cells, columns, rules, budget, styles=None) -> bytes or None
**   solve_deal(deal, rules, budget) -> bytes (move indices) or None
**
** It finds exactly the line certify/engine/reference/solver.py finds (the Python reference;
** read it first, this file follows it function by function): the same player moves in the same order, the same
** safe foundation moves, the same whole-number priorities expanded in the same order (the
** least first, ties to the earlier push), the same styles and turns (the main attempt's, or a
** flare's given as `styles`: solver.FLARES), the same shortcut and supermove expansion. So
** both engines write byte-identical win certificates, and tests/test_solver_native.py and
** tests/test_solver_flares.py hold them to it. The line comes back as 2 bytes a single-card
** move (card, destination: 0..7 a column, 8 a free cell, 9 the foundation), replayed here
** under the plain rules first. solve_deal() is a census's one call a deal: it deals the cards
** itself (certify/game/deals.py) and gives the line as format version 3's move indices
** (move_order.h), what the deal's entry holds, replayed as it is converted, so that Python
** makes no position, line or list for a deal won at once.
**
** What makes it fast:
**  - Columns are interned in a trie: a column is (the column below its top card, the top
**    card), so a column is one 32-bit id, and putting a card on it or taking one off follows a
**    link (Column.on, Columns.bottom). What a column's moves and estimate need (top, length,
**    run, disorder, the tops its run may go onto) is worked out once per column.
**  - A position is its foundations, its cells (a set of cards, a bit each), eight column ids
**    and the sum of its columns' shares (their disorder counts and a hash of their ids, in one
**    word). Positions are the same up to the order of the columns: the hash is made from that
**    sum, and the set compares the whole position, the column ids sorted if need be (a hash
**    never decides membership).
**  - Moves are found from bit masks of cards (the tops, the cells, the cards that may go home),
**    in the order of the cards, which is the reference's order.
**  - The positions waiting are kept in a queue for each priority (whole numbers, and not
**    many of them): the same order as the reference's heap, without its log n.
**  - A search's children are made where their nodes go; nothing is allocated per node, and
**    the Solver's blocks are kept from one solve to the next (a few Solvers are kept), a set
**    emptied by counting its epoch on: most deals are solved in less time than fresh memory
**    would take to fault in or to clear.
**  - The shortcut looks up only the moves that may reach a position on the path.
**
** The search runs without the GIL: it touches no Python object. A step that may fail returns
** OK or why not (OUT_OF_MEMORY, or BROKEN: a line that does not replay, a bug), as the other
** engine files do, and solve() raises MemoryError (and frees that Solver) or RuntimeError. The
** hot path cannot fail: room for the columns a move may make is reserved before the moves are
** made (room_for_columns), as room for the nodes they may become is, so after() and the column
** trie never allocate.
*/

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cards.h"
#include "move_order.h"
#include "rules.h"
#include "zeroed.h"

#define NONE 0xFF
#define NO_NODE UINT32_MAX

/* What a step returns: OK, or why it stopped (solve_board()'s OK is SOLVED); and what
** search_turn() did in its turn. */
enum { OK = 0, SOLVED = 0, GAVE_UP, OUT_OF_MEMORY, BROKEN, RUNNING, WON, EXHAUSTED };

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#define HOT static inline __attribute__((always_inline))  /* small, and called per child */
#define RARELY(x) __builtin_expect(!!(x), 0)
#else
#define PREFETCH(address) ((void)(address))
#define HOT static inline
#define RARELY(x) (x)
#endif

/* Unroll the loop over the eight columns that follows (GCC's -O2 keeps it a loop): in the
** loops that find a position's moves, the counting and branching of the loop itself are a good
** part of the instructions. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define EACH_COLUMN _Pragma("GCC unroll 8")
#else
#define EACH_COLUMN
#endif

/* The tuning of certify/engine/reference/solver.py, in the same units (UNIT = a twentieth of a move). */
#define UNIT 20
#define CELL_COST 1
#define NSTYLES 4  /* the most styles a solve takes turns with */

/* The styles a solve takes turns with (solver.search_in_turns' arguments): each a move weight
** and a sequenced weight; the first style's head start, then the turns' size. */
typedef struct {
    int nstyles;
    int move_weight[NSTYLES], sequenced_weight[NSTYLES];
    long long head_start, turn;
} Styles;

/* solver.STYLES, HEAD_START and TURN: the main attempt's. (The flares' come from Python.) */
static const Styles MAIN_STYLES = {4, {12, 6, 6, 16}, {5, 20, 5, 5}, 1000, 500};

/* More player moves than any position offers: 16 home, 8 columns x (13 cards of a run x 2
** parents + 12 onto an empty column + 1 to a cell), 8 cells x 3 destinations. */
#define MAX_MOVES 400

/* ---- cards ------------------------------------------------------------------------------ */

/* The cards a card may lie on (solver.PARENTS), a bit each, and the cards of each rank or
** lower: filled in at import. */
static uint64_t PARENT_BITS[NCARDS];
static uint64_t RANKS_UP_TO[13];  /* [r]: the cards of rank r or lower */

static void init_tables(void) {
    for (int c = 0; c < NCARDS; c++)
        for (int p = 0; p < NCARDS; p++)
            if (stacks_on(c, p))
                PARENT_BITS[c] |= 1ULL << p;
    for (int r = 0; r < 13; r++)
        RANKS_UP_TO[r] = (1ULL << card_of(r + 1, 0)) - 1;
}

/* The lowest card of a set of cards (one that is not empty). */
HOT int lowest_bit(uint64_t bits) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(bits);
#else
    int i = 0;
    while (!(bits >> i & 1))
        i++;
    return i;
#endif
}

/* The cards that may go home without ever being missed (notation.is_safe_home), a bit each:
** the next card of a suit, when it is an ace or a two or both suits of the other colour have
** its rank home already. (A suit that is all home names a card past 51, which is no card.) */
HOT uint64_t safe_home(const uint8_t *found) {
    int c0 = found[0], h1 = found[1], h2 = found[2], c3 = found[3];  /* black, red, red, black */
    int black = c0 < c3 ? c0 : c3, red = h1 < h2 ? h1 : h2;
    return (uint64_t)(c0 <= 1 || red >= c0) << card_of(c0, 0)
           | (uint64_t)(h1 <= 1 || black >= h1) << card_of(h1, 1)
           | (uint64_t)(h2 <= 1 || black >= h2) << card_of(h2, 2)
           | (uint64_t)(c3 <= 1 || red >= c3) << card_of(c3, 3);
}

/* ---- memory: every block belongs to the Solver; a failure is returned up to solve() ------- */

typedef struct Solver Solver;

/* ---- columns, interned in a trie ---------------------------------------------------------- */

/* A column's share of what a position adds up over its columns, packed so that one addition
** keeps it all: its disorder counts (Column.out in bits 0-15, Column.seq in bits 16-31) and a
** hash of its id (bits 32-63; `share`), the position's hash being made from the sum of those. Eight
** columns' counts never reach 2^16, so the fields of a sum never spill into each other, in
** whatever order shares are added and taken away. */
#define OUT_OF(sums) ((int)((sums) & 0xFFFF))
#define SEQ_OF(sums) ((int)((sums) >> 16 & 0xFFFF))

/* Column 0 is the empty column. What the moves and the estimate need is kept with each. */
typedef struct {
    uint32_t below;  /* the column without its top card */
    uint32_t on[2];  /* the column with a card put on that may lie on the top, by the card's
                     ** suit & 1 (the two such cards are of the two suits of the other colour,
                     ** one odd, one even); 0 until it is made */
    uint8_t top;     /* its top card (NONE for the empty column) */
    uint8_t len;     /* how many cards */
    uint8_t run;     /* how many cards at the top form an alternating run (notation.run_length) */
    uint8_t low;     /* the lowest rank in it (99 when empty, as solver.disorder starts) */
    uint8_t out;     /* cards above a lower card, not in sequence on the card below ... */
    uint8_t seq;     /* ... and in sequence on it: solver.disorder = UNIT * out + w * seq */
    uint64_t share;  /* its share of a position's sums (`share`) */
    uint64_t wants;  /* the cards that some card of its run may go onto, a bit each */
} Column;

/* Every column has one id: a column is made from the one below it by the card put on, found
** through `bottom` (a card alone) or Column.on (a card that may lie on the top). A card that
** may not lie on the card below it is there as it was dealt; no move can put it there again,
** so such a column is made once, when the position given is read, and needs no link. */
typedef struct {
    Column *at;
    size_t n, cap;
    uint32_t bottom[NCARDS];  /* the column of that card alone, or 0 until it is made */
} Columns;

HOT uint64_t mix64(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    return x ^ (x >> 32);
}

static uint64_t share(int out, int seq, uint32_t id) {
    return (mix64(id) >> 32 << 32) | (uint64_t)seq << 16 | (uint64_t)out;
}

/* The column `below` with `card` put on top, made now, where room for it was made. */
static uint32_t column_made(Columns *t, uint32_t below, int card) {
    const Column *b = &t->at[below];
    int linked = below == 0 || stacks_on(card, b->top);
    Column c = {below, {0, 0}, (uint8_t)card, (uint8_t)(b->len + 1), 1, b->low, b->out, b->seq,
                0, PARENT_BITS[card]};
    if (b->len == 0) {
        c.low = (uint8_t)card_rank(card);
    } else {
        if (linked) {
            c.run = (uint8_t)(b->run + 1);
            c.wants |= b->wants;
        }
        if (card_rank(card) > b->low) {  /* it lies above a lower card */
            if (linked)
                c.seq++;
            else
                c.out++;
        } else {
            c.low = (uint8_t)card_rank(card);
        }
    }
    uint32_t id = (uint32_t)t->n++;  /* (room made by room_for_columns) */
    c.share = share(c.out, c.seq, id);
    t->at[id] = c;
    if (below == 0)
        t->bottom[card] = id;
    else if (linked)
        t->at[below].on[card_suit(card) & 1] = id;
    return id;
}

/* The column `below` with `card` put on top, where a move may put it: on the empty column, or
** on a card it may lie on. */
HOT uint32_t column_on(Columns *t, uint32_t below, int card) {
    uint32_t id = below ? t->at[below].on[card_suit(card) & 1] : t->bottom[card];
    return id ? id : column_made(t, below, card);
}

/* The column `below` with any card put on top (as a column is read from the position given). */
static uint32_t column_with(Columns *t, uint32_t below, int card) {
    if (below == 0 || stacks_on(card, t->at[below].top))
        return column_on(t, below, card);
    return column_made(t, below, card);
}

/* The top k cards of column `id`, bottom to top, into cards[0..k-1]. */
static void top_cards(const Columns *t, uint32_t id, int k, uint8_t *cards) {
    for (int i = k - 1; i >= 0; i--) {
        cards[i] = t->at[id].top;
        id = t->at[id].below;
    }
}

/* ---- positions ---------------------------------------------------------------------------- */

/* A position as the search keeps it in its nodes. */
typedef struct {
    uint32_t col[8];   /* column ids, in the position's own order */
    uint8_t found[4];  /* cards home in each suit */
    uint8_t ncell;     /* how many cards the free cells hold ... */
    uint64_t cells;    /* ... and which, a bit each (so in ascending order, as the reference's) */
    uint64_t sums;     /* the columns' shares (Column.share), added up */
} Position;

/* Put column `id` in place j; every change of a column goes through here, to keep the sums
** that the hash and the estimate need up to date. */
HOT void set_column(const Columns *t, Position *p, int j, uint32_t id) {
    p->sums += t->at[id].share - t->at[p->col[j]].share;
    p->col[j] = id;
}

/* Positions are the same up to the order of their columns. Most positions met twice have
** their columns in the same order (two moves made in either order), so that is tried first. */
static int same_columns(const Position *a, const Position *b);

HOT int same_position(const Position *a, const Position *b) {
    if (memcmp(a->found, b->found, 4) != 0 || a->cells != b->cells)
        return 0;
    return memcmp(a->col, b->col, sizeof a->col) == 0 || same_columns(a, b);
}

/* The same columns in another order? */
static int same_columns(const Position *a, const Position *b) {
    uint32_t x[8], y[8];
    for (int i = 0; i < 8; i++) {  /* insertion sort: eight numbers */
        uint32_t u = a->col[i], v = b->col[i];
        int j = i, k = i;
        for (; j > 0 && x[j - 1] > u; j--)
            x[j] = x[j - 1];
        x[j] = u;
        for (; k > 0 && y[k - 1] > v; k--)
            y[k] = y[k - 1];
        y[k] = v;
    }
    return memcmp(x, y, sizeof x) == 0;
}

/* A hash that does not depend on the order of the columns: their shares are added. */
HOT uint32_t position_hash(const Position *p) {
    uint32_t found;
    memcpy(&found, p->found, 4);
    uint64_t h = (found * 0x9E3779B97F4A7C15ULL ^ p->cells) * 0xC2B2AE3D27D4EB4FULL + p->sums;
    return (uint32_t)((h ^ h >> 29) * 0xBF58476D1CE4E5B9ULL >> 32);
}

static int is_won(const Position *p) {
    return p->found[0] == 13 && p->found[1] == 13 && p->found[2] == 13 && p->found[3] == 13;
}

HOT void cell_remove(Position *p, int card) {
    p->cells &= ~(1ULL << card);
    p->ncell--;
}

HOT void cell_add(Position *p, int card) {
    p->cells |= 1ULL << card;
    p->ncell++;
}

/* ---- the Solver ------------------------------------------------------------------------- */

typedef struct {
    Position at;
    uint32_t parent;  /* NO_NODE for the root */
    uint32_t next;    /* the next node waiting with the same priority, or NO_NODE */
} Node;  /* (the player moves from the root, g, are told by its priority: see search_turn) */

/* An open-addressing hash set of nodes. A slot holds (epoch << 24 | the key's hash >> 8) << 32
** | (node + 1): the hash skips most unequal keys without comparing them, and a slot of another
** epoch than the set's is free, so that a set is emptied (for the next solve, or to grow) by
** counting the epoch on, not by writing every slot; all are written once in 255 epochs. */
typedef struct {
    uint64_t *slots;
    uint32_t mask, n;
    size_t room;       /* slots allocated */
    unsigned epoch;    /* 1..255 once in use */
} NodeSet;

typedef struct {        /* one best_first search of one style */
    int begun;
    int move_weight, sequenced_weight;
    /* move_weight as 2^shift * odd, and odd's inverse modulo 2^64: a multiple of move_weight
    ** is divided by it exactly with a shift and a multiplication (see search_turn) */
    int weight_shift;
    uint64_t weight_inverse;
    Node *nodes;
    size_t n, cap;
    NodeSet set;
    /* The nodes waiting to be expanded: priorities are small whole numbers, so a queue for
    ** each (first[q] .. last[q], linked by Node.next; last[q] means nothing while first[q] is
    ** NO_NODE), the earlier push first as in the reference's heap of (priority, push
    ** counter); `lowest` is at or below the least. */
    uint32_t *first, *last;
    size_t npriorities, lowest, waiting;
    uint32_t won;       /* the node of a won position once found */
} Search;

typedef struct {
    uint8_t card, dest, k;
    int8_t source;  /* a column, or -1: a free cell */
} Move;

typedef struct {
    uint8_t *at;  /* (card, destination) pairs */
    size_t n, cap;
} Line;

typedef struct {
    Node *at;         /* the path's positions, root first */
    size_t n, cap;
    NodeSet index;    /* the same positions, to find their places on the path */
    uint8_t *has;     /* has[id]: does a position on the path have column id? (for the ids */
    size_t nhas, has_cap;  /* below nhas; the columns made later are on none) */
    uint64_t in_cells;     /* the cards in a free cell in some position on the path */
} Path;

/* Everything a solve works in. Its blocks are kept from one solve to the next (solve() keeps a
** few Solvers): a fresh block costs a page fault a page, and most deals are solved in less
** time than their blocks would take to fault in. Each solve starts by resetting the counts. */
struct Solver {
    int ncells;
    Styles styles;
    Columns columns;
    Search search[NSTYLES];
    Path path;
    Move *moves;        /* the player moves of the shortcut line */
    size_t nmoves, moves_cap;
    Line line;
};

/* A block of `count` items (count > 0), the old contents kept; NULL if there is no room, the
** block then as it was. */
static void *grow(void *block, size_t count, size_t size) {
    return count > SIZE_MAX / size ? NULL : realloc(block, count * size);
}

/* `block` (of *cap items) with room for `count` (count > 0): twice as many if it must grow, the
** contents kept; NULL if there is no room, the block and *cap then as they were. */
static void *room_for(void *block, size_t *cap, size_t count, size_t size) {
    if (count <= *cap)
        return block;
    size_t now = *cap ? *cap : 1;
    while (now < count) {
        if (now > SIZE_MAX / 2)
            return NULL;
        now *= 2;
    }
    void *b = grow(block, now, size);
    if (b != NULL)
        *cap = now;
    return b;
}

/* Room for `more` columns to be made (ids are 32 bits). */
static int grow_columns(Columns *t, size_t more) {
    if (t->n + more > UINT32_MAX)
        return OUT_OF_MEMORY;
    Column *at = room_for(t->at, &t->cap, t->n + more, sizeof *at);
    if (at == NULL)
        return OUT_OF_MEMORY;
    t->at = at;
    return OK;
}

HOT int room_for_columns(Columns *t, size_t more) {
    return RARELY(t->n + more > t->cap) ? grow_columns(t, more) : OK;
}

/* Room for the columns that n moves may make: a move makes at most one a card it puts down, and
** it carries at most a run, 13 cards (a bound, not the moves' cards added up). */
HOT int room_for_moves(Columns *t, int n) {
    return room_for_columns(t, (size_t)n * 13);
}

/* ---- player moves (solver.player_moves), in the same order ---------------------------------- */

static int player_moves(const Solver *s, const Position *p, Move *out) {
    const Columns *t = &s->columns;
    int free = s->ncells - p->ncell, n = 0, empty = 0, first_empty = -1;
    int8_t where[NCARDS];  /* top card -> its column, for the cards in `tops` only */
    uint64_t tops = 0;     /* the top cards, a bit each */
    const Column *cols[8];
    uint64_t next_home = 1ULL << card_of(p->found[0], 0) | 1ULL << card_of(p->found[1], 1)
                         | 1ULL << card_of(p->found[2], 2) | 1ULL << card_of(p->found[3], 3);
                         /* the card each suit takes next, a bit each (past 51 when done) */
    for (uint64_t home = p->cells & next_home; home; home &= home - 1)
        out[n++] = (Move){(uint8_t)lowest_bit(home), HOME, 1, -1};
    EACH_COLUMN
    for (int j = 0; j < 8; j++) {
        const Column *c = cols[j] = &t->at[p->col[j]];
        if (p->col[j]) {
            where[c->top] = (int8_t)j;
            tops |= 1ULL << c->top;
            if (next_home >> c->top & 1)
                out[n++] = (Move){c->top, HOME, 1, (int8_t)j};
        }
        else if (empty++ == 0)
            first_empty = j;
    }
    int room = (free + 1) << empty;  /* most cards onto a non-empty column */
    int room_empty = empty ? (free + 1) << (empty - 1) : 0;  /* ... onto an empty one */
    EACH_COLUMN
    for (int j = 0; j < 8; j++) {
        const Column *c = cols[j];
        if (c->len == 0)
            continue;
        /* The tops the cards of its run may go onto: the k-th card from the top onto a card
        ** of rank top + k, so in the order of the cards, as these bits are, k goes up and
        ** the parents of each card go up, as the reference has them. The cards are looked up
        ** (walking down the column) only where there is a move. */
        uint64_t onto = tops & c->wants;
        if (onto) {
            int most = c->run < room ? c->run : room;
            if (card_rank(c->top) + most < 12)
                onto &= RANKS_UP_TO[card_rank(c->top) + most];
            uint32_t id = p->col[j];
            int depth = 1;
            for (; onto; onto &= onto - 1) {
                int parent = lowest_bit(onto), k = card_rank(parent) - card_rank(c->top);
                for (; depth < k; depth++)
                    id = t->at[id].below;
                out[n++] = (Move){t->at[id].top, (uint8_t)where[parent], (uint8_t)k, (int8_t)j};
            }
        }
        if (empty) {
            uint8_t run[NCARDS];  /* run[k - 1]: the k-th card from the top */
            int alone = c->run < c->len - 1 ? c->run : c->len - 1;  /* never the whole column */
            if (alone > room_empty)
                alone = room_empty;
            uint32_t id = p->col[j];
            for (int k = 0; k < alone; k++, id = t->at[id].below)
                run[k] = t->at[id].top;
            for (int k = alone; k >= 1; k--)
                out[n++] = (Move){run[k - 1], (uint8_t)first_empty, (uint8_t)k, (int8_t)j};
        }
        if (free)
            out[n++] = (Move){c->top, CELL, 1, (int8_t)j};
    }
    for (uint64_t in_cells = p->cells; in_cells; in_cells &= in_cells - 1) {
        int card = lowest_bit(in_cells);
        for (uint64_t onto = tops & PARENT_BITS[card]; onto; onto &= onto - 1)
            out[n++] = (Move){(uint8_t)card, (uint8_t)where[lowest_bit(onto)], 1, -1};
        if (empty)
            out[n++] = (Move){(uint8_t)card, (uint8_t)first_empty, 1, -1};
    }
    return n;
}

/* ---- successors (solver.after, solver.autoplay, solver.successor) -------------------------- */

/* Append a single-card move to the line, if there is one to keep. */
static int emit(Line *line, int card, int dest) {
    if (line == NULL)
        return OK;
    if (line->n + 2 > line->cap) {
        size_t cap = line->cap ? 2 * line->cap : 512;
        uint8_t *at = grow(line->at, cap, 1);
        if (at == NULL)
            return OUT_OF_MEMORY;
        line->at = at;
        line->cap = cap;
    }
    line->at[line->n++] = (uint8_t)card;
    line->at[line->n++] = (uint8_t)dest;
    return OK;
}

/* Safe foundation moves, one after another until none is left, the cells first; each written
** to `line` if there is one (without a line, nothing can fail). */
static int autoplay(Solver *s, Position *p, Line *line) {
    const Columns *t = &s->columns;
    int8_t where[NCARDS];  /* top card -> its column, for the cards in `tops` only */
    uint64_t tops = 0;
    EACH_COLUMN
    for (int j = 0; j < 8; j++)
        if (p->col[j]) {
            where[t->at[p->col[j]].top] = (int8_t)j;
            tops |= 1ULL << t->at[p->col[j]].top;
        }
    for (;;) {
        uint64_t safe = safe_home(p->found);
        int card;
        if (p->cells & safe) {
            card = lowest_bit(p->cells & safe);
            cell_remove(p, card);
        } else if (tops & safe) {
            int j = 8;  /* the first column whose top may go */
            for (uint64_t go = tops & safe; go; go &= go - 1)
                if (where[lowest_bit(go)] < j)
                    j = where[lowest_bit(go)];
            card = t->at[p->col[j]].top;
            uint32_t below = t->at[p->col[j]].below;
            set_column(t, p, j, below);
            tops &= ~(1ULL << card);
            if (below) {
                where[t->at[below].top] = (int8_t)j;
                tops |= 1ULL << t->at[below].top;
            }
        } else {
            return OK;
        }
        if (emit(line, card, HOME) != OK)
            return OUT_OF_MEMORY;
        p->found[card_suit(card)]++;
    }
}

/* The position after a player move and the safe foundation moves it allows, from a position
** that has none left (`safe`: the cards that may go home safely there): unless the move went
** home, only the card it uncovered may now go. */
HOT int after(Solver *s, const Position *p, uint64_t safe, const Move *m, Position *child);

HOT void successor(Solver *s, const Position *p, uint64_t safe, const Move *m, Position *child) {
    if (RARELY(after(s, p, safe, m, child)))
        (void)autoplay(s, child, NULL);  /* (no line: it cannot fail) */
}

/* The position after a player move, before any safe foundation moves; whether one follows.
** Room for the columns it makes was made (room_for_moves). */
HOT int after(Solver *s, const Position *p, uint64_t safe, const Move *m, Position *child) {
    Columns *t = &s->columns;
    uint8_t moved[NCARDS];  /* the cards moved, bottom to top */
    *child = *p;
    int k = m->k, card = m->card, dest = m->dest, autoplays = dest == HOME;
    if (m->source < 0) {
        cell_remove(child, card);
    } else if (k == 1) {  /* most moves */
        uint32_t id = t->at[p->col[m->source]].below;
        set_column(t, child, m->source, id);
        autoplays |= id && safe >> t->at[id].top & 1;
    } else {
        uint32_t id = p->col[m->source];
        for (int i = k - 1; i >= 0; i--, id = t->at[id].below)
            moved[i] = t->at[id].top;
        set_column(t, child, m->source, id);
        autoplays |= id && safe >> t->at[id].top & 1;
    }
    if (dest == HOME) {
        child->found[card_suit(card)]++;
    } else if (dest == CELL) {
        cell_add(child, card);
    } else if (k == 1) {
        set_column(t, child, dest, column_on(t, p->col[dest], card));
    } else {
        uint32_t id = p->col[dest];
        for (int i = 0; i < k; i++)
            id = column_on(t, id, moved[i]);
        set_column(t, child, dest, id);
    }
    return autoplays;
}

/* ---- the hash set of positions ------------------------------------------------------------- */

static uint32_t slot_node(uint64_t slot) { return (uint32_t)slot - 1; }

HOT uint32_t slot_tag(const NodeSet *set, uint32_t hash) {
    return (uint32_t)set->epoch << 24 | hash >> 8;
}

HOT int slot_taken(const NodeSet *set, uint32_t slot) {
    return set->slots[slot] >> 56 == set->epoch;
}

/* The slot holding position p (whose hash is `hash`), or the free slot where it would go. */
HOT uint32_t set_slot(const NodeSet *set, const Node *nodes, const Position *p, uint32_t hash) {
    uint32_t i = hash & set->mask, tag = slot_tag(set, hash);
    for (;;) {
        uint64_t v = set->slots[i];
        if (v >> 56 != set->epoch
            || ((uint32_t)(v >> 32) == tag && same_position(p, &nodes[slot_node(v)].at)))
            return i;
        i = (i + 1) & set->mask;
    }
}

HOT void set_put(NodeSet *set, uint32_t slot, uint32_t hash, uint32_t node) {
    set->slots[slot] = (uint64_t)slot_tag(set, hash) << 32 | (node + 1);
    set->n++;
}

/* Empty the set, with `nslots` slots (a power of two). */
static int set_init(NodeSet *set, size_t nslots) {
    if (nslots > (size_t)UINT32_MAX + 1)
        return OUT_OF_MEMORY;
    if (nslots > set->room) {
        free(set->slots);
        set->slots = NULL;
        set->room = 0;
        set->slots = zeroed(nslots, sizeof *set->slots);  /* pages written (zeroed.h) */
        if (set->slots == NULL)
            return OUT_OF_MEMORY;
        set->room = nslots;
        set->epoch = 1;  /* zeroed slots are of epoch 0 */
    } else if (set->epoch == 255) {
        write_bytes(set->slots, 0, set->room * sizeof *set->slots);
        set->epoch = 1;
    } else {
        set->epoch++;
    }
    set->mask = (uint32_t)(nslots - 1);
    set->n = 0;
    return OK;
}

/* Twice the slots, when more than half would be taken: the probes stay short. The nodes are put
** in again, from their positions. */
static int set_grow(Search *r) {
    NodeSet *set = &r->set;
    if (set_init(set, 2 * ((size_t)set->mask + 1)) != OK)
        return OUT_OF_MEMORY;
    for (uint32_t v = 0; v < r->n; v++) {
        uint32_t hash = position_hash(&r->nodes[v].at), i = hash & set->mask;
        while (slot_taken(set, i))
            i = (i + 1) & set->mask;
        set_put(set, i, hash, v);
    }
    return OK;
}

/* ---- one search (solver.best_first) ------------------------------------------------------- */

HOT uint64_t estimate(const Position *p, int sequenced_weight) {
    uint32_t found;
    memcpy(&found, p->found, 4);
    int home = (int)((found * 0x01010101u) >> 24);  /* the four counts added up */
    int64_t e = UNIT * (52 - home + CELL_COST * p->ncell);
    return (uint64_t)(e + UNIT * OUT_OF(p->sums) + sequenced_weight * SEQ_OF(p->sums));
}

HOT int enqueue(Search *r, uint64_t priority, uint32_t node) {
    if (RARELY(priority >= r->npriorities)) {
        size_t was = r->npriorities, now = was;
        while (now <= priority)
            now *= 2;
        uint32_t *first = grow(r->first, now, sizeof *first);
        if (first == NULL)
            return OUT_OF_MEMORY;
        r->first = first;  /* (longer than npriorities says until last is too: harmless) */
        uint32_t *last = grow(r->last, now, sizeof *last);
        if (last == NULL)
            return OUT_OF_MEMORY;
        r->last = last;
        for (size_t q = was; q < now; q++)
            r->first[q] = NO_NODE;
        r->npriorities = now;
    }
    r->nodes[node].next = NO_NODE;
    if (r->first[priority] == NO_NODE)
        r->first[priority] = node;
    else
        r->nodes[r->last[priority]].next = node;
    r->last[priority] = node;
    if (priority < r->lowest)
        r->lowest = (size_t)priority;
    r->waiting++;
    return OK;
}

/* The node of least priority, the earliest pushed of those; there is one. */
HOT uint32_t dequeue(Search *r) {
    while (r->first[r->lowest] == NO_NODE)
        r->lowest++;
    uint32_t node = r->first[r->lowest];
    r->first[r->lowest] = r->nodes[node].next;
    r->waiting--;
    return node;
}

/* Room for `more` nodes after the last. */
static int room_for_nodes(Search *r, size_t more) {
    if (r->n + more <= r->cap)
        return OK;
    if (r->n + more >= NO_NODE)
        return OUT_OF_MEMORY;
    Node *nodes = room_for(r->nodes, &r->cap, r->n + more, sizeof *nodes);
    if (nodes == NULL)
        return OUT_OF_MEMORY;
    r->nodes = nodes;
    return OK;
}

/* Add a position the set does not hold (at `slot`) as the next node, where room was made for
** it and in the set (room_for_children); returns its node. The position may be there already
** (search_turn makes it there). */
HOT uint32_t add_node(Search *r, uint32_t slot, uint32_t hash, const Position *p,
                      uint32_t parent) {
    uint32_t node = (uint32_t)r->n++;
    Node *v = &r->nodes[node];
    if (&v->at != p)
        v->at = *p;
    v->parent = parent;
    v->next = NO_NODE;
    set_put(&r->set, slot, hash, node);
    return node;
}

/* Room for the n children of a node to be made and added: as nodes, as the columns their moves
** may make, and in the set (at most half its slots taken). Bounds, not counts: a few
** comparisons an expansion, none a child. */
HOT int room_for_children(Solver *s, Search *r, int n) {
    if (RARELY(2 * (r->set.n + (size_t)n) > (size_t)r->set.mask + 1) && set_grow(r) != OK)
        return OUT_OF_MEMORY;
    if (room_for_nodes(r, (size_t)n) != OK)
        return OUT_OF_MEMORY;
    return room_for_moves(&s->columns, n);
}

/* Slots a search starts with: enough for most deals' positions, at most half of them taken. */
#define FIRST_SLOTS 16384

static int search_init(Solver *s, Search *r, int style, const Position *root) {
    r->begun = 1;
    r->move_weight = s->styles.move_weight[style];
    r->sequenced_weight = s->styles.sequenced_weight[style];
    uint64_t odd = (uint64_t)r->move_weight;
    for (r->weight_shift = 0; !(odd & 1); r->weight_shift++)
        odd >>= 1;
    r->weight_inverse = odd;  /* right in 3 bits; each step doubles them (Newton's method) */
    for (int i = 0; i < 5; i++)
        r->weight_inverse *= 2 - odd * r->weight_inverse;
    r->n = 0;
    if (r->npriorities == 0) {
        uint32_t *first = grow(r->first, 1024, sizeof *first);
        if (first == NULL)
            return OUT_OF_MEMORY;
        r->first = first;
        uint32_t *last = grow(r->last, 1024, sizeof *last);
        if (last == NULL)
            return OUT_OF_MEMORY;
        r->last = last;
        r->npriorities = 1024;
    }
    memset(r->first, 0xFF, r->npriorities * sizeof *r->first);  /* NO_NODE in every queue */
    r->lowest = r->npriorities;
    r->waiting = 0;
    r->won = NO_NODE;
    if (room_for_nodes(r, 1024) != OK || set_init(&r->set, FIRST_SLOTS) != OK)
        return OUT_OF_MEMORY;
    uint32_t hash = position_hash(root);
    uint32_t node = add_node(r, set_slot(&r->set, r->nodes, root, hash), hash, root, NO_NODE);
    return enqueue(r, estimate(root, r->sequenced_weight), node);
}

/* Expand up to `size` positions, the least priority first: RUNNING, WON, EXHAUSTED, or
** OUT_OF_MEMORY. */
static int search_turn(Solver *s, Search *r, long long size) {
    Move moves[MAX_MOVES];
    uint32_t hashes[MAX_MOVES];
    for (; size > 0; size--) {
        if (r->waiting == 0)
            return EXHAUSTED;
        uint32_t node = dequeue(r);
        Position p = r->nodes[node].at;
        /* Its priority is estimate + move_weight * g: the moves from the root, g, follow (an
        ** exact division, so as a multiplication: a division takes tens of cycles). */
        uint64_t g = ((r->lowest - estimate(&p, r->sequenced_weight)) >> r->weight_shift)
                     * r->weight_inverse;
        int n = player_moves(s, &p, moves);
        uint64_t safe = safe_home(p.found);
        /* All the children first, where the nodes they may become go (so that none is copied
        ** but to close the gap a child met before leaves), and their slots fetched from memory
        ** at once. */
        if (room_for_children(s, r, n) != OK)
            return OUT_OF_MEMORY;
        Node *children = &r->nodes[r->n];
        for (int i = 0; i < n; i++) {
            successor(s, &p, safe, &moves[i], &children[i].at);
            hashes[i] = position_hash(&children[i].at);
            PREFETCH(&r->set.slots[hashes[i] & r->set.mask]);
        }
        for (int i = 0; i < n; i++) {
            const Position *child = &children[i].at;
            uint32_t hash = hashes[i];
            uint32_t slot = set_slot(&r->set, r->nodes, child, hash);
            if (slot_taken(&r->set, slot))
                continue;
            uint32_t added = add_node(r, slot, hash, child, node);
            child = &r->nodes[added].at;
            if (RARELY(is_won(child))) {
                r->won = added;
                return WON;
            }
            uint64_t priority = estimate(child, r->sequenced_weight)
                                + (uint64_t)r->move_weight * (g + 1);
            if (RARELY(enqueue(r, priority, added) != OK))
                return OUT_OF_MEMORY;
        }
    }
    return r->waiting == 0 ? EXHAUSTED : RUNNING;
}

/* The searches of every style in turns (solver.search_in_turns): OK with the style that won
** in *style; GAVE_UP when one runs out of positions or the budget is spent; OUT_OF_MEMORY. */
static int search_in_turns(Solver *s, const Position *root, long long budget, int *style) {
    for (long long turn = 0;; turn++) {
        *style = (int)(turn % s->styles.nstyles);
        Search *r = &s->search[*style];
        long long size = turn == 0 ? s->styles.head_start : s->styles.turn;
        if (size > budget)
            size = budget;
        if (size <= 0)
            return GAVE_UP;
        budget -= size;
        if (!r->begun && search_init(s, r, *style, root) != OK)  /* most are won in turn 0 */
            return OUT_OF_MEMORY;
        int outcome = search_turn(s, r, size);
        if (outcome == WON)
            return OK;
        if (outcome != RUNNING)
            return outcome == EXHAUSTED ? GAVE_UP : outcome;
    }
}

/* ---- from the path found to single-card moves (solver.shortcut, single_card_moves) ------ */

static int path_of(Solver *s, const Search *r, Path *path) {
    size_t n = 0;
    for (uint32_t v = r->won; v != NO_NODE; v = r->nodes[v].parent)
        n++;
    Node *at = room_for(path->at, &path->cap, n, sizeof *at);  /* (n > 0: the root) */
    if (at == NULL)
        return OUT_OF_MEMORY;
    path->at = at;
    uint8_t *has = room_for(path->has, &path->has_cap, s->columns.n, 1);
    if (has == NULL)
        return OUT_OF_MEMORY;
    path->has = has;
    path->n = n;
    for (uint32_t v = r->won; v != NO_NODE; v = r->nodes[v].parent)
        path->at[--n] = r->nodes[v];
    uint32_t nslots = 16;
    while (nslots < 2 * path->n + 2)
        nslots *= 2;
    if (set_init(&path->index, nslots) != OK)
        return OUT_OF_MEMORY;
    path->nhas = s->columns.n;
    memset(path->has, 0, path->nhas);
    path->in_cells = 0;
    for (uint32_t i = 0; i < path->n; i++) {
        Position p = path->at[i].at;
        uint32_t hash = position_hash(&p);
        set_put(&path->index, set_slot(&path->index, path->at, &p, hash), hash, i);
        for (int j = 0; j < 8; j++)
            path->has[p.col[j]] = 1;
        path->in_cells |= p.cells;
    }
    return OK;
}

/* Is column `id` in some position on the path? */
static int on_path(const Path *path, uint32_t id) {
    return id < path->nhas && path->has[id];
}

/* Might a move from p lead to a position on the path? Not when it makes a column that no
** position on the path has, or puts a card in a cell where no position on the path has it,
** unless foundation moves follow it (then other columns and cells change too). (`safe`: the
** cards that may go home safely from p.) */
static int may_reach_path(const Solver *s, const Path *path, const Position *p, uint64_t safe,
                          const Move *m) {
    const Columns *t = &s->columns;
    uint8_t moved[NCARDS];  /* the cards moved, bottom to top */
    if (m->dest == HOME)
        return 1;
    moved[0] = m->card;
    if (m->source >= 0) {
        uint32_t id = p->col[m->source];
        if (m->k == 1)  /* most moves: moved[0] is the card */
            id = t->at[id].below;
        else
            for (int i = m->k - 1; i >= 0; i--, id = t->at[id].below)
                moved[i] = t->at[id].top;
        if (id && safe >> t->at[id].top & 1)
            return 1;
        if (!on_path(path, id))
            return 0;
    }
    if (m->dest == CELL)
        return path->in_cells >> m->card & 1;
    uint32_t id = p->col[m->dest];
    for (int i = 0; i < m->k && (i == 0 || id); i++)  /* 0 after the first card: not made */
        id = id ? t->at[id].on[card_suit(moved[i]) & 1] : t->bottom[moved[i]];
    return id && on_path(path, id);
}

/* Where a position lies on the path, or -1. */
static long path_index(const Path *path, const Position *p) {
    uint32_t hash = position_hash(p);
    uint32_t slot = set_slot(&path->index, path->at, p, hash);
    return slot_taken(&path->index, slot) ? (long)slot_node(path->index.slots[slot]) : -1;
}

/* Player moves from the path's start to its win, each jumping as far along as one move goes,
** into s->moves. A jump that goes nowhere is a bug (BROKEN). */
static int shortcut(Solver *s, const Path *path) {
    Move offered[MAX_MOVES];
    Position p = path->at[0].at;
    long i = 0;
    s->nmoves = 0;
    while (i < (long)path->n - 1) {
        long best = -2;
        Move move = {0, 0, 0, 0};
        Position next = p;
        int count = player_moves(s, &p, offered);
        uint64_t safe = safe_home(p.found);
        if (room_for_moves(&s->columns, count) != OK)
            return OUT_OF_MEMORY;
        for (int m = 0; m < count; m++) {
            Position child;
            if (!may_reach_path(s, path, &p, safe, &offered[m]))
                continue;  /* as if it were looked up and not found */
            successor(s, &p, safe, &offered[m], &child);
            long j = path_index(path, &child);
            if (j > best) {
                best = j;
                move = offered[m];
                next = child;
            }
        }
        if (best <= i)
            return BROKEN;
        Move *moves = room_for(s->moves, &s->moves_cap, s->nmoves + 1, sizeof *moves);
        if (moves == NULL)
            return OUT_OF_MEMORY;
        s->moves = moves;
        s->moves[s->nmoves++] = move;
        i = best;
        p = next;
    }
    return OK;
}

/* The single-card moves that carry `cards` (bottom to top, k of them) from column `source` to
** `dest` through `free` cells and the empty columns `empties` (notation.supermove). */
static int supermove(Line *line, const uint8_t *cards, int k, int source, int dest, int free,
                     const int *empties, int nempty) {
    if (k <= free + 1) {
        for (int i = k - 1; i >= 1; i--)
            if (emit(line, cards[i], CELL) != OK)
                return OUT_OF_MEMORY;
        for (int i = 0; i < k; i++)
            if (emit(line, cards[i], dest) != OK)
                return OUT_OF_MEMORY;
        return OK;
    }
    if (nempty == 0)
        return BROKEN;  /* more cards than the move may carry: a bug */
    int spare = empties[0], fit = (free + 1) << (nempty - 1), e;
    if (k <= fit)  /* this empty column is not needed */
        return supermove(line, cards, k, source, dest, free, empties + 1, nempty - 1);
    if ((e = supermove(line, cards + (k - fit), fit, source, spare, free, empties + 1,
                       nempty - 1)) != OK
        || (e = supermove(line, cards, k - fit, source, dest, free, empties + 1, nempty - 1)) != OK)
        return e;
    return supermove(line, cards + (k - fit), fit, spare, dest, free, empties + 1, nempty - 1);
}

/* The line of single-card moves for player moves from `start`, safe foundation moves (made
** before the first move and after each) written out. */
static int single_card_moves(Solver *s, const Position *start, const Move *moves, size_t n) {
    Position p = *start;
    int e = autoplay(s, &p, &s->line);
    for (size_t i = 0; i < n && e == OK; i++) {
        const Move *m = &moves[i];
        if (room_for_moves(&s->columns, 1) != OK)
            return OUT_OF_MEMORY;
        if (m->k == 1) {
            e = emit(&s->line, m->card, m->dest);
        } else {
            uint8_t cards[NCARDS];
            int empties[8], nempty = 0;
            for (int x = 0; x < 8; x++)
                if (!p.col[x] && x != m->dest)
                    empties[nempty++] = x;
            top_cards(&s->columns, p.col[m->source], m->k, cards);
            e = supermove(&s->line, cards, m->k, m->source, m->dest, s->ncells - p.ncell,
                          empties, nempty);
        }
        Position next;  /* where the single-card moves lead: where the player move does */
        after(s, &p, 0, m, &next);
        p = next;
        if (e == OK)
            e = autoplay(s, &p, &s->line);
    }
    return e;
}

/* ---- solve ----------------------------------------------------------------------------- */

static void free_solver(Solver *s) {
    free(s->columns.at);
    for (int i = 0; i < NSTYLES; i++) {
        free(s->search[i].nodes);
        free(s->search[i].first);
        free(s->search[i].last);
        free(s->search[i].set.slots);
    }
    free(s->path.at);
    free(s->path.index.slots);
    free(s->path.has);
    free(s->moves);
    free(s->line.at);
    free(s);
}

/* The bytes a Solver holds. */
static size_t solver_bytes(const Solver *s) {
    size_t bytes = sizeof *s + s->columns.cap * sizeof(Column)
                   + s->path.index.room * sizeof(uint64_t)
                   + s->path.cap * sizeof(Node) + s->path.has_cap + s->moves_cap * sizeof(Move)
                   + s->line.cap;
    for (int i = 0; i < NSTYLES; i++)
        bytes += s->search[i].cap * sizeof(Node) + s->search[i].set.room * sizeof(uint64_t)
                 + 2 * s->search[i].npriorities * sizeof(uint32_t);
    return bytes;
}

/* SOLVED with the line in s->line, GAVE_UP, OUT_OF_MEMORY or BROKEN. The line is not yet
** replayed: solve() and solve_deal() each replay it once, as they give it. */
static int solve_board(Solver *s, const Layout *board, long long budget) {
    Columns *t = &s->columns;
    t->n = 0;
    if (room_for_columns(t, 1024) != OK)  /* (the board's columns among them: 52 at most) */
        return OUT_OF_MEMORY;
    t->at[0] = (Column){0, {0, 0}, NONE, 0, 0, 99, 0, 0, share(0, 0, 0), 0};
    t->n = 1;
    memset(t->bottom, 0, sizeof t->bottom);
    for (int i = 0; i < NSTYLES; i++)
        s->search[i].begun = 0;
    s->nmoves = 0;
    s->line.n = 0;

    Position start;
    memcpy(start.found, board->found, 4);
    start.ncell = 0;
    start.cells = 0;
    for (int i = 0; i < board->ncells_used; i++)
        cell_add(&start, board->cells[i]);
    start.sums = 8 * t->at[0].share;
    for (int j = 0; j < 8; j++) {
        uint32_t id = 0;
        start.col[j] = 0;
        for (int i = 0; i < board->len[j]; i++)
            id = column_with(t, id, board->cols[j][i]);
        set_column(t, &start, j, id);
    }
    Position root = start;
    (void)autoplay(s, &root, NULL);  /* (no line: it cannot fail) */
    if (!is_won(&root)) {
        int style, e = search_in_turns(s, &root, budget, &style);
        if (e == OK)
            e = path_of(s, &s->search[style], &s->path);
        if (e == OK)
            e = shortcut(s, &s->path);
        if (e != OK)
            return e;
    }
    /* (The caller replays the line: as moves, or as it converts them to indices.) */
    return single_card_moves(s, &start, s->moves, s->nmoves);
}

/* The Solvers kept between solves, for the next solve (in any thread) to take: taken and given
** back with the GIL held, which is all that guards them. A Solver grown past KEPT_BYTES, or one
** more than KEPT, is freed instead. */
#define KEPT 4
#define KEPT_BYTES ((size_t)16 << 20)
static Solver *kept[KEPT];
static int nkept;

static Solver *take_solver(void) {
    return nkept > 0 ? kept[--nkept] : calloc(1, sizeof(Solver));
}

static void give_back(Solver *s) {
    if (nkept < KEPT && solver_bytes(s) <= KEPT_BYTES)
        kept[nkept++] = s;
    else
        free_solver(s);
}

/* Read the arguments into a position (with its ncells; no foundation moves), or set a
** ValueError/TypeError and return 0. */
static int read_board(Layout *b, const uint8_t *found, Py_ssize_t nfound, const uint8_t *cells,
                      Py_ssize_t ncell, PyObject *columns, int ncells) {
    int seen[NCARDS] = {0};
    if (nfound != 4) {
        PyErr_SetString(PyExc_ValueError, "found: 4 bytes, one count per suit");
        return 0;
    }
    if (ncells < 0 || ncells > 8) {
        PyErr_SetString(PyExc_ValueError, "ncells: 0 to 8 free cells");
        return 0;
    }
    if (ncell > ncells) {
        PyErr_SetString(PyExc_ValueError, "cells: more cards than free cells");
        return 0;
    }
    if (!PyTuple_Check(columns) || PyTuple_GET_SIZE(columns) != 8) {
        PyErr_SetString(PyExc_TypeError, "columns: a tuple of 8 bytes");
        return 0;
    }
    memset(b, 0, sizeof *b);
    for (int s = 0; s < 4; s++) {
        if (found[s] > 13) {
            PyErr_SetString(PyExc_ValueError, "found: a count above 13");
            return 0;
        }
        b->found[s] = found[s];
        for (int r = 0; r < found[s]; r++)
            seen[r * 4 + s]++;
    }
    b->ncells_used = (int)ncell;
    b->ncells = ncells;
    for (Py_ssize_t i = 0; i < ncell; i++) {
        if (cells[i] >= NCARDS || (i > 0 && cells[i] <= cells[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "cells: cards 0..51 in ascending order");
            return 0;
        }
        b->cells[i] = cells[i];
        seen[cells[i]]++;
    }
    for (int j = 0; j < 8; j++) {
        PyObject *col = PyTuple_GET_ITEM(columns, j);
        if (!PyBytes_Check(col)) {
            PyErr_SetString(PyExc_TypeError, "columns: a tuple of 8 bytes");
            return 0;
        }
        Py_ssize_t len = PyBytes_GET_SIZE(col);
        const uint8_t *cards = (const uint8_t *)PyBytes_AS_STRING(col);
        if (len > NCARDS) {
            PyErr_SetString(PyExc_ValueError, "columns: a column of more than 52 cards");
            return 0;
        }
        for (Py_ssize_t i = 0; i < len; i++) {
            if (cards[i] >= NCARDS) {
                PyErr_SetString(PyExc_ValueError, "columns: a card outside 0..51");
                return 0;
            }
            b->cols[j][i] = cards[i];
            seen[cards[i]]++;
        }
        b->len[j] = (int)len;
    }
    for (int c = 0; c < NCARDS; c++)
        if (seen[c] != 1) {
            PyErr_Format(PyExc_ValueError, "card %d is %s", c,
                         seen[c] ? "in more than one place" : "missing");
            return 0;
        }
    return 1;
}

/* ---- deals (certify/game/deals.py): a census gives deal numbers, not positions ---------------- */

#define MAX_DEAL ((1ULL << 33) - 1)   /* deals.MAX_DEAL: FreeCell Pro's numbering */

/* The columns of deal n (1..MAX_DEAL) into b: the Microsoft C runtime's rand() seeded with n,
** drawn from to shuffle the 52 cards, dealt round-robin (deals.ms_rand and deals.deal). Past
** 2^31 FreeCell Pro sets the top bit of every draw; past 2^32 it seeds with n - 2^32 and draws
** 16 bits, plus one. */
static void deal_board(uint64_t n, Layout *b) {
    uint32_t state = (uint32_t)n, high = n >= (1ULL << 31) ? 0x8000 : 0;
    int wide = n >= (1ULL << 32);
    uint8_t deck[NCARDS];
    for (int c = 0; c < NCARDS; c++)
        deck[c] = (uint8_t)c;
    memset(b, 0, sizeof *b);
    for (int i = 0, left = NCARDS; i < NCARDS; i++, left--) {
        state = state * 214013u + 2531011u;
        uint32_t drawn = wide ? (state >> 16 & 0xFFFF) + 1 : (state >> 16 & 0x7FFF) | high;
        int j = (int)(drawn % (uint32_t)left);
        b->cols[i % 8][b->len[i % 8]++] = deck[j];
        deck[j] = deck[left - 1];
    }
}

/* ---- the Python functions ------------------------------------------------------------------ */

/* A budget of positions from a Python int, a huge one as no limit and a negative one as none;
** 0 with an error set if it is not an int. */
static int read_budget(PyObject *arg, long long *budget) {
    int overflow;
    *budget = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (*budget == -1 && PyErr_Occurred())
        return 0;
    if (overflow)
        *budget = overflow > 0 ? LLONG_MAX : 0;
    return 1;
}

/* Solve `board` with one of the kept Solvers and `styles`, without the GIL: the outcome, the
** Solver (with its line) in *taken, to go back by give_back_after() once the line is read. */
static int solve_released(const Layout *board, int ncells, long long budget,
                          const Styles *styles, Solver **taken) {
    Solver *s = *taken = take_solver();
    if (s == NULL)
        return OUT_OF_MEMORY;
    s->ncells = ncells;
    s->styles = *styles;
    int outcome;
    Py_BEGIN_ALLOW_THREADS
    outcome = solve_board(s, board, budget);
    Py_END_ALLOW_THREADS
    return outcome;
}

/* Read a Python int in lo..hi into *value, or set a ValueError naming `what`: 0. */
static int read_int(PyObject *arg, long long lo, long long hi, const char *what,
                    long long *value) {
    int overflow;
    long long v = PyLong_Check(arg) ? PyLong_AsLongLongAndOverflow(arg, &overflow) : -1;
    if (!PyLong_Check(arg) || overflow || (v == -1 && PyErr_Occurred()) || v < lo || v > hi) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: a whole number from %lld to %lld", what, lo, hi);
        return 0;
    }
    *value = v;
    return 1;
}

/* Read a flare's styles, (((move weight, sequenced weight), ...), head start, turn) as
** solver.FLARES has them (without its budget), into *out; 0 with an error set if they are
** not. */
static int read_styles(PyObject *spec, Styles *out) {
    PyObject *styles;
    long long v;
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 3
        || !PyTuple_Check(styles = PyTuple_GET_ITEM(spec, 0))
        || PyTuple_GET_SIZE(styles) < 1 || PyTuple_GET_SIZE(styles) > NSTYLES) {
        PyErr_SetString(PyExc_ValueError,
                        "styles: ((move weight, sequenced weight), ...: 1 to 4), head start, turn");
        return 0;
    }
    out->nstyles = (int)PyTuple_GET_SIZE(styles);
    for (int i = 0; i < out->nstyles; i++) {
        PyObject *style = PyTuple_GET_ITEM(styles, i);
        if (!PyTuple_Check(style) || PyTuple_GET_SIZE(style) != 2) {
            PyErr_SetString(PyExc_ValueError, "styles: a style is (move weight, sequenced weight)");
            return 0;
        }
        if (!read_int(PyTuple_GET_ITEM(style, 0), 1, 1000, "move weight", &v))
            return 0;
        out->move_weight[i] = (int)v;
        if (!read_int(PyTuple_GET_ITEM(style, 1), 0, 1000, "sequenced weight", &v))
            return 0;
        out->sequenced_weight[i] = (int)v;
    }
    if (!read_int(PyTuple_GET_ITEM(spec, 1), 1, LLONG_MAX, "head start", &out->head_start)
        || !read_int(PyTuple_GET_ITEM(spec, 2), 1, LLONG_MAX, "turn", &out->turn))
        return 0;
    return 1;
}

/* Keep the Solver for the next solve, unless it ran out of memory (it may hold a half-made
** block). */
static void give_back_after(Solver *s, int outcome) {
    if (s == NULL)
        return;
    if (outcome == OUT_OF_MEMORY)
        free_solver(s);
    else
        give_back(s);
}

/* What an outcome that is not a line is in Python: None for GAVE_UP, else the error set and
** NULL. */
static PyObject *no_line(int outcome) {
    if (outcome == GAVE_UP)
        return Py_NewRef(Py_None);
    if (outcome == OUT_OF_MEMORY)
        return PyErr_NoMemory();
    PyErr_SetString(PyExc_RuntimeError,
                    "certify.engine._solver: the line found does not replay (a bug)");
    return NULL;
}

static PyObject *solve(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"found", "cells", "columns", "rules", "budget", "styles", NULL};
    const char *found, *cells;
    Py_ssize_t nfound, ncell;
    PyObject *columns, *budget_arg, *styles_arg = Py_None;
    Rules rules;
    long long budget;
    Layout board;
    Styles styles = MAIN_STYLES;
    (void)module;
    /* Of the rules only the free cells count: the line found moves no card off a foundation,
    ** and so is legal with foundation moves or without, and a win's line fixes the columns. */
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y#y#OO&O!|O:solve", names, &found, &nfound,
                                     &cells, &ncell, &columns, rules_converter, &rules,
                                     &PyLong_Type, &budget_arg, &styles_arg)
        || !read_budget(budget_arg, &budget)
        || (styles_arg != Py_None && !read_styles(styles_arg, &styles))
        || !read_board(&board, (const uint8_t *)found, nfound, (const uint8_t *)cells, ncell,
                       columns, rules.ncells))
        return NULL;
    int ncells = rules.ncells;
    Solver *s;
    int outcome = solve_released(&board, ncells, budget, &styles, &s);
    if (outcome == SOLVED && !line_wins(&board, s->line.at, s->line.n / 2))
        outcome = BROKEN;  /* (board, not used again, is followed along the line under the
                           ** plain rules read_board() gave it, which the line must win by) */
    PyObject *result = outcome == SOLVED
        ? PyBytes_FromStringAndSize((const char *)s->line.at, (Py_ssize_t)s->line.n)
        : no_line(outcome);
    give_back_after(s, outcome);
    return result;
}

/* The solver's line from the start of `board` as move indices (move_order.h), under the
** board's rules, replayed as it is converted: a bytes object, or NULL with the error set (a line
** that is not legal move by move or does not end won is a bug here). */
static PyObject *indices_of(const Layout *board, const Line *line) {
    Layout b = *board;
    size_t n = line->n / 2, bad;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (out == NULL)
        return NULL;
    if (line_indices(&b, line->at, n, (uint8_t *)PyBytes_AS_STRING(out), &bad) != LINE_OK
        || !layout_won(&b)) {
        Py_DECREF(out);
        return no_line(BROKEN);
    }
    return out;
}

static PyObject *solve_deal(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"deal", "rules", "budget", NULL};
    PyObject *deal_arg, *budget_arg;
    Rules rules;
    long long budget;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O&O!:solve_deal", names, &PyLong_Type,
                                     &deal_arg, rules_converter, &rules, &PyLong_Type,
                                     &budget_arg)
        || !read_budget(budget_arg, &budget))
        return NULL;
    int ncells = rules.ncells;
    unsigned long long deal = PyLong_AsUnsignedLongLong(deal_arg);
    if (PyErr_Occurred() || deal < 1 || deal > MAX_DEAL) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "deal: a deal number from 1 to %llu", MAX_DEAL);
        return NULL;
    }
    Layout board;
    deal_board(deal, &board);
    board.ncells = ncells;
    board.foundation_moves = rules.foundation_moves;
    Solver *s;
    int outcome = solve_released(&board, ncells, budget, &MAIN_STYLES, &s);
    PyObject *result = outcome == SOLVED ? indices_of(&board, &s->line)
                                         : no_line(outcome);
    give_back_after(s, outcome);
    return result;
}

static PyMethodDef methods[] = {
    {"solve", (PyCFunction)(void (*)(void))solve, METH_VARARGS | METH_KEYWORDS,
     "solve(found, cells, columns, rules, budget, styles=None) -> bytes or None\n\n"
     "A winning line of single-card moves, 2 bytes a move (card, destination: 0..7 a column,\n"
     "8 a free cell, 9 the foundation), exactly as certify.engine.reference.solver.solve finds "
     "it; None when\n"
     "the budget of positions runs out or the solver's graph is exhausted. styles: a flare's\n"
     "(((move weight, sequenced weight), ...), head start, turn) (None: STYLES, HEAD_START,\n"
     "TURN)."},
    {"solve_deal", (PyCFunction)(void (*)(void))solve_deal, METH_VARARGS | METH_KEYWORDS,
     "solve_deal(deal, rules, budget) -> bytes or None\n\n"
     "solve()'s line from the start of deal number `deal` (certify.game.deals.deal), as format\n"
     "version 3's move indices, one byte a move (writer.move_indices under the rules\n"
     "with `ncells` free cells and `foundation_moves`): what a census keeps of a won deal,\n"
     "in one call. None as for solve()."},
    {NULL, NULL, 0, NULL}};

static void free_kept(void *unused) {
    (void)unused;
    while (nkept > 0)
        free_solver(kept[--nkept]);
}

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_solver",
    "The best-first win solver of certify/engine/reference/solver.py, in C (certify/engine/solver.c).", -1,
    methods, NULL, NULL, NULL, free_kept};

/* The tuning, as module constants, so that a test can hold it to certify/engine/reference/solver.py's. */
static int add_tuning(PyObject *m) {
    PyObject *styles = PyTuple_New(MAIN_STYLES.nstyles);
    if (styles == NULL)
        return -1;
    for (int i = 0; i < MAIN_STYLES.nstyles; i++) {
        PyObject *style = Py_BuildValue("(ii)", MAIN_STYLES.move_weight[i],
                                        MAIN_STYLES.sequenced_weight[i]);
        if (style == NULL) {
            Py_DECREF(styles);
            return -1;
        }
        PyTuple_SET_ITEM(styles, i, style);
    }
    if (PyModule_AddObject(m, "STYLES", styles) < 0) {
        Py_DECREF(styles);
        return -1;
    }
    if (PyModule_AddIntConstant(m, "UNIT", UNIT) < 0
        || PyModule_AddIntConstant(m, "CELL_COST", CELL_COST) < 0
        || PyModule_AddIntConstant(m, "HEAD_START", (long)MAIN_STYLES.head_start) < 0
        || PyModule_AddIntConstant(m, "TURN", (long)MAIN_STYLES.turn) < 0)
        return -1;
    return 0;
}

PyMODINIT_FUNC PyInit__solver(void) {
    init_tables();
    order_init();
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && add_tuning(m) < 0)
        Py_CLEAR(m);
    return m;
}
