/* What one word of a mulx/adcx/adox row costs on this CPU, in core cycles.
 *
 * mulx-cios (crates/montmul/src/arch/x86_64/adx/cios.rs) and OpenSSL's
 * bn_mulx4x_mont are made of rows whose every word is
 *
 *     mulx hi, lo, [src + 8 j] ; adcx t[j], lo ; adox t[j+1], hi
 *
 * A product of s limbs has 2 s^2 such words (s^2 of a b, s^2 of m n), a
 * squaring's REDC s^2. This times long runs of them, the register chains as in a
 * row, beside mulx alone and mulx with two adds that depend on nothing, and
 * converts to cycles with a chain of imul (latency 3 cycles on every x86-64 core
 * of the last decade). Build and run, pinned:
 *
 *     gcc -O2 -mbmi2 -madx benches/mulx-rows.c -o /tmp/mulx-rows
 *     taskset -c 1 /tmp/mulx-rows
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

#define EIGHT(w) w(0) w(1) w(2) w(3) w(4) w(5) w(6) w(7)
#define ROW_WORD(j) "mulx rcx, rax, qword ptr [rsi + 8*" #j "]\n adcx r8, rax\n adox r9, rcx\n"
#define MULX_WORD(j) "mulx rcx, rax, qword ptr [rsi + 8*" #j "]\n"
#define ADDS_WORD(j) "mulx rcx, rax, qword ptr [rsi + 8*" #j "]\n add r8, rax\n add r9, rcx\n"
#define IMUL_WORD(j) "imul r8, r8\n"

/* 32 words an iteration, N iterations; returns ns a word. */
#define TIME(body)                                                                  \
    ({                                                                              \
        double t0 = now_ns();                                                       \
        for (long i = 0; i < N; i++)                                                \
            __asm__ volatile(".intel_syntax noprefix\n mov rdx, 0x9e3779b97f4a7c15\n" \
                             " xor eax, eax\n" body body body body ".att_syntax\n"  \
                             :                                                      \
                             : "S"(src)                                             \
                             : "rax", "rcx", "rdx", "r8", "r9", "cc");              \
        (now_ns() - t0) / N / 32;                                                   \
    })

int main(void) {
    const long N = 10000000;
    for (int round = 0; round < 3; round++) {
        double cycle = TIME(EIGHT(IMUL_WORD)) / 3.0;
        double row = TIME(EIGHT(ROW_WORD)), mulx = TIME(EIGHT(MULX_WORD)),
               adds = TIME(EIGHT(ADDS_WORD));
        printf("clock %.2f GHz; cycles a word: row (mulx adcx adox) %.2f, mulx alone %.2f, "
               "mulx + 2 independent adds %.2f\n",
               1.0 / cycle, row / cycle, mulx / cycle, adds / cycle);
    }
    return 0;
}
