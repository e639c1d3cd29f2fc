// How fast this core runs the vector operations the lane kernels are made of: the clock
// (from a chain of dependent 512-bit adds) and the throughput of multiply-adds, adds and
// shuffles at 256 and 512 bits, so the operation counts in docs/op-count.md can be turned
// into cycles.
//
//     gcc -O2 -mavx512f -mavx512dq -mfma scripts/pipe-probe.c -o /tmp/pipe-probe && /tmp/pipe-probe
//
// How it works: each throughput test runs ten independent chains of one instruction (more
// than its latency times the pipes that run it, so the pipes, not the chains, are the
// limit) and reports nanoseconds per instruction; the latency test runs one chain. An
// empty asm statement keeps the compiler from folding the chains away. The clock is the
// latency test's figure divided into the instruction's latency in cycles, which the
// reader supplies (2 cycles for a vaddps on AMD Zen 4 and Zen 5, 4 on Intel's cores).
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define N 100000000L
#define TEN(op) \
    a0 = op(a0); a1 = op(a1); a2 = op(a2); a3 = op(a3); a4 = op(a4); \
    a5 = op(a5); a6 = op(a6); a7 = op(a7); a8 = op(a8); a9 = op(a9);
#define THROUGHPUT(name, T, init, op)                                                      \
    {                                                                                      \
        T a0 = init, a1 = init, a2 = init, a3 = init, a4 = init, a5 = init, a6 = init,     \
          a7 = init, a8 = init, a9 = init;                                                 \
        double t = now();                                                                  \
        for (long i = 0; i < N; i++) {                                                     \
            TEN(op)                                                                        \
            __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4),       \
                             "+v"(a5), "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9));           \
        }                                                                                  \
        t = now() - t;                                                                     \
        printf("%-36s %.3f ns per instruction\n", name, t / N / 10 * 1e9);                \
    }

int main(void) {
    __m512 k = _mm512_set1_ps(1.0001f), c = _mm512_set1_ps(0.5f);
    __m256 k8 = _mm256_set1_ps(1.0001f);
    __m512i index = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    {
        __m512 x = c;
        double t = now();
        for (long i = 0; i < N; i++) {
            x = _mm512_add_ps(x, k);
            x = _mm512_add_ps(x, k);
            x = _mm512_add_ps(x, k);
            x = _mm512_add_ps(x, k);
        }
        t = now() - t;
        volatile float sink = x[0];
        (void)sink;
        printf("%-36s %.3f ns per instruction (latency)\n", "vaddps zmm, dependent", t / N / 4 * 1e9);
    }
#define FMA512(x) _mm512_fmadd_ps(x, k, c)
#define ADD512(x) _mm512_add_ps(x, k)
#define FMA256(x) _mm256_fmadd_ps(x, k8, k8)
#define PERMUTE512(x) _mm512_permutexvar_ps(index, x)
#define SHUFFLE512(x) _mm512_shuffle_f32x4(x, x, 0x44)
#define EXTRACT512(x) _mm512_castps256_ps512(_mm512_extractf32x8_ps(x, 1))
#define UNPACK256(x) _mm256_unpacklo_ps(x, x)
    THROUGHPUT("vfmadd zmm", __m512, c, FMA512)
    THROUGHPUT("vfmadd ymm", __m256, k8, FMA256)
    THROUGHPUT("vaddps zmm", __m512, c, ADD512)
    THROUGHPUT("vpermps zmm (lane-crossing)", __m512, c, PERMUTE512)
    THROUGHPUT("vshuff32x4 zmm", __m512, c, SHUFFLE512)
    THROUGHPUT("vextractf32x8 (high half)", __m512, c, EXTRACT512)
    THROUGHPUT("vunpcklps ymm", __m256, k8, UNPACK256)
    return 0;
}
