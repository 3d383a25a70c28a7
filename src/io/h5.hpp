// io/h5.hpp — the thin layer between gsr and HDF5's C API: owning ids, a guard that
// silences HDF5's own error printing, typed attribute access and row-wise dataset I/O.
// Every failure becomes a gsr::Error(io) whose message names the file and the object.
#pragma once

#include <gsr/error.hpp>

#include "config/config.hpp"
#include "mpi/checked.hpp"

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gsr::io {

/// A collective file step: runs rank-local `body`, then, if any rank failed, every rank
/// throws: a failing rank its own error, the others the lowest failing rank's (errors
/// name the file and the object, so every rank reports the file's problem). Mesh I/O takes
/// no options, so it waits as GSR_TIMEOUT says (config/).
template <class Body>
void agreed(MPI_Comm comm, Body&& body) {
  detail::collectively(comm, detail::timeout_or_default({}), std::forward<Body>(body), detail::Report::same_everywhere);
}

/// Owns one HDF5 id (file, group, dataset, dataspace, datatype, attribute or property
/// list) and closes it with H5Idec_ref.
class Id {
public:
  Id() = default;
  explicit Id(hid_t id) noexcept : id_(id) {}
  ~Id() { reset(); }
  Id(Id&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Id& operator=(Id&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;

  hid_t get() const noexcept { return id_; }
  explicit operator bool() const noexcept { return id_ >= 0; }
  void reset() noexcept;
  /// Gives up ownership (after closing the id by hand, e.g. to check H5Fclose).
  hid_t release() noexcept { return std::exchange(id_, H5I_INVALID_HID); }

private:
  hid_t id_ = H5I_INVALID_HID;
};

/// While alive, HDF5 prints nothing on failure; its error stack is still recorded, and
/// last_hdf5_message() reads it.
class QuietHdf5 {
public:
  QuietHdf5();
  ~QuietHdf5();
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

private:
  H5E_auto2_t old_func_ = nullptr;
  void* old_data_ = nullptr;
};

/// The outermost non-empty description on HDF5's current error stack, i.e. that of the
/// failed API call ("unable to open file"); "" if there is none.
std::string last_hdf5_message();

/// Builds "file 'path': what" messages and throws them as gsr::Error(io).
class FileContext {
public:
  explicit FileContext(std::string path) : path_(std::move(path)) {}
  const std::string& path() const noexcept { return path_; }
  [[noreturn]] void fail(const std::string& what) const;
  /// fail() with last_hdf5_message() appended, for failed HDF5 calls.
  [[noreturn]] void fail_hdf5(const std::string& what) const;

private:
  std::string path_;
};

/// "dataset '/mesh/global_ids'": how messages name the dataset at `path`.
std::string dataset_name(const char* path);

/// Why a path that HDF5 cannot open is bad: missing, unreadable, not HDF5, or damaged.
std::string diagnose_unopenable(const std::string& path);

bool link_exists(hid_t location, const char* path);
bool is_dataset(hid_t location, const char* path);
bool is_group(hid_t location, const char* path);

/// Element type checks for datasets and attributes.
struct TypeInfo {
  H5T_class_t type_class = H5T_NO_CLASS;
  std::size_t size = 0;
  bool is_signed = false;
  // One of HDF5's standard integer or IEEE float types (either byte order). A damaged file
  // can declare an integer or float whose precision, offset or bit fields do not fit its
  // size, and HDF5's conversion then reads outside its buffers: never read such a type.
  bool standard = false;
  std::string describe() const;  // e.g. "64-bit signed integer", "32-bit float"
};
TypeInfo type_info(hid_t type);

/// Shape of a dataset or attribute's dataspace (empty for a scalar).
std::vector<hsize_t> shape_of(hid_t space);
std::string describe_shape(const std::vector<hsize_t>& shape);  // "[4, 9]" or "scalar"

// ---- attributes ---------------------------------------------------------------------
// `object` names the owner for messages ("group '/mesh'").
std::int64_t read_int_attribute(const FileContext& file, hid_t owner, const std::string& object, const char* name);
std::string read_string_attribute(const FileContext& file, hid_t owner, const std::string& object, const char* name);
/// At most `max_values` numbers, as a scalar or a one-dimensional array.
std::vector<double> read_double_array_attribute(const FileContext& file, hid_t owner, const std::string& object,
                                                const char* name, std::size_t max_values);
/// Whether `owner` has the attribute (false also when HDF5 cannot tell).
bool attribute_exists(hid_t owner, const char* name);

void write_int_attribute(const FileContext& file, hid_t owner, const char* name, std::int64_t value);
void write_string_attribute(const FileContext& file, hid_t owner, const char* name, const std::string& value);
void write_double_array_attribute(const FileContext& file, hid_t owner, const char* name,
                                  const std::vector<double>& values);

// ---- datasets, row by row ------------------------------------------------------------
/// A run of consecutive rows [first, first + count) of a dataset's first dimension.
struct RowRun {
  hsize_t first = 0;
  hsize_t count = 0;
};

/// The rows as runs: consecutive ascending rows share one run.
std::vector<RowRun> row_runs(const std::vector<std::int64_t>& rows);

/// Property lists for parallel files: file access through MPI-IO on `comm`, and collective
/// data transfer.
Id mpio_file_access(MPI_Comm comm);
Id collective_transfer();

/// Selects, in a dataspace of shape [rows, ...], the listed runs of whole rows (none if
/// the list is empty). Returns the number of values selected.
hsize_t select_rows(hid_t space, const std::vector<RowRun>& runs);

/// Reads (or writes) the listed row runs of `dataset` to (from) `buffer`, packed in row
/// order. `transfer` is the data transfer property list (collective for MPI-IO).
void read_rows(const FileContext& file, hid_t dataset, const std::string& name, hid_t memory_type,
               const std::vector<RowRun>& runs, void* buffer, hid_t transfer);
void write_rows(const FileContext& file, hid_t dataset, const std::string& name, hid_t memory_type,
                const std::vector<RowRun>& runs, const void* buffer, hid_t transfer);

}  // namespace gsr::io
