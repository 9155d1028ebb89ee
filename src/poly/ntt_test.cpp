// SPDX-License-Identifier: MIT OR Apache-2.0
// NTT and odd-coset tests, written once and run for the scalar fields of both curves.
//
// Oracles: the O(n^2) DFT out_j = sum_i a_i w^(ij) with w taken to powers directly, Horner
// evaluation of the interpolated polynomial at shift * omega^j, and known answers printed by
// ffjavascript (the field library under snarkjs): its roots Fr.w[k] and the H vector its exact
// prover sequence (ifft, batchApplyKey(1, inc), fft, a*b - c) gives on fixed inputs.
#include "poly/ntt.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "curves/per_curve_test.hpp"
#include "ff/roots_of_unity.hpp"
#include "poly/ntt_domain.hpp"
#include "poly/odd_coset.hpp"

namespace cuzk::poly {
namespace {

// ---- known answers from ffjavascript 0.3.x (tools/node): Fr.w[k], and compute_h at n = 16 -------
// Printed with node: `Fr.toString(Fr.w[k])` from buildBn128()/buildBls12381(), and for H the
// sequence of snarkjs's groth16_prove.js on a_i = i^2 + 1, b_i = 2i + 3, c_i = 7i + 11 (i < 16).
struct root_kat {
  std::size_t k;
  const char* value;
};

template <class Curve>
struct known;

template <>
struct known<bn254> {
  static constexpr std::array<root_kat, 9> roots = {{
      {0, "1"},
      {1, "21888242871839275222246405745257275088548364400416034343698204186575808495616"},
      {2, "21888242871839275217838484774961031246007050428528088939761107053157389710902"},
      {3, "19540430494807482326159819597004422086093766032135589407132600596362845576832"},
      {10, "3161067157621608152362653341354432744960400845131437947728257924963983317266"},
      {11, "1120550406532664055539694724667294622065367841900378087843176726913374367458"},
      {16, "421743594562400382753388642386256516545992082196004333756405989743524594615"},
      {27, "2082940218526944230311718225077035922214683169814847712455127909555749686340"},
      {28, "19103219067921713944291392827692070036145651957329286315305642004821462161904"},
  }};
  static constexpr std::array<const char*, 16> h16 = {
      "20789647082043989137752789770895236674371890844028389269745060799896046844411",
      "4838229824038573273780066228386591724425069133821668115754352458523631033742",
      "2828081655820215726590988029162861424966352601258043938807201180522556591965",
      "12596003625953794627475109767889776242931446516478644340455768191338522124906",
      "9710934744930464613406280315127015594053620292489862795179974501269583367053",
      "7929182708385956068657170890936969303059878602689225040122492122852181638362",
      "1108055139388861576153530939917720590998905483696564597177445190928355843351",
      "10933646422109150974287586283683864642160478334489437834587192856404518272126",
      "12673679468204967018638418715045710132259012029681853122450469889529921012165",
      "15329917536096504021064426101055376327595268801530097197242554008340816895890",
      "11075273689891806202874686690847677361829072263351552793726191159826466692630",
      "6608770316425797752821942915366375166665296550692209560092317852152858150612",
      "7448633014646798722782931925137127751081488184538925907530539239007361075325",
      "21556439824317916751291185240506200179732227303319373134226970248739929538416",
      "967574162990853207839889947349888919617281144725939498758747954127523854397",
      "6823630887629276880307836455492533584091262716120453260030151652570386545360",
  };
};

template <>
struct known<bls12_381> {
  static constexpr std::array<root_kat, 9> roots = {{
      {0, "1"},
      {1, "52435875175126190479447740508185965837690552500527637822603658699938581184512"},
      {2, "3465144826073652318776269530687742778270252468765361963008"},
      {3, "28761180743467419819834788392525162889723178799021384024940474588120723734663"},
      {10, "21328829733576761151404230261968752855781179864716879432436835449516750606329"},
      {11, "30450688096165933124094588052280452792793350252342406284806180166247113753719"},
      {16, "46605497109352149548364111935960392432509601054990529243781317021485154656122"},
      {31, "43599901455287962219281063402626541872197057165786841304067502694013639882090"},
      {32, "937917089079007706106976984802249742464848817460758522850752807661925904159"},
  }};
  static constexpr std::array<const char*, 16> h16 = {
      "13828013256567697149165421758272734080634946402150986179062461040125234033122",
      "19408020889139641869911382919975716129335601389520879495277562659153332282224",
      "29406145338225321192595918532989540060103575111894564523375687629985367269812",
      "551064979708199278170030168166962514131970382421900232840448697385113020152",
      "16245447099584577486136841546144491788742193229774369524434282857766451898939",
      "2941126434187769902009119456264368340011950273931296963240255554691334573974",
      "40037194672993610754664762305144046958239173448081651747061376175937591866404",
      "20764069510127586635785581928139721926804842822583406475506434667275780805455",
      "4980515482296130838062787769840337007790413737575970143702761874218327126706",
      "38898844041044665132058543320877236180287483396292862029612542146134397734235",
      "29049890566274199607956130323543532061512869613361497450680386151522143826641",
      "8932712712969523399552979851363775111251565568348011340021419380676322705480",
      "35390589107283461785426774289958749074093623260571770059041415670030508524067",
      "30639171260486741427944462641526855438935922704795682181881471131046410094242",
      "33150715940414460821140334578033346278967025217198383009245847738027674381458",
      "42827604934579746075553112167060347912990710945190233403241257525594078160072",
  };
};

// ---- oracles -------------------------------------------------------------------------------------
// out_j = scale * sum_i a_i w^(ij), n^2 multiplications.
template <class F>
std::vector<F> direct_dft(const std::vector<F>& a, const F& w, const F& scale = F::one()) {
  const std::size_t n = a.size();
  std::vector<F> out(n);
  F wj = F::one();
  for (std::size_t j = 0; j < n; ++j, wj *= w) {
    F acc = F::zero(), x = F::one();
    for (std::size_t i = 0; i < n; ++i, x *= wj) acc += a[i] * x;
    out[j] = acc * scale;
  }
  return out;
}

template <class F>
F horner(const std::vector<F>& coeffs, const F& x) {
  F acc = F::zero();
  for (std::size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

// Values of the polynomial interpolating `evals` on the domain, at shift * omega^j.
template <class Curve>
std::vector<typename Curve::fr> direct_coset(const ntt_domain<Curve>& d,
                                             const std::vector<typename Curve::fr>& evals,
                                             const typename Curve::fr& shift) {
  using fr = typename Curve::fr;
  const auto coeffs = direct_dft(evals, d.omega_inv(), d.size_inv());
  std::vector<fr> out(d.size());
  fr x = shift;
  for (std::size_t j = 0; j < d.size(); ++j, x *= d.omega()) out[j] = horner(coeffs, x);
  return out;
}

template <class F>
std::vector<F> bit_reversed(std::vector<F> v) {
  bit_reverse_permute(std::span<F>(v));
  return v;
}

template <class Curve>
class NttTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0x5EED ^ Curve::fr::modulus.limb[0]};

  std::vector<typename Curve::fr> random_vector(std::size_t n) {
    std::vector<typename Curve::fr> v(n);
    for (auto& x : v) x = Curve::fr::random(rng);
    return v;
  }
  static ntt_domain<Curve> domain(std::size_t log_n) {
    auto d = ntt_domain<Curve>::create(log_n);
    EXPECT_TRUE(d.is_ok()) << d.error().to_string();
    return std::move(d).value();
  }
  static std::vector<typename Curve::fr> run(const ntt_domain<Curve>& d, std::vector<typename Curve::fr> v,
                                             ntt_direction dir, ntt_order in = ntt_order::natural,
                                             ntt_order out = ntt_order::natural,
                                             thread_pool& pool = thread_pool::global()) {
    const status s = ntt(d, std::span<typename Curve::fr>(v), dir, in, out, pool);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    return v;
  }
  static std::size_t log2_of(std::size_t n) { return static_cast<std::size_t>(std::countr_zero(n)); }
};

TYPED_TEST_SUITE(NttTest, both_curves);

TYPED_TEST(NttTest, RootsMatchFfjavascript) {
  using fr = typename TypeParam::fr;
  for (const auto& [k, value] : known<TypeParam>::roots) {
    EXPECT_EQ(ff::root_of_unity<fr>(k, TypeParam::fr_generator).to_decimal(), value) << "k=" << k;
    if (k <= 16) {
      EXPECT_EQ(this->domain(k).omega().to_decimal(), value) << "k=" << k;
    }
  }
  // omega has order exactly n, and the domain's derived values are what they claim.
  for (std::size_t k : {1, 5, 12}) {
    const auto d = this->domain(k);
    EXPECT_TRUE(d.omega().pow(uint64_t{1} << k).is_one());
    EXPECT_EQ(d.omega().pow(uint64_t{1} << (k - 1)), -fr::one());
    EXPECT_TRUE((d.omega() * d.omega_inv()).is_one());
    EXPECT_TRUE((d.size_inv() * fr::from_uint(d.size())).is_one());
    ASSERT_EQ(d.twiddles().size(), d.size() / 2);
    for (std::size_t j = 0; j < d.twiddles().size(); ++j) ASSERT_EQ(d.twiddles()[j], d.omega().pow(j));
  }
}

TYPED_TEST(NttTest, DomainRejectsSizesPastTwoAdicity) {
  const auto d = ntt_domain<TypeParam>::create(TypeParam::fr::two_adicity + 1);
  ASSERT_FALSE(d.is_ok());
  EXPECT_EQ(d.error().code(), errc::invalid_argument);
}

TYPED_TEST(NttTest, MatchesDirectDftInEveryOrder) {
  for (std::size_t n : {1, 2, 4, 8, 64, 256, 1024}) {
    const auto d = this->domain(this->log2_of(n));
    const auto x = this->random_vector(n);
    const auto fwd = direct_dft(x, d.omega());
    const auto inv = direct_dft(x, d.omega_inv(), d.size_inv());
    const auto N = ntt_order::natural, R = ntt_order::bit_reversed;
    for (auto [dir, want] :
         {std::pair{ntt_direction::forward, &fwd}, std::pair{ntt_direction::inverse, &inv}}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (dir == ntt_direction::forward ? " forward" : " inverse"));
      EXPECT_EQ(this->run(d, x, dir, N, N), *want);
      EXPECT_EQ(this->run(d, x, dir, N, R), bit_reversed(*want));
      EXPECT_EQ(this->run(d, bit_reversed(x), dir, R, N), *want);
      EXPECT_EQ(this->run(d, bit_reversed(x), dir, R, R), bit_reversed(*want));
    }
  }
}

TYPED_TEST(NttTest, InverseUndoesForwardUpTo2To16) {
  const auto N = ntt_order::natural, R = ntt_order::bit_reversed;
  for (std::size_t k = 0; k <= 16; k += (k < 4 ? 1 : 3)) {
    const auto d = this->domain(k);
    const auto x = this->random_vector(d.size());
    SCOPED_TRACE("log n=" + std::to_string(k));
    EXPECT_EQ(this->run(d, this->run(d, x, ntt_direction::forward), ntt_direction::inverse), x);
    // The pairing a GPU pipeline uses: forward natural->bit-reversed, inverse bit-reversed->natural.
    EXPECT_EQ(this->run(d, this->run(d, x, ntt_direction::forward, N, R), ntt_direction::inverse, R, N), x);
    EXPECT_EQ(this->run(d, this->run(d, x, ntt_direction::inverse, N, R), ntt_direction::forward, R, N), x);
  }
}

TYPED_TEST(NttTest, IsLinear) {
  using fr = typename TypeParam::fr;
  const auto d = this->domain(12);
  const auto x = this->random_vector(d.size()), y = this->random_vector(d.size());
  const fr alpha = fr::random(this->rng);
  std::vector<fr> z(d.size());
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = alpha * x[i] + y[i];
  const auto fx = this->run(d, x, ntt_direction::forward), fy = this->run(d, y, ntt_direction::forward);
  const auto fz = this->run(d, z, ntt_direction::forward);
  for (std::size_t i = 0; i < z.size(); ++i) ASSERT_EQ(fz[i], alpha * fx[i] + fy[i]) << i;
}

TYPED_TEST(NttTest, ZeroAndDeltaVectors) {
  using fr = typename TypeParam::fr;
  const auto d = this->domain(10);
  const std::vector<fr> zero(d.size());
  EXPECT_EQ(this->run(d, zero, ntt_direction::forward), zero);
  EXPECT_EQ(this->run(d, zero, ntt_direction::inverse), zero);
  for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{777}, d.size() - 1}) {
    std::vector<fr> delta(d.size());
    delta[k] = fr::one();
    const auto f = this->run(d, delta, ntt_direction::forward);  // f_j = omega^(kj)
    const fr wk = d.omega().pow(k);
    fr want = fr::one();
    for (std::size_t j = 0; j < d.size(); ++j, want *= wk) ASSERT_EQ(f[j], want) << "k=" << k << " j=" << j;
  }
  const std::vector<fr> ones(d.size(), fr::one());
  std::vector<fr> e0(d.size());
  e0[0] = fr::one();
  EXPECT_EQ(this->run(d, ones, ntt_direction::inverse), e0);
}

TYPED_TEST(NttTest, ThreadCountsAndSchedulesAgree) {
  using fr = typename TypeParam::fr;
  thread_pool one(1), many(4);
  const auto d = this->domain(16);
  const auto x = this->random_vector(d.size());
  const auto want = this->run(d, x, ntt_direction::forward, ntt_order::natural, ntt_order::natural, one);
  EXPECT_EQ(this->run(d, x, ntt_direction::forward, ntt_order::natural, ntt_order::natural, many), want);
  // Small blocks, few rows and narrow tiles: several outer passes, in both directions and orders.
  const auto t = detail::tables_of(d);
  for (const detail::ntt_schedule s :
       {detail::ntt_schedule{6, 2, 1}, detail::ntt_schedule{7, 3, 4}, detail::ntt_schedule{10, 5, 8}}) {
    SCOPED_TRACE("schedule " + std::to_string(s.block_log) + "/" + std::to_string(s.max_rows_log) + "/" +
                 std::to_string(s.tile_columns));
    auto dif = x;
    detail::transform<true, false>(dif.data(), t, static_cast<const fr*>(nullptr), many, s);
    EXPECT_EQ(dif, bit_reversed(want));
    auto dit = bit_reversed(x);
    detail::transform<false, false>(dit.data(), t, static_cast<const fr*>(nullptr), one, s);
    EXPECT_EQ(dit, want);
    detail::transform<true, true>(dit.data(), t, &d.size_inv(), many, s);
    EXPECT_EQ(dit, bit_reversed(x));
    detail::transform<false, true>(dif.data(), t, &d.size_inv(), one, s);
    EXPECT_EQ(dif, x);
  }
  auto a1 = this->random_vector(d.size()), b1 = this->random_vector(d.size()),
       c1 = this->random_vector(d.size());
  auto a2 = a1, b2 = b1, c2 = c1;
  ASSERT_TRUE(compute_h(d, std::span<fr>(a1), std::span<fr>(b1), std::span<fr>(c1), one).is_ok());
  ASSERT_TRUE(compute_h(d, std::span<fr>(a2), std::span<fr>(b2), std::span<fr>(c2), many).is_ok());
  EXPECT_EQ(a1, a2);
}

TYPED_TEST(NttTest, SizeMismatchIsAnError) {
  const auto d = this->domain(4);
  auto v = this->random_vector(8);
  const status s = ntt(d, std::span(v), ntt_direction::forward);
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_NE(s.message().find("expected the domain size 16, found 8"), std::string::npos) << s.message();
}

// ---- odd coset ---------------------------------------------------------------------------------------

TYPED_TEST(NttTest, OddCosetShiftFollowsSnarkjs) {
  using fr = typename TypeParam::fr;
  const uint64_t g = TypeParam::fr_generator;
  constexpr std::size_t s = fr::two_adicity;
  for (std::size_t k : {std::size_t{0}, std::size_t{3}, std::size_t{10}, s - 1}) {
    EXPECT_EQ(*odd_coset_shift<fr>(k, g), ff::root_of_unity<fr>(k + 1, g)) << k;
  }
  // The largest domain has no omega_2n: snarkjs's Fr.shift = nqr^2 = 25.
  EXPECT_EQ(*odd_coset_shift<fr>(s, g), fr::from_uint(25));
  EXPECT_FALSE(odd_coset_shift<fr>(s + 1, g).is_ok());
  // The same rule on a small analogue (a field whose largest power-of-two domain is 2^3).
  EXPECT_EQ(*odd_coset_shift<fr>(3, g, 3), fr::from_uint(25));
  EXPECT_EQ(*odd_coset_shift<fr>(2, g, 3), ff::root_of_unity<fr>(3, g));
  EXPECT_FALSE(odd_coset_shift<fr>(4, g, 3).is_ok());
}

TYPED_TEST(NttTest, DistributePowers) {
  using fr = typename TypeParam::fr;
  thread_pool many(3);
  auto v = this->random_vector(10000);
  const auto x = v;
  const fr shift = fr::random(this->rng), first = fr::random(this->rng);
  distribute_powers(std::span<fr>(v), shift, first, many);
  fr p = first;
  for (std::size_t i = 0; i < v.size(); ++i, p *= shift) ASSERT_EQ(v[i], x[i] * p) << i;
}

TYPED_TEST(NttTest, CosetEvaluationMatchesDirectEvaluation) {
  using fr = typename TypeParam::fr;
  for (std::size_t k : {0, 1, 3, 6, 8}) {
    const auto d = this->domain(k);
    // The odd coset, the largest-size rule's 25 (as on its small analogue), and a random shift.
    for (const fr shift : {*odd_coset_shift<fr>(k, TypeParam::fr_generator), *odd_coset_shift<fr>(k, 5, k),
                           fr::random(this->rng)}) {
      const auto x = this->random_vector(d.size());
      auto got = x;
      ASSERT_TRUE(evaluate_on_coset(d, std::span<fr>(got), shift).is_ok());
      EXPECT_EQ(got, direct_coset(d, x, shift)) << "log n=" << k;
      // The natural-order way: inverse, distribute_powers, forward.
      auto alt = this->run(d, x, ntt_direction::inverse);
      distribute_powers(std::span<fr>(alt), shift);
      EXPECT_EQ(this->run(d, alt, ntt_direction::forward), got);
    }
  }
}

TYPED_TEST(NttTest, ComputeHMatchesDirectEvaluation) {
  using fr = typename TypeParam::fr;
  for (std::size_t k : {0, 2, 6}) {
    const auto d = this->domain(k);
    auto a = this->random_vector(d.size()), b = this->random_vector(d.size()),
         c = this->random_vector(d.size());
    const fr shift = *odd_coset_shift<fr>(k, TypeParam::fr_generator);
    const auto A = direct_coset(d, a, shift), B = direct_coset(d, b, shift), C = direct_coset(d, c, shift);
    ASSERT_TRUE(compute_h(d, std::span<fr>(a), std::span<fr>(b), std::span<fr>(c)).is_ok());
    for (std::size_t j = 0; j < d.size(); ++j)
      ASSERT_EQ(a[j], A[j] * B[j] - C[j]) << "log n=" << k << " j=" << j;
    // The coset really is the odd points of the 2n-domain: shift^n = omega_2n^n = -1.
    EXPECT_EQ(shift.pow(d.size()), -fr::one());
  }
}

TYPED_TEST(NttTest, ComputeHMatchesSnarkjsKnownAnswer) {
  using fr = typename TypeParam::fr;
  const auto d = this->domain(4);
  std::vector<fr> a(16), b(16), c(16);
  for (uint64_t i = 0; i < 16; ++i) {
    a[i] = fr::from_uint(i * i + 1);
    b[i] = fr::from_uint(2 * i + 3);
    c[i] = fr::from_uint(7 * i + 11);
  }
  ASSERT_TRUE(compute_h(d, std::span<fr>(a), std::span<fr>(b), std::span<fr>(c)).is_ok());
  for (std::size_t j = 0; j < 16; ++j) EXPECT_EQ(a[j].to_decimal(), known<TypeParam>::h16[j]) << j;
}

TYPED_TEST(NttTest, ComputeHRejectsMismatchedLengths) {
  using fr = typename TypeParam::fr;
  const auto d = this->domain(3);
  auto a = this->random_vector(8), b = this->random_vector(8), c = this->random_vector(4);
  const status s = compute_h(d, std::span<fr>(a), std::span<fr>(b), std::span<fr>(c));
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_NE(s.message().find("compute_h: c"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace cuzk::poly
