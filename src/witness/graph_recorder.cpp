// SPDX-License-Identifier: MIT OR Apache-2.0
// The trace of one calculation, and the witness graph made from it; see graph_recorder.hpp.
#include "witness/graph_recorder.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <new>
#include <optional>
#include <unordered_map>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "witness/calculation_memory.hpp"
#include "witness/circom_element.hpp"
#include "witness/element_marks.hpp"
#include "witness/field_functions.hpp"

extern "C" {
#include "circom_wasm_glue_abi.h"
}

namespace cuzk::witness {

namespace {

// A value the graph computes with: a node of the trace, or (with this bit) a constant's index.
using value_ref = uint32_t;
constexpr value_ref constant_bit = 0x80000000u;

constexpr uint32_t max_node = element_marks::max_node;

enum class node_kind : uint8_t { input, call, guard_nonzero, guard_zero, guard_equal };

struct node {
  node_kind kind;
  field_fn fn;
  value_ref a, b;  // input: a is the input value's index; guard_equal: b is a constant
};

template <class F>
class recorder final : public graph_recorder {
  using E = element<F>;
  static constexpr uint32_t granules = static_cast<uint32_t>(E::size / 4);  // 4-byte units of an element

 public:
  recorder(std::span<const uint32_t> prime, uint32_t witness_size, uint32_t shared, linear_memory memory,
           std::function<bool(uint64_t)> more_memory)
      : marks_(std::in_place, granules),
        prime_(prime.begin(), prime.end()),
        shared_(shared),
        memory_(memory),
        more_memory_(std::move(more_memory)),
        outputs_(witness_size, unset) {
    trace_.self = this;
    trace_.c.state = marks_->states();
    trace_.c.call = &recorder::on_call;
    nodes_.push_back({});  // node 0 is none
  }

  cuzk_trace* trace() noexcept override { return &trace_.c; }

  bool may_finish() const noexcept override { return failure_.empty() && !trace_.c.followed_load; }

  result<witness_graph> finish() override {
    assign_pending_input();
    if (out_of_memory_) return status(errc::resource_exhausted, failure_);
    if (!failure_.empty()) return status(errc::failed_precondition, failure_);
    if (trace_.c.followed_load)
      return status(errc::failed_precondition, "the circuit's own code read a value that depends on the inputs, at address " +
                                                   std::to_string(trace_.c.load_at));
    for (uint32_t w = 0; w < outputs_.size(); ++w)
      if (outputs_[w] == unset) return status(errc::failed_precondition, "wire " + std::to_string(w) + " was never read");
    marks_.reset();  // the marks are done with: the program is made from the nodes alone
    return compile();
  }

 private:
  static constexpr value_ref unset = 0xffffffffu;

  // The C struct first, so that the callback finds the recorder from it.
  struct traced {
    cuzk_trace c{};
    recorder* self = nullptr;
  };

  struct operand {
    value_ref ref = unset;  // unset: a constant whose value is not needed
    bool constant = false;
    element_marks::reading marks{};  // as it was before the call
    std::array<uint8_t, E::size> bytes{};
  };

  static void on_call(cuzk_trace* t, uint32_t code, uint32_t phase, uint32_t x0, uint32_t x1, uint32_t x2, uint32_t ret) {
    recorder* self = reinterpret_cast<traced*>(t)->self;
    if (!self->failure_.empty()) return;
    try {
      self->assign_pending_input();
      if (code == trace_input_event) return self->on_input(x0, x1, x2);
      if (code == trace_output_event) return self->on_output(x0);
      const field_function* f = field_function_of(static_cast<field_fn>(code));
      if (!f) return self->fail("an unknown field function (code " + std::to_string(code) + ")");
      if (phase == 0) return self->before(*f, x0, x1, x2);
      self->after(*f, x0, x1, x2, ret);
    } catch (const std::bad_alloc&) {
      self->fail("out of memory recording the trace");
    }
  }

  void fail(std::string why) {
    if (failure_.empty()) failure_ = std::move(why);
  }

  // The marks' granule of `at`, an address bytes() accepted.
  static uint32_t granule(uint32_t at) noexcept { return at >> 2; }

  const uint8_t* bytes(uint32_t at) {
    uint64_t size = 0;
    uint8_t* m = memory_.data(memory_.instance, &size);
    if ((at & 3) != 0 || !E::inside(size, at)) return nullptr;
    return m + at;
  }
  // Whether `count` elements from `at` lie inside the memory.
  bool inside(uint32_t at, uint32_t count) {
    uint64_t size = 0;
    memory_.data(memory_.instance, &size);
    return (at & 3) == 0 && uint64_t{at} + uint64_t{count} * E::size <= size;
  }

  // What the element at `at` holds: a constant, a followed node, or nothing the trace can use.
  bool classify(uint32_t at, operand& o) {
    const uint8_t* b = bytes(at);
    if (!b) {
      fail("a field element at a misaligned or out-of-bounds address (" + std::to_string(at) + ")");
      return false;
    }
    std::memcpy(o.bytes.data(), b, E::size);
    const element_marks::reading r = o.marks = marks_->read(granule(at));
    if (r.what == element_marks::holds::constant) {
      o.constant = true;
      o.ref = unset;
      return true;
    }
    if (r.what == element_marks::holds::followed) {
      o.constant = false;
      o.ref = r.node;
      return true;
    }
    fail(std::string(current_) + " read an element (at " + std::to_string(at) +
         ") that the circuit's own code wrote, or that is pieces of several");
    return false;
  }

  value_ref constant_of(const F& v) {
    const auto [it, added] = constant_index_.try_emplace(v.montgomery(), static_cast<uint32_t>(constants_.size()));
    if (added) {
      constants_.push_back(v);
      count_memory(constant_bytes);
    }
    return it->second | constant_bit;
  }

  // The memory the trace's values will hold, asked for before it is needed.
  void count_memory(uint64_t bytes) {
    counted_ += bytes;
    if (counted_ <= granted_ || !more_memory_ || !failure_.empty()) return;
    const uint64_t ask = std::max(recording_chunk_bytes, counted_ - granted_);
    if (more_memory_(ask)) {
      granted_ += ask;
      return;
    }
    out_of_memory_ = true;
    fail("no memory for the recording's next " + std::to_string(ask >> 20) + " MiB (its trace holds " +
         std::to_string(nodes_.size()) + " values, " + std::to_string(granted_ >> 20) + " MiB counted)");
  }
  value_ref ref_of(operand& o) {
    if (o.constant && o.ref == unset) o.ref = constant_of(E::load(o.bytes.data()));
    return o.ref;
  }

  uint32_t add_node(node n) {
    if (nodes_.size() > max_node) {
      fail("more than 2^29 values");
      return 0;
    }
    nodes_.push_back(n);
    count_memory(node_bytes);
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  void on_input(uint32_t msb, uint32_t lsb, uint32_t index) {
    const uint64_t hash = (uint64_t{msb} << 32) | lsb;
    if (!inputs_.empty() && inputs_.back().name_hash == hash && inputs_.back().count == index) {
      ++inputs_.back().count;
    } else if (index == 0) {
      inputs_.push_back({hash, 1, input_values_});
    } else {
      return fail("an input's values were set out of order");
    }
    const uint32_t n = add_node({node_kind::input, field_fn{}, input_values_++, 0});
    if (!n || !bytes(shared_)) return fail("the shared memory is not an element");
    marks_->follow(granule(shared_), n);
    input_pending_ = true;
  }

  void on_output(uint32_t wire) {
    current_ = "getWitness";
    if (wire >= outputs_.size()) return fail("a wire beyond the witness");
    operand o;
    if (!classify(shared_, o)) return;
    outputs_[wire] = ref_of(o);
    // The glue reads the wire's words next, through the circuit's own loads: the value is taken.
    marks_->set_stored(granule(shared_));
  }

  void before(const field_function& f, uint32_t x0, uint32_t x1, uint32_t x2) {
    current_ = f.name;
    switch (f.shape) {
      case field_shape::result_of_two:
        if (classify(x1, ops_[0])) classify(x2, ops_[1]);
        break;
      case field_shape::result_of_one:
        if (f.code == field_fn::copy) {
          save_marks(x1, 1);
        } else {
          classify(x1, ops_[0]);
        }
        break;
      case field_shape::in_place:
        save_marks(x0, 1);
        break;
      case field_shape::test_of_one:
        if (f.code == field_fn::to_int && input_pending_ && x0 == shared_) {
          skip_test_ = true;  // setInputSignal's short form of the input, checked by Fr_eqR next
          break;
        }
        skip_test_ = false;
        classify(x0, ops_[0]);
        break;
      case field_shape::test_of_two:
        if (f.code == field_fn::eq_r && input_pending_ && x1 == shared_) {
          skip_test_ = true;
          break;
        }
        skip_test_ = false;
        if (classify(x0, ops_[0])) classify(x1, ops_[1]);
        break;
      case field_shape::copy_n:
        save_marks(x1, x2);
        break;
    }
  }

  void after(const field_function& f, uint32_t x0, uint32_t x1, uint32_t x2, uint32_t ret) {
    if (!failure_.empty()) return;
    switch (f.shape) {
      case field_shape::result_of_two:
      case field_shape::result_of_one: {
        if (f.code == field_fn::copy) return restore_marks(x0, 1);
        const bool two = f.shape == field_shape::result_of_two;
        keep_unchanged(x1, ops_[0], x0);
        if (two) keep_unchanged(x2, ops_[1], x0);
        if (!bytes(x0)) return fail("a result at a misaligned or out-of-bounds address (" + std::to_string(x0) + ")");
        if (ops_[0].constant && (!two || ops_[1].constant)) return marks_->set_constant(granule(x0));
        const value_ref a = ref_of(ops_[0]);
        const value_ref b = two ? ref_of(ops_[1]) : a;
        const uint32_t n = add_node({node_kind::call, f.code, a, b});
        if (n) marks_->follow(granule(x0), n);
        return;
      }
      case field_shape::in_place:
        return restore_marks(x0, 1);  // the representation changed, the value did not
      case field_shape::copy_n:
        return restore_marks(x0, x2);
      case field_shape::test_of_one:
        if (skip_test_) return;
        keep_unchanged(x0, ops_[0], ~0u);
        return guard(f.code, x0, ops_[0], ret);
      case field_shape::test_of_two:
        if (skip_test_) {
          input_pending_ = false;
          // Equal: the short element setInputSignal stores (again, after this call) is the input;
          // else Fr_copy follows.
          if (ret != 0) {
            const uint8_t* in = bytes(shared_);
            if (!in) return fail("the shared memory is not an element");
            if (!bytes(x0)) return fail("setInputSignal's short input is not an element");
            input_at_ = x0;
            marks_->save(granule(shared_), granules, input_marks_);
            std::memcpy(input_bytes_.data(), in, E::size);
          }
          return;
        }
        keep_unchanged(x0, ops_[0], ~0u);
        keep_unchanged(x1, ops_[1], ~0u);
        guard(f.code, x0, ops_[0], ret);
        guard(f.code, x1, ops_[1], ret);
        return;
    }
  }

  // setInputSignal's short input, marked once its own stores are done (at the next call): where
  // it holds the input's value, it is the input.
  void assign_pending_input() {
    if (input_at_ == unset) return;
    const uint32_t at = input_at_;
    input_at_ = unset;
    const uint8_t* x = bytes(at);
    if (!x || !(E::load(x) == E::load(input_bytes_.data()))) return fail("setInputSignal stored another value than the input's");
    marks_->restore(granule(at), input_marks_);
  }

  // A test of a followed value: the replay must see what this run saw.
  void guard(field_fn code, uint32_t at, operand& o, uint32_t ret) {
    if (o.constant) return;
    if (code == field_fn::is_true) {
      add_node({ret ? node_kind::guard_nonzero : node_kind::guard_zero, code, o.ref, 0});
      return;
    }
    const uint8_t* b = bytes(at);
    if (!b) return fail("a tested element moved out of bounds");
    add_node({node_kind::guard_equal, code, o.ref, constant_of(E::load(b))});
  }

  // A field function may change an operand's representation in place (the wasm's own code does,
  // through its stores); where its value is the same, it is still the followed value.
  void keep_unchanged(uint32_t at, const operand& o, uint32_t result_at) {
    if (at == result_at) return;
    const element_marks::reading now = marks_->read(granule(at));
    if (now.what == o.marks.what && now.node == o.marks.node) return;
    const uint8_t* b = bytes(at);
    if (!b || !(E::load(b) == E::load(o.bytes.data()))) return;
    if (o.constant) {
      marks_->set_constant(granule(at));
    } else {
      marks_->follow(granule(at), o.marks.node);
    }
  }

  void save_marks(uint32_t from, uint32_t count) {
    if (!inside(from, count)) return fail("a copy from a misaligned or out-of-bounds address (" + std::to_string(from) + ")");
    marks_->save(granule(from), count * granules, saved_);
  }
  // The saved marks, as they were before the call, at `to` (a copy moves the marks with the bytes).
  void restore_marks(uint32_t to, uint32_t count) {
    if (!inside(to, count)) return fail("a copy to a misaligned or out-of-bounds address (" + std::to_string(to) + ")");
    if (saved_.granules != std::size_t{count} * granules) return fail("a copy's count changed");
    marks_->restore(granule(to), saved_);
  }

  // The program: the nodes the wires and guards need, in the trace's order, each value in a slot
  // that is reused after its last use.
  result<witness_graph> compile() {
    const std::size_t count = nodes_.size();
    std::vector<uint8_t> live(count, 0);
    // The wires of each node, as (node, wire) pairs in node order: a node's wires are written right
    // after it is computed.
    std::vector<std::pair<uint32_t, uint32_t>> node_wires;
    std::vector<uint32_t> constant_wires;
    for (uint32_t w = 0; w < outputs_.size(); ++w) {
      const value_ref r = outputs_[w];
      if (r & constant_bit) {
        constant_wires.push_back(w);
      } else {
        live[r] = 1;
        node_wires.emplace_back(r, w);
      }
    }
    std::sort(node_wires.begin(), node_wires.end());
    std::size_t next_wire = 0;
    const auto is_guard = [](const node& n) { return n.kind != node_kind::input && n.kind != node_kind::call; };
    for (std::size_t i = count; i-- > 1;) {
      const node& n = nodes_[i];
      if (is_guard(n)) live[i] = 1;
      if (!live[i] || n.kind == node_kind::input) continue;
      if (!(n.a & constant_bit)) live[n.a] = 1;
      if (n.kind != node_kind::guard_equal && !(n.b & constant_bit) && n.b != 0) live[n.b] = 1;
    }
    // Constants in use, renumbered into the first slots.
    std::vector<uint32_t> constant_slot(constants_.size(), unset);
    witness_graph g;
    g.prime = prime_;
    g.witness_size = static_cast<uint32_t>(outputs_.size());
    g.input_values = input_values_;
    g.inputs = inputs_;
    const uint32_t n32 = static_cast<uint32_t>(prime_.size());
    const auto use_constant = [&](value_ref r) {
      uint32_t& s = constant_slot[r & ~constant_bit];
      if (s == unset) {
        s = static_cast<uint32_t>(g.constants.size() / n32);
        const typename F::repr v = constants_[r & ~constant_bit].to_canonical();
        for (std::size_t i = 0; i < F::N; ++i) {
          g.constants.push_back(static_cast<uint32_t>(v.limb[i]));
          g.constants.push_back(static_cast<uint32_t>(v.limb[i] >> 32));
        }
      }
    };
    for (uint32_t w : constant_wires) use_constant(outputs_[w]);
    for (std::size_t i = 1; i < count; ++i) {
      if (!live[i] || nodes_[i].kind == node_kind::input) continue;
      if (nodes_[i].a & constant_bit) use_constant(nodes_[i].a);
      if (nodes_[i].b & constant_bit) use_constant(nodes_[i].b);
    }
    const uint32_t first_free = static_cast<uint32_t>(g.constants.size() / n32);

    // Each node's last use: the index of the last live node that reads it.
    std::vector<uint32_t> last_use(count, 0);
    for (uint32_t i = 1; i < count; ++i) {
      if (!live[i]) continue;
      last_use[i] = std::max(last_use[i], i);
      const node& n = nodes_[i];
      if (n.kind == node_kind::input) continue;
      if (!(n.a & constant_bit)) last_use[n.a] = i;
      if (n.kind != node_kind::guard_equal && !(n.b & constant_bit) && n.b != 0) last_use[n.b] = i;
    }

    // The program's exact length (an instruction per live node, one per wire), reserved: a vector
    // that grows by doubling holds its old and new arrays at once, up to 3x the program (49 MB for a
    // million wires).
    g.program.reserve(constant_wires.size() + node_wires.size() +
                      static_cast<std::size_t>(std::count(live.begin() + 1, live.end(), uint8_t{1})));
    std::vector<uint32_t> slot(count, unset), free_slots;
    uint32_t next = first_free;
    const auto slot_of = [&](value_ref r) { return (r & constant_bit) ? constant_slot[r & ~constant_bit] : slot[r]; };
    for (uint32_t w : constant_wires) g.program.push_back({graph_op::output, field_fn{}, 0, 0, slot_of(outputs_[w]), w});
    for (uint32_t i = 1; i < count; ++i) {
      if (!live[i]) continue;
      const node& n = nodes_[i];
      if (!is_guard(n)) {
        if (free_slots.empty()) {
          slot[i] = next++;
        } else {
          slot[i] = free_slots.back();
          free_slots.pop_back();
        }
      }
      switch (n.kind) {
        case node_kind::input: g.program.push_back({graph_op::input, field_fn{}, 0, slot[i], n.a, 0}); break;
        case node_kind::call: {
          graph_op op = graph_op::field_call;
          if (n.fn == field_fn::add) op = graph_op::add;
          if (n.fn == field_fn::sub) op = graph_op::sub;
          if (n.fn == field_fn::mul) op = graph_op::mul;
          if (n.fn == field_fn::neg) op = graph_op::neg;
          if (op == graph_op::field_call) ++g.field_calls;
          g.program.push_back({op, n.fn, 0, slot[i], slot_of(n.a), slot_of(n.b)});
          break;
        }
        case node_kind::guard_nonzero: g.program.push_back({graph_op::guard_nonzero, n.fn, 0, 0, slot_of(n.a), 0}); break;
        case node_kind::guard_zero: g.program.push_back({graph_op::guard_zero, n.fn, 0, 0, slot_of(n.a), 0}); break;
        case node_kind::guard_equal: g.program.push_back({graph_op::guard_equal, n.fn, 0, 0, slot_of(n.a), slot_of(n.b)}); break;
      }
      for (; next_wire < node_wires.size() && node_wires[next_wire].first == i; ++next_wire)
        g.program.push_back({graph_op::output, field_fn{}, 0, 0, slot[i], node_wires[next_wire].second});
      // Slots whose value is dead after this node.
      const auto release = [&](value_ref r) {
        if ((r & constant_bit) || r == 0 || last_use[r] != i || slot[r] == unset) return;
        free_slots.push_back(slot[r]);
        slot[r] = unset;
      };
      if (n.kind != node_kind::input) {
        release(n.a);
        if (n.b != n.a && n.kind != node_kind::guard_equal) release(n.b);
      }
      release(i);
    }
    g.slots = std::max(next, 1u);
    if (auto ok = g.check(); !ok) return status(errc::internal, "the witness graph made from the trace fails its check: " + ok.message());
    return g;
  }

  traced trace_;
  std::optional<element_marks> marks_;  // until finish()
  std::vector<uint32_t> prime_;
  uint32_t shared_;
  linear_memory memory_;
  std::function<bool(uint64_t)> more_memory_;
  uint64_t counted_ = 0, granted_ = 0;  // the values' memory: what they will hold, what was granted
  bool out_of_memory_ = false;
  // In pieces, not one array: growing never copies (and holds twice) the millions of nodes.
  std::deque<node> nodes_;
  std::vector<F> constants_;
  struct repr_hash {
    std::size_t operator()(const typename F::repr& r) const noexcept {
      std::size_t h = 0;
      for (uint64_t l : r.limb) h = h * 0x9e3779b97f4a7c15ull ^ l;
      return h;
    }
  };
  std::unordered_map<typename F::repr, uint32_t, repr_hash> constant_index_;
  std::vector<value_ref> outputs_;
  std::vector<graph_input> inputs_;
  uint32_t input_values_ = 0;
  bool input_pending_ = false;
  uint32_t input_at_ = unset;  // where setInputSignal stores a short input, until marked
  element_marks::snapshot input_marks_;
  std::array<uint8_t, E::size> input_bytes_{};
  std::string_view current_ = "the glue";  // the field function being recorded, for messages
  bool skip_test_ = false;
  std::array<operand, 2> ops_;
  element_marks::snapshot saved_;
  std::string failure_;
};


}  // namespace

std::unique_ptr<graph_recorder> graph_recorder::make(std::span<const uint32_t> prime, uint32_t witness_size,
                                                     uint32_t shared_element, linear_memory memory,
                                                     std::function<bool(uint64_t)> more_memory) {
  if (is_prime_of<bn254::fr>(prime))
    return std::make_unique<recorder<bn254::fr>>(prime, witness_size, shared_element, memory, std::move(more_memory));
  if (is_prime_of<bls12_381::fr>(prime))
    return std::make_unique<recorder<bls12_381::fr>>(prime, witness_size, shared_element, memory, std::move(more_memory));
  return nullptr;
}

}  // namespace cuzk::witness
