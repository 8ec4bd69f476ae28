/*
** The exhaustive search, compiled: certify.engine._search, with the no-win certificate's writer
** (writer.c) and the replay of a line (replay.c) that the module also holds.
**
** This is the fast twin of certify/engine/reference/search.py (the reference) and, through
** writer.c, of the writer in certify/format/writer.py. It must explore in exactly the
** reference's order -- the same depth-first search, the same successor order, the same column numbering, the same budget
** checks -- so that a WIN line, the position count at an UNKNOWN stop and the certificate bytes
** are the same whichever engine ran; tests/test_engine.py holds the two to it. Where a line
** here looks roundabout, it is usually because the reference does it that way.
**
** A position is a fixed-width key: 4 foundation counts, the free cells (cards ascending, then
** 0xFF), and 8 column ids (2 bytes big-endian, 3 once more than 65,536 columns are met), the
** ids sorted unless columns keep fixed places. Columns are interned in a table of their own,
** with "take the top card" and "put a card on top" memoised per column. Keys live in one
** arena; an open-addressing table of indices finds them. Membership is decided by comparing
** whole keys: the stored hash only skips keys that cannot be equal.
**
** The file is the search (the tables, the loop; the moves are successors.h's, shared with the
** search on disk, external.c), then its Python binding (the Search type and the module). The output is checked, not trusted: check/ verifies every certificate
** from scratch.
*/

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cards.h"
#include "columns.h"
#include "ids.h"
#include "replay.h"
#include "rules.h"
#include "successors.h"
#include "writer.h"
#include "zeroed.h"

#define EMPTY_CELL 0xFF
#define NARROW_COLUMNS (1u << 16)   /* ids that fit in 2 bytes */
#define MOST_COLUMNS (1u << 24)     /* ... in 3 bytes, the format's widest */
#define CHECK_EVERY 1024            /* expansions between looks at the clock */
#define MAX_SUCCESSORS 256          /* more than any position has (at most 204) */
#define MAX_KEY (4 + 8 + 8 * 3)
#define SEARCH_CAPACITY (1u << 31)   /* outcome.SEARCH_CAPACITY: the default capacity */

/* What run() stops on; certify/engine/__init__.py gives them names. The last four are limits
** of the search itself, final: run() again gives them again. */
enum { DONE = 0, WON = 1, MAX_POSITIONS = 2, OUT_OF_TIME = 3, TOO_MANY_COLUMNS = 4,
       OUT_OF_MEMORY = 5,   /* malloc or realloc failed */
       MEMORY_BUDGET = 6,   /* the tables would outgrow the `memory` budget */
       FORMAT_FULL = 7 };   /* more positions than the tables index (`capacity`) */

/* The one error discipline below the binding: a function that can fail returns a code, never
** jumps and never sets a Python exception: the tables' FITS, IDS_FULL, ALLOC_FAILED (columns.h),
** which explore() turns into the statuses above, and the writer's BODY_NO_MEMORY and
** BODY_NOT_DISTINCT (writer.h), which write_body() turns into exceptions. The binding (the
** Python layer: -1 or NULL with an exception set, CPython's convention) is the only code that
** raises. */

/* ---- The set of positions --------------------------------------------------------------- */

/* Keys are equal: whole 8-byte words where they fit (keys are 24 to 36 bytes long). */
static int same_key(const uint8_t *a, const uint8_t *b, size_t n) {
    uint64_t x, y;
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return 0;
    }
    return n == 0 || memcmp(a, b, n) == 0;
}

typedef struct {
    PyObject_HEAD
    int ncells, fixed_columns, foundation_moves;   /* the rules (rules.h) */
    int autoplay;                /* the closure: every move, then safe moves home (settle) */
    int width;                   /* bytes per column id in the keys: 2 or 3 */
    int keylen;                  /* 4 + ncells + 8 * width */
    Columns columns;
    uint8_t *keys;               /* key i at keys + i * keylen */
    uint32_t n;                  /* positions found: at most `capacity`, so an index fits */
    size_t cap;                  /* room in keys, parent and stack */
    uint32_t *parent;            /* the position each was first reached from (the start: itself) */
    uint64_t *slot;              /* open addressing: hash << 32 | (index + 1); 0 for free */
    size_t nslots;               /* a power of two */
    uint32_t capacity;           /* the most positions held in memory: no more are added */
    size_t memory;               /* the budget in bytes for what bytes_needed() counts; 0: none */
    uint32_t *stack;             /* positions still to expand (room for n + 1) */
    uint32_t nstack;
    int most;                    /* most cards ever home */
    int64_t won;                 /* the won position's index, or -1 */
    int consumed;                /* the writer has taken the keys */
    int busy;                    /* run() is working without the GIL */
    int failed;                  /* TOO_MANY_COLUMNS, once met: final */
    uint8_t succ[MAX_SUCCESSORS * MAX_KEY];  /* one expansion's successors */
} Search;

static uint8_t *key_at(Search *s, uint32_t i) { return s->keys + (size_t)i * (size_t)s->keylen; }

/* Sizes are size_t throughout: a 32-bit count of slots would double to 0 past 2^31 of them. The
** stored hash has 32 bits, so past 2^32 slots the upper ones would fill by probing alone (still
** exact, only slower); SEARCH_CAPACITY keeps every table within 2^32 slots. */
static int grow_slots(Search *s) {
    size_t n = s->nslots ? s->nslots * 2 : (size_t)1 << 12;
    uint64_t *slot = zeroed(n, sizeof *slot);
    if (!slot) return ALLOC_FAILED;
    for (size_t i = 0; i < s->nslots; i++) {
        uint64_t e = s->slot[i];
        if (!e) continue;
        size_t h = (uint32_t)(e >> 32) & (n - 1);
        while (slot[h]) h = (h + 1) & (n - 1);
        slot[h] = e;
    }
    free(s->slot);
    s->slot = slot;
    s->nslots = n;
    return FITS;
}

static int grow_keys(Search *s) {
    size_t cap = s->cap ? s->cap * 2 : (size_t)1 << 12;
    uint8_t *k = realloc(s->keys, cap * (size_t)s->keylen);
    if (!k) return ALLOC_FAILED;
    s->keys = k;
    uint32_t *p = realloc(s->parent, cap * sizeof *p);
    if (!p) return ALLOC_FAILED;
    s->parent = p;
    uint32_t *st = realloc(s->stack, (cap + 1) * sizeof *st);
    if (!st) return ALLOC_FAILED;
    s->stack = st;
    s->cap = cap;
    return FITS;
}

static void release_search_tables(Search *s) {
    free(s->slot); s->slot = NULL; s->nslots = 0;
    free(s->parent); s->parent = NULL;
    free(s->stack); s->stack = NULL; s->nstack = 0;
}

/* The index of key k if the set holds it, else ABSENT; *where is the free slot it would take. */
enum { ABSENT = -1 };
static int64_t lookup(Search *s, const uint8_t *k, uint32_t h, size_t *where) {
    size_t mask = s->nslots - 1, i = h & mask;
    for (uint64_t e; (e = s->slot[i]) != 0; i = (i + 1) & mask) {
        if ((uint32_t)(e >> 32) == h) {
            uint32_t idx = (uint32_t)e - 1;
            if (same_key(key_at(s, idx), k, (size_t)s->keylen)) return idx;
        }
    }
    *where = i;
    return ABSENT;
}

/* Add key k (known absent, its free slot `where`); its index. Room is made beforehand. */
static uint32_t insert(Search *s, const uint8_t *k, uint32_t h, size_t where) {
    uint32_t idx = s->n++;
    memcpy(key_at(s, idx), k, (size_t)s->keylen);
    s->slot[where] = (uint64_t)h << 32 | ((uint64_t)idx + 1);
    return idx;
}

/* The most bytes the search holds with room for `cap` keys of `keylen` bytes and `nslots` slots,
** `moving` more while an old array is copied to a new one: its tables, or later the writer's,
** which holds the keys and room to sort the records in (write_body: a record is no longer than
** a key, and there are no more than cap, nor than 70% of nslots), whichever is more; and the
** columns. `memory` is held to this before the tables grow, so that a search that ends within
** the budget is also written within it. */
static size_t bytes_needed(const Search *s, size_t cap, size_t nslots, size_t keylen,
                           size_t moving) {
    size_t columns = columns_bytes(&s->columns);
    size_t search = cap * (keylen + 2 * sizeof(uint32_t)) + nslots * sizeof(uint64_t) + moving;
    size_t most = nslots / 10 * 7 < cap ? nslots / 10 * 7 : cap;
    size_t writer = (cap + most) * keylen + columns;   /* (+ its renumbering, per column) */
    return columns + (search > writer ? search : writer);
}

/* Room for one more position, with the table at most 70% full: FITS, or why not (OUT_OF_MEMORY,
** MEMORY_BUDGET). */
static int make_room(Search *s) {
    int keys = s->n == s->cap, slots = (uint64_t)(s->n + 1) * 10 > (uint64_t)s->nslots * 7;
    if (s->memory && bytes_needed(s, keys ? 2 * s->cap : s->cap,
                                  slots ? 2 * s->nslots : s->nslots, (size_t)s->keylen,
                                  slots ? s->nslots * sizeof *s->slot : 0) > s->memory)
        return MEMORY_BUDGET;
    if (keys && grow_keys(s) != FITS) return OUT_OF_MEMORY;
    if (slots && grow_slots(s) != FITS) return OUT_OF_MEMORY;
    return FITS;
}

/* ---- Moves ------------------------------------------------------------------------------ */

/* Successor key k of the search's, from its parts, like search.py's key(): the generator's
** put_successor() (successors.h). */
ALWAYS_INLINE void put_successor(const Moves *m, uint8_t *k, const uint8_t *found,
                                const uint8_t *occ, int nocc, uint32_t *ids) {
    if (!m->fixed_columns) sort8(ids);
    memcpy(k, found, 4);
    memcpy(k + 4, occ, (size_t)nocc);
    memset(k + 4 + nocc, EMPTY_CELL, (size_t)(m->ncells - nocc));
    uint8_t *p = k + 4 + m->ncells;
    for (int i = 0; i < 8; i++, p += m->width) put_id(p, ids[i], m->width);
}

/* Put position k's successors in s->succ, in search.py's order (successors.h): how many, or
** IDS_FULL when a new column did not fit at this width (expand again once wider), or
** ALLOC_FAILED. */
static int expand(Search *s, uint32_t k) {
    const uint8_t *key = key_at(s, k);
    int F = s->ncells;
    Parts p;
    memcpy(p.found, key, 4);
    p.nocc = 0;
    while (p.nocc < F && key[4 + p.nocc] != EMPTY_CELL) {
        p.occ[p.nocc] = key[4 + p.nocc];
        p.nocc++;
    }
    const uint8_t *q = key + 4 + F;
    for (int i = 0; i < 8; i++, q += s->width) p.ids[i] = get_id(q, s->width);
    Rules rules = {s->ncells, s->fixed_columns, s->foundation_moves, s->autoplay};
    return successors(&rules, &s->columns, &p, s->succ, (size_t)s->keylen, s->width);
}

/* ---- Widening --------------------------------------------------------------------------- */

/* Re-key every position with 3-byte ids. The order of the keys, and so of everything the
** search does next, is unchanged: only their spelling. FITS, or OUT_OF_MEMORY, MEMORY_BUDGET. */
static int widen(Search *s) {
    int old = s->keylen, wide = old + 8, at = 4 + s->ncells;
    size_t moving = s->cap * (size_t)old + s->nslots * sizeof *s->slot;   /* the old ones */
    if (s->memory && bytes_needed(s, s->cap, s->nslots, (size_t)wide, moving) > s->memory)
        return MEMORY_BUDGET;
    uint8_t *keys = malloc(s->cap * (size_t)wide);
    uint64_t *slot = zeroed(s->nslots, sizeof *slot);
    if (!keys || !slot) { free(keys); free(slot); return OUT_OF_MEMORY; }
    for (uint32_t i = 0; i < s->n; i++) {
        const uint8_t *k = s->keys + (size_t)i * (size_t)old;
        uint8_t *w = keys + (size_t)i * (size_t)wide;
        memcpy(w, k, (size_t)at);
        for (int j = 0; j < 8; j++) put_id(w + at + 3 * j, get_id(k + at + 2 * j, 2), 3);
        uint32_t h = (uint32_t)hash_bytes(w, (size_t)wide);
        size_t m = s->nslots - 1, p = h & m;
        while (slot[p]) p = (p + 1) & m;
        slot[p] = (uint64_t)h << 32 | ((uint64_t)i + 1);
    }
    free(s->keys);
    free(s->slot);
    s->keys = keys;
    s->slot = slot;
    s->keylen = wide;
    s->width = 3;
    s->columns.limit = MOST_COLUMNS;
    return FITS;
}

/* ---- The search ------------------------------------------------------------------------- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Expand positions until none is left (DONE), one is won (WON), or a budget is reached:
** `limit` positions in all (-1: none; a position beyond it is never added), `seconds` of this
** call (< 0: none); or a limit of the search itself (final). The loop is search.py's
** Search._explore, step for step, and weighs the limits in its order. */
static int explore(Search *s, int64_t limit, double seconds) {
    double deadline = now() + seconds;
    uint64_t expanded = 0;
    int keylen = s->keylen;
    /* One comparison a new position for both: the run's budget, and the format's room. */
    uint32_t most = limit >= 0 && (uint64_t)limit < s->capacity ? (uint32_t)limit : s->capacity;
    while (s->nstack && s->won < 0) {
        uint32_t k = s->stack[--s->nstack];
        int m = expand(s, k);
        if (m < 0) {
            s->stack[s->nstack++] = k;   /* expanded again from the start, once wider */
            if (m == ALLOC_FAILED) return s->failed = OUT_OF_MEMORY;
            if (s->width == 3) return s->failed = TOO_MANY_COLUMNS;
            int why = widen(s);
            if (why) return s->failed = why;
            keylen = s->keylen;
            continue;
        }
        /* Hash every successor first and ask for its slot's cache line: the look-ups that
        ** follow then wait for memory once instead of once each. */
        uint32_t hashes[MAX_SUCCESSORS];
        for (int i = 0; i < m; i++) {
            hashes[i] = (uint32_t)hash_bytes(s->succ + (size_t)i * (size_t)keylen, (size_t)keylen);
            __builtin_prefetch(&s->slot[hashes[i] & (s->nslots - 1)]);
        }
        for (int i = 0; i < m; i++) {
            const uint8_t *n = s->succ + (size_t)i * (size_t)keylen;
            uint32_t h = hashes[i];
            size_t where;
            if (lookup(s, n, h, &where) >= 0) continue;
            if (s->n >= most) {
                /* Not added: k goes back, and expanding it again after a larger budget adds
                ** exactly the successors this expansion did not. */
                s->stack[s->nstack++] = k;
                if (limit >= 0 && (int64_t)s->n >= limit) return MAX_POSITIONS;
                return s->failed = FORMAT_FULL;
            }
            if ((uint64_t)(s->n + 1) * 10 > (uint64_t)s->nslots * 7 || s->n == s->cap) {
                int why = make_room(s);
                if (why) { s->stack[s->nstack++] = k; return s->failed = why; }
                lookup(s, n, h, &where);   /* the table moved */
            }
            uint32_t idx = insert(s, n, h, where);
            s->parent[idx] = k;
            s->stack[s->nstack++] = idx;
            int home = n[0] + n[1] + n[2] + n[3];
            if (home > s->most) {
                s->most = home;
                if (home == NCARDS) { s->won = idx; break; }
            }
        }
        expanded++;
        if (expanded % CHECK_EVERY == 0 && seconds >= 0 && now() > deadline) return OUT_OF_TIME;
    }
    return s->won >= 0 ? WON : DONE;
}

/* ---- The Python binding ----------------------------------------------------------------- */

static int usable(Search *s) {
    if (s->busy) { PyErr_SetString(PyExc_RuntimeError, "the search is running"); return 0; }
    if (s->consumed) {
        PyErr_SetString(PyExc_RuntimeError, "the keys went into a certificate");
        return 0;
    }
    return 1;
}

static void Search_dealloc(Search *s) {
    columns_free(&s->columns);
    free(s->keys);
    release_search_tables(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int bytes_arg(PyObject *o, const char *what, const uint8_t **p, Py_ssize_t *n) {
    if (!PyBytes_Check(o)) { PyErr_Format(PyExc_TypeError, "%s must be bytes", what); return -1; }
    *p = (const uint8_t *)PyBytes_AS_STRING(o);
    *n = PyBytes_GET_SIZE(o);
    return 0;
}

/* Search(found, cells, columns, rules, narrow=65536, memory=0, capacity=...): the start
** position (4 foundation counts, the cards in cells, 8 columns bottom card first) under the
** rules (a Rules: rules.h). `narrow`, the ids that 2-byte keys may hold, is
** smaller only in tests, which widen the keys early that way. `memory`: the budget in bytes of
** the tables (0: none). `capacity`: the most positions the search may hold, by default as many
** as the tables index (outcome.SEARCH_CAPACITY); smaller only in tests. */
static int Search_init(Search *s, PyObject *args, PyObject *kw) {
    static char *names[] = {"found", "cells", "columns", "rules", "narrow", "memory",
                            "capacity", NULL};
    PyObject *found, *cells, *cols;
    Rules rules;
    long narrow = NARROW_COLUMNS;
    unsigned long long memory = 0, capacity = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO!O&|lKK", names, &found, &cells,
                                     &PyTuple_Type, &cols, rules_converter, &rules, &narrow,
                                     &memory, &capacity))
        return -1;
    int ncells = rules.ncells;
    if (narrow < 8 || narrow > (long)NARROW_COLUMNS) {
        PyErr_SetString(PyExc_ValueError, "narrow must be 8..65536");
        return -1;
    }
    if (capacity == 0) capacity = SEARCH_CAPACITY;
    if (capacity < 1 || capacity > UINT32_MAX - 1 || memory > SIZE_MAX) {
        /* (indices, and index + 1 in a slot, must fit in 32 bits) */
        PyErr_SetString(PyExc_ValueError, "capacity must be 1 .. 2^32 - 2, memory a size");
        return -1;
    }
    s->capacity = (uint32_t)capacity;
    s->memory = (size_t)memory;
    if (s->keys) { PyErr_SetString(PyExc_RuntimeError, "already started"); return -1; }
    const uint8_t *f, *c;
    Py_ssize_t nf, nc;
    if (bytes_arg(found, "found", &f, &nf) < 0 || bytes_arg(cells, "cells", &c, &nc) < 0)
        return -1;
    if (ncells < 0 || ncells > 8 || nf != 4 || nc > ncells || PyTuple_GET_SIZE(cols) != 8) {
        PyErr_SetString(PyExc_ValueError, "not a position: 4 foundations, at most ncells "
                                          "cells, 8 columns, 0..8 cells");
        return -1;
    }
    int seen[NCARDS] = {0}, total = 0;
    for (int i = 0; i < 4; i++) {
        if (f[i] > 13) { PyErr_SetString(PyExc_ValueError, "a foundation over 13"); return -1; }
        for (int r = 0; r < f[i]; r++) seen[r * 4 + i]++, total++;
    }
    for (Py_ssize_t i = 0; i < nc; i++) {
        if (c[i] >= NCARDS || (i && c[i] <= c[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "cells must be cards, ascending");
            return -1;
        }
        seen[c[i]]++, total++;
    }
    s->ncells = ncells;
    s->fixed_columns = rules.fixed_columns;
    s->foundation_moves = rules.foundation_moves;
    s->autoplay = rules.autoplay;
    s->width = 2;
    s->keylen = 4 + ncells + 16;
    s->won = -1;
    if (columns_init(&s->columns, NARROW_COLUMNS) != FITS || grow_keys(s) != FITS ||
        grow_slots(s) != FITS) {
        PyErr_NoMemory();
        return -1;
    }
    s->columns.limit = (uint32_t)narrow;
    uint8_t key[MAX_KEY];
    uint32_t ids[8];
    memcpy(key, f, 4);
    memcpy(key + 4, c, (size_t)nc);
    memset(key + 4 + nc, EMPTY_CELL, (size_t)(ncells - nc));
    for (int i = 0; i < 8; i++) {
        const uint8_t *p;
        Py_ssize_t n;
        if (bytes_arg(PyTuple_GET_ITEM(cols, i), "a column", &p, &n) < 0) return -1;
        for (Py_ssize_t j = 0; j < n; j++) {
            if (p[j] >= NCARDS) { PyErr_SetString(PyExc_ValueError, "not a card"); return -1; }
            seen[p[j]]++, total++;
        }
        if (n > NCARDS) {
            PyErr_SetString(PyExc_ValueError, "a column of over 52 cards");
            return -1;
        }
        int32_t id = column_id(&s->columns, p, (int)n);
        if (id < 0) { PyErr_NoMemory(); return -1; }
        ids[i] = (uint32_t)id;
    }
    for (int i = 0; i < NCARDS; i++)
        if (seen[i] != 1 || total != NCARDS) {
            PyErr_SetString(PyExc_ValueError, "the position must hold each card once");
            return -1;
        }
    if (!rules.fixed_columns) sort8(ids);
    for (int i = 0; i < 8; i++) put_id(key + 4 + ncells + 2 * i, ids[i], 2);
    uint32_t h = (uint32_t)hash_bytes(key, (size_t)s->keylen);
    size_t where;
    lookup(s, key, h, &where);
    uint32_t first = insert(s, key, h, where);
    s->parent[first] = first;
    s->stack[s->nstack++] = first;
    s->most = f[0] + f[1] + f[2] + f[3];
    if (s->most == NCARDS) s->won = first;
    return 0;
}

/* run(limit, seconds) -> DONE, WON, MAX_POSITIONS, OUT_OF_TIME, or a limit of the search:
** TOO_MANY_COLUMNS, OUT_OF_MEMORY, MEMORY_BUDGET, FORMAT_FULL. */
static PyObject *Search_run(Search *s, PyObject *args) {
    long long limit;
    double seconds;
    if (!PyArg_ParseTuple(args, "Ld", &limit, &seconds) || !usable(s)) return NULL;
    if (s->failed) return PyLong_FromLong(s->failed);
    int status;
    s->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    status = explore(s, limit, seconds);
    Py_END_ALLOW_THREADS
    s->busy = 0;
    return PyLong_FromLong(status);
}

/* keys(start, count) -> a list of keys (bytes), in the order they were found. */
static PyObject *Search_keys(Search *s, PyObject *args) {
    Py_ssize_t start, count;
    if (!PyArg_ParseTuple(args, "nn", &start, &count) || !usable(s)) return NULL;
    if (start < 0 || count < 0) { PyErr_SetString(PyExc_ValueError, "negative"); return NULL; }
    if (start > (Py_ssize_t)s->n) start = (Py_ssize_t)s->n;
    if (count > (Py_ssize_t)s->n - start) count = (Py_ssize_t)s->n - start;
    PyObject *list = PyList_New(count);
    if (!list) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *k = PyBytes_FromStringAndSize((const char *)key_at(s, (uint32_t)(start + i)),
                                                s->keylen);
        if (!k) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i, k);
    }
    return list;
}

/* path() -> the keys from the start to the won position (empty if none is won). */
static PyObject *Search_path(Search *s, PyObject *noargs) {
    (void)noargs;
    if (!usable(s)) return NULL;
    PyObject *list = PyList_New(0);
    if (!list || s->won < 0) return list;
    for (uint32_t i = (uint32_t)s->won;; i = s->parent[i]) {
        PyObject *k = PyBytes_FromStringAndSize((const char *)key_at(s, i), s->keylen);
        if (!k || PyList_Append(list, k) < 0) { Py_XDECREF(k); Py_DECREF(list); return NULL; }
        Py_DECREF(k);
        if (s->parent[i] == i) break;
    }
    if (PyList_Reverse(list) < 0) { Py_DECREF(list); return NULL; }
    return list;
}

/* columns() -> every interned column's cards, by id. */
static PyObject *Search_columns(Search *s, PyObject *noargs) {
    (void)noargs;
    if (s->busy) return usable(s), NULL;
    Columns *t = &s->columns;
    PyObject *list = PyList_New(t->n);
    if (!list) return NULL;
    for (uint32_t i = 0; i < t->n; i++) {
        PyObject *c = PyBytes_FromStringAndSize((const char *)column_cards(t, i), t->col[i].len);
        if (!c) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i, c);
    }
    return list;
}

/* write_body() -> the no-win certificate's body values, byte for byte those of no_win_body in
** format/writer.py (writer.h). The search is used up: its keys become the records. */
static PyObject *Search_write_body(Search *s, PyObject *noargs) {
    (void)noargs;
    if (!usable(s)) return NULL;
    if (s->won >= 0 || s->nstack) {
        PyErr_SetString(PyExc_RuntimeError, "only a finished search without a win has a body");
        return NULL;
    }
    release_search_tables(s);
    s->consumed = 1;
    Body b;
    int ready = body_prepare(&b, &s->columns, &s->keys, s->n, 4 + s->ncells, s->width,
                             s->keylen, s->fixed_columns);
    PyObject *body = NULL;
    if (ready == BODY_NOT_DISTINCT)
        PyErr_SetString(PyExc_AssertionError, "records not distinct after renumbering");
    else if (ready == BODY_NO_MEMORY || b.size > (size_t)PY_SSIZE_T_MAX)
        PyErr_NoMemory();
    else if ((body = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)b.size)) != NULL)
        body_write(&b, (uint8_t *)PyBytes_AS_STRING(body));
    body_free(&b);
    if (body) {
        free(s->keys);
        s->keys = NULL;
    }
    return body;
}

#ifdef SEARCH_TEST_HOOKS
/* load(columns, keys): for tests only, and so only in the build tests/test_engine.py makes with
** SEARCH_TEST_HOOKS defined (setup.py's never has it: a certificate can only come from a
** search). Makes this search, which must not have run, a finished one holding `keys` (bytes of
** 4 + ncells + 8 x 3 bytes: foundations, cells, and for each column its index in `columns`, a
** list of bytes), so that write_body() can be held to the reference writer at table sizes no
** board of a testable size reaches (over 65,536 columns: 3-byte ids in the file). The keys are
** taken as given: distinct, and closed is not asked. After an error the search is not to be
** used again. */
static PyObject *Search_load(Search *s, PyObject *args) {
    PyObject *cols, *keys;
    if (!PyArg_ParseTuple(args, "O!O!:load", &PyList_Type, &cols, &PyList_Type, &keys) ||
        !usable(s)) return NULL;
    if (s->n != 1 || s->nstack != 1 || s->width != 2) {
        PyErr_SetString(PyExc_RuntimeError, "load() wants a search that has not run");
        return NULL;
    }
    Py_ssize_t ncols = PyList_GET_SIZE(cols), nkeys = PyList_GET_SIZE(keys);
    int at = 4 + s->ncells, keylen = at + 8 * 3;
    if (nkeys < 1 || ncols > (Py_ssize_t)MOST_COLUMNS || nkeys > (Py_ssize_t)UINT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "load() wants 1 .. 2^31 keys, at most 2^24 columns");
        return NULL;
    }
    uint32_t *ids = malloc((size_t)(ncols ? ncols : 1) * sizeof *ids);
    uint8_t *loaded = malloc((size_t)nkeys * (size_t)keylen);
    if (!ids || !loaded) { free(ids); free(loaded); return PyErr_NoMemory(); }
    s->columns.limit = MOST_COLUMNS;
    for (Py_ssize_t i = 0; i < ncols; i++) {
        const uint8_t *p;
        Py_ssize_t n;
        if (bytes_arg(PyList_GET_ITEM(cols, i), "a column", &p, &n) < 0) goto fail;
        if (n > NCARDS) {
            PyErr_SetString(PyExc_ValueError, "a column of over 52 cards");
            goto fail;
        }
        int32_t id = column_id(&s->columns, p, (int)n);
        if (id < 0) { PyErr_NoMemory(); goto fail; }
        ids[i] = (uint32_t)id;
    }
    for (Py_ssize_t j = 0; j < nkeys; j++) {
        const uint8_t *k;
        Py_ssize_t n;
        if (bytes_arg(PyList_GET_ITEM(keys, j), "a key", &k, &n) < 0) goto fail;
        if (n != keylen) { PyErr_SetString(PyExc_ValueError, "a key of the wrong length"); goto fail; }
        uint8_t *out = loaded + (size_t)j * (size_t)keylen;
        memcpy(out, k, (size_t)at);
        for (int c = 0; c < 8; c++) {
            uint32_t index = get_id(k + at + 3 * c, 3);
            if (index >= (uint32_t)ncols) {
                PyErr_SetString(PyExc_ValueError, "a key names a column not in the list");
                goto fail;
            }
            put_id(out + at + 3 * c, ids[index], 3);
        }
    }
    free(ids);
    free(s->keys);
    release_search_tables(s);
    s->keys = loaded;
    s->n = s->cap = (uint32_t)nkeys;
    s->width = 3;
    s->keylen = keylen;
    Py_RETURN_NONE;
fail:
    free(ids);
    free(loaded);
    s->consumed = 1;   /* half loaded: refuse whatever comes next */
    return NULL;
}
#endif

static PyObject *get_positions(Search *s, void *c) { (void)c; return PyLong_FromUnsignedLong(s->n); }
static PyObject *get_most(Search *s, void *c) { (void)c; return PyLong_FromLong(s->most); }
static PyObject *get_width(Search *s, void *c) { (void)c; return PyLong_FromLong(s->width); }
static PyObject *get_ncolumns(Search *s, void *c) { (void)c; return PyLong_FromUnsignedLong(s->columns.n); }

static PyGetSetDef Search_getset[] = {
    {"positions", (getter)get_positions, NULL, "distinct positions found", NULL},
    {"most_home", (getter)get_most, NULL, "most cards ever on the foundations", NULL},
    {"width", (getter)get_width, NULL, "bytes per column id in the keys (2 or 3)", NULL},
    {"ncolumns", (getter)get_ncolumns, NULL, "distinct columns interned", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Search_methods[] = {
    {"run", (PyCFunction)Search_run, METH_VARARGS,
     "run(limit, seconds) -> status: explore until done, won, `limit` positions (-1: none) "
     "or `seconds` (< 0: none) have passed; again after a budget stop, to go on."},
    {"keys", (PyCFunction)Search_keys, METH_VARARGS, "keys(start, count) -> list of keys"},
    {"path", (PyCFunction)Search_path, METH_NOARGS, "path() -> keys from the start to the win"},
    {"columns", (PyCFunction)Search_columns, METH_NOARGS, "columns() -> interned columns by id"},
    {"write_body", (PyCFunction)Search_write_body, METH_NOARGS,
     "write_body() -> the no-win certificate's body values (version 3); uses the search up"},
#ifdef SEARCH_TEST_HOOKS
    {"load", (PyCFunction)Search_load, METH_VARARGS,
     "load(columns, keys): tests only -- become a finished search of these keys (3-byte "
     "indexes into columns)"},
#endif
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "certify.engine._search.Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The exhaustive search from one position (certify/engine/reference/search.py's "
              "Search, compiled).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static PyMethodDef module_methods[] = {
    {"replays", replay_replays, METH_VARARGS,
     "replays(found, cells, columns, rules, line) -> whether the line of "
     "(card, destination) byte pairs is legal move by move and ends won"},
    {"move_indices", replay_move_indices, METH_VARARGS,
     "move_indices(found, cells, columns, rules, line) -> the line as one "
     "move index a byte (format version 3); ValueError at a move that is not legal"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_search",
    "The compiled exhaustive search and no-win certificate writer (see certify/engine/).",
    -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__search(void) {
    init_parents();
    replay_init();
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "DONE", DONE);
    PyModule_AddIntConstant(m, "WON", WON);
    PyModule_AddIntConstant(m, "MAX_POSITIONS", MAX_POSITIONS);
    PyModule_AddIntConstant(m, "OUT_OF_TIME", OUT_OF_TIME);
    PyModule_AddIntConstant(m, "TOO_MANY_COLUMNS", TOO_MANY_COLUMNS);
    PyModule_AddIntConstant(m, "OUT_OF_MEMORY", OUT_OF_MEMORY);
    PyModule_AddIntConstant(m, "MEMORY_BUDGET", MEMORY_BUDGET);
    PyModule_AddIntConstant(m, "FORMAT_FULL", FORMAT_FULL);
    PyModule_AddIntConstant(m, "SEARCH_CAPACITY", SEARCH_CAPACITY);
    PyModule_AddIntConstant(m, "CHUNK", (long)CHUNK);
    PyModule_AddIntConstant(m, "MOST_COLUMNS", MOST_COLUMNS);
    return m;
}
