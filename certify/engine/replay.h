/*
** certify.engine._search's functions on a line of moves (replay.c), which search.c's module
** lists: (found, cells, columns, ncells, foundation_moves, line), the position as Search()
** takes it and the line as (card, destination) byte pairs.
*/

#ifndef REPLAY_H
#define REPLAY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The move order's tables, once, before either function is called. */
void replay_init(void);

/* replays(found, cells, columns, ncells, foundation_moves, line) -> whether the line is legal
** move by move and ends won. */
PyObject *replay_replays(PyObject *self, PyObject *args);

/* move_indices(found, cells, columns, ncells, foundation_moves, line) -> the line as one move
** index a byte; ValueError at a move that is not legal. */
PyObject *replay_move_indices(PyObject *self, PyObject *args);

#endif
