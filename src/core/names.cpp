// core/names.cpp — names of the enums in gsr/types.hpp, the method registry's spelling.
#include <gsr/types.hpp>

namespace gsr {

std::string_view to_string(Domain d) noexcept {
  switch (d) {
    case Domain::float64: return "double";
    case Domain::float32: return "float";
    case Domain::int32: return "int32";
    case Domain::int64: return "int64";
  }
  return "unknown-domain";
}

std::string_view to_string(Op op) noexcept {
  switch (op) {
    case Op::add: return "add";
    case Op::mul: return "mul";
    case Op::min: return "min";
    case Op::max: return "max";
    case Op::bpr: return "bpr";
  }
  return "unknown-op";
}

std::string_view to_string(Method m) noexcept {
  switch (m) {
    case Method::automatic: return "auto";
    case Method::pairwise: return "pairwise";
    case Method::crystal_router: return "crystal_router";
    case Method::allreduce: return "allreduce";
  }
  return "unknown-method";
}

std::optional<Method> method_from_string(std::string_view name) noexcept {
  for (Method m : {Method::automatic, Method::pairwise, Method::crystal_router, Method::allreduce})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

std::size_t size_of(Domain d) noexcept {
  switch (d) {
    case Domain::float64: return sizeof(double);
    case Domain::float32: return sizeof(float);
    case Domain::int32: return sizeof(std::int32_t);
    case Domain::int64: return sizeof(std::int64_t);
  }
  return 0;
}

}  // namespace gsr
