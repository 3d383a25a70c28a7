// twin_method.hpp — "twin", an exchange method the library does not have, which a test
// program adds to the registry by linking twin_method.cpp: pairwise's plan and messages
// under a code and a name of their own, with model terms of its own (one collective per
// call more than pairwise, which it does not post: the model's prediction tells the terms
// were read from its entry, not guessed from its routing).
#pragma once

#include "exchange/registry.hpp"

#include <gsr/types.hpp>

namespace twin {

/// Above the public codes (gs.h's 0-4): a code no C or Fortran caller has.
inline constexpr gsr::Method method = static_cast<gsr::Method>(9);
inline constexpr const char* name = "twin";
inline constexpr gsr::detail::MethodTerms terms{.collectives = 1, .posts_receives_early = true};

}  // namespace twin
