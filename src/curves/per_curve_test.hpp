// SPDX-License-Identifier: MIT OR Apache-2.0
// Typed test suites that run once per curve: every suite is written once as a template and
// instantiated for both curves, and this is the one list of those curves, so a curve added to the
// project reaches every such suite from here. A suite with no fixture state declares itself as
//   template <class C> using my_test = per_curve_test<C>;
//   TYPED_TEST_SUITE(my_test, both_curves);
// and one with state gives its own fixture class to TYPED_TEST_SUITE with both_curves.
#pragma once

#include <gtest/gtest.h>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk {

using both_curves = ::testing::Types<bn254, bls12_381>;

template <class Curve>
class per_curve_test : public ::testing::Test {};

}  // namespace cuzk
