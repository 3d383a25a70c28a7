// tools/gsr_mesh.cpp — the gsr-mesh command: writes gsr mesh files (HDF5 + XDMF sidecar).
//
//   gsr-mesh box --dim 2 --elements 4,3 --order 4 [--periodic x] [--deform] [--partition P] -o box.h5
//   gsr-mesh two-element -o two_element.h5
//
// A serial program: the writer streams the mesh slab by slab, so memory stays O(slab).
#include "tools/box.hpp"
#include "tools/outputs.hpp"
#include "tools/progress.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <limits>

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

  CLI11_PARSE(app, argc, argv);

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
