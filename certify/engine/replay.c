/*
** A line of single-card moves replayed from a position: part of certify.engine._search, its two
** module functions (replay.h), the Python side of move_order.h's line_wins() and line_indices().
** replays() is prove()'s replays_to_win, which says whether the line is legal move by move and
** ends won; move_indices() is the line as format version 3 writes a win, one move index a byte.
**
** A move is (card, destination: 0..7 a column, CELL a free cell, HOME the foundation), as
** cards.h names them.
*/

#include "replay.h"

#include <stdint.h>
#include <string.h>

#include "cards.h"
#include "move_order.h"
#include "rules.h"

void replay_init(void) { order_init(); }

/* The arguments replays() and move_indices() share: (found, cells, columns, rules, line), the
** position copied into `b` (as arrays that the line's moves
** change): 1, or 0 with the error set (as PyArg_ParseTuple says it). */
static int line_args(PyObject *args, Layout *b, const uint8_t **line, Py_ssize_t *nmoves) {
    PyObject *cols_in;
    const uint8_t *f, *c;
    Py_ssize_t nf, nc, nl;
    Rules rules;
    if (!PyArg_ParseTuple(args, "y#y#O!O&y#", &f, &nf, &c, &nc, &PyTuple_Type, &cols_in,
                          rules_converter, &rules, line, &nl))
        return 0;
    b->ncells = rules.ncells;
    b->foundation_moves = rules.foundation_moves;
    if (nf != 4 || nc > 8 || PyTuple_GET_SIZE(cols_in) != 8
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

/* replays(found, cells, columns, rules, line) -> bool */
PyObject *replay_replays(PyObject *self, PyObject *args) {
    (void)self;
    Layout b;
    const uint8_t *line;
    Py_ssize_t nmoves;
    if (!line_args(args, &b, &line, &nmoves)) return NULL;
    return PyBool_FromLong(line_wins(&b, line, (size_t)nmoves));
}

/* move_indices(found, cells, columns, rules, line) -> bytes: the line of
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
