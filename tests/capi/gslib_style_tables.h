/* gslib_style_tables.h — the two-element example of docs/concepts.md (Tables 1, 2, 3 and 4,
 * the add rows and the min/max rows used), typed in as plain C for the gslib-style programs
 * gslib_style.c and gslib_style.cpp; tests/support/reference_tables.hpp holds the same tables
 * for the gtest suites. Entries 0-8 are element 1, 9-17 element 2; a run on P ranks gives rank
 * r the entries [18r/P, 18(r+1)/P). */
#ifndef GSR_TEST_GSLIB_STYLE_TABLES_H
#define GSR_TEST_GSLIB_STYLE_TABLES_H

#define SEED_N 18

static const long long seed_id[SEED_N] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 10, 11, 6, 12, 13, 9, 14, 15};
static const long long seed_id_asym[SEED_N] = {1, 2, -3, 4, 5, 6, 7, 8, -9, 3, 10, 11, -6, 12, 13, 9, 14, 15};
static const double seed_u[SEED_N] = {1.0, 1.5, 2.0, 2.0, 0.8, 0.4, 0.5, 0.1, 2.5,
                                      1.0, 0.3, 0.9, 1.2, 1.2, 2.1, 0.8, 0.3, 0.7};
/* Table 2 (id, symmetric): add, min and max. */
static const double seed_add[SEED_N] = {1.0, 1.5, 3.0, 2.0, 0.8, 1.6, 0.5, 0.1, 3.3,
                                        3.0, 0.3, 0.9, 1.6, 1.2, 2.1, 3.3, 0.3, 0.7};
static const double seed_min[SEED_N] = {1.0, 1.5, 1.0, 2.0, 0.8, 0.4, 0.5, 0.1, 0.8,
                                        1.0, 0.3, 0.9, 0.4, 1.2, 2.1, 0.8, 0.3, 0.7};
static const double seed_max[SEED_N] = {1.0, 1.5, 2.0, 2.0, 0.8, 1.2, 0.5, 0.1, 2.5,
                                        2.0, 0.3, 0.9, 1.2, 1.2, 2.1, 2.5, 0.3, 0.7};
/* Tables 3 and 4 (id_asym), add: transpose = 0 and transpose = 1. */
static const double seed_asym_add_t0[SEED_N] = {1.0, 1.5, 1.0, 2.0, 0.8, 0.4, 0.5, 0.1, 0.8,
                                                1.0, 0.3, 0.9, 0.4, 1.2, 2.1, 0.8, 0.3, 0.7};
static const double seed_asym_add_t1[SEED_N] = {1.0, 1.5, 2.0, 2.0, 0.8, 1.6, 0.5, 0.1, 2.5,
                                                3.0, 0.3, 0.9, 1.2, 1.2, 2.1, 3.3, 0.3, 0.7};

#endif
