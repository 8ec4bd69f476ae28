/*
** The no-win certificate's body, written from a finished search's keys (writer.c): the column
** table (a msgpack array of bin), then the records in chunks of CHUNK, each a bin of its records
** as byte planes (docs/certificate-format.md, version 3), byte for byte those of no_win_body in
** format/writer.py.
** search.c's write_body() is its one caller.
**
** In two steps, so that the caller can make the buffer the body goes into (a Python bytes
** object) once its size is known: body_prepare() turns the keys into the sorted records in
** place of the keys, body_write() writes the body, body_free() lets go of what the two held.
*/

#ifndef WRITER_H
#define WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "columns.h"

#define CHUNK ((size_t)1 << 20)   /* records in a chunk of the body (format version 3) */

/* What body_prepare() comes to. */
enum { BODY_READY = 0,
       BODY_NO_MEMORY = 1,       /* malloc failed: nothing is written, the keys are as they were
                                 ** or already records (the search is used up either way) */
       BODY_NOT_DISTINCT = 2 };  /* two records alike after renumbering (a bug) */

typedef struct {
    const Columns *columns;
    uint8_t *used;         /* used[id]: some position names column id */
    uint32_t *order;       /* the table: the used columns' ids, ascending by content */
    uint32_t *renumber;    /* renumber[id]: the column's place in the table */
    uint32_t ntable;
    const uint8_t *records;   /* n records of w bytes, ascending (the caller's keys buffer) */
    size_t n, w;
    size_t size;           /* the body's bytes */
} Body;

/* The body of `n` keys of `keylen` bytes at *keys (foundations and cells in the first `at`
** bytes, then 8 column ids of `width` bytes, sorted unless `fixed`) naming the interned
** `columns`. The records are made in place of the keys, so memory stays near the key set's: the
** keys are used up, and *keys may be another buffer afterwards (still the caller's to free).
** Every size is a size_t: the format has no 32-bit limit, and a chunk's bin (at most CHUNK x 44
** bytes) is far below a bin's. Called with the GIL held (the second sorting thread is Python's). */
int body_prepare(Body *b, const Columns *columns, uint8_t **keys, size_t n, int at, int width,
                 int keylen, int fixed);

/* The body's b->size bytes into `out`. */
void body_write(const Body *b, uint8_t *out);

void body_free(Body *b);

#endif
