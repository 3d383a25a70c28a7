// io/h5.cpp — HDF5 helpers: owning ids, quiet error handling, attributes, row I/O.
#include "io/h5.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace gsr::io {

void Id::reset() noexcept {
  if (id_ >= 0 && H5Iis_valid(id_) > 0) H5Idec_ref(id_);
  id_ = H5I_INVALID_HID;
}

QuietHdf5::QuietHdf5() {
  H5Eget_auto2(H5E_DEFAULT, &old_func_, &old_data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietHdf5::~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, old_func_, old_data_); }

std::string last_hdf5_message() {
  std::string message;
  // Walking upward visits the API call's entry last, so the last non-empty one is kept.
  auto keep_last = [](unsigned, const H5E_error2_t* entry, void* data) -> herr_t {
    if (entry->desc && entry->desc[0] != '\0') *static_cast<std::string*>(data) = entry->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_last, &message);
  return message;
}

void FileContext::fail(const std::string& what) const { throw Error(ErrorCode::io, "file '" + path_ + "': " + what); }

void FileContext::fail_hdf5(const std::string& what) const {
  const std::string detail = last_hdf5_message();
  fail(detail.empty() ? what : what + " (HDF5: " + detail + ")");
}

std::string dataset_name(const char* path) { return "dataset '" + std::string(path) + "'"; }

std::string diagnose_unopenable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) return "no such file";
  if (fs::is_directory(status)) return "is a directory, not a mesh file";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be opened for reading (permissions?)";
  const auto size = fs::file_size(path, ec);
  if (size == 0) return "is empty, not an HDF5 file";
  // The HDF5 signature sits at offset 0, or 512, 1024, 2048, ... after a user block.
  static constexpr std::array<char, 8> signature = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  for (std::uintmax_t offset = 0; offset + signature.size() <= size; offset = offset == 0 ? 512 : offset * 2) {
    std::array<char, 8> bytes{};
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(bytes.data(), bytes.size())) break;
    if (bytes == signature) return "is an HDF5 file that HDF5 cannot open: damaged or truncated";
  }
  return "is not an HDF5 file (no HDF5 signature)";
}

bool link_exists(hid_t location, const char* path) { return H5Lexists(location, path, H5P_DEFAULT) > 0; }

static H5O_type_t object_type(hid_t location, const char* path) {
  H5O_info_t info;
  if (H5Oget_info_by_name(location, path, &info, H5P_DEFAULT) < 0) return H5O_TYPE_UNKNOWN;
  return info.type;
}

bool is_dataset(hid_t location, const char* path) { return object_type(location, path) == H5O_TYPE_DATASET; }
bool is_group(hid_t location, const char* path) { return object_type(location, path) == H5O_TYPE_GROUP; }

namespace {

/// H5Tequal compares every property (size, precision, offset, padding, order, sign, bit
/// fields), so a match means HDF5's conversions handle the type as designed.
bool is_standard_number(hid_t type) {
  const hid_t standard[] = {H5T_STD_I8LE,  H5T_STD_I8BE,   H5T_STD_U8LE,   H5T_STD_U8BE,   H5T_STD_I16LE,
                            H5T_STD_I16BE, H5T_STD_U16LE,  H5T_STD_U16BE,  H5T_STD_I32LE,  H5T_STD_I32BE,
                            H5T_STD_U32LE, H5T_STD_U32BE,  H5T_STD_I64LE,  H5T_STD_I64BE,  H5T_STD_U64LE,
                            H5T_STD_U64BE, H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE};
  return std::any_of(std::begin(standard), std::end(standard),
                     [type](hid_t candidate) { return H5Tequal(type, candidate) > 0; });
}

}  // namespace

TypeInfo type_info(hid_t type) {
  TypeInfo info;
  info.type_class = H5Tget_class(type);
  info.size = H5Tget_size(type);
  if (info.type_class == H5T_INTEGER) info.is_signed = H5Tget_sign(type) == H5T_SGN_2;
  info.standard = is_standard_number(type);
  return info;
}

std::string TypeInfo::describe() const {
  const std::string bits = std::to_string(size * 8) + "-bit ";
  const std::string layout = standard ? "" : " with a nonstandard bit layout";
  switch (type_class) {
    case H5T_INTEGER:
      return bits + (is_signed ? "signed integer" : "unsigned integer") + layout;
    case H5T_FLOAT:
      return bits + "float" + layout;
    case H5T_STRING:
      return "string";
    case H5T_COMPOUND:
      return "compound";
    case H5T_ARRAY:
      return "array";
    case H5T_ENUM:
      return "enum";
    default:
      return "unsupported type";
  }
}

std::vector<hsize_t> shape_of(hid_t space) {
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> shape(rank > 0 ? static_cast<std::size_t>(rank) : 0);
  if (rank > 0) H5Sget_simple_extent_dims(space, shape.data(), nullptr);
  return shape;
}

std::string describe_shape(const std::vector<hsize_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

// ---- attributes ---------------------------------------------------------------------

namespace {

std::string attribute_name(const std::string& object, const char* name) {
  return "attribute '" + std::string(name) + "' of " + object;
}

/// An attribute opened for reading, its type, its dataspace, and its name for messages.
struct OpenAttribute {
  std::string what;
  Id attribute;
  Id type;
  std::vector<hsize_t> shape;
};

OpenAttribute open_attribute(const FileContext& file, hid_t owner, const std::string& object, const char* name) {
  OpenAttribute open{attribute_name(object, name), Id(), Id(), {}};
  if (!attribute_exists(owner, name)) file.fail(open.what + ": missing");
  open.attribute = Id(H5Aopen(owner, name, H5P_DEFAULT));
  if (!open.attribute) file.fail_hdf5(open.what + ": cannot be opened");
  open.type = Id(H5Aget_type(open.attribute.get()));
  if (!open.type) file.fail_hdf5(open.what + ": cannot read its type");
  Id space(H5Aget_space(open.attribute.get()));
  const H5S_class_t space_class = space ? H5Sget_simple_extent_type(space.get()) : H5S_NO_CLASS;
  if (space_class != H5S_SCALAR && space_class != H5S_SIMPLE) file.fail(open.what + ": has no readable dataspace");
  open.shape = shape_of(space.get());
  return open;
}

/// A scalar or a one-dimensional array of at most `max_values` values; returns the count.
std::size_t check_small_array(const FileContext& file, const OpenAttribute& open, std::size_t max_values) {
  const std::vector<hsize_t>& shape = open.shape;
  if (shape.size() > 1 || (shape.size() == 1 && (shape[0] == 0 || shape[0] > max_values)))
    file.fail(open.what + ": has shape " + describe_shape(shape) + ", expected " +
              (max_values == 1 ? std::string("a single value") : "1 to " + std::to_string(max_values) + " values"));
  return shape.empty() ? 1 : static_cast<std::size_t>(shape[0]);
}

/// The attribute's type is a standard one of class `a` (or `b`), which HDF5 converts safely.
void check_number_type(const FileContext& file, const OpenAttribute& open, H5T_class_t a, H5T_class_t b,
                       const char* expected) {
  const TypeInfo info = type_info(open.type.get());
  if ((info.type_class != a && info.type_class != b) || !info.standard)
    file.fail(open.what + ": has type " + info.describe() + ", expected " + expected);
}

}  // namespace

bool attribute_exists(hid_t owner, const char* name) { return H5Aexists(owner, name) > 0; }

std::int64_t read_int_attribute(const FileContext& file, hid_t owner, const std::string& object, const char* name) {
  const OpenAttribute open = open_attribute(file, owner, object, name);
  check_number_type(file, open, H5T_INTEGER, H5T_INTEGER, "an integer");
  check_small_array(file, open, 1);
  long long value = 0;
  if (H5Aread(open.attribute.get(), H5T_NATIVE_LLONG, &value) < 0) file.fail_hdf5(open.what + ": cannot be read");
  return value;
}

namespace {

// Longer than any value the format uses; a damaged size must not become an allocation.
constexpr std::size_t max_string_attribute = 4096;

std::string read_variable_string(const FileContext& file, const OpenAttribute& open) {
  Id memory_type(H5Tcopy(H5T_C_S1));
  H5Tset_size(memory_type.get(), H5T_VARIABLE);
  char* text = nullptr;
  if (H5Aread(open.attribute.get(), memory_type.get(), &text) < 0) file.fail_hdf5(open.what + ": cannot be read");
  std::string value = text ? std::string(text, strnlen(text, max_string_attribute)) : std::string();
  H5free_memory(text);
  return value;
}

std::string read_fixed_string(const FileContext& file, const OpenAttribute& open) {
  const std::size_t size = H5Tget_size(open.type.get());
  if (size == 0 || size > max_string_attribute)
    file.fail(open.what + ": is a string of " + std::to_string(size) + " bytes, expected 1 to " +
              std::to_string(max_string_attribute));
  std::vector<char> text(size + 1, '\0');
  Id memory_type(H5Tcopy(H5T_C_S1));
  H5Tset_size(memory_type.get(), size);
  if (H5Aread(open.attribute.get(), memory_type.get(), text.data()) < 0) file.fail_hdf5(open.what + ": cannot be read");
  return std::string(text.data(), std::strlen(text.data()));
}

}  // namespace

std::string read_string_attribute(const FileContext& file, hid_t owner, const std::string& object, const char* name) {
  const OpenAttribute open = open_attribute(file, owner, object, name);
  if (H5Tget_class(open.type.get()) != H5T_STRING)
    file.fail(open.what + ": has type " + type_info(open.type.get()).describe() + ", expected a string");
  check_small_array(file, open, 1);
  return H5Tis_variable_str(open.type.get()) > 0 ? read_variable_string(file, open) : read_fixed_string(file, open);
}

std::vector<double> read_double_array_attribute(const FileContext& file, hid_t owner, const std::string& object,
                                                const char* name, std::size_t max_values) {
  const OpenAttribute open = open_attribute(file, owner, object, name);
  check_number_type(file, open, H5T_FLOAT, H5T_INTEGER, "numbers");
  std::vector<double> values(check_small_array(file, open, max_values));
  if (H5Aread(open.attribute.get(), H5T_NATIVE_DOUBLE, values.data()) < 0)
    file.fail_hdf5(open.what + ": cannot be read");
  return values;
}

namespace {

void write_attribute(const FileContext& file, hid_t owner, const char* name, hid_t file_type, hid_t memory_type,
                     hid_t space, const void* data) {
  Id attribute(H5Acreate2(owner, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute || H5Awrite(attribute.get(), memory_type, data) < 0)
    file.fail_hdf5("attribute '" + std::string(name) + "': cannot be written");
}

}  // namespace

void write_int_attribute(const FileContext& file, hid_t owner, const char* name, std::int64_t value) {
  Id space(H5Screate(H5S_SCALAR));
  const long long v = value;
  write_attribute(file, owner, name, H5T_STD_I32LE, H5T_NATIVE_LLONG, space.get(), &v);
}

void write_string_attribute(const FileContext& file, hid_t owner, const char* name, const std::string& value) {
  Id space(H5Screate(H5S_SCALAR));
  Id type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), value.size() + 1);
  H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
  write_attribute(file, owner, name, type.get(), type.get(), space.get(), value.c_str());
}

void write_double_array_attribute(const FileContext& file, hid_t owner, const char* name,
                                  const std::vector<double>& values) {
  const hsize_t count = values.size();
  Id space(H5Screate_simple(1, &count, nullptr));
  write_attribute(file, owner, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space.get(), values.data());
}

// ---- datasets, row by row ------------------------------------------------------------

std::vector<RowRun> row_runs(const std::vector<std::int64_t>& rows) {
  std::vector<RowRun> runs;
  for (const std::int64_t r : rows) {
    const auto row = static_cast<hsize_t>(r);
    if (!runs.empty() && runs.back().first + runs.back().count == row)
      ++runs.back().count;
    else
      runs.push_back({row, 1});
  }
  return runs;
}

Id mpio_file_access(MPI_Comm comm) {
  Id access(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL);
  return access;
}

Id collective_transfer() {
  Id transfer(H5Pcreate(H5P_DATASET_XFER));
  H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE);
  return transfer;
}

hsize_t select_rows(hid_t space, const std::vector<RowRun>& runs) {
  const std::vector<hsize_t> shape = shape_of(space);
  hsize_t row_values = 1;
  for (std::size_t d = 1; d < shape.size(); ++d) row_values *= shape[d];
  H5Sselect_none(space);
  std::vector<hsize_t> start(shape.size(), 0), count(shape);
  hsize_t rows = 0;
  for (const RowRun& run : runs) {
    if (run.count == 0) continue;
    start[0] = run.first;
    count[0] = run.count;
    H5Sselect_hyperslab(space, H5S_SELECT_OR, start.data(), nullptr, count.data(), nullptr);
    rows += run.count;
  }
  return rows * row_values;
}

namespace {

// Memory holds the selected values packed; a rank with nothing to move still takes part
// in the (collective) transfer with empty selections.
template <class Transfer>
void transfer_rows(const FileContext& file, hid_t dataset, const std::string& name, const std::vector<RowRun>& runs,
                   const char* verb, Transfer&& transfer) {
  Id file_space(H5Dget_space(dataset));
  if (!file_space) file.fail_hdf5(name + ": cannot read its dataspace");
  const hsize_t values = select_rows(file_space.get(), runs);
  const hsize_t memory_size = std::max<hsize_t>(values, 1);
  Id memory_space(H5Screate_simple(1, &memory_size, nullptr));
  if (values == 0) H5Sselect_none(memory_space.get());
  if (transfer(memory_space.get(), file_space.get()) < 0) file.fail_hdf5(name + ": cannot be " + verb);
}

}  // namespace

void read_rows(const FileContext& file, hid_t dataset, const std::string& name, hid_t memory_type,
               const std::vector<RowRun>& runs, void* buffer, hid_t transfer_list) {
  static double scratch;  // a valid address for ranks that read nothing
  transfer_rows(file, dataset, name, runs, "read", [&](hid_t memory_space, hid_t file_space) {
    return H5Dread(dataset, memory_type, memory_space, file_space, transfer_list, buffer ? buffer : &scratch);
  });
}

void write_rows(const FileContext& file, hid_t dataset, const std::string& name, hid_t memory_type,
                const std::vector<RowRun>& runs, const void* buffer, hid_t transfer_list) {
  static const double scratch = 0;
  transfer_rows(file, dataset, name, runs, "written", [&](hid_t memory_space, hid_t file_space) {
    return H5Dwrite(dataset, memory_type, memory_space, file_space, transfer_list, buffer ? buffer : &scratch);
  });
}

}  // namespace gsr::io
