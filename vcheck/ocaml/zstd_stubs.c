/* The certificate file's bytes (a file, or standard input), its zstd frames decompressed a
 * piece at a time, and XXH3-64 of data that arrives in pieces.
 *
 * Untrusted: whatever these return is read by the driver and checked by the proved checker;
 * a wrong byte can only make a check fail.  One error discipline: every failure raises
 * Failure with one line saying what is wrong, and frees what it allocated. */

#include <errno.h>
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

/* Standard input, read to its end (a pipe or a file; a terminal would wait for a person). */
static unsigned char *read_stdin(size_t *size, size_t limit)
{
    struct stat st;
    if (fstat(0, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
        snprintf(message, sizeof message, "standard input is not a regular file or a pipe");
        return NULL;
    }
    size_t cap = 1 << 16, used = 0;
    unsigned char *buf = malloc(cap);
    if (!buf) { snprintf(message, sizeof message, "out of memory"); return NULL; }
    for (;;) {
        if (used == cap) {
            if (cap >= limit) {
                free(buf);
                snprintf(message, sizeof message, "standard input holds more than 4 GiB");
                return NULL;
            }
            unsigned char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf); snprintf(message, sizeof message, "out of memory"); return NULL;
            }
            buf = grown; cap *= 2;
        }
        ssize_t got = read(0, buf + used, cap - used);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            snprintf(message, sizeof message, "cannot read standard input: %s", strerror(errno));
            free(buf);
            return NULL;
        }
        used += (size_t)got;
    }
    *size = used;
    return buf;
}

/* The whole file, read into memory: a certificate is small compressed. */
static unsigned char *read_file(const char *path, size_t *size, size_t limit)
{
    struct stat st;
    if (strcmp(path, "-") == 0) return read_stdin(size, limit);
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(message, sizeof message, "cannot open: %s", strerror(errno)); return NULL; }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f); snprintf(message, sizeof message, "not a regular file"); return NULL;
    }
    if ((uint64_t)st.st_size > limit) {
        fclose(f); snprintf(message, sizeof message, "the file is larger than 4 GiB"); return NULL;
    }
    unsigned char *buf = malloc(st.st_size ? st.st_size : 1);
    if (!buf) { fclose(f); snprintf(message, sizeof message, "out of memory"); return NULL; }
    size_t got = fread(buf, 1, st.st_size, f);
    fclose(f);
    if (got != (size_t)st.st_size) {
        free(buf); snprintf(message, sizeof message, "cannot read the file"); return NULL;
    }
    *size = got;
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

struct stream {
    ZSTD_DStream *ds;
    size_t in_pos;      /* how far into the file's bytes */
    int in_frame;       /* inside a frame, which has given [frame_out] bytes so far */
    size_t frame_out;
};

#define Stream_val(v) (*(struct stream **)Data_custom_val(v))

static void stream_finalize(value v)
{
    struct stream *s = Stream_val(v);
    if (s) { ZSTD_freeDStream(s->ds); free(s); }
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
    if (in_size == 0) fail("not a valid zstd frame: the file is empty");
    while (used < cap) {
        if (!s->in_frame) {
            if (s->in_pos == in_size) break;
            if (in_size - s->in_pos >= 4) {
                const unsigned char *m = in + s->in_pos;
                uint32_t magic = m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24;
                if ((magic & 0xFFFFFFF0u) == 0x184D2A50u)
                    fail("a skippable zstd frame holds none of the data");
            }
            s->in_frame = 1;
            s->frame_out = 0;
        }
        ZSTD_inBuffer input = { in, in_size, s->in_pos };
        ZSTD_outBuffer output = { dst + used, cap - used, 0 };
        size_t ret = ZSTD_decompressStream(s->ds, &output, &input);
        if (ZSTD_isError(ret)) {
            snprintf(message, sizeof message, "not a valid zstd frame: %s", ZSTD_getErrorName(ret));
            fail(message);
        }
        s->in_pos = input.pos;
        used += output.pos;
        s->frame_out += output.pos;
        if (ret == 0) {
            if (s->frame_out == 0) fail("an empty zstd frame holds none of the data");
            s->in_frame = 0;
        } else if (input.pos == input.size && output.pos < output.size) {
            fail("the file is cut short inside a zstd frame");
        }
    }
    CAMLreturn(Val_long(used));
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
