#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Generates src/ff/mont_x86_64.hpp: Montgomery multiplication, addition and subtraction for
4- and 6-limb moduli in x86-64 inline assembly (BMI2 mulx, ADX adcx/adox).

Why generated: the two interleaved carry chains of CIOS multiplication (adcx on CF, adox on OF)
cannot be expressed in C++; g++ lowers the __int128 version to ~1000 instructions with ~190 stack
spills for 6 limbs. The assembly is regular, so a generator keeps it short and reviewable.

Algorithm: CIOS with the "no carry" shortcut (the top limb of p is below 2^63 - 1), per outer
iteration i:
  T += a * b[i]                   (lows on the OF chain, highs on the CF chain, top word in A)
  m  = T[0] * (-p^-1) mod 2^64
  T  = (T + m * p) / 2^64         (word k = T[k+1] + lo(m p[k+1]) + hi(m p[k]) + carries)
A final conditional subtraction brings the result below p.

The kernels are always_inline: g++ sizes an asm statement by its line count and would otherwise
leave them out of line; a profile of the CPU MSM showed 59% of its time inside an out-of-line
mul_asm_4, call overhead included.

Usage, from the repository root:
  python3 scripts/gen_mont_x86_64.py > src/ff/mont_x86_64.hpp          regenerate the header
  python3 scripts/gen_mont_x86_64.py --check src/ff/mont_x86_64.hpp    fail if it is stale (CTest)
"""
import sys


def reduce_below_p(emit, regs):
    """Brings a value x < 2p held in `regs` below p and stores it to r: park x in r, subtract p
    in registers, and take the parked x back on borrow (x < p). Parking in r instead of a second
    register set keeps register use to n + 4, so the 6-limb case fits."""
    n = len(regs)
    for k in range(n):
        emit(f"movq {regs[k]}, {8 * k}(%[r])")
    for k in range(n):
        emit(f"{'subq' if k == 0 else 'sbbq'} {8 * k}(%[p]), {regs[k]}")
    for k in range(n):
        emit(f"cmovcq {8 * k}(%[r]), {regs[k]}")
    for k in range(n):
        emit(f"movq {regs[k]}, {8 * k}(%[r])")


def mul(n):
    t = [f"%[t{k}]" for k in range(n)]
    A, lo, hi = "%[A]", "%%rax", "%[hi]"
    out = []
    emit = out.append
    for i in range(n):
        emit(f"movq {8 * i}(%[b]), %%rdx")
        if i == 0:
            # T = a * b[0]
            emit("xorl %%eax, %%eax")
            emit(f"mulxq 0(%[a]), {t[0]}, {t[1]}")
            for j in range(1, n):
                dst_hi = t[j + 1] if j + 1 < n else A
                emit(f"mulxq {8 * j}(%[a]), {lo}, {dst_hi}")
                emit(f"adcxq {lo}, {t[j]}")
            emit("movl $0, %%eax")
            emit(f"adcxq %%rax, {A}")
        else:
            # T += a * b[i]
            emit(f"xorl %k[A], %k[A]")
            for j in range(n):
                emit(f"mulxq {8 * j}(%[a]), {lo}, {hi}")
                emit(f"adoxq {lo}, {t[j]}")
                emit(f"adcxq {hi}, {t[j + 1] if j + 1 < n else A}")
            emit("movl $0, %%eax")
            emit(f"adoxq %%rax, {A}")
        # m = T[0] * inv; T = (T + m p) >> 64
        emit(f"movq {t[0]}, %%rdx")
        emit("imulq %[inv], %%rdx")
        emit("xorl %%eax, %%eax")
        emit(f"mulxq 0(%[p]), {lo}, {hi}")
        emit(f"adcxq {t[0]}, {lo}")
        emit(f"movq {hi}, {t[0]}")
        for j in range(1, n):
            emit(f"adcxq {t[j]}, {t[j - 1]}")
            emit(f"mulxq {8 * j}(%[p]), {lo}, {t[j]}")
            emit(f"adoxq {lo}, {t[j - 1]}")
        emit("movl $0, %%eax")
        emit(f"adcxq %%rax, {t[n - 1]}")
        emit(f"adoxq {A}, {t[n - 1]}")
    # T < 2p.
    reduce_below_p(emit, t)
    body = "\n".join(f'      "{line}\\n\\t"' for line in out)
    outs = ", ".join(f'[t{k}] "=&r"(t[{k}])' for k in range(n))
    return f"""
// r = a * b * R^-1 mod p, fully reduced. {n} limbs. r may alias a or b (they are read before r
// is written).
[[gnu::always_inline]] inline void mul_asm_{n}(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p,
                        uint64_t inv) {{
  uint64_t t[{n}], A, hi;
  asm volatile(
{body}
      : {outs}, [A] "=&r"(A), [hi] "=&r"(hi)
      : [r] "r"(r), [a] "r"(a), [b] "r"(b), [p] "r"(p), [inv] "m"(inv)
      : "rax", "rdx", "cc", "memory");
}}
"""


def add(n):
    s = [f"%[s{k}]" for k in range(n)]
    out = []
    emit = out.append
    for k in range(n):
        emit(f"movq {8 * k}(%[a]), {s[k]}")
    for k in range(n):
        emit(f"{'addq' if k == 0 else 'adcq'} {8 * k}(%[b]), {s[k]}")
    # a + b < 2p.
    reduce_below_p(emit, s)
    body = "\n".join(f'      "{line}\\n\\t"' for line in out)
    outs = ", ".join([f'[s{k}] "=&r"(s[{k}])' for k in range(n)])
    return f"""
// r = a + b mod p for inputs < p (the spare top bit means a + b never carries out). {n} limbs.
[[gnu::always_inline]] inline void add_asm_{n}(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p) {{
  uint64_t s[{n}];
  asm volatile(
{body}
      : {outs}
      : [r] "r"(r), [a] "r"(a), [b] "r"(b), [p] "r"(p)
      : "cc", "memory");
}}
"""


def sub(n):
    s = [f"%[s{k}]" for k in range(n)]
    out = []
    emit = out.append
    for k in range(n):
        emit(f"movq {8 * k}(%[a]), {s[k]}")
    for k in range(n):
        emit(f"{'subq' if k == 0 else 'sbbq'} {8 * k}(%[b]), {s[k]}")
    # Park the difference in r and add p in registers; keep the parked value when the
    # subtraction did not borrow (m == 0). cmov leaves the flags of `test` intact.
    emit("sbbq %[m], %[m]")
    for k in range(n):
        emit(f"movq {s[k]}, {8 * k}(%[r])")
    for k in range(n):
        emit(f"{'addq' if k == 0 else 'adcq'} {8 * k}(%[p]), {s[k]}")
    emit("testq %[m], %[m]")
    for k in range(n):
        emit(f"cmovzq {8 * k}(%[r]), {s[k]}")
    for k in range(n):
        emit(f"movq {s[k]}, {8 * k}(%[r])")
    body = "\n".join(f'      "{line}\\n\\t"' for line in out)
    outs = ", ".join([f'[s{k}] "=&r"(s[{k}])' for k in range(n)])
    return f"""
// r = a - b mod p for inputs < p. {n} limbs.
[[gnu::always_inline]] inline void sub_asm_{n}(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p) {{
  uint64_t s[{n}], m;
  asm volatile(
{body}
      : {outs}, [m] "=&r"(m)
      : [r] "r"(r), [a] "r"(a), [b] "r"(b), [p] "r"(p)
      : "cc", "memory");
}}
"""


HEADER = """// SPDX-License-Identifier: MIT OR Apache-2.0
// GENERATED by scripts/gen_mont_x86_64.py -- edit the generator, not this file.
//
// x86-64 (BMI2 + ADX) kernels for the 4- and 6-limb Montgomery fields. See the generator's
// docstring for the algorithm and why it is assembly. mont_math.hpp dispatches to these at run
// time and keeps the portable constexpr versions for compile-time evaluation.
#pragma once

#include <cstdint>

#if defined(__x86_64__) && defined(__BMI2__) && defined(__ADX__)
#define CUZK_HAVE_MONT_X86_64 1

namespace cuzk::ff::mont::x86_64 {
"""

REGENERATE = "python3 scripts/gen_mont_x86_64.py > src/ff/mont_x86_64.hpp"


def generate():
    parts = [HEADER]
    for n in (4, 6):
        parts += [mul(n), add(n), sub(n)]
    parts.append("\n}  // namespace cuzk::ff::mont::x86_64\n\n#else\n#define CUZK_HAVE_MONT_X86_64 0\n#endif\n")
    return "".join(parts)


def check(path):
    """The CTest freshness check (src/ff/CMakeLists.txt): the header compiles whether or not it
    matches the generator, so an edit to one without the other would otherwise go unnoticed.
    Compares bytes, so a whitespace-only drift fails too. Exit status 0 when fresh, 1 when not."""
    want = generate().encode()
    with open(path, "rb") as f:
        have = f.read()
    if have == want:
        return 0
    have_lines, want_lines = have.split(b"\n"), want.split(b"\n")
    line = next((i for i, (h, w) in enumerate(zip(have_lines, want_lines), 1) if h != w),
                min(len(have_lines), len(want_lines)))
    sys.stderr.write(f"{path}: differs from what scripts/gen_mont_x86_64.py generates (first at line "
                     f"{line}); regenerate it from the repository root with: {REGENERATE}\n")
    return 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    if len(sys.argv) != 1:
        sys.exit(f"usage: {REGENERATE}\n"
                 "       python3 scripts/gen_mont_x86_64.py --check src/ff/mont_x86_64.hpp")
    sys.stdout.write(generate())
