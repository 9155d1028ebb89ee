// SPDX-License-Identifier: MIT OR Apache-2.0
// rapidsnark's `prover` command line over its library's C API: loads librapidsnark.so (the
// Android x86_64 build shipped in an npm package, through the adapters of bionic_shim.c), reads
// the witness, calls groth16_prover_zkey_file() and writes proof.json and public.json.
//
//   rapidsnark_prover LIB_DIR <circuit.zkey> <witness.wtns> <proof.json> <public.json>
//
// Prints the wall time of the library call on stderr. Benchmark tooling only.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*prover_fn)(const char* zkey_path, const void* wtns, unsigned long long wtns_size, char* proof,
                         unsigned long long* proof_size, char* pub, unsigned long long* pub_size, char* err,
                         unsigned long long err_size);

static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char* b = malloc(*size);
  if (b == NULL || fread(b, 1, *size, f) != *size) {
    fclose(f);
    free(b);
    return NULL;
  }
  fclose(f);
  return b;
}

static int write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  if (f == NULL) return -1;
  const size_t n = strlen(text);
  const int ok = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s LIB_DIR circuit.zkey witness.wtns proof.json public.json\n", argv[0]);
    return 2;
  }
  char lib[4096];
  snprintf(lib, sizeof lib, "%s/librapidsnark.so", argv[1]);
  void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  prover_fn prove = (prover_fn)dlsym(h, "groth16_prover_zkey_file");
  if (prove == NULL) {
    fprintf(stderr, "dlsym: %s\n", dlerror());
    return 1;
  }
  size_t wtns_size = 0;
  char* wtns = read_file(argv[3], &wtns_size);
  if (wtns == NULL) {
    fprintf(stderr, "cannot read %s\n", argv[3]);
    return 1;
  }
  unsigned long long proof_size = 1 << 16, pub_size = 1 << 24;
  char* proof = malloc(proof_size);
  char* pub = malloc(pub_size);
  char err[1024] = {0};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const int rc = prove(argv[2], wtns, wtns_size, proof, &proof_size, pub, &pub_size, err, sizeof err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc != 0) {
    fprintf(stderr, "groth16_prover_zkey_file: error %d: %s\n", rc, err);
    return 1;
  }
  fprintf(stderr, "rapidsnark: groth16_prover_zkey_file %.3f s\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  if (write_file(argv[4], proof) != 0 || write_file(argv[5], pub) != 0) {
    fprintf(stderr, "cannot write the outputs\n");
    return 1;
  }
  return 0;
}
