/*
** A line of single-card moves replayed from a position: part of certify.engine._search, its two
** module functions (replay.h). replays() is prove()'s replays_to_win, which says whether the line
** is legal move by move and ends won; move_indices() is the line as format version 3 writes a
** win, one move index a byte (move_order.h, the home of the move order).
**
** A move is (card, destination: 0..7 a column, CELL a free cell, HOME the foundation), as
** cards.h names them.
*/

#include "replay.h"

#include <stdint.h>
#include <string.h>

#include "cards.h"
#include "move_order.h"

void replay_init(void) { order_init(); }

/* Whether a line of single-card moves (card, destination: 0..7 a column, 8 a free cell, 9 the
** foundation) is legal move by move from a position and ends won: prove()'s replays_to_win,
** whose statement of each move is rules.moves. A card says where its move starts: the top of
** a column, a free cell, or (with foundation moves) the top of its foundation. */
static int replays(Layout *b, const uint8_t *line, size_t n) {
    for (size_t m = 0; m < n; m++) {
        int card = line[2 * m], dest = line[2 * m + 1];
        if (card >= NCARDS || dest > HOME) return 0;
        int suit = card_suit(card), rank = card_rank(card);
        int from_col = -1, from_cell = -1, from_home = 0;
        for (int j = 0; j < 8; j++)
            if (b->len[j] && b->cols[j][b->len[j] - 1] == card) from_col = j;
        for (int c = 0; c < b->ncells_used; c++)
            if (b->cells[c] == card) from_cell = c;
        if (b->back && b->found[suit] == rank + 1) from_home = 1;
        if (from_col < 0 && from_cell < 0 && !from_home) return 0;   /* not free to move */
        if (dest == HOME) {   /* home: from a column or a cell, onto exactly the rank below */
            if (from_home || b->found[suit] != rank) return 0;
        } else if (dest == CELL) {   /* a free cell: from a column, with one empty */
            if (from_col < 0 || b->ncells_used >= b->ncells) return 0;
        } else {   /* a column: another one, empty or with a top the card may lie on */
            if (dest == from_col) return 0;
            if (b->len[dest]) {
                int top = b->cols[dest][b->len[dest] - 1];
                if (!stacks_on(card, top)) return 0;
            }
        }
        layout_play(b, card, dest);
    }
    return b->found[0] == 13 && b->found[1] == 13 && b->found[2] == 13 && b->found[3] == 13;
}

/* The arguments replays() and move_indices() share: (found, cells, columns, ncells,
** foundation_moves, line), the position copied into `b` (as arrays that the line's moves
** change): 1, or 0 with the error set (as PyArg_ParseTuple says it). */
static int line_args(PyObject *args, Layout *b, const uint8_t **line, Py_ssize_t *nmoves) {
    PyObject *cols_in;
    const uint8_t *f, *c;
    Py_ssize_t nf, nc, nl;
    if (!PyArg_ParseTuple(args, "y#y#O!ipy#", &f, &nf, &c, &nc, &PyTuple_Type, &cols_in,
                          &b->ncells, &b->back, line, &nl))
        return 0;
    if (nf != 4 || nc > 8 || b->ncells < 0 || b->ncells > 8 || PyTuple_GET_SIZE(cols_in) != 8
        || nl % 2) {
        PyErr_SetString(PyExc_ValueError, "not a position and a line of (card, destination)");
        return 0;
    }
    memcpy(b->found, f, 4);
    memcpy(b->cells, c, (size_t)nc);
    b->ncells_used = (int)nc;
    *nmoves = nl / 2;
    for (int j = 0; j < 8; j++) {
        PyObject *col = PyTuple_GET_ITEM(cols_in, j);
        if (!PyBytes_Check(col) || PyBytes_GET_SIZE(col) > NCARDS) {
            PyErr_SetString(PyExc_ValueError, "a column is not bytes of at most 52 cards");
            return 0;
        }
        b->len[j] = (int)PyBytes_GET_SIZE(col);
        memcpy(b->cols[j], PyBytes_AS_STRING(col), (size_t)b->len[j]);
    }
    return 1;
}

/* replays(found, cells, columns, ncells, foundation_moves, line) -> bool */
PyObject *replay_replays(PyObject *self, PyObject *args) {
    (void)self;
    Layout b;
    const uint8_t *line;
    Py_ssize_t nmoves;
    if (!line_args(args, &b, &line, &nmoves)) return NULL;
    return PyBool_FromLong(replays(&b, line, (size_t)nmoves));
}

/* move_indices(found, cells, columns, ncells, foundation_moves, line) -> bytes: the line of
** (card, destination) byte pairs as one move index a byte (move_order.h); ValueError at a
** move that is not legal. */
PyObject *replay_move_indices(PyObject *self, PyObject *args) {
    (void)self;
    Layout b;
    const uint8_t *line;
    Py_ssize_t nmoves;
    size_t bad;
    if (!line_args(args, &b, &line, &nmoves)) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, nmoves);
    if (!out) return NULL;
    if (line_indices(&b, line, (size_t)nmoves, (uint8_t *)PyBytes_AS_STRING(out), &bad)
        != LINE_OK) {
        Py_DECREF(out);
        PyErr_Format(PyExc_ValueError, "move %zu of the line (%d, %d) is not legal", bad,
                     line[2 * bad - 2], line[2 * bad - 1]);
        return NULL;
    }
    return out;
}
