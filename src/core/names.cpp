// core/names.cpp — names of the enums in gsr/types.hpp; a method's name is the one its
// registry line gives (exchange/registry.cpp).
#include "exchange/registry.hpp"

#include <gsr/types.hpp>

#include <vector>

namespace gsr {

// One switch per enum, of the same shape on purpose: the compiler checks each is complete.
std::string_view to_string(Domain d) noexcept {
  switch (d) {
#define GSR_DOMAIN_NAME(type, domain, name, gs_code, fortran_code) \
  case Domain::domain:                                             \
    return name;
    GSR_FOR_EACH_DOMAIN(GSR_DOMAIN_NAME)
#undef GSR_DOMAIN_NAME
  }
  return "unknown-domain";
}

std::string_view to_string(Op op) noexcept {
  switch (op) {
    case Op::add:
      return "add";
    case Op::mul:
      return "mul";
    case Op::min:
      return "min";
    case Op::max:
      return "max";
    case Op::bpr:
      return "bpr";
  }
  return "unknown-op";
}

std::string_view to_string(Method m) noexcept {
  if (m == Method::automatic) return "auto";
  const detail::MethodEntry* entry = detail::find_method(m);
  return entry ? entry->name : "unknown-method";
}

std::span<const Method> registered_methods() noexcept {
  // Read once: the registry is closed to additions from its first read on.
  static const std::vector<Method> codes = [] {
    std::vector<Method> out;
    for (const detail::MethodEntry& entry : detail::method_registry()) out.push_back(entry.method);
    return out;
  }();
  return codes;
}

std::optional<Method> method_from_string(std::string_view name) noexcept {
  if (name == to_string(Method::automatic)) return Method::automatic;
  for (const detail::MethodEntry& entry : detail::method_registry())
    if (name == entry.name) return entry.method;
  return std::nullopt;
}

std::size_t size_of(Domain d) noexcept {
  switch (d) {
#define GSR_DOMAIN_SIZE(type, domain, name, gs_code, fortran_code) \
  case Domain::domain:                                             \
    return sizeof(type);
    GSR_FOR_EACH_DOMAIN(GSR_DOMAIN_SIZE)
#undef GSR_DOMAIN_SIZE
  }
  return 0;
}

}  // namespace gsr
