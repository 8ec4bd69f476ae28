/* The certificate file's bytes (a file, or standard input), zstd frames decompressed into one
 * buffer, and XXH3-64.
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

/* libxxhash's one-shot XXH3 (the library is Debian's libxxhash0; declared here so that the
 * build needs no header package). */
extern uint64_t XXH3_64bits(const void *data, size_t len);

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

/* Decompress every frame, one after another, as one stream.  Refused: an empty frame, a
 * skippable one, a file that ends inside a frame, bytes that are not a frame, and data
 * larger than [limit]. */
static unsigned char *decompress(const unsigned char *in, size_t in_size, size_t limit,
                                 size_t *out_size)
{
    ZSTD_DStream *ds = ZSTD_createDStream();
    size_t cap = 1 << 20, used = 0;
    unsigned char *out = malloc(cap);
    if (!ds || !out) { snprintf(message, sizeof message, "out of memory"); goto error; }
    ZSTD_initDStream(ds);
    ZSTD_inBuffer input = { in, in_size, 0 };
    if (in_size == 0) {
        snprintf(message, sizeof message, "not a valid zstd frame: the file is empty");
        goto error;
    }
    while (input.pos < input.size) {
        /* A new frame starts here. */
        if (input.size - input.pos >= 4) {
            uint32_t magic = in[input.pos] | in[input.pos + 1] << 8 | in[input.pos + 2] << 16 |
                             (uint32_t)in[input.pos + 3] << 24;
            if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
                snprintf(message, sizeof message, "a skippable zstd frame holds none of the data");
                goto error;
            }
        }
        size_t frame_start = used, ret;
        do {
            if (used == cap) {
                if (cap >= limit) {
                    snprintf(message, sizeof message,
                             "the data decompresses to more than 4 GiB");
                    goto error;
                }
                size_t bigger = cap * 2 > limit ? limit : cap * 2;
                unsigned char *grown = realloc(out, bigger);
                if (!grown) { snprintf(message, sizeof message, "out of memory"); goto error; }
                out = grown; cap = bigger;
            }
            ZSTD_outBuffer output = { out + used, cap - used, 0 };
            ret = ZSTD_decompressStream(ds, &output, &input);
            if (ZSTD_isError(ret)) {
                snprintf(message, sizeof message, "not a valid zstd frame: %s",
                         ZSTD_getErrorName(ret));
                goto error;
            }
            used += output.pos;
            if (ret != 0 && input.pos == input.size && output.pos < output.size) {
                snprintf(message, sizeof message, "the file is cut short inside a zstd frame");
                goto error;
            }
        } while (ret != 0);
        if (used == frame_start) {
            snprintf(message, sizeof message, "an empty zstd frame holds none of the data");
            goto error;
        }
    }
    ZSTD_freeDStream(ds);
    *out_size = used;
    return out;
error:
    if (ds) ZSTD_freeDStream(ds);
    free(out);
    return NULL;
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

/* vc_decompress : bigarray -> bigarray: the data of the frames in it */
value vc_decompress(value file)
{
    CAMLparam1(file);
    size_t size;
    unsigned char *out = decompress(Caml_ba_data_val(file), Caml_ba_array_val(file)->dim[0],
                                    (size_t)4 << 30, &size);
    if (!out) fail(message);
    CAMLreturn(bigarray_of(out, size));
}

/* vc_xxh3 : bigarray -> int -> int -> string (16 lowercase hex digits) */
value vc_xxh3(value data, value off, value len)
{
    CAMLparam3(data, off, len);
    char hex[17];
    const unsigned char *p = Caml_ba_data_val(data);
    uint64_t h = XXH3_64bits(p + Long_val(off), (size_t)Long_val(len));
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    CAMLreturn(caml_copy_string(hex));
}
