# gsr::scatter and gsr::gather (include/gsr/scatter_gather.hpp) at P = 1..7: results equal
# to MPI_Scatterv/MPI_Gatherv at every root, the binomial tree's counts, bad arguments.
gsr_add_mpi_gtest(transfer_scatter_gather SOURCES scatter_gather_test.cpp RANKS 1 2 3 4 5 6 7 TIMEOUT 180)
# Their errors (docs/errors.md, E-SG-*), C++ and C, with the bad argument on one rank.
gsr_add_mpi_gtest(transfer_scatter_gather_errors SOURCES scatter_gather_errors_test.cpp RANKS 1 2 3 TIMEOUT 120)
target_include_directories(transfer_scatter_gather_errors PRIVATE ${PROJECT_SOURCE_DIR}/tests/errors)
target_compile_definitions(transfer_scatter_gather_errors PRIVATE GSR_ERRORS_DOC="${transfer_errors_doc}")
