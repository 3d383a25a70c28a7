// tools/gsr_mesh.cpp — the gsr-mesh command: writes gsr mesh files (HDF5 + XDMF sidecar).
//
//   gsr-mesh box --dim 2 --elements 4,3 --order 4 [--periodic x] [--deform] [--partition P] -o box.h5
//   gsr-mesh two-element -o two_element.h5
//   mpiexec -n 2 gsr-mesh import ethier.re2 --order 7 -o ethier.h5
//
// box and two-element are serial: the writer streams the mesh slab by slab, so memory stays
// O(slab). import runs on any number of ranks, each holding its block of elements
// (docs/mesh-import.md).
#include <gsr/handle.hpp>
#include <gsr/import.hpp>

#include "tools/box.hpp"
#include "tools/outputs.hpp"
#include "tools/progress.hpp"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

namespace {

/// Refuses, before anything is computed or written, a mesh or sidecar path that cannot be
/// written or that is the other's (`-o box.xmf` would have its sidecar replace it).
void check_outputs(const std::string& output, bool sidecar) {
  const std::string problem = gsr::tools::output_problem(
      {{"-o", output}, {"its XDMF sidecar", sidecar ? gsr::xdmf_path(output) : std::string()}});
  if (!problem.empty()) throw gsr::Error(gsr::ErrorCode::invalid_argument, problem + "; nothing was written");
}

std::array<bool, 3> parse_axes(const std::vector<std::string>& names) {
  std::array<bool, 3> axes{};
  for (const std::string& name : names) {
    if (name == "x")
      axes[0] = true;
    else if (name == "y")
      axes[1] = true;
    else if (name == "z")
      axes[2] = true;
    else
      throw CLI::ValidationError("--periodic", "axis '" + name + "' is not one of x, y, z");
  }
  return axes;
}

/// The box subcommand's options, as parsed.
struct BoxArguments {
  gsr::tools::BoxSpec spec;
  std::vector<std::int64_t> elements;
  std::vector<std::string> periodic;
  bool no_coordinates = false;
  std::string output;
};

CLI::App* add_box_command(CLI::App& app, BoxArguments& args) {
  CLI::App* box = app.add_subcommand("box", "a structured box of spectral elements with GLL nodes");
  gsr::tools::BoxSpec& spec = args.spec;
  box->add_option("--dim", spec.dim, "2 or 3")->required()->check(CLI::IsMember({2, 3}));
  box->add_option("--elements", args.elements, "elements per axis: NX,NY[,NZ]")->required()->delimiter(',');
  box->add_option("--order", spec.order, "polynomial order N (N+1 nodes per axis)")
      ->required()
      ->check(CLI::Range(1, gsr::tools::BoxSpec::max_order));
  box->add_option("--periodic", args.periodic, "periodic axes, e.g. x or x,z")->delimiter(',');
  box->add_flag("--deform", spec.deform, "apply a smooth curvilinear deformation");
  box->add_option("--partition", spec.partition_ranks, "also write a partition for P ranks")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  box->add_flag("--no-coordinates", args.no_coordinates, "omit /mesh/coordinates (and the XDMF sidecar)");
  box->add_option("-o,--output", args.output, "mesh file to write (FILE.h5)")->required();
  return box;
}

/// Completes the spec from the options, writes the box and says what was written.
void write_box_file(BoxArguments args) {
  gsr::tools::BoxSpec& spec = args.spec;
  if (args.elements.size() != static_cast<std::size_t>(spec.dim))
    throw CLI::ValidationError("--elements", "give " + std::to_string(spec.dim) + " counts for a " +
                                                 std::to_string(spec.dim) + "-D box, got " +
                                                 std::to_string(args.elements.size()));
  for (std::size_t d = 0; d < args.elements.size(); ++d) spec.elements[d] = args.elements[d];
  spec.periodic = parse_axes(args.periodic);
  spec.coordinates = !args.no_coordinates;
  spec.validate();
  check_outputs(args.output, spec.coordinates);
  // Only on a terminal, so logs and pipes stay clean.
  gsr::tools::ProgressBar bar(gsr::tools::stderr_is_terminal(), "elements");
  gsr::tools::write_box(spec, args.output, std::ref(bar));
  std::cout << "gsr-mesh: wrote " << args.output << ": " << spec.dim << "-D box, " << spec.element_count()
            << " elements of order " << spec.order << ", " << spec.node_count() << " distinct ids";
  if (spec.partition_ranks > 0) std::cout << ", partition for " << spec.partition_ranks << " ranks";
  if (spec.coordinates) std::cout << "; sidecar " << gsr::xdmf_path(args.output);
  std::cout << "\n";
}

/// The import subcommand's options, as parsed.
struct ImportArguments {
  std::string input, output, format = "auto", vertex_file;
  bool no_vertex_file = false;
  gsr::ImportOptions options;
};

CLI::App* add_import_command(CLI::App& app, ImportArguments& args) {
  CLI::App* import =
      app.add_subcommand("import",
                         "a Nek5000 .re2 or Gmsh .msh mesh, its GLL nodes numbered at order N (docs/mesh-import.md); "
                         "runs under mpiexec at any rank count");
  import->add_option("input", args.input, "the mesh to import (CASE.re2 or MESH.msh)")->required();
  import->add_option("-o,--output", args.output, "mesh file to write (FILE.h5)")->required();
  import->add_option("--order", args.options.order, "polynomial order N (N+1 nodes per axis)")
      ->required()
      ->check(CLI::Range(1, gsr::tools::BoxSpec::max_order));
  import->add_option("--format", args.format, "input format: re2, msh or auto (from the extension)")
      ->check(CLI::IsMember({"auto", "re2", "msh"}));
  import->add_option("--vertex-file", args.vertex_file,
                     ".re2: the .co2 or .ma2 with the corners' vertex ids (default: CASE.co2 or CASE.ma2 beside it)");
  import->add_flag("--no-vertex-file", args.no_vertex_file,
                   ".re2: ignore any .co2/.ma2 and match corners by coordinates");
  import
      ->add_option("--tolerance", args.options.tolerance,
                   "corners closer than this fraction of their shortest edge are one vertex (default 0.1)")
      ->check(CLI::Range(1e-12, 0.49));
  return import;
}

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(seconds < 10 ? 3 : 1) << seconds << " s";
  return text.str();
}

void print_summary(const gsr::ImportSummary& s, const std::string& output, int ranks) {
  std::ostream& out = std::cout;
  out << "gsr-mesh: imported " << s.input << " (" << s.format << ") on " << ranks << (ranks == 1 ? " rank" : " ranks")
      << "; wrote " << output << " and its sidecar " << gsr::xdmf_path(output) << "\n";
  const std::int64_t nodes = s.dim == 3 ? std::int64_t{s.order + 1} * (s.order + 1) * (s.order + 1)
                                        : std::int64_t{s.order + 1} * (s.order + 1);
  out << "  dimension       " << s.dim << "\n";
  out << "  elements        " << s.elements;
  if (s.fluid_elements != s.elements)
    out << " (fluid " << s.fluid_elements << ", solid " << s.elements - s.fluid_elements << ")";
  out << "\n  order           " << s.order << " (" << nodes << " nodes per element)\n";
  out << "  vertices        " << s.vertices << " (" << s.vertex_source << ")\n";
  out << "  edges           " << s.edges << "\n";
  if (s.dim == 3) out << "  faces           " << s.faces << "\n";
  out << "  global ids      " << s.ids << "\n";
  out << "  curved sides    " << s.curved_sides << "\n";
  out << "  periodic pairs  " << s.periodic_face_pairs << " pairs of faces\n";
  out << "  boundary faces  ";
  if (s.boundary.empty()) out << "none";
  for (std::size_t i = 0; i < s.boundary.size(); ++i) {
    const gsr::BoundaryCount& b = s.boundary[i];
    if (i > 0) out << "\n                  ";
    out << "field " << b.field + 1 << ": " << b.faces << " with tag " << b.tag;
    if (!b.kind.empty()) out << " (" << b.kind << ")";
    if (!b.name.empty()) out << " \"" << b.name << "\"";
  }
  out << "\n";
  if (s.open_faces > 0)
    out << "  open faces      " << s.open_faces << " faces neither shared nor on a tagged boundary\n";
  out << "  steps          ";
  double total = 0;
  for (const gsr::ImportStep& step : s.steps) {
    out << " " << step.name << " " << seconds_text(step.seconds) << ";";
    total += step.seconds;
  }
  out << " total " << seconds_text(total) << "\n";
  for (const std::string& warning : s.warnings) out << "gsr-mesh: warning: " << warning << "\n";
}

/// Runs the import on every rank; rank 0 prints. Returns the exit code, the same everywhere.
int run_import(ImportArguments args) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    // Every rank checks the paths (a rank may see another file system); any rank's problem
    // stops them all before the import's collective steps.
    std::string problem = gsr::tools::output_problem(
        {{"-o", args.output}, {"its XDMF sidecar", gsr::xdmf_path(args.output)}}, {{"the input", args.input}});
    if (gsr::agree_max(problem.empty() ? 0 : 1, MPI_COMM_WORLD) != 0) {
      if (problem.empty()) problem = "-o '" + args.output + "': another rank cannot write it";
      throw gsr::Error(gsr::ErrorCode::invalid_argument, problem + "; nothing was written");
    }
    args.options.format = args.format == "re2"   ? gsr::MeshFormat::re2
                          : args.format == "msh" ? gsr::MeshFormat::msh
                                                 : gsr::MeshFormat::automatic;
    args.options.vertex_file = args.vertex_file;
    args.options.ignore_vertex_file = args.no_vertex_file;
    const gsr::ImportSummary summary = gsr::import_mesh_file(args.input, args.output, MPI_COMM_WORLD, args.options);
    if (rank == 0) print_summary(summary, args.output, ranks);
  } catch (const gsr::Error& e) {
    if (rank == 0) std::cerr << "gsr-mesh: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    // Not one of gsr's agreed errors (out of memory outside a watched step, say): this rank
    // says so itself, since the others may not have heard of it.
    std::cerr << "gsr-mesh: error on rank " << rank << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gsr-mesh: writes gsr mesh files (HDF5, with an XDMF sidecar for ParaView/VisIt)"};
  app.require_subcommand(1);
  BoxArguments box_args;
  CLI::App* box = add_box_command(app, box_args);
  std::string two_output;
  CLI::App* two = app.add_subcommand(
      "two-element", "the worked example of docs/concepts.md: two elements of order 2 on two ranks (its Table 1)");
  two->add_option("-o,--output", two_output, "mesh file to write (FILE.h5)")->required();
  ImportArguments import_args;
  CLI::App* import = add_import_command(app, import_args);

  CLI11_PARSE(app, argc, argv);

  if (import->parsed()) {
    MPI_Init(&argc, &argv);
    const int code = run_import(import_args);
    MPI_Finalize();
    return code;
  }

  try {
    if (box->parsed()) {
      write_box_file(box_args);
    } else if (two->parsed()) {
      check_outputs(two_output, true);
      gsr::tools::write_two_element(two_output);
      std::cout << "gsr-mesh: wrote " << two_output
                << ": the worked example of docs/concepts.md (two elements of order 2, the ids of its Table 1); "
                   "sidecar "
                << gsr::xdmf_path(two_output) << "\n";
    }
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const gsr::Error& e) {
    std::cerr << "gsr-mesh: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
