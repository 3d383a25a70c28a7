// A file laid out against .clang-format on purpose: style_clang_format_catches_drift passes
// only if the check names it.
int   badly_spaced( int x ){ return x+1; }
