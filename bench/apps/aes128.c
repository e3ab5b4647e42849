// aes128: AES-128 encryption (FIPS-197) in ECB mode, one 16-byte block per
// work-item. The S-box is computed at startup from its definition (inverse in
// GF(2^8) followed by the affine map); the key schedule runs on the host.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char* kSource =
    "uchar xtime(uchar b) { return (uchar)((b << 1) ^ ((b & 0x80) ? 0x1b : 0x00)); }\n"
    "__kernel void aes128_encrypt(__global uchar* out, __global const uchar* in,\n"
    "                             __constant uchar* sbox, __constant uchar* round_keys,\n"
    "                             int blocks) {\n"
    "  int block = get_global_id(0);\n"
    "  if (block >= blocks) return;\n"
    "  uchar s[16], t[16];\n"
    "  for (int i = 0; i < 16; ++i) s[i] = in[16 * block + i] ^ round_keys[i];\n"
    "  for (int round = 1; round <= 10; ++round) {\n"
    "    // SubBytes and ShiftRows together: byte (row r, column c) comes from\n"
    "    // column (c + r) mod 4. The state is column-major, index 4*c + r.\n"
    "    for (int c = 0; c < 4; ++c)\n"
    "      for (int r = 0; r < 4; ++r) t[4 * c + r] = sbox[s[4 * ((c + r) & 3) + r]];\n"
    "    if (round < 10) {\n"
    "      for (int c = 0; c < 4; ++c) {\n"
    "        uchar a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];\n"
    "        uchar all = a0 ^ a1 ^ a2 ^ a3;\n"
    "        s[4 * c] = a0 ^ all ^ xtime(a0 ^ a1);\n"
    "        s[4 * c + 1] = a1 ^ all ^ xtime(a1 ^ a2);\n"
    "        s[4 * c + 2] = a2 ^ all ^ xtime(a2 ^ a3);\n"
    "        s[4 * c + 3] = a3 ^ all ^ xtime(a3 ^ a0);\n"
    "      }\n"
    "    } else {\n"
    "      for (int i = 0; i < 16; ++i) s[i] = t[i];\n"
    "    }\n"
    "    for (int i = 0; i < 16; ++i) s[i] ^= round_keys[16 * round + i];\n"
    "  }\n"
    "  for (int i = 0; i < 16; ++i) out[16 * block + i] = s[i];\n"
    "}\n";

static uint8_t xtime(uint8_t b) { return (uint8_t)((b << 1) ^ ((b & 0x80) ? 0x1b : 0)); }

static uint8_t rotl8(uint8_t b, int n) { return (uint8_t)((b << n) | (b >> (8 - n))); }

// S-box from its definition: multiplicative inverse in GF(2^8) (through
// log/antilog tables of the generator 3), then the affine transformation.
static void make_sbox(uint8_t sbox[256]) {
  uint8_t exp[256], log[256];
  uint8_t x = 1;
  for (int i = 0; i < 255; ++i) {
    exp[i] = x;
    log[x] = (uint8_t)i;
    x = x ^ xtime(x);  // multiply by 3
  }
  for (int b = 0; b < 256; ++b) {
    uint8_t inv = b == 0 ? 0 : exp[(255 - log[b]) % 255];
    sbox[b] = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63;
  }
}

static void expand_key(const uint8_t key[16], const uint8_t sbox[256], uint8_t rk[176]) {
  memcpy(rk, key, 16);
  uint8_t rcon = 1;
  for (int i = 4; i < 44; ++i) {
    uint8_t w[4];
    memcpy(w, rk + 4 * (i - 1), 4);
    if (i % 4 == 0) {
      uint8_t first = w[0];
      w[0] = sbox[w[1]] ^ rcon;
      w[1] = sbox[w[2]];
      w[2] = sbox[w[3]];
      w[3] = sbox[first];
      rcon = xtime(rcon);
    }
    for (int j = 0; j < 4; ++j) rk[4 * i + j] = rk[4 * (i - 4) + j] ^ w[j];
  }
}

static void reference_block(uint8_t out[16], const uint8_t in[16], const uint8_t sbox[256],
                            const uint8_t rk[176]) {
  uint8_t s[16], t[16];
  for (int i = 0; i < 16; ++i) s[i] = in[i] ^ rk[i];
  for (int round = 1; round <= 10; ++round) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) t[4 * c + r] = sbox[s[4 * ((c + r) & 3) + r]];
    if (round < 10) {
      for (int c = 0; c < 4; ++c) {
        uint8_t a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];
        uint8_t all = a0 ^ a1 ^ a2 ^ a3;
        s[4 * c] = a0 ^ all ^ xtime(a0 ^ a1);
        s[4 * c + 1] = a1 ^ all ^ xtime(a1 ^ a2);
        s[4 * c + 2] = a2 ^ all ^ xtime(a2 ^ a3);
        s[4 * c + 3] = a3 ^ all ^ xtime(a3 ^ a0);
      }
    } else {
      memcpy(s, t, 16);
    }
    for (int i = 0; i < 16; ++i) s[i] ^= rk[16 * round + i];
  }
  memcpy(out, s, 16);
}

// The FIPS-197 appendix C.1 example validates the tables and the reference.
static int reference_self_test(const uint8_t sbox[256]) {
  uint8_t key[16], plain[16], rk[176], got[16];
  static const uint8_t expected[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                                       0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
  for (int i = 0; i < 16; ++i) {
    key[i] = (uint8_t)i;
    plain[i] = (uint8_t)(0x11 * i);
  }
  expand_key(key, sbox, rk);
  reference_block(got, plain, sbox, rk);
  return memcmp(got, expected, 16) == 0;
}

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "aes128", 10);
  const int blocks = BENCH_PRESET(opts, 1 << 16, 1 << 22, 1 << 24);
  const size_t bytes = (size_t)blocks * 16;
  uint8_t sbox[256], rk[176], key[16];
  make_sbox(sbox);
  for (int i = 0; i < 16; ++i) key[i] = (uint8_t)(0x2b + 37 * i);
  expand_key(key, sbox, rk);
  uint8_t* plain = malloc(bytes);
  uint8_t* cipher = malloc(bytes);
  unsigned state = 2024u;
  for (size_t i = 0; i < bytes; ++i) {
    state = state * 1664525u + 1013904223u;
    plain[i] = (uint8_t)(state >> 24);
  }

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "aes128_encrypt");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_in = bench_buffer(cl.context, in, bytes, plain);
  cl_mem buf_sbox = bench_buffer(cl.context, in, sizeof sbox, sbox);
  cl_mem buf_rk = bench_buffer(cl.context, in, sizeof rk, rk);
  cl_mem buf_out = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, bytes, NULL);
  BENCH_ARG(k, 0, buf_out);
  BENCH_ARG(k, 1, buf_in);
  BENCH_ARG(k, 2, buf_sbox);
  BENCH_ARG(k, 3, buf_rk);
  BENCH_ARG(k, 4, blocks);

  const size_t local = 64, global = bench_round_up(blocks, local);
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_out, CL_TRUE, 0, bytes, cipher, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    if (!reference_self_test(sbox)) {
      fprintf(stderr, "CPU reference fails the FIPS-197 example\n");
      ok = 0;
    }
    size_t bad = 0;
    uint8_t ref[16];
    for (int b = 0; b < blocks; ++b) {
      reference_block(ref, plain + 16 * (size_t)b, sbox, rk);
      if (memcmp(ref, cipher + 16 * (size_t)b, 16) != 0) {
        if (bad < 5) fprintf(stderr, "block %d differs\n", b);
        ++bad;
      }
    }
    if (bad) {
      fprintf(stderr, "%zu of %d blocks differ\n", bad, blocks);
      ok = 0;
    }
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_in);
  clReleaseMemObject(buf_sbox);
  clReleaseMemObject(buf_rk);
  clReleaseMemObject(buf_out);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  free(plain); free(cipher); free(iter_ms);
  return status;
}
