// Fixture for the layer check: setup/ must not include from core/, which is above it.
#include "core/handle_state.hpp"
