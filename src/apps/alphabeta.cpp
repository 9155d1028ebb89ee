#include "apps/alphabeta.hpp"

#include "pairing/pairing.hpp"

namespace cuzk::apps {

template <class C>
formats::verification_key<C> with_alphabeta(formats::verification_key<C> vk) {
  using ojson = nlohmann::ordered_json;
  const auto gt = pairing::pairing<C>(vk.alpha1, vk.beta2);
  const auto fq2_json = [](const auto& x) { return ojson::array({x.c0.to_decimal(), x.c1.to_decimal()}); };
  const auto fq6_json = [&](const auto& x) { return ojson::array({fq2_json(x.c0), fq2_json(x.c1), fq2_json(x.c2)}); };
  vk.alphabeta_12 = ojson::array({fq6_json(gt.c0), fq6_json(gt.c1)});
  return vk;
}

template formats::verification_key<bn254> with_alphabeta<bn254>(formats::verification_key<bn254>);
template formats::verification_key<bls12_381> with_alphabeta<bls12_381>(formats::verification_key<bls12_381>);

}  // namespace cuzk::apps
