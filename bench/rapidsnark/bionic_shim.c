// SPDX-License-Identifier: MIT OR Apache-2.0
// A thin bionic-to-glibc adapter, so that rapidsnark's prebuilt prover library can run on Debian
// for benchmarks.
//
// Why: rapidsnark (iden3's C++/assembly Groth16 prover, the speed cuzk must beat) cannot be built
// here (its sources are not reachable from this machine) and no npm package ships a Linux build.
// The npm package @iden3/react-native-rapidsnark does ship an Android x86_64 build of its library
// (librapidsnark.so, with ffiasm's x86_64 assembly field arithmetic). Android libraries link
// against bionic: they need "libc.so", "libm.so" and "libdl.so" and every libc symbol under the
// version "LIBC". This file builds that "libc.so" (and, with -DSHIM_LIBDL, "libdl.so"): each
// symbol the library imports, exported as name@@LIBC, forwarding to glibc.
//
// Most imports have the same ABI on both C libraries for x86_64 (kernel-defined structs, pthread
// objects of equal size whose zero value is the default initializer, identical LC_*_MASK values)
// and are forwarded by a one-instruction jump through a pointer filled at load time. The rest are
// adapted below: bionic's stdio streams (__sF, 152-byte FILEs; stderr = __sF + 304, read from the
// library's code) are mapped to glibc's stdin/stdout/stderr, sysconf's names are renumbered,
// bionic's fortify helpers and __errno are mapped to their glibc equivalents, and the 128-bit
// long double parsers (x87's is 80-bit on glibc) are stubbed: the prover never parses one.
//
// Benchmark tooling only: nothing in cuzk links this.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT(sym, fn) __asm__(".symver " #fn ", " #sym "@@LIBC");

#ifndef SHIM_LIBDL

// Functions whose ABI is the same on both sides: forwarded by a jump through p_<name>.
#define PLAIN_FORWARDS \
  X(__ctype_get_mb_cur_max) \
  X(__cxa_atexit) \
  X(__cxa_finalize) \
  X(__register_atfork) \
  X(__stack_chk_fail) \
  X(abort) \
  X(btowc) \
  X(close) \
  X(closelog) \
  X(ctime) \
  X(exit) \
  X(fopen) \
  X(free) \
  X(freelocale) \
  X(fstat) \
  X(ioctl) \
  X(isdigit_l) \
  X(islower_l) \
  X(isupper_l) \
  X(iswalpha_l) \
  X(iswblank_l) \
  X(iswcntrl_l) \
  X(iswdigit_l) \
  X(iswlower_l) \
  X(iswprint_l) \
  X(iswpunct_l) \
  X(iswspace_l) \
  X(iswupper_l) \
  X(iswxdigit_l) \
  X(isxdigit_l) \
  X(localeconv) \
  X(madvise) \
  X(malloc) \
  X(mbrlen) \
  X(mbrtowc) \
  X(mbsnrtowcs) \
  X(mbsrtowcs) \
  X(mbtowc) \
  X(memchr) \
  X(memcmp) \
  X(memcpy) \
  X(memmove) \
  X(memset) \
  X(mmap) \
  X(munmap) \
  X(nanosleep) \
  X(newlocale) \
  X(open) \
  X(openlog) \
  X(posix_memalign) \
  X(pthread_cond_broadcast) \
  X(pthread_cond_destroy) \
  X(pthread_cond_signal) \
  X(pthread_cond_timedwait) \
  X(pthread_cond_wait) \
  X(pthread_create) \
  X(pthread_detach) \
  X(pthread_getspecific) \
  X(pthread_join) \
  X(pthread_key_create) \
  X(pthread_key_delete) \
  X(pthread_mutex_destroy) \
  X(pthread_mutex_init) \
  X(pthread_mutex_lock) \
  X(pthread_mutex_trylock) \
  X(pthread_mutex_unlock) \
  X(pthread_mutexattr_destroy) \
  X(pthread_mutexattr_init) \
  X(pthread_mutexattr_settype) \
  X(pthread_once) \
  X(pthread_rwlock_rdlock) \
  X(pthread_rwlock_unlock) \
  X(pthread_rwlock_wrlock) \
  X(pthread_self) \
  X(pthread_setspecific) \
  X(puts) \
  X(raise) \
  X(read) \
  X(realloc) \
  X(setlocale) \
  X(snprintf) \
  X(sscanf) \
  X(strcmp) \
  X(strcoll_l) \
  X(strftime_l) \
  X(strlen) \
  X(strncmp) \
  X(strncpy) \
  X(strtod) \
  X(strtof) \
  X(strtol) \
  X(strtoll) \
  X(strtoll_l) \
  X(strtoul) \
  X(strtoull) \
  X(strtoull_l) \
  X(strxfrm_l) \
  X(swprintf) \
  X(syscall) \
  X(syslog) \
  X(time) \
  X(tolower_l) \
  X(toupper_l) \
  X(towlower_l) \
  X(towupper_l) \
  X(uselocale) \
  X(vasprintf) \
  X(vsnprintf) \
  X(vsscanf) \
  X(wcrtomb) \
  X(wcscoll_l) \
  X(wcslen) \
  X(wcsnrtombs) \
  X(wcstod) \
  X(wcstof) \
  X(wcstol) \
  X(wcstoll) \
  X(wcstoul) \
  X(wcstoull) \
  X(wcsxfrm_l) \
  X(wctob) \
  X(wmemchr) \
  X(wmemcmp) \

#define X(name)                                                                                        \
  __attribute__((visibility("hidden"))) void* p_##name;                                                \
  __asm__(".text\n.globl shim_" #name "\n.type shim_" #name ",@function\nshim_" #name                \
          ":\n  jmp *p_" #name "(%rip)\n.size shim_" #name ", .-shim_" #name "\n");                    \
  EXPORT(name, shim_##name)
PLAIN_FORWARDS
#undef X

static void* glibc;

static void* must_sym(const char* name) {
  void* p = dlsym(glibc, name);
  if (p == NULL) {
    static const char msg[] = "bionic shim: a glibc symbol is missing\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  return p;
}

// glibc's definition of `name`, for the adapters below: this library exports the same names (at
// version LIBC), so a plain call would come back here.
#define G(name)                                                          \
  ({                                                                     \
    static __typeof__(&name) p_glibc;                                    \
    if (p_glibc == NULL) p_glibc = (__typeof__(&name))must_sym(#name);   \
    p_glibc;                                                             \
  })

__attribute__((constructor(101))) static void resolve(void) {
  glibc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  if (glibc == NULL) glibc = RTLD_DEFAULT;
#define X(name) p_##name = must_sym(#name);
  PLAIN_FORWARDS
#undef X
}

// ---- bionic's stdio streams ------------------------------------------------------------------
enum { bionic_file_size = 152 };
__attribute__((aligned(16))) char shim_sF[3 * bionic_file_size];
EXPORT(__sF, shim_sF)

static FILE* map_file(void* f) {
  const char* p = (const char*)f;
  if (p >= shim_sF && p < shim_sF + sizeof shim_sF) {
    const ptrdiff_t i = (p - shim_sF) / bionic_file_size;
    return i == 0 ? stdin : i == 1 ? stdout : stderr;
  }
  return (FILE*)f;
}

int shim_fclose(void* f) { return G(fclose)(map_file(f)); }
EXPORT(fclose, shim_fclose)
int shim_fflush(void* f) { return G(fflush)(f == NULL ? NULL : map_file(f)); }
EXPORT(fflush, shim_fflush)
int shim_vfprintf(void* f, const char* fmt, va_list ap) { return G(vfprintf)(map_file(f), fmt, ap); }
EXPORT(vfprintf, shim_vfprintf)
int shim_fprintf(void* f, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = G(vfprintf)(map_file(f), fmt, ap);
  va_end(ap);
  return n;
}
EXPORT(fprintf, shim_fprintf)
// bionic's stderr, for the adapters' own messages.
#define shim_stderr ((void*)(shim_sF + 2 * bionic_file_size))

int shim_fputc(int c, void* f) { return G(fputc)(c, map_file(f)); }
EXPORT(fputc, shim_fputc)
size_t shim_fread(void* b, size_t s, size_t n, void* f) { return G(fread)(b, s, n, map_file(f)); }
EXPORT(fread, shim_fread)
size_t shim_fwrite(const void* b, size_t s, size_t n, void* f) { return G(fwrite)(b, s, n, map_file(f)); }
EXPORT(fwrite, shim_fwrite)
int shim_fseek(void* f, long o, int w) { return G(fseek)(map_file(f), o, w); }
EXPORT(fseek, shim_fseek)
int shim_fseeko(void* f, off_t o, int w) { return G(fseeko)(map_file(f), o, w); }
EXPORT(fseeko, shim_fseeko)
off_t shim_ftello(void* f) { return G(ftello)(map_file(f)); }
EXPORT(ftello, shim_ftello)
int shim_getc(void* f) { return G(getc)(map_file(f)); }
EXPORT(getc, shim_getc)
int shim_ungetc(int c, void* f) { return G(ungetc)(c, map_file(f)); }
EXPORT(ungetc, shim_ungetc)

// ---- bionic-only entry points ----------------------------------------------------------------
int* shim_errno(void) { return __errno_location(); }
EXPORT(__errno, shim_errno)
void shim_assert2(const char* file, int line, const char* func, const char* expr) {
  shim_fprintf(shim_stderr, "%s:%d: %s: assertion \"%s\" failed\n", file, line, func, expr);
  G(abort)();
}
EXPORT(__assert2, shim_assert2)
void shim_set_abort_message(const char* msg) { shim_fprintf(shim_stderr, "abort message: %s\n", msg); }
EXPORT(android_set_abort_message, shim_set_abort_message)
int shim_open_2(const char* path, int flags) { return G(open)(path, flags); }
EXPORT(__open_2, shim_open_2)
size_t shim_strlen_chk(const char* s, size_t n) {
  (void)n;
  return G(strlen)(s);
}
EXPORT(__strlen_chk, shim_strlen_chk)
char* shim_strncpy_chk2(char* d, const char* s, size_t n, size_t dn, size_t sn) {
  (void)dn;
  (void)sn;
  return G(strncpy)(d, s, n);
}
EXPORT(__strncpy_chk2, shim_strncpy_chk2)
int shim_vsnprintf_chk(char* b, size_t n, int flags, size_t bn, const char* fmt, va_list ap) {
  (void)flags;
  (void)bn;
  return G(vsnprintf)(b, n, fmt, ap);
}
EXPORT(__vsnprintf_chk, shim_vsnprintf_chk)
int shim_vsprintf_chk(char* b, int flags, size_t bn, const char* fmt, va_list ap) {
  (void)flags;
  (void)bn;
  return G(vsprintf)(b, fmt, ap);
}
EXPORT(__vsprintf_chk, shim_vsprintf_chk)
// bionic returns the POSIX int; glibc's default strerror_r is the GNU char* one.
extern int __xpg_strerror_r(int, char*, size_t);
int shim_strerror_r(int e, char* b, size_t n) { return __xpg_strerror_r(e, b, n); }
EXPORT(strerror_r, shim_strerror_r)

// bionic's sysconf names (libc/include/bits/sysconf.h) for the ones a C++ runtime asks for.
// SHIM_NPROC, when set, overrides the processor count (the thread count of rapidsnark's pool).
long shim_sysconf(int name) {
  switch (name) {
    case 0x27:
    case 0x28:
      return G(sysconf)(_SC_PAGESIZE);
    case 0x60:
    case 0x61: {
      const char* n = getenv("SHIM_NPROC");
      if (n != NULL && atoi(n) > 0) return atoi(n);
      return G(sysconf)(name == 0x60 ? _SC_NPROCESSORS_CONF : _SC_NPROCESSORS_ONLN);
    }
    default:
      shim_fprintf(shim_stderr, "bionic shim: sysconf(0x%x) is not mapped\n", name);
      errno = EINVAL;
      return -1;
  }
}
EXPORT(sysconf, shim_sysconf)

// Android's x86_64 long double is IEEE binary128, glibc's the x87 80-bit format: no honest
// forward exists, and the prover parses no long double.
static void no_long_double(void) {
  shim_fprintf(shim_stderr, "bionic shim: long double parsing is not supported\n");
  G(abort)();
}
void shim_strtold(void) { no_long_double(); }
EXPORT(strtold, shim_strtold)
void shim_strtold_l(void) { no_long_double(); }
EXPORT(strtold_l, shim_strtold_l)
void shim_wcstold(void) { no_long_double(); }
EXPORT(wcstold, shim_wcstold)

#else  // SHIM_LIBDL: bionic's libdl.so

// Exported as dl_iterate_phdr@@LIBC, so glibc's is looked up rather than called by name.
int shim_dl_iterate_phdr(int (*cb)(struct dl_phdr_info*, size_t, void*), void* data) {
  static __typeof__(&dl_iterate_phdr) glibc_fn;
  if (glibc_fn == NULL) {
    void* h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    glibc_fn = (__typeof__(&dl_iterate_phdr))dlsym(h != NULL ? h : RTLD_DEFAULT, "dl_iterate_phdr");
  }
  return glibc_fn(cb, data);
}
EXPORT(dl_iterate_phdr, shim_dl_iterate_phdr)

#endif
