# gsr::scatter and gsr::gather (include/gsr/scatter_gather.hpp) at P = 1..7: results equal
# to MPI_Scatterv/MPI_Gatherv at every root, the binomial tree's counts, bad arguments.
gsr_add_mpi_gtest(transfer_scatter_gather SOURCES scatter_gather_test.cpp RANKS 1 2 3 4 5 6 7 TIMEOUT 180)
