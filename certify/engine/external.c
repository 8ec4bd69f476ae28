/*
** The disk-backed exhaustive search's inner loops, compiled: certify.engine._external.
**
** certify/engine/on_disk.py drives the search (its work folder, its layers and checkpoints); this
** module does what touches every position: expanding a file of positions into buffers of
** successors, writing a buffer as a sorted run without repeats, merging runs against the sorted
** set of positions already found, and at the end streaming every position out as certificate
** records in the certificate's order. Nothing here decides a verdict: the search's positions are
** the same set the in-memory engine (search.c) finds, and check/ verifies the certificate.
**
** A key is compact and fixed-width (on disk, front-coded and compressed a block at a time: see
** Files, below): the four foundation counts in a nibble each (2 bytes, C D H S from the high
** nibble: they sort as the certificate's four bytes do), the free cells (cards ascending, then
** 0xFF), and eight column ids of `idw` bytes big-endian (2, or 3 once more than 65,536 columns
** are met), ascending unless columns keep fixed places. Ids are
** the search's own, numbered as met; the certificate's are the columns' rank by content, given
** only at the end (Finisher). Keys with the same foundations and cells are alike in their first
** 2 + ncells bytes, and those bytes sort exactly as the certificate's first 4 + ncells do: so a
** merge of the sorted files, taken a group of equal (foundations, cells) at a time, re-sorted
** within each group by the certificate's ids, is the certificate's order without another sort
** of the whole set on disk.
**
** The interned columns and the hash are search.c's, shared through columns.h, and so is the move
** generator (successors.h), which writes each successor through this module's put_successor()
** in this module's keys; tests/test_external.py holds the two engines to the same positions,
** byte for byte.
*/

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#define COLUMN_OFFSET uint64_t   /* (see columns.h) */
#include "cards.h"
#include "columns.h"
#include "ids.h"
#include "rules.h"
#include "successors.h"
#include "zeroed.h"

#define EMPTY_CELL 0xFF
#define NARROW_COLUMNS (1u << 16)
#define MOST_COLUMNS (1u << 24)
#define MAX_SUCCESSORS 256
#define MAX_KEY (2 + 8 + 8 * 3)
#define MAX_RECORD (4 + 8 + 8 * 4)
#define MOST_INPUTS 1024        /* runs one merge may read at once */

/* What Expander.expand() stops on. */
enum { EXHAUSTED = 0, BUFFER_FULL = 1, SLICE_OVER = 2, COLUMNS_FULL = 3, NO_MEMORY = 4 };

/* The one error discipline below the binding (search.c's): a function that can fail returns a
** code, never jumps and never sets a Python exception; a file that fails keeps its errno in its
** reader's or writer's `err` (or the caller's *err), which the binding raises with os_error().
** The binding (the Python layer: -1 or NULL with an exception set, CPython's convention) is the
** only code that raises. The codes are the tables' FITS, IDS_FULL, ALLOC_FAILED (columns.h) and
** these: */
enum { OK = 0,              /* done */
       IO_FAILED = -1,      /* a file failed: its errno is in `err` */
       STOPPED = 1 };       /* a stop was asked (stopping()): the work is left unfinished */
enum { GOT = 1,             /* a read: the bytes, block header or key asked for (or IO_FAILED) */
       AT_END = 0 };        /* ... nothing: the file's end */
enum { UNKNOWN_COLUMN = -3 };  /* expand_key(): a key names a column never met (not ours) */
enum { PRESENT = 1, INSERTED = 2,   /* held_insert(): the key was in the set, or is now */
       OVER_BUDGET = 3 };   /* held_room(), held_insert(): the set would outgrow its budget */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- Stopping ------------------------------------------------------------------------------ */

/* The loops here run for minutes without the GIL, where Python's signal handlers cannot run: so
** they look, a few times a second, whether a stop was asked (stop(), from certify/engine/on_disk.py's
** handler of SIGINT and SIGTERM) and let Python run its handlers (a KeyboardInterrupt raised
** there stops them too). A stopped call raises Stopped and leaves its output files short: the
** folder's state never names them, so a resume removes them. */

#define POLL_SECONDS 0.1

static int stop_asked;   /* (read and written atomically: the crews' threads read it) */
static double next_poll;
static PyObject *Stopped;

/* ---- Threads ---------------------------------------------------------------------------- */

/* A call may share its work with helper threads (--threads): a crew takes tasks 0..ntasks-1 of
** one job in turn, the calling thread among them, each task writing only its own slot of the
** job (its output file, its counts and its error), so that nothing is written by two threads
** but the crew's own fields, under its lock. What the tasks make does not depend on which thread
** made it or when: the same files whatever the number of threads (merges split by key range
** write their ranges to files of their own, joined in order at the end). Only the calling thread
** looks at Python's signals (it may hold the GIL a moment); a helper looks at a flag, `abort`,
** which a stop asked or a task that failed raises, so that the others stop at their next look.
** Helpers block every signal: they go to the calling thread, as without a crew. */

#define MOST_THREADS 64

typedef struct Crew Crew;
struct Crew {
    void (*task)(Crew *c, int i);
    void *job;
    int ntasks;
    int next;          /* the next task to take (under lock) */
    int helping;       /* helpers still working (under lock) */
    int abort;         /* (atomic) the tasks left are not begun, those under way stop */
    pthread_mutex_t lock;
    pthread_cond_t done;
};

static __thread Crew *helped;   /* the crew this thread is a helper of */
static __thread Crew *led;      /* the crew this thread called, while it works in it */

static int asked(void) { return __atomic_load_n(&stop_asked, __ATOMIC_RELAXED); }

static int aborted(Crew *c) { return __atomic_load_n(&c->abort, __ATOMIC_RELAXED); }

/* A task that failed: the crew's other tasks stop. */
static void crew_abort(Crew *c) {
    if (c) __atomic_store_n(&c->abort, 1, __ATOMIC_RELAXED);
}

/* Whether to stop; called without the GIL. In a crew, a task failed stops the others too. */
static int stopping(void) {
    if (helped) return asked() || aborted(helped);
    if (asked() || (led && aborted(led))) return 1;
    double t = now();
    if (t < next_poll) return 0;
    next_poll = t + POLL_SECONDS;
    PyGILState_STATE g = PyGILState_Ensure();
    int raised = PyErr_CheckSignals() < 0;
    PyGILState_Release(g);
    if (raised || asked()) {
        crew_abort(led);
        return 1;
    }
    return 0;
}

static void crew_work(Crew *c) {
    for (;;) {
        pthread_mutex_lock(&c->lock);
        int i = c->next < c->ntasks && !aborted(c) ? c->next++ : -1;
        pthread_mutex_unlock(&c->lock);
        if (i < 0) return;
        c->task(c, i);
    }
}

static void *crew_helper(void *arg) {
    Crew *c = arg;
    helped = c;
    crew_work(c);
    helped = NULL;
    pthread_mutex_lock(&c->lock);
    c->helping--;
    pthread_cond_signal(&c->done);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Run task(c, i) for i in 0..ntasks-1 on `threads` threads, this one among them (called without
** the GIL); returns when every task begun has ended. A helper that cannot be started is done
** without: the tasks are the same, on fewer threads. */
static void crew_run(Crew *c, int threads) {
    pthread_t helper[MOST_THREADS];
    int started = 0;
    c->next = c->helping = c->abort = 0;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->done, NULL);
    if (threads > c->ntasks) threads = c->ntasks;
    if (threads > MOST_THREADS) threads = MOST_THREADS;
    if (threads > 1) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        for (int k = 1; k < threads; k++) {
            pthread_mutex_lock(&c->lock);
            c->helping++;
            pthread_mutex_unlock(&c->lock);
            if (pthread_create(&helper[started], NULL, crew_helper, c) == 0) {
                started++;
                continue;
            }
            pthread_mutex_lock(&c->lock);
            c->helping--;
            pthread_mutex_unlock(&c->lock);
            break;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    Crew *outer = led;
    led = c;
    crew_work(c);
    /* the helpers' last tasks waited for, a look at the signals every POLL_SECONDS */
    pthread_mutex_lock(&c->lock);
    while (c->helping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(POLL_SECONDS * 1e9);
        if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&c->done, &c->lock, &until);
        if (!c->helping) break;
        pthread_mutex_unlock(&c->lock);
        stopping();   /* (a stop asked raises abort) */
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    led = outer;
    for (int k = 0; k < started; k++) pthread_join(helper[k], NULL);
    pthread_cond_destroy(&c->done);
    pthread_mutex_destroy(&c->lock);
}

/* The error of a call stopped: what a handler raised, or Stopped. */
static PyObject *stopped(void) {
    if (!PyErr_Occurred()) PyErr_SetString(Stopped, "stopped on request");
    return NULL;
}

/* ---- Keys ------------------------------------------------------------------------------- */

static void put_be(uint8_t *p, uint32_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; i--) *p++ = (uint8_t)(v >> (8 * i));
}

static uint32_t get_be(const uint8_t *p, int bytes) {
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
    return v;
}

static void decode(const uint8_t *k, int ncells, int idw, Parts *p) {
    p->found[0] = k[0] >> 4; p->found[1] = k[0] & 15;
    p->found[2] = k[1] >> 4; p->found[3] = k[1] & 15;
    p->nocc = 0;
    while (p->nocc < ncells && k[2 + p->nocc] != EMPTY_CELL) {
        p->occ[p->nocc] = k[2 + p->nocc];
        p->nocc++;
    }
    for (int i = 0; i < 8; i++) p->ids[i] = get_be(k + 2 + ncells + i * idw, idw);
}

static void encode(uint8_t *k, int ncells, int idw, int fixed, const uint8_t *found,
                   const uint8_t *occ, int nocc, const uint32_t *ids_in) {
    uint32_t ids[8];
    memcpy(ids, ids_in, sizeof ids);
    if (!fixed) sort8(ids);
    k[0] = (uint8_t)(found[0] << 4 | found[1]);
    k[1] = (uint8_t)(found[2] << 4 | found[3]);
    memcpy(k + 2, occ, (size_t)nocc);
    memset(k + 2 + nocc, EMPTY_CELL, (size_t)(ncells - nocc));
    for (int i = 0; i < 8; i++) put_be(k + 2 + ncells + i * idw, ids[i], idw);
}

static int home(const uint8_t *k) { return (k[0] >> 4) + (k[0] & 15) + (k[1] >> 4) + (k[1] & 15); }

/* ---- Sorting keys in place -------------------------------------------------------------- */

static void swap_keys(uint8_t *a, uint8_t *b, size_t w) {
    uint8_t t[MAX_RECORD];
    memcpy(t, a, w);
    memcpy(a, b, w);
    memcpy(b, t, w);
}

/* One pass of sort_keys below over n keys of w bytes that agree on their first *d bytes: *d
** moved past the bytes they all share, the keys moved into bins by the first byte in which they
** differ (count[v] keys with byte v, from key start[v] on). 0 if they agree to the end (nothing
** to sort), else 1. */
static inline int spread(uint8_t *a, size_t n, size_t w, size_t *d, size_t count[256],
                         size_t start[256]) {
    for (; *d < w; ++*d) {
        size_t next[256];
        memset(count, 0, 256 * sizeof *count);
        for (size_t i = 0; i < n; i++) count[a[i * w + *d]]++;
        int lo = 0, hi = 255;
        while (!count[lo]) lo++;
        while (!count[hi]) hi--;
        if (lo == hi) continue;
        size_t sum = 0;
        for (int b = 0; b < 256; b++) {
            start[b] = next[b] = sum;
            sum += count[b];
        }
        for (int b = lo; b <= hi; b++) {
            size_t end = start[b] + count[b];
            while (next[b] < end) {
                uint8_t *r = a + next[b] * w;
                int v = r[*d];
                if (v == b) { next[b]++; continue; }
                swap_keys(r, a + next[v]++ * w, w);   /* r's key goes to its bin; look again */
            }
        }
        return 1;
    }
    return 0;
}

/* n keys of w bytes that agree on their first d bytes, sorted in place: an American flag sort
** (most significant byte first, records swapped into their byte's bin), insertion sort for small
** groups. In place because the buffer being sorted is most of the memory budget: a sort with a
** spare copy (search.c's, faster) would halve what fits between spills. With `poll` (called
** without the GIL), a sort of many keys looks whether to stop: STOPPED if it stopped, the keys
** then in no particular order; else OK. */
static int sort_keys(uint8_t *a, size_t n, size_t w, size_t d, int poll) {
    if (poll && n > (1 << 16) && stopping()) return STOPPED;
    if (n < 2 || d >= w) return OK;
    if (n < 16) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && memcmp(a + (j - 1) * w + d, a + j * w + d, w - d) > 0; j--)
                swap_keys(a + (j - 1) * w, a + j * w, w);
        return OK;
    }
    size_t count[256], start[256];
    if (!spread(a, n, w, &d, count, start)) return OK;
    for (int b = 0; b < 256; b++)
        if (count[b] > 1 && sort_keys(a + start[b] * w, count[b], w, d + 1, poll) == STOPPED)
            return STOPPED;
    return OK;
}

/* sort_keys on `threads` threads, if there are at least `split_at` keys: the keys spread into
** bins (by the passes of sort_keys, the largest bin spread again while it holds more than a
** share of the keys), the bins then sorted by a crew, the largest first. The bins are disjoint,
** so the keys come out as sort_keys leaves them, whatever thread sorted which bin. Polls as
** sort_keys with `poll`. */
#define SORT_SPLIT_AT (1 << 18)   /* (the default of Expander's split_at) */
#define MOST_BINS 4096

typedef struct { uint8_t *a; size_t n, d; } Bin;

typedef struct {
    Bin *bins;
    size_t w;
    int *stopped;      /* each bin's (its task's slot) */
} SortJob;

static void sort_task(Crew *c, int i) {
    SortJob *j = c->job;
    j->stopped[i] = sort_keys(j->bins[i].a, j->bins[i].n, j->w, j->bins[i].d, 1) == STOPPED;
    if (j->stopped[i]) crew_abort(c);
}

static int bigger_bin(const void *x, const void *y) {
    const Bin *a = x, *b = y;
    return a->n < b->n ? 1 : a->n > b->n ? -1 : a->a < b->a ? -1 : a->a > b->a;
}

static int sort_keys_on(uint8_t *a, size_t n, size_t w, size_t d, int threads, size_t split_at) {
    if (threads < 2 || n < split_at || n < 2) return sort_keys(a, n, w, d, 1);
    Bin *bins = malloc(MOST_BINS * sizeof *bins);
    int *stopped = calloc(MOST_BINS, sizeof *stopped);
    if (!bins || !stopped) {   /* (no room for the list: one thread) */
        free(bins);
        free(stopped);
        return sort_keys(a, n, w, d, 1);
    }
    size_t share = n / (4 * (size_t)threads), nbins = 1;
    bins[0] = (Bin){a, n, d};
    while (nbins) {   /* the largest bin spread while it is more than a share */
        size_t big = 0;
        for (size_t i = 1; i < nbins; i++)
            if (bins[i].n > bins[big].n) big = i;
        Bin b = bins[big];
        if (b.n <= share || b.d >= w || nbins + 256 > MOST_BINS) break;
        if (stopping()) { free(bins); free(stopped); return STOPPED; }
        size_t count[256], start[256], e = b.d;
        bins[big] = bins[--nbins];
        if (!spread(b.a, b.n, w, &e, count, start)) continue;   /* (all alike: sorted) */
        for (int v = 0; v < 256; v++)
            if (count[v] > 1) bins[nbins++] = (Bin){b.a + start[v] * w, count[v], e + 1};
    }
    qsort(bins, nbins, sizeof *bins, bigger_bin);
    SortJob job = {bins, w, stopped};
    Crew crew = {.task = sort_task, .job = &job, .ntasks = (int)nbins};
    crew_run(&crew, threads);
    int stop = 0;
    for (size_t i = 0; i < nbins; i++) stop |= stopped[i];
    free(bins);
    free(stopped);
    return stop || aborted(&crew) ? STOPPED : OK;
}

/* Sorted keys with repeats dropped, in place: how many are left. */
static size_t unique_keys(uint8_t *a, size_t n, size_t w) {
    if (n == 0) return 0;
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (memcmp(a + (m - 1) * w, a + i * w, w) != 0) {
            if (m != i) memcpy(a + m * w, a + i * w, w);
            m++;
        }
    return m;
}

/* ---- Files ------------------------------------------------------------------------------ */

/* A key file: an 8-byte header (KEY_MAGIC, the layout's version, the key width, two zeros), then
** blocks of at most BLOCK_KEYS keys, each a little-endian u32 count of keys and u32 length of a
** zstd frame (with its checksum) that holds the keys front-coded: a byte saying how many leading
** bytes a key shares with the one before it in the block (0 for the first), then the rest of the
** key. Sorted keys share most of their bytes with their neighbours (the same foundations and
** cells, the first columns alike), so a key costs about 2 bytes on disk rather than 22; and a
** block starts afresh, so a reader skips whole blocks by their headers to reach a key. Unsorted
** files (a held bucket's saves) are the same layout, only larger. */

#define KEY_MAGIC "FCDK"
#define KEY_LAYOUT 2
#define BLOCK_KEYS 8192
#define ZSTD_LEVEL 1

static size_t front_cap(size_t w) { return BLOCK_KEYS * (w + 1); }

/* A key file written a block at a time. An error keeps its errno for the caller to raise. */
typedef struct {
    int fd;
    size_t w;
    uint8_t *front;       /* this block's keys, front-coded */
    size_t used, nblock;
    uint8_t last[MAX_RECORD];
    uint8_t *z;           /* the block's header, then its frame */
    size_t zcap;
    ZSTD_CCtx *cctx;
    uint64_t count;
    int err;
} Out;

static int write_all(int fd, const uint8_t *p, size_t n, int *err) {
    while (!*err && n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) *err = k < 0 ? errno : ENOSPC;
        else { p += k; n -= (size_t)k; }
    }
    return *err ? IO_FAILED : OK;
}

static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int out_open(Out *o, const char *path, size_t w) {
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->w = w;
    o->front = malloc(front_cap(w));
    o->zcap = 8 + ZSTD_compressBound(front_cap(w));
    o->z = malloc(o->zcap);
    o->cctx = ZSTD_createCCtx();
    if (!o->front || !o->z || !o->cctx ||
        ZSTD_isError(ZSTD_CCtx_setParameter(o->cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(o->cctx, ZSTD_c_checksumFlag, 1))) {
        o->err = ENOMEM;
        return IO_FAILED;
    }
    o->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (o->fd < 0) { o->err = errno; return IO_FAILED; }
    uint8_t head[8] = {KEY_MAGIC[0], KEY_MAGIC[1], KEY_MAGIC[2], KEY_MAGIC[3], KEY_LAYOUT,
                       (uint8_t)w, 0, 0};
    return write_all(o->fd, head, sizeof head, &o->err);
}

static int out_block(Out *o) {
    if (!o->nblock || o->err) return o->err ? IO_FAILED : OK;
    size_t n = ZSTD_compress2(o->cctx, o->z + 8, o->zcap - 8, o->front, o->used);
    if (ZSTD_isError(n)) { o->err = ENOMEM; return IO_FAILED; }
    put_le32(o->z, (uint32_t)o->nblock);
    put_le32(o->z + 4, (uint32_t)n);
    o->nblock = o->used = 0;
    return write_all(o->fd, o->z, 8 + n, &o->err);
}

/* How many leading bytes keys a and b of w bytes share (a word at a time where it can). */
static size_t shared(const uint8_t *a, const uint8_t *b, size_t w) {
    size_t p = 0;
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; p + 8 <= w; p += 8) {
        uint64_t x, y;
        memcpy(&x, a + p, 8);
        memcpy(&y, b + p, 8);
        if (x != y) return p + (size_t)(__builtin_ctzll(x ^ y) >> 3);
    }
#endif
    while (p < w && a[p] == b[p]) p++;
    return p;
}

static int out_put(Out *o, const uint8_t *k) {
    if (o->err) return IO_FAILED;
    if (o->nblock == BLOCK_KEYS && out_block(o) == IO_FAILED) return IO_FAILED;
    size_t w = o->w, p = o->nblock ? shared(k, o->last, w) : 0;
    o->front[o->used++] = (uint8_t)p;
    memcpy(o->front + o->used, k + p, w - p);
    o->used += w - p;
    memcpy(o->last, k, w);
    o->nblock++;
    o->count++;
    return OK;
}

static int out_close(Out *o) {
    if (o->fd >= 0) {
        out_block(o);
        if (close(o->fd) < 0 && !o->err) o->err = errno;
    }
    free(o->front);
    free(o->z);
    ZSTD_freeCCtx(o->cctx);
    o->front = o->z = NULL;
    o->cctx = NULL;
    o->fd = -1;
    return o->err ? IO_FAILED : OK;
}

/* A key file read a key at a time: a block is read whole and its keys decoded one by one into
** `cur`. A file that breaks the layout (not ours, cut short, a frame whose checksum fails) is
** EIO, never a wrong key. */
typedef struct {
    int fd;
    size_t w;
    uint8_t *z, *front;
    size_t zcap, zbound;  /* z's bytes (grown to the largest frame met), a frame's most */
    const uint8_t *fp, *fend;
    uint32_t left;        /* keys of the block still to decode */
    int first;            /* the next key is its block's first */
    ZSTD_DCtx *dctx;
    int live, err;
    uint8_t cur[MAX_RECORD];
    const uint8_t *key;   /* the current key (cur), while live */
    /* A reader of a key range (a merge split across threads) ends at its first key not below
    ** `hi` (none: at the file's end), and says where: `end`, that key's place in the file (or
    ** the file's keys), which the next range must begin at. */
    const uint8_t *hi;
    uint64_t taken;       /* the keys decoded so far: the next key's place in the file */
    uint64_t end;
    int ended;            /* it came to `hi` or to the file's end (`end` is set) */
} In;

static int read_full(int fd, uint8_t *p, size_t n, int *err) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) { *err = errno; return IO_FAILED; }
        if (k == 0) break;
        got += (size_t)k;
    }
    if (got == n) return GOT;
    if (got == 0) return AT_END;
    *err = EIO;   /* cut short */
    return IO_FAILED;
}

/* The next block's header: GOT (its keys and frame length), AT_END, or IO_FAILED. */
static int in_header(In *r, uint32_t *nkeys, uint32_t *clen) {
    uint8_t h[8];
    int got = read_full(r->fd, h, 8, &r->err);
    if (got != GOT) return got;
    *nkeys = get_le32(h);
    *clen = get_le32(h + 4);
    if (*nkeys == 0 || *nkeys > BLOCK_KEYS || *clen > r->zbound) { r->err = EIO; return IO_FAILED; }
    if (*clen > r->zcap) {
        uint8_t *z = realloc(r->z, *clen);
        if (!z) { r->err = ENOMEM; return IO_FAILED; }
        r->z = z;
        r->zcap = *clen;
    }
    return GOT;
}

static int in_block(In *r, uint32_t nkeys, uint32_t clen) {
    if (read_full(r->fd, r->z, clen, &r->err) != GOT) {
        if (!r->err) r->err = EIO;
        return IO_FAILED;
    }
    size_t n = ZSTD_decompressDCtx(r->dctx, r->front, front_cap(r->w), r->z, clen);
    if (ZSTD_isError(n)) { r->err = EIO; return IO_FAILED; }
    r->fp = r->front;
    r->fend = r->front + n;
    r->left = nkeys;
    r->first = 1;
    return OK;
}

/* The next key into r->cur (r->key): GOT, AT_END (r->live is then 0), or IO_FAILED. */
static int in_next(In *r) {
    if (!r->left) {
        uint32_t nkeys, clen;
        if (r->fp != r->fend) {   /* bytes left over */
            r->err = EIO;
            r->live = 0;
            return IO_FAILED;
        }
        int got = in_header(r, &nkeys, &clen);
        if (got == AT_END) {
            r->live = 0;
            r->ended = 1;
            r->end = r->taken;
            return AT_END;
        }
        if (got == IO_FAILED || in_block(r, nkeys, clen) == IO_FAILED) {
            r->live = 0;
            return IO_FAILED;
        }
    }
    size_t w = r->w, p = r->fp < r->fend ? *r->fp++ : w + 1;
    if (p > w || (r->first && p) || (size_t)(r->fend - r->fp) < w - p) {
        r->err = EIO;
        r->live = 0;
        return IO_FAILED;
    }
    memcpy(r->cur + p, r->fp, w - p);
    r->fp += w - p;
    r->left--;
    r->first = 0;
    r->key = r->cur;
    r->taken++;
    if (r->hi && memcmp(r->cur, r->hi, w) >= 0) {
        r->live = 0;
        r->ended = 1;
        r->end = r->taken - 1;
        return AT_END;
    }
    r->live = 1;
    return GOT;
}

/* in_open, from the block whose header is at byte `at` of the file, `before` keys before it
** (8, 0: the first), its key `skip` on; a reader of keys below `hi` (or NULL: all of them). */
static int in_open_at(In *r, const char *path, size_t w, uint64_t skip, uint64_t at,
                      uint64_t before, const uint8_t *hi) {
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->w = w;
    r->zbound = ZSTD_compressBound(front_cap(w));
    r->front = malloc(front_cap(w));
    r->dctx = ZSTD_createDCtx();
    if (!r->front || !r->dctx) { r->err = ENOMEM; return IO_FAILED; }
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) { r->err = errno; return IO_FAILED; }
    uint8_t h[8];
    if (read_full(r->fd, h, 8, &r->err) != GOT || memcmp(h, KEY_MAGIC, 4) != 0 ||
        h[4] != KEY_LAYOUT || h[5] != w) {
        if (!r->err) r->err = EIO;
        return IO_FAILED;
    }
    if (at != 8 && lseek(r->fd, (off_t)at, SEEK_SET) < 0) { r->err = errno; return IO_FAILED; }
    r->taken = before;
    while (skip) {
        uint32_t nkeys, clen;
        int got = in_header(r, &nkeys, &clen);
        if (got != GOT) { if (!r->err) r->err = EIO; return IO_FAILED; }   /* shorter than `skip` */
        if (nkeys <= skip) {
            if (lseek(r->fd, (off_t)clen, SEEK_CUR) < 0) { r->err = errno; return IO_FAILED; }
            skip -= nkeys;
            r->taken += nkeys;
            continue;
        }
        if (in_block(r, nkeys, clen) == IO_FAILED) return IO_FAILED;
        for (; skip; skip--)
            if (in_next(r) == IO_FAILED) return IO_FAILED;
        r->live = 0;   /* (the key skipped to is the next one in_next gives) */
    }
    r->hi = hi;
    return in_next(r) == IO_FAILED ? IO_FAILED : OK;
}

/* A reader of the whole file at `path`, its key `skip` on. */
static int in_open(In *r, const char *path, size_t w, uint64_t skip) {
    return in_open_at(r, path, w, skip, 8, 0, NULL);
}

static void in_close(In *r) {
    if (r->fd >= 0) close(r->fd);
    free(r->z);
    free(r->front);
    ZSTD_freeDCtx(r->dctx);
    r->z = r->front = NULL;
    r->dctx = NULL;
    r->fd = -1;
    r->live = 0;
}

static PyObject *os_error(int err, const char *path) {
    errno = err;
    return PyErr_SetFromErrnoWithFilename(err == ENOMEM ? PyExc_MemoryError : PyExc_OSError,
                                          path);
}

/* ---- The expander ----------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    int ncells, fixed_columns, foundation_moves, idw, keylen;
    int autoplay;        /* the closure: every move, then safe moves home (columns.h's settle) */
    int threads;         /* the sorts' (sort_keys_on), from split_at keys on */
    size_t split_at;
    Columns columns;
    uint8_t *buf;        /* successors: this bucket's from the front, later ones' from the back */
    size_t cap;          /* keys the buffer holds */
    size_t nsame, nnext;
    size_t ahead[NCARDS + 1];  /* the back part's keys by cards home (spill writes a run of each) */
    int most;            /* most cards home in any key seen */
    int won;             /* a won position was met */
    int busy;
    /* The bucket held in memory (hold/explore/dump): records of keylen + 1 bytes, the key then
    ** 1 while it is still to be expanded; a hash table of hash << 32 | index + 1; the stack of
    ** the indices still to expand. */
    uint8_t *held;
    size_t nheld, capheld;
    uint64_t *slot;
    size_t nslots;
    uint32_t *stack;
    size_t nstack;
    size_t budget;       /* bytes the three may take */
    /* The bucket's start keys (source()), a sorted file read a foundation group at a time: the
    ** keys of key src_next on are groups not yet begun; the group begun last began at
    ** group_start, with `closed` keys held before it (every one of them in a group already
    ** closed); `loading` while its start keys are going in. */
    In src;
    char *src_path;      /* NULL: no source */
    int src_open, loading;
    uint64_t src_next, src_count, group_start;
    size_t closed;
    uint8_t group[2];    /* the foundations (a key's first 2 bytes) of the group begun last */
    int has_group;
} Expander;

static void close_source(Expander *x) {
    if (x->src_open) in_close(&x->src);
    x->src_open = 0;
    free(x->src_path);
    x->src_path = NULL;
    x->src_next = x->src_count = x->group_start = 0;
    x->closed = 0;
    x->loading = x->has_group = 0;
}

/* The set let go of, and the source with it (a hold goes on from the saved files and source()). */
static void release_held(Expander *x) {
    free(x->held); free(x->slot); free(x->stack);
    x->held = NULL; x->slot = NULL; x->stack = NULL;
    x->nheld = x->capheld = x->nslots = x->nstack = 0;
    close_source(x);
}

static void Expander_dealloc(Expander *x) {
    release_held(x);
    columns_free(&x->columns);
    free(x->buf);
    Py_TYPE(x)->tp_free((PyObject *)x);
}

/* Expander(rules, idw, columns, buffer, narrow=65536, threads=1, split_at=2**18): the rules (a
** Rules: rules.h), the ids' width, the columns met so far (a list of bytes, by id: a
** resumed search numbers them as before) and the bytes the successor buffer may take. `narrow`,
** the columns 2-byte ids may name, is smaller only in tests, which widen the keys early that
** way. `threads`: the threads its sorts of `split_at` keys or more use (the same keys, in the same
** order; tests sort fewer on several threads). */
static int Expander_init(Expander *x, PyObject *args, PyObject *kw) {
    static char *names[] = {"rules", "idw", "columns", "buffer", "narrow", "threads", "split_at",
                            NULL};
    Rules rules;
    int idw, threads = 1;
    PyObject *cols;
    unsigned long long buffer, split_at = SORT_SPLIT_AT;
    long narrow = NARROW_COLUMNS;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&iO!K|liK", names, rules_converter, &rules, &idw,
                                     &PyList_Type, &cols, &buffer, &narrow, &threads, &split_at))
        return -1;
    if (threads < 1 || threads > MOST_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads: 1 to %d", MOST_THREADS);
        return -1;
    }
    int ncells = rules.ncells;
    if ((idw != 2 && idw != 3) || narrow < 8 ||
        narrow > (long)NARROW_COLUMNS) {
        PyErr_SetString(PyExc_ValueError, "ncells 0..8, idw 2 or 3, narrow 8..65536");
        return -1;
    }
    if (x->buf) { PyErr_SetString(PyExc_RuntimeError, "already made"); return -1; }
    x->ncells = ncells;
    x->fixed_columns = rules.fixed_columns;
    x->foundation_moves = rules.foundation_moves;
    x->autoplay = rules.autoplay;
    x->threads = threads;
    x->split_at = (size_t)split_at;
    x->idw = idw;
    x->keylen = 2 + ncells + 8 * idw;
    if (columns_init(&x->columns, idw == 2 ? (uint32_t)narrow : MOST_COLUMNS) != FITS) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(cols); i++) {
        PyObject *c = PyList_GET_ITEM(cols, i);
        if (!PyBytes_Check(c) || PyBytes_GET_SIZE(c) > NCARDS) {
            PyErr_SetString(PyExc_ValueError, "a column is bytes of at most 52 cards");
            return -1;
        }
        int32_t id = column_id(&x->columns, (const uint8_t *)PyBytes_AS_STRING(c),
                               (int)PyBytes_GET_SIZE(c));
        if (id != (int32_t)i) {
            if (id == ALLOC_FAILED) PyErr_NoMemory();
            else PyErr_SetString(PyExc_ValueError, "the columns repeat or overflow the ids");
            return -1;
        }
    }
    x->cap = buffer / (size_t)x->keylen;
    if (x->cap < 2 * MAX_SUCCESSORS) x->cap = 2 * MAX_SUCCESSORS;
    x->buf = malloc(x->cap * (size_t)x->keylen);
    if (!x->buf) { PyErr_NoMemory(); return -1; }
    return 0;
}

typedef struct {
    Expander *x;
    Parts p;
    uint8_t out[MAX_SUCCESSORS * MAX_KEY];
} Expansion;

/* Successor key k of this module's, from its parts: the generator's put_successor()
** (successors.h); encode()'s, but on ids that are its own to sort. */
ALWAYS_INLINE void put_successor(const Moves *m, uint8_t *k, const uint8_t *found,
                                const uint8_t *occ, int nocc, uint32_t *ids) {
    if (!m->fixed_columns) sort8(ids);
    k[0] = (uint8_t)(found[0] << 4 | found[1]);
    k[1] = (uint8_t)(found[2] << 4 | found[3]);
    memcpy(k + 2, occ, (size_t)nocc);
    memset(k + 2 + nocc, EMPTY_CELL, (size_t)(m->ncells - nocc));
    for (int i = 0; i < 8; i++) put_be(k + 2 + m->ncells + i * m->width, ids[i], m->width);
}

/* The successors of key k into e->out (successors.h, on this module's keys): how many,
** IDS_FULL when a new column did not fit at this width, ALLOC_FAILED (the columns stay whole),
** UNKNOWN_COLUMN for a key that names a column never met. */
static int expand_key(Expansion *e, const uint8_t *k) {
    Expander *x = e->x;
    Parts *p = &e->p;
    decode(k, x->ncells, x->idw, p);
    for (int i = 0; i < 8; i++)
        if (p->ids[i] >= x->columns.n) return UNKNOWN_COLUMN;   /* not a key of ours */
    Rules rules = {x->ncells, x->fixed_columns, x->foundation_moves, x->autoplay};
    return successors(&rules, &x->columns, p, e->out, (size_t)x->keylen, x->idw);
}

/* A successor of a later bucket (hk cards home) into the buffer's back part. */
static void ahead(Expander *x, const uint8_t *k, int hk) {
    memcpy(x->buf + (x->cap - ++x->nnext) * (size_t)x->keylen, k, (size_t)x->keylen);
    x->ahead[hk]++;
}

/* expand(path, offset, count, seconds) -> (status, offset): expand the keys of the sorted file
** `path` from key `offset` on (of `count` in all), putting each successor in the buffer: those
** with as many cards home as their position's in this bucket's part, those with more in the
** later buckets' part: one more card home after a move, or several when autoplay follows it
** (with foundation moves, every successor is this bucket's: one bucket holds all).
** Stops between whole keys: EXHAUSTED at the file's end, BUFFER_FULL when another key's
** successors might not fit, SLICE_OVER after `seconds`, COLUMNS_FULL before a key that needs a
** column beyond the ids' width (nothing of it is kept), NO_MEMORY likewise. */
static PyObject *Expander_expand(Expander *x, PyObject *args) {
    const char *path;
    unsigned long long offset, count;
    double seconds;
    if (!PyArg_ParseTuple(args, "yKKd", &path, &offset, &count, &seconds)) return NULL;
    if (x->busy) { PyErr_SetString(PyExc_RuntimeError, "busy"); return NULL; }
    Expansion *e = malloc(sizeof *e);
    if (!e) return PyErr_NoMemory();
    e->x = x;
    In r;
    int status = EXHAUSTED, bad = 0, err = 0, stop = 0;
    size_t w = (size_t)x->keylen;
    x->busy = 1;
    memset(&r, 0, sizeof r);
    r.fd = -1;
    Py_BEGIN_ALLOW_THREADS
    double deadline = now() + seconds;
    if (offset >= count) {
        ;
    } else if (in_open(&r, path, w, offset) == IO_FAILED) {
        err = r.err;
    } else {
        uint64_t expanded = 0;
        while (offset < count) {
            if (!r.live) { err = r.err ? r.err : EIO; break; }   /* shorter than `count` */
            if (x->cap - x->nsame - x->nnext < MAX_SUCCESSORS) { status = BUFFER_FULL; break; }
            int m = expand_key(e, r.key);
            if (m == UNKNOWN_COLUMN) { bad = 1; break; }
            if (m < 0) { status = m == IDS_FULL ? COLUMNS_FULL : NO_MEMORY; break; }
            int h = home(r.key);
            for (int i = 0; i < m; i++) {
                const uint8_t *k = e->out + (size_t)i * w;
                int hk = home(k);
                if (hk > x->most) x->most = hk;
                if (hk == NCARDS) x->won = 1;
                if (x->foundation_moves || hk == h)
                    memcpy(x->buf + x->nsame++ * w, k, w);
                else
                    ahead(x, k, hk);
            }
            offset++;
            if (in_next(&r) == IO_FAILED) { err = r.err; break; }
            if (++expanded % 256 == 0) {
                if (stopping()) { stop = 1; break; }
                if (now() > deadline) { status = SLICE_OVER; break; }
            }
        }
    }
    in_close(&r);
    Py_END_ALLOW_THREADS
    x->busy = 0;
    free(e);
    if (stop) return stopped();
    if (bad) {
        PyErr_Format(PyExc_ValueError, "%s holds a key naming a column never met", path);
        return NULL;
    }
    if (err) return os_error(err, path);
    return Py_BuildValue("(iK)", status, offset);
}

/* n keys written to a new key file: OK, IO_FAILED (its errno in *err), or STOPPED (called
** without the GIL). */
static int write_keys(const char *path, const uint8_t *a, size_t n, size_t w, int *err) {
    Out o;
    int stop = 0;
    if (out_open(&o, path, w) == OK) {
        for (size_t i = 0; i < n && !o.err; i++) {
            out_put(&o, a + i * w);
            if (i % 65536 == 65535 && stopping()) { stop = 1; break; }
        }
    }
    out_close(&o);
    *err = o.err;
    return o.err ? IO_FAILED : stop ? STOPPED : OK;
}

/* The keys of a[], count[h] of them with h cards home, grouped by cards home in place (an
** American flag pass, as sort_keys' on a byte), fewest home first: each group is then sorted and
** written as its bucket's run, with no second buffer and no pass over the keys for each. */
static void by_home(uint8_t *a, const size_t *count, size_t w) {
    size_t start[NCARDS + 1], next[NCARDS + 1], sum = 0;
    for (int h = 0; h <= NCARDS; h++) {
        start[h] = next[h] = sum;
        sum += count[h];
    }
    for (int h = 0; h <= NCARDS; h++) {
        size_t end = start[h] + count[h];
        while (next[h] < end) {
            uint8_t *r = a + next[h] * w;
            int v = home(r);
            if (v == h) { next[h]++; continue; }
            swap_keys(r, a + next[v]++ * w, w);   /* r's key goes to its place; look again */
        }
    }
}

/* spill(same_path, later_paths) -> (same, later): the buffer's keys sorted, without repeats,
** and written: this bucket's to `same_path`, the later buckets' one run a bucket, those with h
** cards home to later_paths[h] (a dict that must name every bucket `ahead` lists); `same` the
** keys written to the first, `later` {h: keys} of each run written (no file for an empty part).
** The buffer is then empty. */
static PyObject *Expander_spill(Expander *x, PyObject *args) {
    const char *same;
    PyObject *later;
    if (!PyArg_ParseTuple(args, "yO!", &same, &PyDict_Type, &later)) return NULL;
    PyObject *named[NCARDS + 1] = {NULL};   /* held while the GIL is let go of */
    const char *paths[NCARDS + 1] = {NULL};
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(later, &pos, &key, &value)) {
        long h = PyLong_Check(key) ? PyLong_AsLong(key) : -1;
        if (h < 0 || h > NCARDS || !PyBytes_Check(value)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "spill: later_paths is {cards home: bytes path}");
            return NULL;
        }
        named[h] = value;
        paths[h] = PyBytes_AS_STRING(value);
    }
    for (int h = 0; h <= NCARDS; h++)
        if (x->ahead[h] && !paths[h]) {
            PyErr_Format(PyExc_ValueError, "spill: no path for the run of bucket %d", h);
            return NULL;
        }
    for (int h = 0; h <= NCARDS; h++) Py_XINCREF(named[h]);
    size_t w = (size_t)x->keylen, a = x->nsame, b = x->nnext, written[NCARDS + 1] = {0};
    uint8_t *back = x->buf + (x->cap - b) * w;
    int err = 0, stop = 0, got = OK;
    const char *failed = NULL;
    Py_BEGIN_ALLOW_THREADS
    stop = sort_keys_on(x->buf, a, w, 0, x->threads, x->split_at) == STOPPED;
    if (!stop) {
        a = unique_keys(x->buf, a, w);
        if (a && (got = write_keys(same, x->buf, a, w, &err)) != OK) failed = same;
        stop = got == STOPPED;
    }
    if (!stop && !failed && b) by_home(back, x->ahead, w);
    uint8_t *part = back;
    for (int h = 0; h <= NCARDS && !stop && !failed; h++) {
        size_t n = x->ahead[h];
        if (!n) continue;
        stop = sort_keys_on(part, n, w, 0, x->threads, x->split_at) == STOPPED;
        if (stop) break;
        /* (past its unique keys a part still holds its own bucket's: `ahead` stays true of the
        ** buffer if a write fails) */
        written[h] = unique_keys(part, n, w);
        if ((got = write_keys(paths[h], part, written[h], w, &err)) != OK) failed = paths[h];
        stop = got == STOPPED;
        part += n * w;
    }
    Py_END_ALLOW_THREADS
    PyObject *result = NULL;
    if (stop) stopped();
    else if (failed) os_error(err, failed);
    else {
        x->nsame = x->nnext = 0;
        PyObject *runs = PyDict_New();
        for (int h = 0; runs && h <= NCARDS; h++) {
            if (!written[h]) continue;
            PyObject *k = PyLong_FromLong(h), *v = PyLong_FromSize_t(written[h]);
            if (!k || !v || PyDict_SetItem(runs, k, v) < 0) Py_CLEAR(runs);
            Py_XDECREF(k);
            Py_XDECREF(v);
        }
        memset(x->ahead, 0, sizeof x->ahead);
        if (runs) result = Py_BuildValue("(nN)", (Py_ssize_t)a, runs);
    }
    for (int h = 0; h <= NCARDS; h++) Py_XDECREF(named[h]);
    return result;
}

/* start(path, found, cells, columns): write the start position's key to `path`. */
static PyObject *Expander_start(Expander *x, PyObject *args) {
    const char *path;
    const uint8_t *f, *c;
    Py_ssize_t nf, nc;
    PyObject *cols;
    if (!PyArg_ParseTuple(args, "yy#y#O!", &path, &f, &nf, &c, &nc, &PyTuple_Type, &cols))
        return NULL;
    if (nf != 4 || nc > x->ncells || PyTuple_GET_SIZE(cols) != 8) {
        PyErr_SetString(PyExc_ValueError, "not a position");
        return NULL;
    }
    uint32_t ids[8];
    for (int i = 0; i < 8; i++) {
        PyObject *col = PyTuple_GET_ITEM(cols, i);
        if (!PyBytes_Check(col) || PyBytes_GET_SIZE(col) > NCARDS) {
            PyErr_SetString(PyExc_ValueError, "a column is bytes of at most 52 cards");
            return NULL;
        }
        int32_t id = column_id(&x->columns, (const uint8_t *)PyBytes_AS_STRING(col),
                               (int)PyBytes_GET_SIZE(col));
        if (id < 0) return PyErr_NoMemory();
        ids[i] = (uint32_t)id;
    }
    uint8_t k[MAX_KEY];
    encode(k, x->ncells, x->idw, x->fixed_columns, f, c, (int)nc, ids);
    int err = 0, h = home(k);
    if (h > x->most) x->most = h;
    if (h == NCARDS) x->won = 1;
    if (write_keys(path, k, 1, (size_t)x->keylen, &err) == IO_FAILED) return os_error(err, path);
    Py_RETURN_NONE;
}

/* columns(start=0) -> the interned columns' cards from id `start` on, by id. */
static PyObject *Expander_columns(Expander *x, PyObject *args) {
    Py_ssize_t start = 0;
    if (!PyArg_ParseTuple(args, "|n", &start)) return NULL;
    Columns *t = &x->columns;
    if (start < 0 || start > (Py_ssize_t)t->n) start = t->n;
    PyObject *list = PyList_New((Py_ssize_t)t->n - start);
    if (!list) return NULL;
    for (uint32_t i = (uint32_t)start; i < t->n; i++) {
        PyObject *c = PyBytes_FromStringAndSize((const char *)column_cards(t, i), t->col[i].len);
        if (!c) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i - start, c);
    }
    return list;
}


/* ---- A bucket held in memory -------------------------------------------------------------- */

/* A bucket that fits in the budget is closed the way the in-memory engine closes a search: a
** hash set and a stack, each successor looked up once, no layers, no sorting but at the end. Its
** successors with more cards home still go to the buffer's back part and so to pending runs.
** Only a bucket that outgrows the set falls back to layers on disk (dump() hands them its keys:
** every one found, and those still to expand). dump() is also the checkpoint of a bucket held in
** memory: a resume loads both files again and goes on. */

static uint8_t *held_at(Expander *x, size_t i) { return x->held + i * (size_t)(x->keylen + 1); }

static size_t held_bytes(size_t cap, size_t nslots, size_t rec) {
    return cap * (rec + sizeof(uint32_t)) + nslots * sizeof(uint64_t);
}

static int held_grow_slots(Expander *x, size_t n) {
    uint64_t *slot = zeroed(n, sizeof *slot);
    if (!slot) return ALLOC_FAILED;
    for (size_t i = 0; i < x->nslots; i++) {
        uint64_t e = x->slot[i];
        if (!e) continue;
        size_t h = (uint32_t)(e >> 32) & (n - 1);
        while (slot[h]) h = (h + 1) & (n - 1);
        slot[h] = e;
    }
    free(x->slot);
    x->slot = slot;
    x->nslots = n;
    return FITS;
}

/* Room for one more key: FITS, OVER_BUDGET, or ALLOC_FAILED. The table doubles at 70% full
** while the budget allows it, else fills up to 90% (longer probes, but a fifth more keys before
** the bucket must go to disk); the keys' array doubles, or grows to what the budget leaves. */
static int held_room(Expander *x) {
    size_t rec = (size_t)x->keylen + 1, per = rec + sizeof(uint32_t);
    size_t n = x->nheld + 1;
    if (n * 10 > x->nslots * 7) {
        size_t ns = x->nslots ? 2 * x->nslots : 8192;
        /* (the old table is held while the new one is filled) */
        if (held_bytes(x->capheld > n ? x->capheld : n, ns, rec) + x->nslots * sizeof(uint64_t)
                <= x->budget) {
            if (held_grow_slots(x, ns) == ALLOC_FAILED) return ALLOC_FAILED;
        } else if (n * 10 > x->nslots * 9) {
            return OVER_BUDGET;
        }
    }
    if (x->nheld == x->capheld) {
        size_t cap = x->capheld ? 2 * x->capheld : 4096;
        size_t slots = x->nslots * sizeof(uint64_t);
        if (held_bytes(cap, x->nslots, rec) > x->budget)
            cap = x->budget > slots ? (x->budget - slots) / per : 0;
        if (cap > UINT32_MAX - 1) cap = UINT32_MAX - 1;
        if (cap <= x->capheld) return OVER_BUDGET;
        uint8_t *h = realloc(x->held, cap * rec);
        if (!h) return ALLOC_FAILED;
        x->held = h;
        uint32_t *st = realloc(x->stack, cap * sizeof *st);
        if (!st) return ALLOC_FAILED;
        x->stack = st;
        x->capheld = cap;
    }
    return FITS;
}

/* Look key k up; insert it if absent: PRESENT or INSERTED (its index in *at), OVER_BUDGET, or
** ALLOC_FAILED. */
static int held_insert(Expander *x, const uint8_t *k, uint32_t h, size_t *at) {
    size_t w = (size_t)x->keylen;
    if (x->nslots) {
        size_t mask = x->nslots - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
            uint64_t e = x->slot[i];
            if (!e) break;
            if ((uint32_t)(e >> 32) == h && memcmp(held_at(x, (uint32_t)e - 1), k, w) == 0) {
                *at = (uint32_t)e - 1;
                return PRESENT;
            }
        }
    }
    int room = held_room(x);
    if (room != FITS) return room;
    size_t mask = x->nslots - 1, i = h & mask;
    while (x->slot[i]) i = (i + 1) & mask;
    size_t idx = x->nheld++;
    memcpy(held_at(x, idx), k, w);
    held_at(x, idx)[w] = 0;
    x->slot[i] = (uint64_t)h << 32 | ((uint64_t)idx + 1);
    *at = idx;
    return INSERTED;
}

static void held_open(Expander *x, size_t idx) {
    uint8_t *flag = held_at(x, idx) + x->keylen;
    if (!*flag) { *flag = 1; x->stack[x->nstack++] = (uint32_t)idx; }
}

/* hold(path, count, open, budget) -> whether all fit: the keys of `path` put in the set, and with
** `open` marked to expand; `budget` the bytes the set may take. */
static PyObject *Expander_hold(Expander *x, PyObject *args) {
    const char *path;
    unsigned long long count, budget;
    int open_;
    if (!PyArg_ParseTuple(args, "yKpK", &path, &count, &open_, &budget)) return NULL;
    x->budget = (size_t)budget;
    if (count == 0) Py_RETURN_TRUE;
    In r;
    int err = 0, full = 0, nomem = 0, stop = 0;
    uint64_t n = 0;
    Py_BEGIN_ALLOW_THREADS
    if (in_open(&r, path, (size_t)x->keylen, 0) == IO_FAILED) err = r.err;
    else {
        while (r.live && n < count) {
            size_t at;
            int got = held_insert(x, r.key, (uint32_t)hash_bytes(r.key, (size_t)x->keylen), &at);
            if (got == OVER_BUDGET) { full = 1; break; }
            if (got == ALLOC_FAILED) { nomem = 1; break; }
            if (open_) held_open(x, at);
            n++;
            if (in_next(&r) == IO_FAILED) { err = r.err; break; }
            if (n % 65536 == 0 && stopping()) { stop = 1; break; }
        }
        if (!err && !full && !nomem && !stop && n != count) err = EIO;
    }
    in_close(&r);
    Py_END_ALLOW_THREADS
    if (stop) return stopped();
    if (nomem) return PyErr_NoMemory();
    if (err) return os_error(err, path);
    return PyBool_FromLong(!full);
}

/* source(path, next, count, closed, budget): the bucket's start keys, the sorted file `path` of
** `count` keys, of which those from key `next` on are groups not yet begun (None: no source);
** `closed` of the keys held are in groups closed (those held before the group under way began);
** `budget` the bytes the set may take. explore() holds the groups one after another as it needs
** them. Without foundation moves a group is the keys with the same foundations: a position and
** its successors in its own bucket (cards home) have the same foundations (a move that sends no
** card home changes none, and a move home changes the bucket), so the groups never reach one
** another and each is closed alone. With foundation moves a card can come back: the file is one
** group, the whole bucket. */
static PyObject *Expander_source(Expander *x, PyObject *args) {
    PyObject *path;
    unsigned long long next, count, closed, budget;
    if (!PyArg_ParseTuple(args, "OKKKK", &path, &next, &count, &closed, &budget)) return NULL;
    if (path != Py_None && !PyBytes_Check(path)) {
        PyErr_SetString(PyExc_TypeError, "source: a bytes path or None");
        return NULL;
    }
    if (closed > x->nheld || next > count || (path == Py_None && count)) {
        PyErr_SetString(PyExc_ValueError, "source: closed, next or count out of range");
        return NULL;
    }
    close_source(x);
    if (path != Py_None && !(x->src_path = strdup(PyBytes_AS_STRING(path))))
        return PyErr_NoMemory();
    x->src_next = next;
    x->src_count = count;
    x->closed = (size_t)closed;
    x->budget = (size_t)budget;
    Py_RETURN_NONE;
}

/* The next group's start keys into the set, each to expand (called without the GIL, with the
** stack empty: the groups held before it are closed): OK, OVER_BUDGET or ALLOC_FAILED (the group
** partly held, `loading` still set: let go of, the group begins again, alone), IO_FAILED (*err),
** or STOPPED. */
static int load_group(Expander *x, int *err) {
    size_t w = (size_t)x->keylen;
    if (!x->src_open) {
        if (in_open(&x->src, x->src_path, w, x->src_next) == IO_FAILED) {
            *err = x->src.err;
            in_close(&x->src);
            return IO_FAILED;
        }
        x->src_open = 1;
    }
    if (!x->loading) {
        if (!x->src.live) { *err = EIO; return IO_FAILED; }   /* shorter than its count */
        x->loading = 1;
        x->closed = x->nheld;
        x->group_start = x->src_next;
        memcpy(x->group, x->src.key, 2);
        x->has_group = 1;
    }
    uint64_t n = 0;
    while (x->src_next < x->src_count) {
        if (!x->src.live) { *err = EIO; return IO_FAILED; }
        if (!x->foundation_moves && memcmp(x->src.key, x->group, 2) != 0) break;
        size_t at;
        int got = held_insert(x, x->src.key, (uint32_t)hash_bytes(x->src.key, w), &at);
        if (got == OVER_BUDGET || got == ALLOC_FAILED) return got;
        held_open(x, at);
        x->src_next++;
        if (in_next(&x->src) == IO_FAILED) { *err = x->src.err; return IO_FAILED; }
        if (++n % 65536 == 0 && stopping()) return STOPPED;
    }
    x->loading = 0;
    return OK;
}

enum { CLOSED = 0, NEXT_FULL = 5, SET_FULL = 6 };

/* explore(seconds) -> status: expand the held keys still to expand, each successor of this
** bucket looked up in the set (and, new, put in it to expand), each of a later bucket's put in
** the buffer's back part; when none is left, the source's next group is held (its start keys
** put in to expand) and explored. CLOSED when none is left and the source is done, NEXT_FULL
** when the buffer might not take another key's successors (spill, then go on), SLICE_OVER,
** SET_FULL when the set would outgrow its budget (in a group's start keys, `loading`, or its
** exploration), COLUMNS_FULL, NO_MEMORY. A key is marked expanded only once all of its
** successors are in: after a stop it is expanded again, which adds nothing twice. */
static PyObject *Expander_explore(Expander *x, PyObject *args) {
    double seconds;
    if (!PyArg_ParseTuple(args, "d", &seconds)) return NULL;
    Expansion *e = malloc(sizeof *e);
    if (!e) return PyErr_NoMemory();
    e->x = x;
    int status = CLOSED, bad = 0, stop = 0, err = 0;
    size_t w = (size_t)x->keylen;
    Py_BEGIN_ALLOW_THREADS
    double deadline = now() + seconds;
    uint64_t expanded = 0;
    for (;;) {
        if (!x->nstack) {
            if (!x->src_path || x->src_next >= x->src_count) break;
            int got = load_group(x, &err);
            if (got == OK) continue;
            if (got == OVER_BUDGET) status = SET_FULL;
            else if (got == ALLOC_FAILED) status = NO_MEMORY;
            else if (got == STOPPED) stop = 1;
            break;
        }
        if (x->cap - x->nnext < MAX_SUCCESSORS) { status = NEXT_FULL; break; }
        size_t idx = x->stack[x->nstack - 1];
        uint8_t key[MAX_KEY];
        memcpy(key, held_at(x, idx), w);
        int m = expand_key(e, key);
        if (m == UNKNOWN_COLUMN) { bad = 1; break; }
        if (m < 0) { status = m == IDS_FULL ? COLUMNS_FULL : NO_MEMORY; break; }
        x->nstack--;
        int h = home(key), full = 0;   /* SET_FULL or NO_MEMORY: not every successor went in */
        /* Every successor's slot asked for first (search.c does the same): the look-ups then
        ** wait for memory once rather than once each, which at a bucket of 10^8 keys, its
        ** table far out of the caches, is most of the time. */
        uint32_t hashes[MAX_SUCCESSORS];
        for (int i = 0; i < m; i++) {
            hashes[i] = (uint32_t)hash_bytes(e->out + (size_t)i * w, w);
            if (x->nslots) __builtin_prefetch(&x->slot[hashes[i] & (x->nslots - 1)]);
        }
        for (int i = 0; i < m; i++) {
            const uint8_t *k = e->out + (size_t)i * w;
            int hk = home(k);
            if (hk > x->most) x->most = hk;
            if (hk == NCARDS) x->won = 1;
            if (x->foundation_moves || hk == h) {
                size_t at;
                int got = held_insert(x, k, hashes[i], &at);
                if (got == OVER_BUDGET || got == ALLOC_FAILED) {
                    full = got == OVER_BUDGET ? SET_FULL : NO_MEMORY;
                    break;
                }
                if (got == INSERTED) held_open(x, at);
            } else {
                ahead(x, k, hk);
            }
        }
        if (full) {   /* expanded again later: back on the stack, still marked to expand */
            x->stack[x->nstack++] = (uint32_t)idx;
            status = full;
            break;
        }
        held_at(x, idx)[w] = 0;
        if (++expanded % 256 == 0) {
            if (stopping()) { stop = 1; break; }
            if (now() > deadline) { status = SLICE_OVER; break; }
        }
    }
    Py_END_ALLOW_THREADS
    free(e);
    if (stop) return stopped();
    if (bad) { PyErr_SetString(PyExc_ValueError, "a held key names a column never met"); return NULL; }
    if (err) return os_error(err, x->src_path);
    return PyLong_FromLong(status);
}

/* dump(visited_path, open_path, keep=True, part=None) -> (held, open[, part's keys]): every held
** key to `visited_path`, and those still to expand to `open_path` (no file for none). With `keep`
** (a save to go on from) they are written as they lie, unsorted, and the set stays as it is:
** hold() takes keys in any order. Without (the bucket is closed, or goes on in layers on disk),
** both files are sorted, as the merges and the certificate need them, and the set is let go of.
** With `part` (not `keep`): the set is full and holds groups closed beside the one under way;
** the closed ones' keys (the first `closed` in order: groups are begun in ascending order of
** foundations) go to `part`, sorted, and only the group under way's to the other two files, to
** be held alone; or, if its start keys were still going in (`loading`), to none: it begins
** again. */
static PyObject *Expander_dump(Expander *x, PyObject *args, PyObject *kw) {
    static char *names[] = {"visited_path", "open_path", "keep", "part", NULL};
    const char *vpath, *opath, *ppath = NULL;
    int keep = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "yy|py", names, &vpath, &opath, &keep, &ppath))
        return NULL;
    if (ppath && keep) {
        PyErr_SetString(PyExc_ValueError, "dump: a part is written only with keep=False");
        return NULL;
    }
    size_t w = (size_t)x->keylen, rec = w + 1, n = x->nheld, nopen = 0;
    size_t first = ppath ? x->closed : 0;   /* the keys from here on go to visited_path */
    size_t last = ppath && x->loading ? first : n;   /* ... up to here */
    int err = 0, stop = 0, disorder = 0;
    const char *where = vpath;
    Out v, o, pt;
    memset(&v, 0, sizeof v);
    memset(&o, 0, sizeof o);
    memset(&pt, 0, sizeof pt);
    v.fd = o.fd = pt.fd = -1;
    Py_BEGIN_ALLOW_THREADS
    if (!keep) stop = sort_keys_on(x->held, n, rec, 0, x->threads, x->split_at) == STOPPED;
    if (ppath && !stop) {
        /* (the closed groups' foundations sort before the group under way's) */
        if ((first && x->has_group && memcmp(held_at(x, first - 1), x->group, 2) >= 0) ||
            (first < n && x->has_group && memcmp(held_at(x, first), x->group, 2) != 0))
            disorder = 1;
        else if (out_open(&pt, ppath, w) == IO_FAILED) { err = pt.err; where = ppath; }
        for (size_t i = 0; i < first && !err && !stop && !disorder; i++) {
            if (out_put(&pt, held_at(x, i)) == IO_FAILED) { err = pt.err; where = ppath; }
            if (i % 65536 == 65535 && stopping()) stop = 1;
        }
        if (!disorder && out_close(&pt) == IO_FAILED && !err) { err = pt.err; where = ppath; }
    }
    if (!stop && !err && !disorder && last > first && out_open(&v, vpath, w) == IO_FAILED)
        err = v.err;
    for (size_t i = first; i < last && !err && !stop && !disorder; i++) {
        if (out_put(&v, held_at(x, i)) == IO_FAILED) err = v.err;
        if (i % 65536 == 65535 && stopping()) stop = 1;
    }
    if (out_close(&v) == IO_FAILED && !err) err = v.err;
    size_t nstack = x->nstack;
    for (size_t i = keep ? 0 : first; i < (keep ? nstack : last) && !err && !stop && !disorder;
         i++) {
        const uint8_t *r = held_at(x, keep ? x->stack[i] : i);
        if (!keep && !r[w]) continue;
        if (!nopen && out_open(&o, opath, w) == IO_FAILED) { err = o.err; where = opath; break; }
        if (out_put(&o, r) == IO_FAILED) { err = o.err; where = opath; break; }
        nopen++;
    }
    if (nopen && out_close(&o) == IO_FAILED && !err) { err = o.err; where = opath; }
    Py_END_ALLOW_THREADS
    if (!keep) release_held(x);
    if (stop) return stopped();
    if (disorder) {
        PyErr_SetString(PyExc_ValueError, "dump: the closed groups are not the first keys held");
        return NULL;
    }
    if (err) return os_error(err, where);
    if (ppath)
        return Py_BuildValue("(nnn)", (Py_ssize_t)(last - first), (Py_ssize_t)nopen,
                             (Py_ssize_t)first);
    return Py_BuildValue("(nn)", (Py_ssize_t)n, (Py_ssize_t)nopen);
}

static PyObject *Expander_release(Expander *x, PyObject *noargs) {
    (void)noargs;
    release_held(x);
    Py_RETURN_NONE;
}

static PyObject *get_held(Expander *x, void *c) { (void)c; return PyLong_FromSize_t(x->nheld); }
static PyObject *get_open(Expander *x, void *c) { (void)c; return PyLong_FromSize_t(x->nstack); }
static PyObject *get_closed(Expander *x, void *c) { (void)c; return PyLong_FromSize_t(x->closed); }
static PyObject *get_next(Expander *x, void *c) { (void)c; return PyLong_FromUnsignedLongLong(x->src_next); }
static PyObject *get_group_start(Expander *x, void *c) { (void)c; return PyLong_FromUnsignedLongLong(x->group_start); }
static PyObject *get_loading(Expander *x, void *c) { (void)c; return PyBool_FromLong(x->loading); }

static PyObject *get_group(Expander *x, void *c) {
    (void)c;
    if (!x->has_group) Py_RETURN_NONE;
    return Py_BuildValue("(iiii)", x->group[0] >> 4, x->group[0] & 15, x->group[1] >> 4,
                         x->group[1] & 15);
}

static PyObject *get_buffered(Expander *x, void *c) { (void)c; return PyLong_FromSize_t(x->nsame + x->nnext); }

static PyObject *get_ahead(Expander *x, void *c) {
    (void)c;
    PyObject *list = PyList_New(0);
    for (int h = 0; list && h <= NCARDS; h++) {
        if (!x->ahead[h]) continue;
        PyObject *n = PyLong_FromLong(h);
        if (!n || PyList_Append(list, n) < 0) Py_CLEAR(list);
        Py_XDECREF(n);
    }
    return list;
}
static PyObject *get_ncolumns(Expander *x, void *c) { (void)c; return PyLong_FromUnsignedLong(x->columns.n); }
static PyObject *get_most(Expander *x, void *c) { (void)c; return PyLong_FromLong(x->most); }
static PyObject *get_won(Expander *x, void *c) { (void)c; return PyBool_FromLong(x->won); }
static PyObject *get_keylen(Expander *x, void *c) { (void)c; return PyLong_FromLong(x->keylen); }
static PyObject *get_column_bytes(Expander *x, void *c) { (void)c; return PyLong_FromSize_t(columns_bytes(&x->columns)); }

static PyGetSetDef Expander_getset[] = {
    {"buffered", (getter)get_buffered, NULL, "successors in the buffer", NULL},
    {"ahead", (getter)get_ahead, NULL, "the later buckets (cards home) the buffer holds keys of",
     NULL},
    {"held", (getter)get_held, NULL, "keys of the bucket held in memory", NULL},
    {"open", (getter)get_open, NULL, "held keys still to expand", NULL},
    {"closed", (getter)get_closed, NULL, "held keys of groups closed", NULL},
    {"next", (getter)get_next, NULL, "the source's first key of the groups not yet begun", NULL},
    {"group_start", (getter)get_group_start, NULL, "the source's first key of the group begun last",
     NULL},
    {"loading", (getter)get_loading, NULL, "the group begun last is not yet wholly held", NULL},
    {"group", (getter)get_group, NULL, "the foundations of the group begun last, or None", NULL},
    {"ncolumns", (getter)get_ncolumns, NULL, "columns interned", NULL},
    {"most_home", (getter)get_most, NULL, "most cards home in any key met", NULL},
    {"won", (getter)get_won, NULL, "whether a won position was met", NULL},
    {"keylen", (getter)get_keylen, NULL, "bytes of a key", NULL},
    {"column_bytes", (getter)get_column_bytes, NULL, "bytes the column table holds", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Expander_methods[] = {
    {"expand", (PyCFunction)Expander_expand, METH_VARARGS,
     "expand(path, offset, count, seconds) -> (status, offset)"},
    {"spill", (PyCFunction)Expander_spill, METH_VARARGS,
     "spill(same_path, later_paths) -> (keys written to same_path, {cards home: keys})"},
    {"start", (PyCFunction)Expander_start, METH_VARARGS,
     "start(path, found, cells, columns): the start position's key, written to path"},
    {"columns", (PyCFunction)Expander_columns, METH_VARARGS, "columns(start=0) -> [bytes]"},
    {"hold", (PyCFunction)Expander_hold, METH_VARARGS,
     "hold(path, count, open, budget) -> whether the keys fit in the set held in memory"},
    {"explore", (PyCFunction)Expander_explore, METH_VARARGS, "explore(seconds) -> status"},
    {"dump", (PyCFunction)(void (*)(void))Expander_dump, METH_VARARGS | METH_KEYWORDS,
     "dump(visited_path, open_path, keep=True, part=None) -> (held, open[, part])"},
    {"source", (PyCFunction)Expander_source, METH_VARARGS,
     "source(path, next, count, closed, budget): the bucket's start keys, held a group at a time"},
    {"release", (PyCFunction)Expander_release, METH_NOARGS, "let go of the held set"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ExpanderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "certify.engine._external.Expander",
    .tp_basicsize = sizeof(Expander),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Expands files of positions into sorted runs of their successors.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Expander_init,
    .tp_dealloc = (destructor)Expander_dealloc,
    .tp_methods = Expander_methods,
    .tp_getset = Expander_getset,
};

/* ---- Merging ---------------------------------------------------------------------------- */

/* A binary heap of readers by their current key (all live). */
typedef struct {
    In **h;
    int n;
    size_t w;
} Heap;

static int less(const Heap *q, int i, int j) { return memcmp(q->h[i]->key, q->h[j]->key, q->w) < 0; }

static void sift_down(Heap *q, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->n && less(q, l, m)) m = l;
        if (r < q->n && less(q, r, m)) m = r;
        if (m == i) return;
        In *t = q->h[i]; q->h[i] = q->h[m]; q->h[m] = t;
        i = m;
    }
}

/* Advance the heap's least reader: OK, or IO_FAILED (its errno in that reader). */
static int heap_pop(Heap *q) {
    In *top = q->h[0];
    if (in_next(top) == IO_FAILED) return IO_FAILED;
    if (!top->live) {
        q->h[0] = q->h[--q->n];
    }
    if (q->n) sift_down(q, 0);
    return OK;
}

static void heap_make(Heap *q) {
    for (int i = q->n / 2 - 1; i >= 0; i--) sift_down(q, i);
}

static const char **path_list(PyObject *list, Py_ssize_t *k) {
    if (!PyList_Check(list) && !PyTuple_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "merge: a list of paths");
        return NULL;
    }
    *k = PySequence_Fast_GET_SIZE(list);
    if (*k > MOST_INPUTS) {
        PyErr_SetString(PyExc_ValueError, "merge: too many files");
        return NULL;
    }
    const char **paths = malloc(((size_t)*k + 1) * sizeof *paths);
    if (!paths) { PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t i = 0; i < *k; i++) {
        PyObject *p = PySequence_Fast_GET_ITEM(list, i);
        if (!PyBytes_Check(p)) {
            free(paths);
            PyErr_SetString(PyExc_TypeError, "merge: paths are bytes");
            return NULL;
        }
        paths[i] = PyBytes_AS_STRING(p);
    }
    return paths;
}

/* ---- Looking keys up, a block at a time --------------------------------------------------- */

/* A group's last layers on disk are small (thousands of successors, at the end of a group of
** hundreds of millions of positions) and merge() would still read every block of the group's
** files to drop the successors met before: a layer of a few keys would cost what a layer of
** millions does. Instead, a file's block index (its blocks' first keys: index()) says which of
** its blocks could hold a key, and merge_looked() reads only those: the same keys written, the
** same file, in time that follows the successors, not the group. */

#define INDEX_RECORD(w) ((w) + 8)   /* a block's first key, then where its header starts (u64) */

static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static int pread_full(int fd, uint8_t *p, size_t n, uint64_t at, int *err) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, p + got, n - got, (off_t)(at + got));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) { *err = errno; return IO_FAILED; }
        if (k == 0) { *err = EIO; return IO_FAILED; }   /* cut short */
        got += (size_t)k;
    }
    return OK;
}

/* index(path, width) -> bytes: the key file's block index, a record a block (INDEX_RECORD): its
** first key, then the offset of its header, little-endian. Every frame is read and decompressed
** (a block's first key begins its frame's content) but no key is decoded past the first. First
** keys that do not ascend are a file of ours changed (ValueError, as merge's disorder). */
static PyObject *py_index(PyObject *self, PyObject *args) {
    (void)self;
    const char *path;
    int width;
    if (!PyArg_ParseTuple(args, "yi", &path, &width)) return NULL;
    if (width < 1 || width > MAX_RECORD) {
        PyErr_SetString(PyExc_ValueError, "index: bad width");
        return NULL;
    }
    size_t w = (size_t)width, rec = INDEX_RECORD(w), n = 0, cap = 0;
    uint8_t *ix = NULL;
    int err = 0, disorder = 0, stop = 0;
    In r;
    memset(&r, 0, sizeof r);
    r.fd = -1;
    Py_BEGIN_ALLOW_THREADS
    r.w = w;
    r.zbound = ZSTD_compressBound(front_cap(w));
    r.front = malloc(front_cap(w));
    r.dctx = ZSTD_createDCtx();
    uint8_t h[8];
    if (!r.front || !r.dctx) err = ENOMEM;
    else if ((r.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) err = errno;
    else if (read_full(r.fd, h, 8, &err) != GOT || memcmp(h, KEY_MAGIC, 4) != 0 ||
             h[4] != KEY_LAYOUT || h[5] != w) {
        if (!err) err = EIO;
    }
    uint64_t at = 8;
    while (!err) {
        uint32_t nkeys, clen;
        int got = in_header(&r, &nkeys, &clen);
        if (got == AT_END) break;
        if (got == IO_FAILED || in_block(&r, nkeys, clen) == IO_FAILED) { err = r.err; break; }
        if (r.fend - r.fp < (ptrdiff_t)(1 + w) || r.fp[0] != 0) { err = EIO; break; }
        if (n == cap) {
            size_t more = cap ? 2 * cap : 1024;
            uint8_t *grown = realloc(ix, more * rec);
            if (!grown) { err = ENOMEM; break; }
            ix = grown;
            cap = more;
        }
        uint8_t *e = ix + n * rec;
        memcpy(e, r.fp + 1, w);
        put_le64(e + w, at);
        if (n && memcmp(e - rec, e, w) >= 0) { disorder = 1; break; }
        n++;
        at += 8 + (uint64_t)clen;
        if (n % 64 == 0 && stopping()) { stop = 1; break; }
    }
    in_close(&r);
    Py_END_ALLOW_THREADS
    PyObject *result = NULL;
    if (stop) stopped();
    else if (disorder)
        PyErr_SetString(PyExc_ValueError, "a work file's keys are out of order (changed?)");
    else if (err) os_error(err, path);
    else result = PyBytes_FromStringAndSize((const char *)ix, (Py_ssize_t)(n * rec));
    free(ix);
    return result;
}

/* A key file looked up by its index: the block a key could be in is read whole and its keys
** decoded into `keys`; the keys looked up ascend, so each block is read at most once. */
typedef struct {
    int fd;
    const uint8_t *ix;    /* its index (index()'s bytes, the caller's) */
    size_t nblocks;
    size_t at;            /* the block in `keys` (valid while `loaded`) */
    int loaded;
    uint8_t *keys;        /* that block's keys, w bytes each */
    size_t nkeys, pos;    /* its keys, and the first not below the last key looked up */
    uint8_t *z, *front;
    size_t zcap;
    ZSTD_DCtx *dctx;
    int err;
} Look;

/* Block j of l into l->keys: OK, or IO_FAILED (EIO for a block that breaks the layout), or
** *disorder for keys out of order or unlike the index (the file changed since it was indexed). */
static int look_block(Look *l, size_t w, size_t j, int *disorder) {
    size_t rec = INDEX_RECORD(w), bound = ZSTD_compressBound(front_cap(w));
    const uint8_t *e = l->ix + j * rec;
    uint64_t at = get_le64(e + w);
    uint8_t h[8];
    if (pread_full(l->fd, h, 8, at, &l->err) == IO_FAILED) return IO_FAILED;
    uint32_t nkeys = get_le32(h), clen = get_le32(h + 4);
    if (nkeys == 0 || nkeys > BLOCK_KEYS || clen > bound) { l->err = EIO; return IO_FAILED; }
    if (clen > l->zcap) {
        uint8_t *z = realloc(l->z, clen);
        if (!z) { l->err = ENOMEM; return IO_FAILED; }
        l->z = z;
        l->zcap = clen;
    }
    if (pread_full(l->fd, l->z, clen, at + 8, &l->err) == IO_FAILED) return IO_FAILED;
    size_t n = ZSTD_decompressDCtx(l->dctx, l->front, front_cap(w), l->z, clen);
    if (ZSTD_isError(n)) { l->err = EIO; return IO_FAILED; }
    const uint8_t *fp = l->front, *fend = l->front + n;
    for (size_t i = 0; i < nkeys; i++) {
        uint8_t *k = l->keys + i * w;
        size_t p = fp < fend ? *fp++ : w + 1;
        if (p > w || (i == 0 && p) || (size_t)(fend - fp) < w - p) {
            l->err = EIO;
            return IO_FAILED;
        }
        if (p) memcpy(k, k - w, p);
        memcpy(k + p, fp, w - p);
        fp += w - p;
        if (i && memcmp(k - w, k, w) >= 0) { *disorder = 1; return IO_FAILED; }
    }
    if (fp != fend) { l->err = EIO; return IO_FAILED; }
    if (memcmp(l->keys, e, w) != 0 ||
        (j + 1 < l->nblocks && memcmp(l->keys + (nkeys - 1) * w, e + rec, w) >= 0)) {
        *disorder = 1;
        return IO_FAILED;
    }
    l->at = j;
    l->loaded = 1;
    l->nkeys = nkeys;
    l->pos = 0;
    return OK;
}

/* Whether key k (above every key looked up before in l) is in l's file: *found; OK, or
** IO_FAILED as look_block. */
static int look_up(Look *l, size_t w, const uint8_t *k, int *found, int *disorder) {
    size_t rec = INDEX_RECORD(w), a = l->loaded ? l->at : 0, b = l->nblocks;
    *found = 0;
    if (!b || memcmp(l->ix + a * rec, k, w) > 0) return OK;   /* below the file's first key */
    while (b - a > 1) {   /* the last block whose first key is at most k */
        size_t m = a + (b - a) / 2;
        if (memcmp(l->ix + m * rec, k, w) <= 0) a = m;
        else b = m;
    }
    if ((!l->loaded || l->at != a) && look_block(l, w, a, disorder) == IO_FAILED) return IO_FAILED;
    size_t x = l->pos, y = l->nkeys;
    while (x < y) {
        size_t m = x + (y - x) / 2;
        if (memcmp(l->keys + m * w, k, w) < 0) x = m + 1;
        else y = m;
    }
    l->pos = x;
    *found = x < l->nkeys && memcmp(l->keys + x * w, k, w) == 0;
    return OK;
}

static void look_close(Look *l) {
    if (l->fd >= 0) close(l->fd);
    free(l->keys);
    free(l->z);
    free(l->front);
    ZSTD_freeDCtx(l->dctx);
    memset(l, 0, sizeof *l);
    l->fd = -1;
}

/* ---- Merging on several threads, by key range --------------------------------------------- */

/* A merge's keys are split by key into ranges (on_disk.py's --threads): each range is merged
** alone, by a crew's thread, from its own readers of every file (each begun at the range's first
** key, found by the file's block headers and a few of its blocks' first keys) into a file of its
** own, and the ranges' files are then joined in order into the merge's output. Its keys are those
** of one merge, in the same order; only the blocks' bounds differ (a range's file ends with a short
** block). The ranges are chosen from the files alone, so the same files give the same ranges.
** Each range checks its own keys' order, as merge does, and ranges meet where they should: the
** key a range's reader stopped at (its first not below the range's end) is the next range's
** first, so a run read through is checked whole, as one merge checks it. */

#define MERGE_SPLIT_AT (1 << 22)   /* (the default of merge's split_at) */
#define RANGES_A_THREAD 4           /* at most (a thread slowed by the machine's load takes fewer) */
#define RANGE_KEYS (1 << 21)        /* at least, but for a thread's one (a range's readers and their
                                    ** placing are paid back) */
#define SAMPLES 64                  /* blocks whose first keys place the ends, in all the files */
#define FILE_SAMPLES 16             /* ... in one file at most */

/* Where a range begins in a file: the header of its block, the keys before that block, the keys
** of the block before the range's first. */
typedef struct { uint64_t at, before, skip; } Place;

/* A key file's blocks, from their headers; their first keys read as they are needed. */
typedef struct {
    int fd;
    size_t nb, cap;
    uint64_t *at;         /* block j's header (at[nb]: the file's end) */
    uint64_t *before;     /* the keys before block j (before[nb]: all its keys) */
    uint8_t *first;       /* block j's first key, once read (known[j]) */
    uint8_t *known;
    uint8_t *z, *front;
    size_t zcap;
    ZSTD_DCtx *dctx;
    int err;
} Blocks;

static void blocks_close(Blocks *b) {
    if (b->fd >= 0) close(b->fd);
    free(b->at); free(b->before); free(b->first); free(b->known); free(b->z); free(b->front);
    ZSTD_freeDCtx(b->dctx);
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

/* The blocks of the key file `path` (keys of w bytes), by their headers: OK, IO_FAILED (b->err;
** EIO for a file not of this layout or cut short), or STOPPED. */
static int blocks_scan(Blocks *b, const char *path, size_t w) {
    memset(b, 0, sizeof *b);
    b->fd = -1;
    size_t bound = ZSTD_compressBound(front_cap(w));
    struct stat st;
    uint8_t h[8];
    b->front = malloc(front_cap(w));
    b->dctx = ZSTD_createDCtx();
    if (!b->front || !b->dctx) { b->err = ENOMEM; return IO_FAILED; }
    if ((b->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(b->fd, &st) < 0) {
        b->err = errno;
        return IO_FAILED;
    }
    if (pread_full(b->fd, h, 8, 0, &b->err) == IO_FAILED || memcmp(h, KEY_MAGIC, 4) != 0 ||
        h[4] != KEY_LAYOUT || h[5] != w) {
        b->err = EIO;
        return IO_FAILED;
    }
    uint64_t at = 8, size = (uint64_t)st.st_size, keys = 0;
    for (;;) {
        if (b->nb == b->cap) {
            size_t cap = b->cap ? 2 * b->cap : 64;
            uint64_t *a = realloc(b->at, (cap + 1) * sizeof *a);
            if (a) b->at = a;
            uint64_t *k = realloc(b->before, (cap + 1) * sizeof *k);
            if (k) b->before = k;
            if (!a || !k) { b->err = ENOMEM; return IO_FAILED; }
            b->cap = cap;
        }
        b->at[b->nb] = at;
        b->before[b->nb] = keys;
        if (at == size) break;
        if (size - at < 8 || pread_full(b->fd, h, 8, at, &b->err) == IO_FAILED) {
            b->err = EIO;
            return IO_FAILED;
        }
        uint32_t nkeys = get_le32(h), clen = get_le32(h + 4);
        if (!nkeys || nkeys > BLOCK_KEYS || clen > bound || size - at - 8 < clen) {
            b->err = EIO;
            return IO_FAILED;
        }
        b->nb++;
        keys += nkeys;
        at += 8 + (uint64_t)clen;
        if (b->nb % 4096 == 0 && stopping()) return STOPPED;
    }
    b->first = malloc(b->nb * w + 1);
    b->known = calloc(b->nb + 1, 1);
    if (!b->first || !b->known) { b->err = ENOMEM; return IO_FAILED; }
    return OK;
}

/* Block j decompressed into b->front: its bytes, or 0 with b->err (EIO: not of this layout). */
static size_t blocks_read(Blocks *b, size_t w, size_t j) {
    uint8_t h[8];
    if (pread_full(b->fd, h, 8, b->at[j], &b->err) == IO_FAILED) return 0;
    uint32_t clen = get_le32(h + 4);
    if (clen > b->zcap) {
        uint8_t *z = realloc(b->z, clen);
        if (!z) { b->err = ENOMEM; return 0; }
        b->z = z;
        b->zcap = clen;
    }
    if (pread_full(b->fd, b->z, clen, b->at[j] + 8, &b->err) == IO_FAILED) return 0;
    size_t n = ZSTD_decompressDCtx(b->dctx, b->front, front_cap(w), b->z, clen);
    if (ZSTD_isError(n) || n < 1 + w || b->front[0] != 0) { b->err = EIO; return 0; }
    return n;
}

/* Block j's first key, or NULL with b->err. */
static const uint8_t *blocks_first(Blocks *b, size_t w, size_t j) {
    if (!b->known[j]) {
        if (!blocks_read(b, w, j)) return NULL;
        memcpy(b->first + j * w, b->front + 1, w);
        b->known[j] = 1;
    }
    return b->first + j * w;
}

/* Where the first key not below k is in b's file (its end if none): *p; OK or IO_FAILED. The
** file is taken to be sorted: a range begun where it is not meets the range before it elsewhere,
** which the merge finds (merge_ranges). */
static int blocks_place(Blocks *b, size_t w, const uint8_t *k, Place *p) {
    *p = (Place){b->at[0], 0, 0};
    if (!b->nb) return OK;
    const uint8_t *f = blocks_first(b, w, 0);
    if (!f) return IO_FAILED;
    if (memcmp(f, k, w) >= 0) return OK;
    size_t lo = 0, hi = b->nb;   /* the last block whose first key is below k */
    while (hi - lo > 1) {
        size_t m = lo + (hi - lo) / 2;
        if (!(f = blocks_first(b, w, m))) return IO_FAILED;
        if (memcmp(f, k, w) < 0) lo = m;
        else hi = m;
    }
    size_t n = blocks_read(b, w, lo), nkeys = (size_t)(b->before[lo + 1] - b->before[lo]);
    if (!n) return IO_FAILED;
    const uint8_t *fp = b->front, *fend = b->front + n;
    uint8_t cur[MAX_RECORD];
    for (size_t i = 0; i < nkeys; i++) {
        size_t s = fp < fend ? *fp++ : w + 1;
        if (s > w || (i == 0 && s) || (size_t)(fend - fp) < w - s) { b->err = EIO; return IO_FAILED; }
        memcpy(cur + s, fp, w - s);
        fp += w - s;
        if (memcmp(cur, k, w) >= 0) {
            *p = (Place){b->at[lo], b->before[lo], i};
            return OK;
        }
    }
    *p = (Place){b->at[lo + 1], b->before[lo + 1], 0};
    return OK;
}

/* The blocks of a file of nb, of all blocks in a merge, whose first keys are sampled: i * nb /
** samples(nb, all), i below it; a share of SAMPLES by its size (none for a small file: a sample
** costs a block's reading, and a small file sways the ranges' sizes little). */
static size_t samples(size_t nb, uint64_t all) {
    size_t s = all ? (size_t)((uint64_t)nb * SAMPLES / all) : 0;
    return s > nb ? nb : s > FILE_SAMPLES ? FILE_SAMPLES : s;
}

static __thread size_t sorted_w;   /* (qsort's comparison has no argument for the width) */

static int key_order(const void *x, const void *y) {
    return memcmp(*(const uint8_t *const *)x, *(const uint8_t *const *)y, sorted_w);
}

/* About how many keys of b's file are below k, from its sampled blocks' first keys (s of them). */
static uint64_t blocks_below(Blocks *b, size_t w, const uint8_t *k, size_t s) {
    size_t last = s;
    for (size_t i = 0; i < s; i++) {
        size_t j = i * b->nb / s;
        if (memcmp(b->first + j * w, k, w) > 0) break;
        last = i;
    }
    if (last == s) return 0;
    size_t j = last * b->nb / s, next = last + 1 < s ? (last + 1) * b->nb / s : b->nb;
    if (memcmp(b->first + j * w, k, w) == 0) return b->before[j];
    return b->before[j] + (b->before[next] - b->before[j]) / 2;
}

/* The ranges of a merge of the files `blocks` on `threads` threads: at most RANGES_A_THREAD a
** thread, of RANGE_KEYS or more but for one a thread, of about as many keys each (the keys of the
** files sampled: the smaller files' keys are not counted), their
** ends written to split (nranges - 1 keys) and where each begins in each file to place (range r's
** row r, nfiles places; row 0 the files' starts); one range for fewer than split_at keys in all
** (with `looked`, the keys of the files merge_looked looks up, which its ranges share too).
** Returns the ranges (1: no split), or -1 with *err and *where, or -2 if stopped. */
static int plan_ranges(Blocks *blocks, const char **paths, int nfiles, size_t w, int threads,
                       uint64_t split_at, uint64_t looked, uint8_t *split, Place *place, int *err,
                       const char **where) {
    uint64_t total = 0, all = 0;
    size_t ncand = 0;
    for (int f = 0; f < nfiles; f++) {
        total += blocks[f].before[blocks[f].nb];
        all += blocks[f].nb;
    }
    uint64_t sampled = 0;   /* the keys of the files sampled, which the ranges share evenly */
    for (int f = 0; f < nfiles; f++) {
        size_t s = samples(blocks[f].nb, all);
        ncand += s;
        if (s) sampled += blocks[f].before[blocks[f].nb];
    }
    for (int f = 0; f < nfiles; f++) place[f] = (Place){8, 0, 0};
    if (threads < 2 || total + looked < split_at || !total) return 1;
    uint64_t most = (total + looked) / RANGE_KEYS;
    if (most > (uint64_t)(RANGES_A_THREAD * threads)) most = (uint64_t)(RANGES_A_THREAD * threads);
    if (most < (uint64_t)threads) most = (uint64_t)threads;
    const uint8_t **cand = malloc((ncand + 1) * sizeof *cand);
    if (!cand) { *err = ENOMEM; *where = paths[0]; return -1; }
    ncand = 0;
    for (int f = 0; f < nfiles; f++) {
        Blocks *b = &blocks[f];
        size_t s = samples(b->nb, all);
        for (size_t i = 0; i < s; i++) {
            const uint8_t *k = blocks_first(b, w, i * b->nb / s);
            if (!k) { *err = b->err; *where = paths[f]; free(cand); return -1; }
            cand[ncand++] = k;
        }
        if (stopping()) { free(cand); return -2; }
    }
    sorted_w = w;
    qsort(cand, ncand, sizeof *cand, key_order);
    int n = 1;
    size_t c = 0;
    for (uint64_t r = 1; r < most; r++) {   /* each end: the first sampled key with its share below */
        uint64_t want = sampled / most * r;
        for (; c < ncand; c++) {
            if (n > 1 && memcmp(cand[c], split + (size_t)(n - 2) * w, w) <= 0) continue;
            uint64_t below = 0;
            for (int f = 0; f < nfiles; f++)
                below += blocks_below(&blocks[f], w, cand[c], samples(blocks[f].nb, all));
            if (below >= want) break;
        }
        if (c == ncand) break;
        memcpy(split + (size_t)(n - 1) * w, cand[c], w);
        n++;
    }
    free(cand);
    for (int r = 1; r < n; r++)
        for (int f = 0; f < nfiles; f++)
            if (blocks_place(&blocks[f], w, split + (size_t)(r - 1) * w,
                             &place[(size_t)r * nfiles + f]) == IO_FAILED) {
                *err = blocks[f].err;
                *where = paths[f];
                return -1;
            }
    return n;
}

/* A merge (merge(), or merge_looked() with `ix`), its ranges each a crew's task: what they
** share, read only, then each range's own slot. */
typedef struct {
    size_t w;
    const char **paths, **vpaths;   /* the runs, the visited files */
    Py_ssize_t k, nv;
    const uint8_t **ix;             /* merge_looked: the visited files' indexes (else NULL) */
    const size_t *nix;
    int nfiles;                     /* the files split by range: the runs, and the visited read through */
    uint64_t split_at;              /* fewer keys in all are merged as one range */
    int nranges;
    const uint8_t *split;           /* range r ends below split[r] (the last range at the end) */
    const Place *place;             /* range r begins at place[r * nfiles + f] in file f */
    char **outs;                    /* range r's output (0: the merge's) */
    struct Range {
        uint64_t nnew;
        int err, disorder, stop;
        const char *where;
        uint64_t *end;              /* where its reader of file f ended (ended[f]) */
        uint8_t *ended;
    } *ranges;
} MergeJob;

/* Range r of the merge: its keys of the runs, without repeats, less those of the visited files,
** written to its output. The loop of merge, which one range is. */
static void merge_range(Crew *c, int r) {
    MergeJob *j = c->job;
    struct Range *o = &j->ranges[r];
    size_t w = j->w;
    Py_ssize_t k = j->k, nv = j->nv, nread = j->ix ? k : k + nv;
    const uint8_t *hi = r + 1 < j->nranges ? j->split + (size_t)r * w : NULL;
    const Place *at = j->place + (size_t)r * (size_t)j->nfiles;
    In *readers = calloc((size_t)nread + 1, sizeof *readers);
    In **heap = malloc(((size_t)k + 1) * sizeof *heap);
    In **vheap = malloc(((size_t)nv + 1) * sizeof *vheap);
    Look *looks = j->ix ? calloc((size_t)nv + 1, sizeof *looks) : NULL;
    Out out;
    memset(&out, 0, sizeof out);
    out.fd = -1;
    Heap q = {heap, 0, w}, v = {vheap, 0, w};
    int err = 0, disorder = 0, stop = 0;
    const char *where = NULL;
    uint64_t nnew = 0, steps = 0;
    if (!readers || !heap || !vheap || (j->ix && !looks)) { err = ENOMEM; where = j->outs[r]; }
    for (Py_ssize_t i = 0; readers && i < nread; i++) readers[i].fd = -1;
    for (Py_ssize_t i = 0; looks && i < nv; i++) {
        looks[i].fd = -1;
        looks[i].ix = j->ix[i];
        looks[i].nblocks = j->nix[i];
    }
    for (Py_ssize_t i = 0; !err && i < nread; i++) {
        const char *path = i < k ? j->paths[i] : j->vpaths[i - k];
        if (in_open_at(&readers[i], path, w, at[i].skip, at[i].at, at[i].before, hi) ==
                IO_FAILED) {
            err = readers[i].err;
            where = path;
        } else if (readers[i].live) {
            Heap *h = i < k ? &q : &v;
            h->h[h->n++] = &readers[i];
        }
    }
    heap_make(&q);
    heap_make(&v);
    for (Py_ssize_t i = 0; looks && !err && i < nv; i++) {
        Look *l = &looks[i];
        l->keys = malloc(BLOCK_KEYS * w);
        l->front = malloc(front_cap(w));
        l->dctx = ZSTD_createDCtx();
        if (!l->keys || !l->front || !l->dctx) err = ENOMEM;
        else if ((l->fd = open(j->vpaths[i], O_RDONLY | O_CLOEXEC)) < 0) err = errno;
        if (err) where = j->vpaths[i];
    }
    if (!err && out_open(&out, j->outs[r], w) == IO_FAILED) {
        err = out.err;
        where = j->outs[r];
    }
    uint8_t last[MAX_RECORD], lastvis[MAX_RECORD];
    int any = 0, anyvis = 0;
    while (!err && q.n) {
        uint8_t key[MAX_RECORD];
        In *top = q.h[0];
        if (++steps % 65536 == 0 && stopping()) { stop = 1; break; }
        memcpy(key, top->key, w);
        if (heap_pop(&q) == IO_FAILED) { err = top->err; where = "a run"; break; }
        if (top->live && memcmp(top->key, key, w) <= 0) { disorder = 1; break; }
        if (any && memcmp(key, last, w) == 0) continue;   /* in two runs */
        memcpy(last, key, w);
        any = 1;
        int seen = 0;
        if (looks) {   /* the visited files looked up by their indexes */
            for (Py_ssize_t i = 0; i < nv && !seen; i++) {
                if (look_up(&looks[i], w, key, &seen, &disorder) == IO_FAILED) {
                    if (!disorder) { err = looks[i].err; where = j->vpaths[i]; }
                    break;
                }
            }
        } else {   /* the visited keys up to this one passed over */
            while (v.n) {
                In *vt = v.h[0];
                int cmp = memcmp(vt->key, key, w);
                if (cmp > 0) break;
                if (anyvis && memcmp(vt->key, lastvis, w) <= 0) { disorder = 1; break; }
                memcpy(lastvis, vt->key, w);
                anyvis = 1;
                seen |= cmp == 0;
                if (heap_pop(&v) == IO_FAILED) { err = vt->err; where = "a visited file"; break; }
                if (++steps % 65536 == 0 && stopping()) { stop = 1; break; }
            }
        }
        if (disorder || err || stop) break;
        if (seen) continue;
        if (out_put(&out, key) == IO_FAILED) { err = out.err; where = j->outs[r]; break; }
        nnew++;
    }
    if (out_close(&out) == IO_FAILED && !err) { err = out.err; where = j->outs[r]; }
    for (Py_ssize_t i = 0; readers && i < nread; i++) {
        o->ended[i] = (uint8_t)readers[i].ended;
        o->end[i] = readers[i].end;
        in_close(&readers[i]);
    }
    for (Py_ssize_t i = 0; looks && i < nv; i++) look_close(&looks[i]);
    free(readers); free(heap); free(vheap); free(looks);
    o->nnew = nnew;
    o->err = err;
    o->where = where;
    o->disorder = disorder;
    o->stop = stop;
    if (err || disorder || stop) crew_abort(c);
}

/* The part files of ranges 1.. appended to the merge's output (range 0's), their headers left
** out, then removed: OK or IO_FAILED (*err, *where). */
static int join_ranges(char **outs, int n, size_t w, int *err, const char **where) {
    uint8_t head[8] = {KEY_MAGIC[0], KEY_MAGIC[1], KEY_MAGIC[2], KEY_MAGIC[3], KEY_LAYOUT,
                       (uint8_t)w, 0, 0};
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    int to = open(outs[0], O_WRONLY | O_APPEND | O_CLOEXEC);
    if (!buf) *err = ENOMEM;
    else if (to < 0) *err = errno;
    if (*err) *where = outs[0];
    for (int r = 1; r < n && !*err; r++) {
        int from = open(outs[r], O_RDONLY | O_CLOEXEC);
        uint8_t h[8];
        *where = outs[r];
        if (from < 0) { *err = errno; break; }
        if (read_full(from, h, 8, err) != GOT || memcmp(h, head, 8) != 0) {
            if (!*err) *err = EIO;
            close(from);
            break;
        }
        for (;;) {
            ssize_t got = read(from, buf, cap);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) { *err = errno; break; }
            if (got == 0) break;
            if (write_all(to, buf, (size_t)got, err) == IO_FAILED) { *where = outs[0]; break; }
        }
        close(from);
    }
    if (to >= 0 && close(to) < 0 && !*err) { *err = errno; *where = outs[0]; }
    free(buf);
    return *err ? IO_FAILED : OK;
}

/* The merge of `j` (its files and width set; nranges, split, place, outs and ranges made here), on
** `threads` threads, called without the GIL: its new keys, or with *err and *where (out_path, one
** of j's paths, or a constant: never a string freed here), *disorder or *stop set. */
static uint64_t merge_ranges(MergeJob *j, const char *out_path, int threads, int *err,
                             const char **where, int *disorder, int *stop) {
    size_t w = j->w;
    int nfiles = j->nfiles, most = threads > 1 ? RANGES_A_THREAD * threads : 1;
    Blocks *blocks = calloc((size_t)nfiles + 1, sizeof *blocks);
    uint8_t *split = malloc((size_t)most * w);
    Place *place = malloc(((size_t)most * (size_t)nfiles + 1) * sizeof *place);
    char **outs = calloc((size_t)most, sizeof *outs);
    struct Range *ranges = calloc((size_t)most, sizeof *ranges);
    uint64_t nnew = 0;
    int n = 1;
    if (!blocks || !split || !place || !outs || !ranges) { *err = ENOMEM; *where = out_path; }
    for (int f = 0; blocks && f < nfiles; f++) blocks[f].fd = -1;
    const char **files = malloc(((size_t)nfiles + 1) * sizeof *files);
    if (!files && !*err) { *err = ENOMEM; *where = out_path; }
    for (int f = 0; files && f < nfiles; f++) files[f] = f < j->k ? j->paths[f] : j->vpaths[f - j->k];
    if (!*err && most > 1) {   /* (one range needs no plan: each file from its start) */
        for (int f = 0; f < nfiles && !*err && !*stop; f++) {
            int got = blocks_scan(&blocks[f], files[f], w);
            if (got == STOPPED) *stop = 1;
            else if (got == IO_FAILED) { *err = blocks[f].err; *where = files[f]; }
        }
        if (!*err && !*stop) {
            uint64_t looked = 0;   /* (merge_looked: about the keys of the files looked up) */
            for (Py_ssize_t i = 0; j->ix && i < j->nv; i++) looked += j->nix[i] * BLOCK_KEYS;
            n = plan_ranges(blocks, files, nfiles, w, threads, j->split_at, looked, split, place,
                            err, where);
            if (n == -2) *stop = 1;
            if (n < 0) n = 1;
        }
    } else if (!*err) {
        for (int f = 0; f < nfiles; f++) place[f] = (Place){8, 0, 0};
    }
    for (int f = 0; blocks && f < nfiles; f++) blocks_close(&blocks[f]);
    free(blocks);
    free(files);
    for (int r = 0; !*err && !*stop && r < n; r++) {
        ranges[r].end = calloc((size_t)nfiles + 1, sizeof *ranges[r].end);
        ranges[r].ended = calloc((size_t)nfiles + 1, 1);
        outs[r] = malloc(strlen(out_path) + 32);
        if (!ranges[r].end || !ranges[r].ended || !outs[r]) { *err = ENOMEM; *where = out_path; }
        else if (r) sprintf(outs[r], "%s.%d.keys", out_path, r);
        else strcpy(outs[r], out_path);
    }
    if (!*err && !*stop) {
        j->nranges = n;
        j->split = split;
        j->place = place;
        j->outs = outs;
        j->ranges = ranges;
        Crew crew = {.task = merge_range, .job = j, .ntasks = n};
        crew_run(&crew, threads);
        for (int r = 0; r < n && !*err && !*disorder; r++) {   /* the first range's error */
            *err = ranges[r].err;
            *where = ranges[r].where;
            *disorder = ranges[r].disorder;
        }
        for (int r = 0; r < n; r++) *stop |= ranges[r].stop;
        if (!*err && !*disorder && !*stop && aborted(&crew)) *stop = 1;
        /* each range ends in each file where the next begins (the files are in order across) */
        for (int r = 0; r + 1 < n && !*err && !*disorder && !*stop; r++)
            for (int f = 0; f < nfiles; f++) {
                const Place *p = &place[(size_t)(r + 1) * (size_t)nfiles + f];
                if (ranges[r].ended[f] && ranges[r].end[f] != p->before + p->skip) *disorder = 1;
            }
        if (!*err && !*disorder && !*stop && n > 1) join_ranges(outs, n, w, err, where);
        for (int r = 0; r < n; r++) nnew += ranges[r].nnew;
    }
    /* An error in a range's output (or in joining them) names the merge's output, the caller's
    ** string: the ranges' names are freed below, before the caller makes the error of *where,
    ** and a range's own file (out_path with its number) is removed by then anyway. */
    for (int r = 0; outs && r < most; r++)
        if (outs[r] && *where == outs[r]) *where = out_path;
    for (int r = 1; r < most; r++)
        if (outs && outs[r]) unlink(outs[r]);
    for (int r = 0; r < most; r++) {
        if (outs) free(outs[r]);
        if (ranges) { free(ranges[r].end); free(ranges[r].ended); }
    }
    free(outs); free(ranges); free(split); free(place);
    return nnew;
}

/* The result of a merge: the new keys, or its error (a handler's exception first, then keys
** out of order, a file's error, a stop). */
static PyObject *merged(uint64_t nnew, int err, const char *where, int disorder, int stop) {
    if (PyErr_Occurred()) return NULL;
    if (disorder) {
        PyErr_SetString(PyExc_ValueError, "a work file's keys are out of order (changed?)");
        return NULL;
    }
    if (err) return os_error(err, where);
    if (stop) return stopped();
    return PyLong_FromUnsignedLongLong(nnew);
}

static int thread_count(int threads) {
    if (threads < 1 || threads > MOST_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads: 1 to %d", MOST_THREADS);
        return 0;
    }
    return 1;
}

/* merge(inputs, width, out, visited=(), threads=1, split_at=2**22) -> new: the keys of the
** sorted files `inputs` (each without repeats), without repeats, less those in the sorted files
** `visited` (no key in two of them: a bucket's parts), written to `out`; on `threads` threads, by
** key range, if the files hold `split_at` keys or more (the same keys, in the same order; tests
** split fewer). A key out of order in any file is an error: a file of ours was changed. */
static PyObject *py_merge(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *names[] = {"inputs", "width", "out", "visited", "threads", "split_at", NULL};
    PyObject *inputs, *visited = NULL;
    int width, threads = 1;
    unsigned long long split_at = MERGE_SPLIT_AT;
    const char *out_path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oiy|OiK", names, &inputs, &width, &out_path,
                                     &visited, &threads, &split_at))
        return NULL;
    if (width < 1 || width > MAX_RECORD) {
        PyErr_SetString(PyExc_ValueError, "merge: bad arguments");
        return NULL;
    }
    if (!thread_count(threads)) return NULL;
    Py_ssize_t k = 0, nv = 0;
    const char **paths = path_list(inputs, &k), **vpaths = NULL;
    if (!paths) return NULL;
    if (visited && !(vpaths = path_list(visited, &nv))) { free(paths); return NULL; }
    MergeJob job = {.w = (size_t)width, .paths = paths, .vpaths = vpaths, .k = k, .nv = nv,
                    .nfiles = (int)(k + nv), .split_at = split_at};
    int err = 0, disorder = 0, stop = 0;
    const char *where = NULL;
    uint64_t nnew;
    Py_BEGIN_ALLOW_THREADS
    nnew = merge_ranges(&job, out_path, threads, &err, &where, &disorder, &stop);
    Py_END_ALLOW_THREADS
    PyObject *result = merged(nnew, err, where, disorder, stop);
    free(paths);
    free(vpaths);
    return result;
}

/* merge_looked(inputs, width, out, visited, indexes, threads=1, split_at=2**22) -> new: what
** merge(inputs, width, out, visited, threads, split_at) writes and returns, the keys of
** `visited` looked up by their `indexes` (index()'s bytes, one a file) rather than read through:
** for inputs few beside the visited files. */
static PyObject *py_merge_looked(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *names[] = {"inputs", "width", "out", "visited", "indexes", "threads", "split_at",
                            NULL};
    PyObject *inputs, *visited, *indexes;
    int width, threads = 1;
    unsigned long long split_at = MERGE_SPLIT_AT;
    const char *out_path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiyOO|iK", names, &inputs, &width, &out_path,
                                     &visited, &indexes, &threads, &split_at))
        return NULL;
    if (width < 1 || width > MAX_RECORD) {
        PyErr_SetString(PyExc_ValueError, "merge_looked: bad arguments");
        return NULL;
    }
    if (!thread_count(threads)) return NULL;
    PyObject *held = PySequence_Tuple(indexes);   /* (their bytes stay ours without the GIL) */
    if (!held) return NULL;
    Py_ssize_t k = 0, nv = 0;
    const char **paths = path_list(inputs, &k), **vpaths = NULL;
    if (!paths) { Py_DECREF(held); return NULL; }
    if (!(vpaths = path_list(visited, &nv))) { free(paths); Py_DECREF(held); return NULL; }
    size_t w = (size_t)width, rec = INDEX_RECORD(w);
    const uint8_t **ix = malloc(((size_t)nv + 1) * sizeof *ix);
    size_t *nix = malloc(((size_t)nv + 1) * sizeof *nix);
    PyObject *result = NULL;
    if (!ix || !nix) {
        PyErr_NoMemory();
        goto done;
    }
    if (PyTuple_GET_SIZE(held) != nv) {
        PyErr_SetString(PyExc_ValueError, "merge_looked: an index a visited file");
        goto done;
    }
    for (Py_ssize_t i = 0; i < nv; i++) {
        PyObject *b = PyTuple_GET_ITEM(held, i);
        if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) % (Py_ssize_t)rec) {
            PyErr_SetString(PyExc_ValueError, "merge_looked: not an index");
            goto done;
        }
        ix[i] = (const uint8_t *)PyBytes_AS_STRING(b);
        nix[i] = (size_t)PyBytes_GET_SIZE(b) / rec;
    }
    MergeJob job = {.w = w, .paths = paths, .vpaths = vpaths, .k = k, .nv = nv, .ix = ix,
                    .nix = nix, .nfiles = (int)k, .split_at = split_at};
    int err = 0, disorder = 0, stop = 0;
    const char *where = NULL;
    uint64_t nnew;
    Py_BEGIN_ALLOW_THREADS
    nnew = merge_ranges(&job, out_path, threads, &err, &where, &disorder, &stop);
    Py_END_ALLOW_THREADS
    result = merged(nnew, err, where, disorder, stop);
done:
    free(ix); free(nix); free(paths); free(vpaths);
    Py_DECREF(held);
    return result;
}

/* widen(path, out, ncells): a file of keys with 2-byte ids rewritten with 3-byte ones (the
** order is kept: a big-endian id's spelling grows, its rank does not). */
static PyObject *py_widen(PyObject *self, PyObject *args) {
    (void)self;
    const char *path, *out_path;
    int ncells;
    if (!PyArg_ParseTuple(args, "yyi", &path, &out_path, &ncells)) return NULL;
    if (ncells < 0 || ncells > 8) { PyErr_SetString(PyExc_ValueError, "ncells"); return NULL; }
    size_t at = 2 + (size_t)ncells, narrow = at + 16, wide = at + 24;
    In r;
    Out o;
    int err = 0, stop = 0;
    uint64_t n = 0;
    const char *where = path;
    Py_BEGIN_ALLOW_THREADS
    if (in_open(&r, path, narrow, 0) == IO_FAILED) {
        err = r.err;
    } else if (out_open(&o, out_path, wide) == IO_FAILED) {
        err = o.err;
        where = out_path;
        out_close(&o);
    } else {
        while (r.live) {
            uint8_t k[MAX_KEY];
            memcpy(k, r.key, at);
            for (int j = 0; j < 8; j++) put_be(k + at + 3 * j, get_be(r.key + at + 2 * j, 2), 3);
            if (out_put(&o, k) == IO_FAILED) { err = o.err; where = out_path; break; }
            if (in_next(&r) == IO_FAILED) { err = r.err; break; }
            if (++n % 65536 == 0 && stopping()) { stop = 1; break; }
        }
        if (out_close(&o) == IO_FAILED && !err) { err = o.err; where = out_path; }
    }
    in_close(&r);
    Py_END_ALLOW_THREADS
    if (stop) return stopped();
    if (err) return os_error(err, where);
    Py_RETURN_NONE;
}

/* copy_group(path, width, skip, count, out, whole=False) -> keys: the keys of the sorted file
** `path` (of `count`) from key `skip` on that have key skip's foundations (its first 2 bytes),
** or with `whole` all of them, written to `out`: a group's start keys, for the layers on disk
** when they do not fit in memory. */
static PyObject *py_copy_group(PyObject *self, PyObject *args) {
    (void)self;
    const char *path, *out_path;
    int width, whole = 0;
    unsigned long long skip, count;
    if (!PyArg_ParseTuple(args, "yiKKy|p", &path, &width, &skip, &count, &out_path, &whole))
        return NULL;
    if (width < 2 || width > MAX_RECORD || skip >= count) {
        PyErr_SetString(PyExc_ValueError, "copy_group: bad arguments");
        return NULL;
    }
    In r;
    Out o;
    int err = 0, stop = 0;
    uint64_t n = 0, at = skip;
    const char *where = path;
    uint8_t group[2];
    memset(&o, 0, sizeof o);
    o.fd = -1;
    Py_BEGIN_ALLOW_THREADS
    if (in_open(&r, path, (size_t)width, skip) == IO_FAILED) {
        err = r.err;
    } else if (!r.live) {
        err = EIO;
    } else if (out_open(&o, out_path, (size_t)width) == IO_FAILED) {
        err = o.err;
        where = out_path;
    } else {
        memcpy(group, r.key, 2);
        while (at < count) {
            if (!r.live) { err = EIO; break; }
            if (!whole && memcmp(r.key, group, 2) != 0) break;
            if (out_put(&o, r.key) == IO_FAILED) { err = o.err; where = out_path; break; }
            n++;
            at++;
            if (in_next(&r) == IO_FAILED) { err = r.err; break; }
            if (n % 65536 == 0 && stopping()) { stop = 1; break; }
        }
    }
    if (out_close(&o) == IO_FAILED && !err) { err = o.err; where = out_path; }
    in_close(&r);
    Py_END_ALLOW_THREADS
    if (stop) return stopped();
    if (err) return os_error(err, where);
    return PyLong_FromUnsignedLongLong(n);
}

/* concat(paths, width, out) -> keys: the key files `paths` one after another into `out`, their
** blocks copied as they are (a block starts afresh: no key refers to one before it). A bucket's
** groups, each closed and sorted alone, in ascending order of foundations, are its sorted file
** this way, without a merge. A block that breaks the layout is EIO (its frame is not read: the
** certificate's reading checks every frame's checksum). */
static PyObject *py_concat(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *list;
    const char *out_path;
    int width;
    if (!PyArg_ParseTuple(args, "Oiy", &list, &width, &out_path)) return NULL;
    if (width < 1 || width > MAX_RECORD) {
        PyErr_SetString(PyExc_ValueError, "concat: bad width");
        return NULL;
    }
    Py_ssize_t k;
    const char **paths = path_list(list, &k);
    if (!paths) return NULL;
    uint64_t n = 0, steps = 0;
    int err = 0, stop = 0, fd = -1, out = -1;
    const char *where = out_path;
    size_t bound = ZSTD_compressBound(front_cap((size_t)width)), cap = 8 + bound;
    uint8_t *buf = malloc(cap);
    if (!buf) { free(paths); return PyErr_NoMemory(); }
    Py_BEGIN_ALLOW_THREADS
    out = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) err = errno;
    uint8_t head[8] = {KEY_MAGIC[0], KEY_MAGIC[1], KEY_MAGIC[2], KEY_MAGIC[3], KEY_LAYOUT,
                       (uint8_t)width, 0, 0};
    if (!err) write_all(out, head, sizeof head, &err);
    for (Py_ssize_t i = 0; i < k && !err && !stop; i++) {
        where = paths[i];
        fd = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) { err = errno; break; }
        uint8_t h[8];
        if (read_full(fd, h, 8, &err) != GOT || memcmp(h, head, 8) != 0) {
            if (!err) err = EIO;
            close(fd);
            break;
        }
        for (;;) {
            int got = read_full(fd, buf, 8, &err);
            if (got == AT_END) break;
            if (got != GOT) break;
            uint32_t keys = get_le32(buf), clen = get_le32(buf + 4);
            if (!keys || keys > BLOCK_KEYS || clen > bound) { err = EIO; break; }
            if (read_full(fd, buf + 8, clen, &err) != GOT) { if (!err) err = EIO; break; }
            if (write_all(out, buf, 8 + clen, &err) == IO_FAILED) { where = out_path; break; }
            n += keys;
            if (++steps % 64 == 0 && stopping()) { stop = 1; break; }
        }
        close(fd);
        fd = -1;
    }
    if (out >= 0 && close(out) < 0 && !err) { err = errno; where = out_path; }
    Py_END_ALLOW_THREADS
    free(buf);
    free(paths);
    if (stop) return stopped();
    if (err) return os_error(err, where);
    return PyLong_FromUnsignedLongLong(n);
}

/* mark_used(path, width, ncells, idw, used): used[id] = 1 for every column id a key names. */
static PyObject *py_mark_used(PyObject *self, PyObject *args) {
    (void)self;
    const char *path;
    int ncells, idw;
    Py_buffer used;
    if (!PyArg_ParseTuple(args, "yiiw*", &path, &ncells, &idw, &used)) return NULL;
    size_t at = 2 + (size_t)ncells, w = at + 8 * (size_t)idw;
    In r;
    int err = 0, bad = 0;
    uint8_t *u = used.buf;
    size_t n = (size_t)used.len;
    Py_BEGIN_ALLOW_THREADS
    if (in_open(&r, path, w, 0) == IO_FAILED) err = r.err;
    else {
        while (r.live) {
            for (int j = 0; j < 8; j++) {
                uint32_t id = get_be(r.key + at + (size_t)idw * j, idw);
                if (id >= n) { bad = 1; break; }
                u[id] = 1;
            }
            if (bad) break;
            if (in_next(&r) == IO_FAILED) { err = r.err; break; }
        }
    }
    in_close(&r);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&used);
    if (bad) { PyErr_Format(PyExc_ValueError, "%s names a column never met", path); return NULL; }
    if (err) return os_error(err, path);
    Py_RETURN_NONE;
}

/* ---- The certificate's records ---------------------------------------------------------- */

/* Finisher(paths, rules, idw, renumber, fw): every key of the sorted files `paths` (no key in
** two of them, its ids `idw` bytes wide) as a certificate record, in the certificate's order:
** next(n) gives the next at most n (at least one group's worth: a group is never split) as
** bytes, record after record, b"" at the end. `rules` (a Rules: rules.h) says the cells and
** whether the ids are sorted; `renumber` holds each search id's certificate id (4 bytes, native
** order), `fw` the certificate's id width. */
typedef struct {
    PyObject_HEAD
    Rules rules;
    int idw, fw, w, rw;   /* the keys' and the records' id widths, the keys' and records' bytes */
    int k;
    In *readers;
    Heap q;
    uint32_t *renumber;
    size_t nrenumber;
    uint8_t *group;       /* one (foundations, cells) group's records */
    size_t ngroup, capgroup;
    uint8_t last[MAX_RECORD];
    int any;
    uint64_t emitted;
} Finisher;

static void Finisher_dealloc(Finisher *f) {
    for (int i = 0; i < f->k && f->readers; i++) in_close(&f->readers[i]);
    free(f->readers);
    free(f->q.h);
    free(f->renumber);
    free(f->group);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

static int Finisher_init(Finisher *f, PyObject *args, PyObject *kw) {
    static char *names[] = {"paths", "rules", "idw", "renumber", "fw", NULL};
    PyObject *paths;
    Py_buffer ren;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O&iy*i", names, &PyList_Type, &paths,
                                     rules_converter, &f->rules, &f->idw, &ren, &f->fw))
        return -1;
    int k = (int)PyList_GET_SIZE(paths);
    if (f->readers || (f->idw != 2 && f->idw != 3) ||
        f->fw < 2 || f->fw > 4 || k > MOST_INPUTS || ren.len % 4) {
        PyBuffer_Release(&ren);
        PyErr_SetString(PyExc_ValueError, "Finisher: bad arguments");
        return -1;
    }
    f->w = 2 + f->rules.ncells + 8 * f->idw;
    f->rw = 4 + f->rules.ncells + 8 * f->fw;
    f->nrenumber = (size_t)ren.len / 4;
    f->renumber = malloc(ren.len ? (size_t)ren.len : 4);
    f->readers = calloc((size_t)k + 1, sizeof *f->readers);
    f->q.h = malloc(((size_t)k + 1) * sizeof *f->q.h);
    f->capgroup = 1024;
    f->group = malloc(f->capgroup * (size_t)f->rw);
    if (!f->renumber || !f->readers || !f->q.h || !f->group) {
        PyBuffer_Release(&ren);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(f->renumber, ren.buf, (size_t)ren.len);
    PyBuffer_Release(&ren);
    f->q.w = (size_t)f->w;
    for (int i = 0; i < k; i++) {
        f->readers[i].fd = -1;
        f->k = i + 1;
        PyObject *p = PyList_GET_ITEM(paths, i);
        if (!PyBytes_Check(p)) { PyErr_SetString(PyExc_TypeError, "paths are bytes"); return -1; }
        if (in_open(&f->readers[i], PyBytes_AS_STRING(p), (size_t)f->w, 0) == IO_FAILED) {
            os_error(f->readers[i].err, PyBytes_AS_STRING(p));
            return -1;
        }
        if (f->readers[i].live) f->q.h[f->q.n++] = &f->readers[i];
    }
    heap_make(&f->q);
    return 0;
}

static void put_record_ids(uint8_t *r, int at, const uint32_t *ids, int fw) {
    for (int j = 0; j < 8; j++) put_be(r + at + j * fw, ids[j], fw);
}

/* next(n) -> bytes of the next records (whole groups, at least one, about n), b"" at the end. */
static PyObject *Finisher_next(Finisher *f, PyObject *args) {
    Py_ssize_t want;
    if (!PyArg_ParseTuple(args, "n", &want)) return NULL;
    size_t rw = (size_t)f->rw, w = (size_t)f->w, at = 2 + (size_t)f->rules.ncells;
    size_t cap = want > 0 ? (size_t)want : 1;
    uint8_t *outbuf = NULL;
    size_t nout = 0, capout = 0;
    enum { KEY_OUTSIDE_TABLE = 1, NOT_DISTINCT = 2 };   /* what `bad` may say */
    int err = 0, bad = 0, disorder = 0, nomem = 0;
    while (f->q.n && nout < cap && !err && !bad && !disorder && !nomem) {
        /* one group: the keys sharing the least key's first 2 + ncells bytes */
        uint8_t prefix[MAX_KEY];
        memcpy(prefix, f->q.h[0]->key, at);
        f->ngroup = 0;
        while (f->q.n && memcmp(f->q.h[0]->key, prefix, at) == 0) {
            In *top = f->q.h[0];
            const uint8_t *k = top->key;
            if (f->any && memcmp(k, f->last, w) <= 0) { disorder = 1; break; }
            memcpy(f->last, k, w);
            f->any = 1;
            if (f->ngroup == f->capgroup) {
                uint8_t *g = realloc(f->group, 2 * f->capgroup * rw);
                if (!g) { nomem = 1; break; }
                f->group = g;
                f->capgroup *= 2;
            }
            uint8_t *r = f->group + f->ngroup++ * rw;
            r[0] = k[0] >> 4; r[1] = k[0] & 15; r[2] = k[1] >> 4; r[3] = k[1] & 15;
            memcpy(r + 4, k + 2, (size_t)f->rules.ncells);
            uint32_t ids[8];
            for (int j = 0; j < 8; j++) {
                uint32_t id = get_be(k + at + (size_t)f->idw * j, f->idw);
                if (id >= f->nrenumber) { bad = KEY_OUTSIDE_TABLE; break; }
                ids[j] = f->renumber[id];
            }
            if (bad) break;
            if (!f->rules.fixed_columns) sort8(ids);
            put_record_ids(r, 4 + f->rules.ncells, ids, f->fw);
            if (heap_pop(&f->q) == IO_FAILED) { err = top->err ? top->err : EIO; break; }
        }
        if (err || bad || disorder || nomem) break;
        /* Within a group every record shares its first 4 + ncells bytes: sorted by the ids. */
        Py_BEGIN_ALLOW_THREADS
        sort_keys(f->group, f->ngroup, rw, 4 + (size_t)f->rules.ncells, 0);
        Py_END_ALLOW_THREADS
        for (size_t i = 1; i < f->ngroup; i++)
            if (memcmp(f->group + (i - 1) * rw, f->group + i * rw, rw) >= 0) {
                bad = NOT_DISTINCT;
                break;
            }
        if (bad) break;
        if (nout + f->ngroup > capout) {
            size_t c = capout ? capout : 1024;
            while (c < nout + f->ngroup) c *= 2;
            uint8_t *o = realloc(outbuf, c * rw);
            if (!o) { nomem = 1; break; }
            outbuf = o;
            capout = c;
        }
        memcpy(outbuf + nout * rw, f->group, f->ngroup * rw);
        nout += f->ngroup;
        f->emitted += f->ngroup;
    }
    if (nomem) { free(outbuf); return PyErr_NoMemory(); }
    if (disorder) { free(outbuf); PyErr_SetString(PyExc_ValueError, "a work file's keys are out of order or in two files"); return NULL; }
    if (bad == KEY_OUTSIDE_TABLE) { free(outbuf); PyErr_SetString(PyExc_ValueError, "a key names a column outside the table"); return NULL; }
    if (bad == NOT_DISTINCT) { free(outbuf); PyErr_SetString(PyExc_AssertionError, "records not distinct after renumbering"); return NULL; }
    if (err) { free(outbuf); return os_error(err, "a work file"); }
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)outbuf, (Py_ssize_t)(nout * rw));
    free(outbuf);
    return bytes;
}

static PyObject *get_emitted(Finisher *f, void *c) { (void)c; return PyLong_FromUnsignedLongLong(f->emitted); }

static PyGetSetDef Finisher_getset[] = {
    {"emitted", (getter)get_emitted, NULL, "records given so far", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Finisher_methods[] = {
    {"next", (PyCFunction)Finisher_next, METH_VARARGS, "next(n) -> bytes of records, b'' at the end"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FinisherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "certify.engine._external.Finisher",
    .tp_basicsize = sizeof(Finisher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The search's sorted files as certificate records, in the certificate's order.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Finisher_init,
    .tp_dealloc = (destructor)Finisher_dealloc,
    .tp_methods = Finisher_methods,
    .tp_getset = Finisher_getset,
};

/* count(path, width) -> the keys of a key file, from its blocks' headers (their frames are not
** read: a resume checks the files its state names this way, in a read of 8 bytes a block); None
** for a file that is not whole (missing, not of this layout or width, cut short). */
static PyObject *py_count(PyObject *self, PyObject *args) {
    (void)self;
    const char *path;
    int width;
    if (!PyArg_ParseTuple(args, "yi", &path, &width)) return NULL;
    if (width < 1 || width > MAX_RECORD) {
        PyErr_SetString(PyExc_ValueError, "width");
        return NULL;
    }
    uint64_t n = 0;
    int whole = 0;
    Py_BEGIN_ALLOW_THREADS
    int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
    struct stat st;
    uint8_t h[8];
    if (fd >= 0 && fstat(fd, &st) == 0 && read_full(fd, h, 8, &err) == GOT &&
        memcmp(h, KEY_MAGIC, 4) == 0 && h[4] == KEY_LAYOUT && h[5] == width) {
        uint64_t at = 8, size = (uint64_t)st.st_size;
        uint64_t bound = ZSTD_compressBound(front_cap((size_t)width));
        whole = 1;
        while (at < size) {
            if (size - at < 8 || pread(fd, h, 8, (off_t)at) != 8) { whole = 0; break; }
            uint32_t keys = get_le32(h), clen = get_le32(h + 4);
            if (!keys || keys > BLOCK_KEYS || clen > bound || size - at - 8 < clen) {
                whole = 0;
                break;
            }
            n += keys;
            at += 8 + (uint64_t)clen;
        }
    }
    if (fd >= 0) close(fd);
    Py_END_ALLOW_THREADS
    if (!whole) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(n);
}

static PyObject *py_stop(PyObject *self, PyObject *arg) {
    (void)self;
    __atomic_store_n(&stop_asked, PyObject_IsTrue(arg) > 0, __ATOMIC_RELAXED);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"merge", (PyCFunction)(void (*)(void))py_merge, METH_VARARGS | METH_KEYWORDS,
     "merge(inputs, width, out, visited=(), threads=1, split_at=2**22) -> keys written"},
    {"index", py_index, METH_VARARGS, "index(path, width) -> a key file's block index"},
    {"merge_looked", (PyCFunction)(void (*)(void))py_merge_looked, METH_VARARGS | METH_KEYWORDS,
     "merge_looked(inputs, width, out, visited, indexes, threads=1, split_at=2**22) -> keys "
     "written (merge's)"},
    {"count", py_count, METH_VARARGS, "count(path, width) -> keys in a whole key file, or None"},
    {"stop", py_stop, METH_O, "stop(True): the loops running stop at their next look (Stopped)"},
    {"widen", py_widen, METH_VARARGS, "widen(path, out, ncells): 2-byte ids to 3"},
    {"mark_used", py_mark_used, METH_VARARGS, "mark_used(path, ncells, idw, used)"},
    {"copy_group", py_copy_group, METH_VARARGS,
     "copy_group(path, width, skip, count, out, whole=False) -> keys of key skip's group"},
    {"concat", py_concat, METH_VARARGS,
     "concat(paths, width, out) -> keys: the files one after another"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_external",
    "The disk-backed exhaustive search's inner loops (see certify/engine/on_disk.py).",
    -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__external(void) {
    init_parents();
    if (PyType_Ready(&ExpanderType) < 0 || PyType_Ready(&FinisherType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Stopped = PyErr_NewExceptionWithDoc("certify.engine._external.Stopped",
                                        "A loop stopped because stop(True) was asked.", NULL, NULL);
    if (!Stopped || PyModule_AddObjectRef(m, "Stopped", Stopped) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&ExpanderType);
    Py_INCREF(&FinisherType);
    if (PyModule_AddObject(m, "Expander", (PyObject *)&ExpanderType) < 0 ||
        PyModule_AddObject(m, "Finisher", (PyObject *)&FinisherType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "EXHAUSTED", EXHAUSTED);
    PyModule_AddIntConstant(m, "BUFFER_FULL", BUFFER_FULL);
    PyModule_AddIntConstant(m, "SLICE_OVER", SLICE_OVER);
    PyModule_AddIntConstant(m, "COLUMNS_FULL", COLUMNS_FULL);
    PyModule_AddIntConstant(m, "NO_MEMORY", NO_MEMORY);
    PyModule_AddIntConstant(m, "CLOSED", CLOSED);
    PyModule_AddIntConstant(m, "NEXT_FULL", NEXT_FULL);
    PyModule_AddIntConstant(m, "SET_FULL", SET_FULL);
    PyModule_AddIntConstant(m, "NARROW_COLUMNS", NARROW_COLUMNS);
    return m;
}
