/* Where to look for a record or a column: SipHash-1-3 under a key drawn at random once a run.
 *
 * The lookup tables probe from a record's hash on; with a hash anyone can compute, a file can
 * be made whose records all start their probes in one small stretch of the table, so that
 * building and searching it take quadratic time. Under a secret key drawn afresh for every run
 * no file can be made against the hash. Untrusted: a hash only says where a lookup starts;
 * whether a record is found is decided by comparing its bytes. */

#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <caml/mlvalues.h>

static uint64_t k0, k1;

/* vc_hash_key : unit -> unit, once, before any table is built (forked processes keep it). */
value vc_hash_key(value unit)
{
    uint64_t k[2];
    if (getrandom(k, sizeof k, 0) != (ssize_t)sizeof k) {
        /* (no getrandom: the clock and the process, which a file cannot foresee either) */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        k[0] = (uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)t.tv_sec;
        k[1] = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&t ^ k[0] * 0xBF58476D1CE4E5B9ull;
    }
    k0 = k[0];
    k1 = k[1];
    return unit;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                            \
    do {                                                                    \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);           \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                              \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                              \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);           \
    } while (0)

static uint64_t siphash13(const unsigned char *in, size_t len)
{
    uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
    uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
    const unsigned char *end = in + len - len % 8;
    for (; in != end; in += 8) {
        uint64_t m;
        memcpy(&m, in, 8);
        v3 ^= m; SIPROUND; v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    for (size_t i = 0; i < len % 8; i++) b |= (uint64_t)in[i] << (8 * i);
    v3 ^= b; SIPROUND; v0 ^= b;
    v2 ^= 0xff; SIPROUND; SIPROUND; SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* vc_hash : bytes -> int -> int -> int, of [len] bytes at [off] (non-negative). */
intnat vc_hash(value bytes, intnat off, intnat len)
{
    return (intnat)(siphash13((const unsigned char *)Bytes_val(bytes) + off, (size_t)len) >> 2);
}

value vc_hash_byte(value bytes, value off, value len)
{
    return Val_long(vc_hash(bytes, Long_val(off), Long_val(len)));
}

/* vc_hash_int : int -> int, of a number's 8 bytes (non-negative). */
intnat vc_hash_int(intnat n)
{
    unsigned char b[8];
    memcpy(b, &n, 8);
    return (intnat)(siphash13(b, 8) >> 2);
}

value vc_hash_int_byte(value n) { return Val_long(vc_hash_int(Long_val(n))); }
