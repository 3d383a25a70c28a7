// bad_meshes.cpp — the corpus: a good 2-D order-2 mesh of 4 elements written with HDF5's
// own API (not gsr's writer), then one defect applied per file.
#include "bad_meshes.hpp"

#include "tools/box.hpp"

#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

namespace gsr::testing {
namespace {

constexpr int elements = 4, nodes = 9, dim = 2;

void check(herr_t status, const char* what) {
  if (status < 0) throw std::runtime_error(std::string("bad_meshes: ") + what + " failed");
}

hid_t check_id(hid_t id, const char* what) {
  if (id < 0) throw std::runtime_error(std::string("bad_meshes: ") + what + " failed");
  return id;
}

void int_attribute(hid_t owner, const char* name, long long value) {
  H5Adelete(owner, name);  // replacing: ignore "not there"
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attribute = check_id(H5Acreate2(owner, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT), name);
  check(H5Awrite(attribute, H5T_NATIVE_LLONG, &value), name);
  H5Aclose(attribute);
  H5Sclose(space);
}

void string_attribute(hid_t owner, const char* name, const std::string& value) {
  H5Adelete(owner, name);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size() + 1);
  hid_t attribute = check_id(H5Acreate2(owner, name, type, space, H5P_DEFAULT, H5P_DEFAULT), name);
  check(H5Awrite(attribute, type, value.c_str()), name);
  H5Aclose(attribute);
  H5Tclose(type);
  H5Sclose(space);
}

/// Creates (replacing) dataset `path` of file type `type` and shape `shape`, filled from
/// `data` converted from `memory_type` (which must hold at least the product of shape).
void dataset(hid_t file, const char* path, hid_t type, std::vector<hsize_t> shape, hid_t memory_type,
             const void* data) {
  if (H5Lexists(file, path, H5P_DEFAULT) > 0) H5Ldelete(file, path, H5P_DEFAULT);
  hid_t space = H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
  hid_t set = check_id(H5Dcreate2(file, path, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), path);
  hsize_t count = 1;
  for (const hsize_t s : shape) count *= s;
  if (count > 0) check(H5Dwrite(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), path);
  H5Dclose(set);
  H5Sclose(space);
}

struct GoodData {
  std::vector<std::int64_t> ids;
  std::vector<double> coordinates;
  std::vector<std::int32_t> partition{0, 0, 1, 1};
};

GoodData good_data() {
  const tools::Box box({.dim = dim, .elements = {2, 2, 1}, .order = 2});
  GoodData data;
  data.ids.resize(elements * nodes);
  data.coordinates.resize(elements * nodes * dim);
  for (int e = 0; e < elements; ++e) {
    box.element_ids(e, std::span(data.ids).subspan(e * nodes, nodes));
    box.element_coordinates(e, std::span(data.coordinates).subspan(e * nodes * dim, nodes * dim));
  }
  return data;
}

using Defect = std::function<void(hid_t file, GoodData& data)>;

void write_with(const std::string& path, const Defect& defect) {
  GoodData data = good_data();
  // Strong close: the defects open groups without closing them; H5Fclose closes them all.
  hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fclose_degree(access, H5F_CLOSE_STRONG);
  hid_t file = check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), path.c_str());
  H5Pclose(access);
  hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
  string_attribute(root, "format", "gsr-mesh");
  int_attribute(root, "version", 1);
  hid_t mesh = check_id(H5Gcreate2(file, "/mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "/mesh");
  int_attribute(mesh, "dim", dim);
  int_attribute(mesh, "order", 2);
  dataset(file, "/mesh/global_ids", H5T_STD_I64LE, {elements, nodes}, H5T_NATIVE_INT64, data.ids.data());
  dataset(file, "/mesh/coordinates", H5T_IEEE_F64LE, {elements, nodes, dim}, H5T_NATIVE_DOUBLE,
          data.coordinates.data());
  dataset(file, "/mesh/partition", H5T_STD_I32LE, {elements}, H5T_NATIVE_INT32, data.partition.data());
  if (defect) defect(file, data);
  H5Gclose(mesh);
  H5Gclose(root);
  check(H5Fclose(file), "H5Fclose");
}

hid_t group(hid_t file, const char* path) { return H5Gopen2(file, path, H5P_DEFAULT); }

/// A 32-bit integer attribute of which only 16 bits are significant: a valid HDF5 type, but
/// not a standard one (a damaged file declares such layouts, and worse).
void narrow_int_attribute(hid_t owner, const char* name, long long value) {
  H5Adelete(owner, name);
  hid_t type = H5Tcopy(H5T_STD_I32LE);
  check(H5Tset_precision(type, 16), "H5Tset_precision");
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attribute = check_id(H5Acreate2(owner, name, type, space, H5P_DEFAULT, H5P_DEFAULT), name);
  check(H5Awrite(attribute, H5T_NATIVE_LLONG, &value), name);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Tclose(type);
}

/// /mesh/global_ids of `rows` elements in chunks of one element, of which only the first
/// `ids.size() / nodes` are written.
void unwritten_rows_dataset(hid_t file, const std::vector<std::int64_t>& ids, hsize_t rows) {
  H5Ldelete(file, "/mesh/global_ids", H5P_DEFAULT);
  const hsize_t shape[2] = {rows, nodes}, chunk[2] = {1, nodes};
  const hsize_t written[2] = {ids.size() / nodes, nodes}, origin[2] = {0, 0};
  hid_t space = H5Screate_simple(2, shape, nullptr);
  hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
  check(H5Pset_chunk(properties, 2, chunk), "H5Pset_chunk");
  hid_t set = check_id(H5Dcreate2(file, "/mesh/global_ids", H5T_STD_I64LE, space, H5P_DEFAULT, properties, H5P_DEFAULT),
                       "unwritten global_ids");
  hid_t memory = H5Screate_simple(2, written, nullptr);
  check(H5Sselect_hyperslab(space, H5S_SELECT_SET, origin, nullptr, written, nullptr), "H5Sselect_hyperslab");
  check(H5Dwrite(set, H5T_NATIVE_INT64, memory, space, H5P_DEFAULT, ids.data()), "H5Dwrite");
  H5Sclose(memory);
  H5Dclose(set);
  H5Pclose(properties);
  H5Sclose(space);
}

struct Case {
  BadMesh mesh;
  std::function<void(const std::string& path)> write;
};

Case defect_case(BadMesh mesh, Defect defect) {
  return {std::move(mesh), [defect](const std::string& path) { write_with(path, defect); }};
}

/// A partition dataset that is wrong only when the file is read by partition (at 2 ranks);
/// `ranks` > 0 also sets the dataset's "ranks" attribute.
Case partition_case(const std::string& name, const std::string& problem, std::vector<std::int32_t> partition,
                    int ranks = 0) {
  return defect_case({name, "dataset '/mesh/partition'", problem, /*by_partition=*/true},
                     [partition, ranks](hid_t f, GoodData& d) {
                       d.partition = partition;
                       dataset(f, "/mesh/partition", H5T_STD_I32LE, {elements}, H5T_NATIVE_INT32, d.partition.data());
                       if (ranks > 0) {
                         hid_t set = H5Dopen2(f, "/mesh/partition", H5P_DEFAULT);
                         int_attribute(set, "ranks", ranks);
                         H5Dclose(set);
                       }
                     });
}

/// Ids that load but are wrong in content: the loader accepts them, gsr-check must not.
Case content_case(const std::string& name, const std::string& object, const std::string& problem,
                  std::function<void(std::vector<std::int64_t>& ids)> change) {
  return defect_case({name, object, problem, /*by_partition=*/false, /*loads=*/true}, [change](hid_t f, GoodData& d) {
    change(d.ids);
    dataset(f, "/mesh/global_ids", H5T_STD_I64LE, {elements, nodes}, H5T_NATIVE_INT64, d.ids.data());
  });
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> c;
    c.push_back({{"missing", "", "no such file"}, [](const std::string&) {}});
    c.push_back({{"not_hdf5", "", "not an HDF5 file"},
                 [](const std::string& path) { std::ofstream(path) << "element 1: nodes 1 2 3 4 5 6 7 8 9\n"; }});
    c.push_back({{"empty", "", "is empty"}, [](const std::string& path) { std::ofstream{path}; }});
    c.push_back({{"truncated", "", "damaged or truncated"}, [](const std::string& path) {
                   write_with(path, {});
                   std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
                 }});
    c.push_back(defect_case({"no_format", "attribute 'format' of group '/'", "missing"},
                            [](hid_t f, GoodData&) { H5Adelete(group(f, "/"), "format"); }));
    c.push_back(defect_case({"wrong_format", "attribute 'format' of group '/'", "expected 'gsr-mesh'"},
                            [](hid_t f, GoodData&) { string_attribute(group(f, "/"), "format", "nek-mesh"); }));
    c.push_back(defect_case({"version_2", "attribute 'version' of group '/'", "reads version 1"},
                            [](hid_t f, GoodData&) { int_attribute(group(f, "/"), "version", 2); }));
    c.push_back(defect_case({"no_version", "attribute 'version' of group '/'", "missing"},
                            [](hid_t f, GoodData&) { H5Adelete(group(f, "/"), "version"); }));
    c.push_back(defect_case({"no_mesh_group", "group '/mesh'", "missing"},
                            [](hid_t f, GoodData&) { H5Ldelete(f, "/mesh", H5P_DEFAULT); }));
    c.push_back(defect_case({"no_dim", "attribute 'dim' of group '/mesh'", "missing"},
                            [](hid_t f, GoodData&) { H5Adelete(group(f, "/mesh"), "dim"); }));
    c.push_back(defect_case({"dim_4", "attribute 'dim' of group '/mesh'", "expected 2 or 3"},
                            [](hid_t f, GoodData&) { int_attribute(group(f, "/mesh"), "dim", 4); }));
    c.push_back(defect_case({"dim_string", "attribute 'dim' of group '/mesh'", "expected an integer"},
                            [](hid_t f, GoodData&) { string_attribute(group(f, "/mesh"), "dim", "2"); }));
    c.push_back(defect_case({"dim_nonstandard_integer", "attribute 'dim' of group '/mesh'", "nonstandard bit layout"},
                            [](hid_t f, GoodData&) { narrow_int_attribute(group(f, "/mesh"), "dim", 2); }));
    c.push_back(defect_case({"order_0", "attribute 'order' of group '/mesh'", "expected 1 to"},
                            [](hid_t f, GoodData&) { int_attribute(group(f, "/mesh"), "order", 0); }));
    c.push_back(defect_case({"order_3", "dataset '/mesh/global_ids'", "expected [E, 16]"},
                            [](hid_t f, GoodData&) { int_attribute(group(f, "/mesh"), "order", 3); }));
    c.push_back(defect_case({"no_global_ids", "dataset '/mesh/global_ids'", "missing"},
                            [](hid_t f, GoodData&) { H5Ldelete(f, "/mesh/global_ids", H5P_DEFAULT); }));
    c.push_back(
        defect_case({"global_ids_group", "dataset '/mesh/global_ids'", "is not a dataset"}, [](hid_t f, GoodData&) {
          H5Ldelete(f, "/mesh/global_ids", H5P_DEFAULT);
          H5Gclose(H5Gcreate2(f, "/mesh/global_ids", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        }));
    c.push_back(defect_case(
        {"global_ids_float", "dataset '/mesh/global_ids'", "has type 64-bit float"}, [](hid_t f, GoodData& d) {
          dataset(f, "/mesh/global_ids", H5T_IEEE_F64LE, {elements, nodes}, H5T_NATIVE_INT64, d.ids.data());
        }));
    c.push_back(defect_case(
        {"global_ids_int32", "dataset '/mesh/global_ids'", "has type 32-bit signed integer"}, [](hid_t f, GoodData& d) {
          dataset(f, "/mesh/global_ids", H5T_STD_I32LE, {elements, nodes}, H5T_NATIVE_INT64, d.ids.data());
        }));
    c.push_back(
        defect_case({"global_ids_1d", "dataset '/mesh/global_ids'", "expected 2 dimensions"}, [](hid_t f, GoodData& d) {
          dataset(f, "/mesh/global_ids", H5T_STD_I64LE, {elements * nodes}, H5T_NATIVE_INT64, d.ids.data());
        }));
    c.push_back(defect_case({"global_ids_shape", "dataset '/mesh/global_ids'", "has shape [6, 6], expected [E, 9]"},
                            [](hid_t f, GoodData& d) {
                              dataset(f, "/mesh/global_ids", H5T_STD_I64LE, {6, 6}, H5T_NATIVE_INT64, d.ids.data());
                            }));
    c.push_back(defect_case({"zero_elements", "dataset '/mesh/global_ids'", "(E = 0)"}, [](hid_t f, GoodData& d) {
      dataset(f, "/mesh/global_ids", H5T_STD_I64LE, {0, nodes}, H5T_NATIVE_INT64, d.ids.data());
    }));
    c.push_back(defect_case({"coordinates_int", "dataset '/mesh/coordinates'", "expected 64-bit float"}, [](hid_t f,
                                                                                                            GoodData&
                                                                                                                d) {
      dataset(f, "/mesh/coordinates", H5T_STD_I64LE, {elements, nodes, dim}, H5T_NATIVE_DOUBLE, d.coordinates.data());
    }));
    c.push_back(defect_case({"coordinates_3d_in_2d", "dataset '/mesh/coordinates'", "expected [4, 9, 2]"}, [](hid_t f,
                                                                                                              GoodData&
                                                                                                                  d) {
      d.coordinates.resize(elements * nodes * 3);
      dataset(f, "/mesh/coordinates", H5T_IEEE_F64LE, {elements, nodes, 3}, H5T_NATIVE_DOUBLE, d.coordinates.data());
    }));
    c.push_back(defect_case(
        {"coordinates_rows", "dataset '/mesh/coordinates'", "has shape [3, 9, 2]"}, [](hid_t f, GoodData& d) {
          dataset(f, "/mesh/coordinates", H5T_IEEE_F64LE, {3, nodes, dim}, H5T_NATIVE_DOUBLE, d.coordinates.data());
        }));
    c.push_back(defect_case(
        {"partition_float", "dataset '/mesh/partition'", "expected 32-bit signed integer"}, [](hid_t f, GoodData& d) {
          dataset(f, "/mesh/partition", H5T_IEEE_F32LE, {elements}, H5T_NATIVE_INT32, d.partition.data());
        }));
    c.push_back(
        defect_case({"partition_shape", "dataset '/mesh/partition'", "has shape [2]"}, [](hid_t f, GoodData& d) {
          dataset(f, "/mesh/partition", H5T_STD_I32LE, {2}, H5T_NATIVE_INT32, d.partition.data());
        }));
    c.push_back(defect_case(
        {"periods_length", "attribute 'periods' of group '/mesh'", "expected dim = 2"}, [](hid_t f, GoodData&) {
          const double periods[3] = {2, 0, 0};
          const hsize_t three = 3;
          hid_t space = H5Screate_simple(1, &three, nullptr);
          hid_t a = H5Acreate2(group(f, "/mesh"), "periods", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
          H5Awrite(a, H5T_NATIVE_DOUBLE, periods);
          H5Aclose(a);
          H5Sclose(space);
        }));
    c.push_back(partition_case("partition_out_of_range", "assigned to rank 7, outside", {0, 1, 7, 1}));
    c.push_back(partition_case("partition_negative", "assigned to rank -1", {0, -1, 1, 1}));
    c.push_back(partition_case("partition_for_4_ranks", "made for 4 ranks", {0, 1, 2, 3}, /*ranks=*/4));
    c.push_back(partition_case("partition_for_1_rank", "made for 1 rank", {0, 0, 0, 0}));
    // Shapes that claim more than the file stores: HDF5 would read the rest as fill values.
    c.push_back(defect_case({"global_ids_unwritten_chunks", "dataset '/mesh/global_ids'",
                             "8 chunks of [1, 9], but the file stores only 4 of them"},
                            [](hid_t f, GoodData& d) {
                              H5Ldelete(f, "/mesh/coordinates", H5P_DEFAULT);
                              H5Ldelete(f, "/mesh/partition", H5P_DEFAULT);
                              unwritten_rows_dataset(f, d.ids, 2 * elements);
                            }));
    c.push_back(defect_case({"coordinates_never_written", "dataset '/mesh/coordinates'",
                             "has shape [4, 9, 2], 576 bytes, but the file stores only 0 bytes"},
                            [](hid_t f, GoodData&) {
                              H5Ldelete(f, "/mesh/coordinates", H5P_DEFAULT);
                              const hsize_t shape[3] = {elements, nodes, dim};
                              hid_t space = H5Screate_simple(3, shape, nullptr);
                              H5Dclose(check_id(H5Dcreate2(f, "/mesh/coordinates", H5T_IEEE_F64LE, space, H5P_DEFAULT,
                                                           H5P_DEFAULT, H5P_DEFAULT),
                                                "unwritten coordinates"));
                              H5Sclose(space);
                            }));
    c.push_back(content_case("ids_disagree_with_coordinates", "coordinates", "differ by more than",
                             [](std::vector<std::int64_t>& ids) {
                               std::swap(ids[0], ids[8]);  // element 0: two corners trade ids
                             }));
    c.push_back(content_case("zero_id", "ids", "zero ids", [](std::vector<std::int64_t>& ids) { ids[4] = 0; }));
    c.push_back(
        content_case("shared_interior_node", "element-interior entries", "shared", [](std::vector<std::int64_t>& ids) {
          ids[nodes + 4] = ids[4];  // element 1's centre takes element 0's centre id
        }));
    return c;
  }();
  return all;
}

}  // namespace

const std::vector<BadMesh>& bad_meshes() {
  static const std::vector<BadMesh> meshes = [] {
    std::vector<BadMesh> list;
    for (const Case& c : cases()) list.push_back(c.mesh);
    return list;
  }();
  return meshes;
}

void write_bad_meshes(const std::string& directory) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // the defects provoke HDF5 complaints by design
  std::filesystem::create_directories(directory);
  for (const Case& c : cases()) {
    const std::string path = directory + "/" + c.mesh.name + ".h5";
    std::filesystem::remove(path);
    c.write(path);
  }
}

void write_good_mesh(const std::string& path) { write_with(path, {}); }

void write_huge_mesh(const std::string& path) {
  write_with(path, [](hid_t f, GoodData&) {
    H5Ldelete(f, "/mesh/coordinates", H5P_DEFAULT);
    H5Ldelete(f, "/mesh/partition", H5P_DEFAULT);
    H5Ldelete(f, "/mesh/global_ids", H5P_DEFAULT);
    const hsize_t shape[2] = {huge_elements, nodes}, chunk[2] = {1024, nodes};
    hid_t space = H5Screate_simple(2, shape, nullptr);
    hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
    check(H5Pset_chunk(properties, 2, chunk), "H5Pset_chunk");
    H5Dclose(check_id(H5Dcreate2(f, "/mesh/global_ids", H5T_STD_I64LE, space, H5P_DEFAULT, properties, H5P_DEFAULT),
                      "huge global_ids"));
    H5Pclose(properties);
    H5Sclose(space);
  });
}

void write_mesh_with_id(const std::string& path, int element, int node, std::int64_t id) {
  write_with(path, [=](hid_t f, GoodData& d) {
    d.ids[static_cast<std::size_t>(element * nodes + node)] = id;
    dataset(f, "/mesh/global_ids", H5T_STD_I64LE, {elements, nodes}, H5T_NATIVE_INT64, d.ids.data());
  });
}

void write_mesh_with_coordinate(const std::string& path, int element, int node, int axis, double value) {
  write_with(path, [=](hid_t f, GoodData& d) {
    d.coordinates[static_cast<std::size_t>((element * nodes + node) * dim + axis)] = value;
    dataset(f, "/mesh/coordinates", H5T_IEEE_F64LE, {elements, nodes, dim}, H5T_NATIVE_DOUBLE, d.coordinates.data());
  });
}

}  // namespace gsr::testing
