/*
** The no-win certificate's body, written from a finished search's keys: part of
** certify.engine._search (search.c's write_body() calls it; writer.h says how). The twin of the
** writer in certify/format/writer.py, byte for byte.
**
** Each key becomes a record (its column ids renumbered to the table's, ascending by content, and
** sorted again), the records are sorted, and the body is the table, then the records in chunks
** as byte planes. The sort is a radix sort of the records in place of the keys, on two threads
** from TWO_THREADS records on.
*/

#include <Python.h>   /* (only for PyThread, the second sorting thread) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ids.h"
#include "writer.h"

#define TWO_THREADS 16384              /* records from which the sort uses two threads */
#define MAX_RECORD (4 + 8 + 8 * 3)     /* the longest: a record is never longer than its key */

/* ---- Sorting the records ---------------------------------------------------------------- */

static const Columns *sorting_columns;   /* for qsort's comparator (the GIL is held) */

static int by_content(const void *a, const void *b) {
    const Columns *t = sorting_columns;
    const Column *x = &t->col[*(const uint32_t *)a], *y = &t->col[*(const uint32_t *)b];
    int n = x->len < y->len ? x->len : y->len;
    int c = memcmp(t->cards + x->off, t->cards + y->off, (size_t)n);
    return c ? c : (int)x->len - (int)y->len;
}

/* Eight bytes at a time (a memcpy of a constant 8 is one load or store): a call of memcpy for
** each record of 20 to 36 bytes costs more than the copy (benchmarks/README.md). */
static void copy_record(uint8_t *to, const uint8_t *from, size_t w) {
    size_t i = 0;
    for (; i + 8 <= w; i += 8) {
        uint64_t x;
        memcpy(&x, from + i, 8);
        memcpy(to + i, &x, 8);
    }
    for (; i < w; i++) to[i] = from[i];
}

static void swap_records(uint8_t *a, uint8_t *b, size_t w) {
    uint8_t t[MAX_RECORD];
    copy_record(t, a, w);
    copy_record(a, b, w);
    copy_record(b, t, w);
}

/* Sort n records of w bytes that agree on their first d bytes: a most-significant byte radix
** sort, insertion sort for small groups. Each pass deals a group's records out by byte d into
** `spare` (room for n records) in one sequential sweep, then copies them back: a sweep that the
** processor's prefetching keeps ahead of, where swapping records into place (American flag sort,
** which needs no spare room) waited for memory at nearly every record of a group larger than the
** cache (benchmarks/README.md). Most groups hold a few dozen records with a few byte values, so
** the loops over values run from the least to the greatest value present rather than over all
** 256. */
static void sort_records(uint8_t *a, uint8_t *spare, size_t n, size_t w, size_t d) {
    while (n > 1 && d < w) {
        if (n < 12) {   /* (12 measured best of 4, 8, 12, 24 and 40) */
            for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && memcmp(a + (j - 1) * w + d, a + j * w + d, w - d) > 0; j--)
                    swap_records(a + (j - 1) * w, a + j * w, w);
            return;
        }
        size_t count[256] = {0}, start[256], next[256];
        for (size_t i = 0; i < n; i++) count[a[i * w + d]]++;
        int lo = 0, hi = 255;
        while (!count[lo]) lo++;
        while (!count[hi]) hi--;
        if (lo == hi) { d++; continue; }   /* all alike here: the next byte */
        size_t sum = 0;
        for (int b = lo; b <= hi; b++) {
            start[b] = next[b] = sum;
            sum += count[b];
        }
        for (size_t i = 0; i < n; i++) copy_record(spare + next[a[i * w + d]]++ * w, a + i * w, w);
        memcpy(a, spare, n * w);
        for (int b = lo; b <= hi; b++)
            if (count[b] > 1) sort_records(a + start[b] * w, spare, count[b], w, d + 1);
        return;
    }
}

/* A half of the records, sorted on a thread of its own; `sorted` is held until it is done. */
typedef struct {
    uint8_t *a, *spare;
    size_t n, w;
    PyThread_type_lock sorted;
} Half;

static void sort_half(void *arg) {
    Half *h = arg;
    sort_records(h->a, h->spare, h->n, h->w, 0);
    PyThread_release_lock(h->sorted);
}

/* The n records of w bytes at `a`, sorted: where they now are (`a`, or `spare`, which has room
** for n records). From TWO_THREADS records on, the second half is sorted on another thread while
** this one sorts the first (the other processor has nothing to do while the writer runs), and the
** halves are then merged into `spare`; on this thread alone when no thread can be had. */
static const uint8_t *sorted_records(uint8_t *a, uint8_t *spare, size_t n, size_t w) {
    size_t half = n / 2;
    Half second = {a + half * w, spare + half * w, n - half, w, NULL};
    if (n >= TWO_THREADS && (second.sorted = PyThread_allocate_lock()) != NULL) {
        PyThread_acquire_lock(second.sorted, WAIT_LOCK);
        if (PyThread_start_new_thread(sort_half, &second) == PYTHREAD_INVALID_THREAD_ID) {
            PyThread_release_lock(second.sorted);
            PyThread_free_lock(second.sorted);
            second.sorted = NULL;
        }
    }
    if (second.sorted == NULL) {
        sort_records(a, spare, n, w, 0);
        return a;
    }
    sort_records(a, spare, half, w, 0);
    PyThread_acquire_lock(second.sorted, WAIT_LOCK);   /* the other half is sorted too */
    PyThread_free_lock(second.sorted);
    const uint8_t *x = a, *x_end = a + half * w, *y = x_end, *y_end = a + n * w;
    uint8_t *out = spare;
    for (; x < x_end && y < y_end; out += w) {
        int first = memcmp(x, y, w) <= 0;
        copy_record(out, first ? x : y, w);
        if (first) x += w; else y += w;
    }
    memcpy(out, x, (size_t)(x_end - x));
    memcpy(out + (x_end - x), y, (size_t)(y_end - y));
    return spare;
}

/* ---- msgpack's framing ------------------------------------------------------------------ */

static uint8_t *put_be(uint8_t *p, uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; i--) *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* msgpack's framing, as msgpack-python's packb writes it (the shortest form). */
static size_t array_head(size_t n) { return n <= 15 ? 1 : n <= 0xFFFF ? 3 : 5; }
static size_t bin_head(size_t n) { return n <= 0xFF ? 2 : n <= 0xFFFF ? 3 : 5; }

static uint8_t *put_array_head(uint8_t *p, size_t n) {
    if (n <= 15) { *p++ = (uint8_t)(0x90 | n); return p; }
    if (n <= 0xFFFF) { *p++ = 0xDC; return put_be(p, n, 2); }
    *p++ = 0xDD;
    return put_be(p, n, 4);
}

static uint8_t *put_bin_head(uint8_t *p, size_t n) {
    if (n <= 0xFF) { *p++ = 0xC4; *p++ = (uint8_t)n; return p; }
    if (n <= 0xFFFF) { *p++ = 0xC5; return put_be(p, n, 2); }
    *p++ = 0xC6;
    return put_be(p, n, 4);
}

/* ---- The body --------------------------------------------------------------------------- */

int body_prepare(Body *b, const Columns *columns, uint8_t **keys, size_t n, int at, int width,
                 int keylen, int fixed) {
    const Columns *t = columns;
    memset(b, 0, sizeof *b);
    b->columns = t;
    b->n = n;
    /* The table holds just the columns some position uses, in ascending byte order. */
    b->used = calloc(t->n ? t->n : 1, 1);
    b->order = malloc((t->n ? t->n : 1) * sizeof *b->order);
    b->renumber = malloc((t->n ? t->n : 1) * sizeof *b->renumber);
    if (!b->used || !b->order || !b->renumber) return BODY_NO_MEMORY;
    uint8_t *used = b->used;
    uint32_t *order = b->order, *renumber = b->renumber;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *k = *keys + i * (size_t)keylen + at;
        for (int j = 0; j < 8; j++) used[get_id(k + j * width, width)] = 1;
    }
    uint32_t ntable = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (used[i]) order[ntable++] = i;
    sorting_columns = t;
    qsort(order, ntable, sizeof *order, by_content);
    for (uint32_t i = 0; i < ntable; i++) renumber[order[i]] = i;
    b->ntable = ntable;
    int fw = ntable <= (1u << 16) ? 2 : ntable <= (1u << 24) ? 3 : 4;   /* the file's id width */
    size_t w = (size_t)at + 8 * (size_t)fw;   /* the record's width, W in the format */
    b->w = w;
    /* The body values' size, known before anything is written over. */
    size_t size = array_head(ntable);
    for (uint32_t i = 0; i < ntable; i++)
        size += bin_head(t->col[order[i]].len) + t->col[order[i]].len;
    for (size_t first = 0; first < n; first += CHUNK) {
        size_t records = n - first < CHUNK ? n - first : CHUNK;
        size += bin_head(records * w) + records * w;
    }
    b->size = size;
    /* Renumber in place: record i is never longer than key i, so going forward each key is
    ** read (into a copy) before anything is written over it. */
    for (size_t i = 0; i < n; i++) {
        uint8_t key[MAX_RECORD];
        uint32_t ids[8];
        memcpy(key, *keys + i * (size_t)keylen, (size_t)keylen);
        for (int j = 0; j < 8; j++) ids[j] = renumber[get_id(key + at + j * width, width)];
        if (!fixed) sort8(ids);
        uint8_t *r = *keys + i * w;
        memcpy(r, key, (size_t)at);
        for (int j = 0; j < 8; j++) put_be(r + at + j * fw, ids[j], fw);
    }
    uint8_t *spare = malloc(n > 0 ? n * w : 1);   /* (about what the freed search tables took) */
    if (!spare) return BODY_NO_MEMORY;
    if (sorted_records(*keys, spare, n, w) == spare) {   /* keep one buffer, before the body */
        free(*keys);
        *keys = spare;
    } else {
        free(spare);
    }
    const uint8_t *records = *keys;
    b->records = records;
    for (size_t i = 1; i < n; i++)
        if (memcmp(records + (i - 1) * w, records + i * w, w) >= 0) return BODY_NOT_DISTINCT;
    return BODY_READY;
}

void body_write(const Body *b, uint8_t *out) {
    const Columns *t = b->columns;
    size_t n = b->n, w = b->w;
    uint8_t *p = put_array_head(out, b->ntable);
    for (uint32_t i = 0; i < b->ntable; i++) {
        const Column *c = &t->col[b->order[i]];
        p = put_bin_head(p, c->len);
        memcpy(p, t->cards + c->off, c->len);
        p += c->len;
    }
    for (size_t first = 0; first < n; first += CHUNK) {
        size_t m = n - first < CHUNK ? n - first : CHUNK;
        p = put_bin_head(p, m * w);
        for (size_t j = 0; j < w; j++) {   /* byte j of the chunk's every record, then j + 1 */
            const uint8_t *r = b->records + first * w + j;
            for (size_t i = 0; i < m; i++, r += w) *p++ = *r;
        }
    }
}

void body_free(Body *b) {
    free(b->used);
    free(b->order);
    free(b->renumber);
    b->used = NULL;
    b->order = b->renumber = NULL;
}
