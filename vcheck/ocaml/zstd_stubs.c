/* The certificate file's bytes (a file, or standard input), its zstd frames decompressed a
 * piece at a time, and XXH3-64 of data that arrives in pieces.
 *
 * Untrusted: whatever these return is read by the driver and checked by the proved checker;
 * a wrong byte can only make a check fail.  One error discipline: every failure raises
 * Failure with one line saying what is wrong, and frees what it allocated. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <caml/alloc.h>
#include <caml/bigarray.h>
#include <caml/fail.h>
#include <caml/memory.h>
#include <caml/mlvalues.h>

static char message[512];

static void fail(const char *what) { caml_failwith(what); }

/* The bytes of a file or of standard input ("-"), read to the end, refused as check refuses them:
 * a regular file, or standard input that is a pipe; a device with nothing to read at once (such
 * as /dev/null) is read, and is empty; anything else (a FIFO named, a folder, a terminal) is not
 * a regular file, refused unread (a FIFO is opened without waiting for a writer). */
static unsigned char *read_file(const char *path, size_t *size, size_t limit)
{
    struct stat st;
    int in = strcmp(path, "-") == 0;
    const char *shown = in ? "standard input" : path;
    int fd = in ? 0 : open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(message, sizeof message, "cannot read %.400s: %s", shown, strerror(errno));
        return NULL;
    }
    int ok = fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || (in && S_ISFIFO(st.st_mode)));
    if (!ok && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode)) {
        struct pollfd ready = { fd, POLLIN, 0 };
        char one;
        ok = poll(&ready, 1, 0) == 1 && (ready.revents & POLLIN) && read(fd, &one, 1) == 0;
    }
    if (!ok) {
        if (!in) close(fd);
        snprintf(message, sizeof message, "%.400s is not a regular file", shown);
        return NULL;
    }
    /* (A regular file past the ceiling is refused by its size, unread: room for it is never
     * asked for, and none of it is read.) */
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > limit) {
        if (!in) close(fd);
        snprintf(message, sizeof message, "%.400s holds more than 4 GiB", shown);
        return NULL;
    }
    if (!in) {   /* a regular file: read as it comes, without O_NONBLOCK's short reads mattering */
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    }
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 16, used = 0;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        if (!in) close(fd);
        snprintf(message, sizeof message, "out of memory");
        return NULL;
    }
    for (;;) {
        if (used == cap) {
            if (cap >= limit) {
                free(buf); if (!in) close(fd);
                snprintf(message, sizeof message, "%.400s holds more than 4 GiB", shown);
                return NULL;
            }
            unsigned char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf); if (!in) close(fd);
                snprintf(message, sizeof message, "out of memory");
                return NULL;
            }
            buf = grown; cap *= 2;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            snprintf(message, sizeof message, "cannot read %.400s: %s", shown, strerror(errno));
            free(buf); if (!in) close(fd);
            return NULL;
        }
        used += (size_t)got;
    }
    if (!in) close(fd);
    *size = used;
    return buf;
}

static value bigarray_of(unsigned char *data, size_t size)
{
    unsigned char *fit = size ? realloc(data, size) : data;
    if (fit) data = fit;
    intnat dim = (intnat)size;
    return caml_ba_alloc(CAML_BA_UINT8 | CAML_BA_C_LAYOUT | CAML_BA_MANAGED, 1, data, &dim);
}

/* vc_read : string -> bigarray: the file's bytes ("-": standard input's) */
value vc_read(value path)
{
    CAMLparam1(path);
    size_t size;
    unsigned char *in = read_file(String_val(path), &size, (size_t)4 << 30);
    if (!in) fail(message);
    CAMLreturn(bigarray_of(in, size));
}

/* ---- The frames read a piece at a time, one after another, as one stream (the data is never
 * held whole).  Refused: an empty frame, a skippable one, a file that ends inside a frame,
 * and bytes that are not a frame. ---- */

#include <caml/custom.h>

/* The file's bytes are given to the decoder a KiB at a time, as check/ reads them, and the data
 * the first k KiB give is kept for each k ([given]): a range's bound by the bytes read
 * (docs/certificate-format.md section 5) counts the bytes as check counts them. */
struct stream {
    ZSTD_DStream *ds;
    size_t in_pos;      /* how far into the file's bytes */
    int in_frame;       /* inside a frame, which has given [frame_out] bytes so far */
    size_t frame_out;
    size_t fed;         /* the file's bytes given to the decoder: whole KiB, or all of them */
    size_t out;         /* the data given so far */
    size_t *given;      /* given[k]: the data that the first k + 1 KiB give, all of it */
    size_t kibs, room;
    int drained;        /* all that the KiB given gives is out */
};

#define Stream_val(v) (*(struct stream **)Data_custom_val(v))

static void stream_finalize(value v)
{
    struct stream *s = Stream_val(v);
    if (s) { ZSTD_freeDStream(s->ds); free(s->given); free(s); }
}

static struct custom_operations stream_ops = {
    "vcheck.zstd_stream", stream_finalize, custom_compare_default, custom_hash_default,
    custom_serialize_default, custom_deserialize_default, custom_compare_ext_default,
    custom_fixed_length_default
};

/* vc_stream_open : unit -> stream (the file's bytes are given to each read) */
value vc_stream_open(value unit)
{
    CAMLparam1(unit);
    CAMLlocal1(v);
    struct stream *s = calloc(1, sizeof *s);
    if (s) s->ds = ZSTD_createDStream();
    if (!s || !s->ds) { free(s); fail("out of memory"); }
    ZSTD_initDStream(s->ds);
    v = caml_alloc_custom(&stream_ops, sizeof s, 0, 1);
    Stream_val(v) = s;
    CAMLreturn(v);
}

/* vc_stream_read : stream -> file -> out -> int -> int -> int: up to [len] bytes of the data
 * into [out] at [off]; fewer only at the end of the data (0: nothing is left). */
value vc_stream_read(value stream, value file, value out, value off, value len)
{
    CAMLparam5(stream, file, out, off, len);
    struct stream *s = Stream_val(stream);
    const unsigned char *in = Caml_ba_data_val(file);
    size_t in_size = Caml_ba_array_val(file)->dim[0], cap = Long_val(len), used = 0;
    unsigned char *dst = (unsigned char *)Caml_ba_data_val(out) + Long_val(off);
    while (used < cap) {
        /* The KiB given is used up and all it gives is out: its data is counted, and the next
         * KiB is given (the end of the file: a frame still open is cut short). */
        if (s->in_pos == s->fed && (s->drained || !s->in_frame)) {
            if (s->fed > 0) {
                if (s->kibs == s->room) {
                    size_t room = s->room ? 2 * s->room : 1024;
                    size_t *more = realloc(s->given, room * sizeof *more);
                    if (!more) fail("out of memory");
                    s->given = more; s->room = room;
                }
                s->given[s->kibs++] = s->out;
            }
            if (s->fed == in_size) {
                if (s->in_frame) fail(": its zstd frame is cut short");
                break;
            }
            s->fed = in_size - s->fed > 1024 ? s->fed + 1024 : in_size;
            s->drained = 0;
        }
        if (!s->in_frame) {
            if (s->in_pos == in_size) break;
            if (in_size - s->in_pos >= 4) {
                const unsigned char *m = in + s->in_pos;
                uint32_t magic = m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24;
                if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) fail("a zstd frame holds no data");
            }
            s->in_frame = 1;
            s->frame_out = 0;
        }
        ZSTD_inBuffer input = { in, s->fed, s->in_pos };
        ZSTD_outBuffer output = { dst + used, cap - used, 0 };
        size_t ret = ZSTD_decompressStream(s->ds, &output, &input);
        if (ZSTD_isError(ret)) {
            snprintf(message, sizeof message,
                     " is not a certificate: not a valid zstd frame (zstd decompressor error: %s)",
                     ZSTD_getErrorName(ret));
            fail(message);
        }
        s->in_pos = input.pos;
        used += output.pos;
        s->out += output.pos;
        s->frame_out += output.pos;
        if (ret == 0) {
            if (s->frame_out == 0) fail("a zstd frame holds no data");
            s->in_frame = 0;
        }
        s->drained = input.pos == input.size && output.pos < output.size;
    }
    CAMLreturn(Val_long(used));
}

/* vc_stream_got : stream -> int -> int: the file's bytes a reader that reads a KiB at a time
 * has read once [need] bytes of the data are out (all of them, if the data is shorter). */
value vc_stream_got(value stream, value need)
{
    struct stream *s = Stream_val(stream);
    size_t n = (size_t)Long_val(need), lo = 0, hi = s->kibs;
    while (lo < hi) {   /* the first KiB count whose data reaches [n] */
        size_t mid = (lo + hi) / 2;
        if (s->given[mid] >= n) hi = mid; else lo = mid + 1;
    }
    /* (Not reached yet: the KiB being given reaches it, or the data ends before it.) */
    return Val_long(lo < s->kibs && (lo + 1) * 1024 < s->fed ? (lo + 1) * 1024 : s->fed);
}

/* ---- XXH3-64 of data that arrives in pieces ---- */

extern void *XXH3_createState(void);
extern int XXH3_freeState(void *state);
extern int XXH3_64bits_reset(void *state);
extern int XXH3_64bits_update(void *state, const void *data, size_t len);
extern uint64_t XXH3_64bits_digest(const void *state);

#define Hash_val(v) (*(void **)Data_custom_val(v))

static void hash_finalize(value v) { if (Hash_val(v)) XXH3_freeState(Hash_val(v)); }

static struct custom_operations hash_ops = {
    "vcheck.xxh3_state", hash_finalize, custom_compare_default, custom_hash_default,
    custom_serialize_default, custom_deserialize_default, custom_compare_ext_default,
    custom_fixed_length_default
};

/* vc_xxh3_begin : unit -> state */
value vc_xxh3_begin(value unit)
{
    CAMLparam1(unit);
    CAMLlocal1(v);
    void *state = XXH3_createState();
    if (!state) fail("out of memory");
    XXH3_64bits_reset(state);
    v = caml_alloc_custom(&hash_ops, sizeof state, 0, 1);
    Hash_val(v) = state;
    CAMLreturn(v);
}

/* vc_xxh3_add : state -> bigarray -> int -> int -> unit */
value vc_xxh3_add(value state, value data, value off, value len)
{
    const unsigned char *p = Caml_ba_data_val(data);
    XXH3_64bits_update(Hash_val(state), p + Long_val(off), (size_t)Long_val(len));
    return Val_unit;
}

/* vc_xxh3_end : state -> string (16 lowercase hex digits) */
value vc_xxh3_end(value state)
{
    CAMLparam1(state);
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)XXH3_64bits_digest(Hash_val(state)));
    CAMLreturn(caml_copy_string(hex));
}
