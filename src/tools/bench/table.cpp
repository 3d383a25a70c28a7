// tools/bench/table.cpp — the terminal table of gsr-bench, made from its records alone, so
// the screen, the JSON and the CSV never disagree.
#include "tools/bench/report.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace gsr::tools::bench {
namespace {

using nlohmann::ordered_json;

template <class... Args>
std::string cell(const char* pattern, Args... args) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, args...);
  return text;
}

double number(const Record& record, const char* field) { return record.at(field).get<double>(); }
std::string text_of(const ordered_json& record, const char* field) { return record.at(field).get<std::string>(); }

/// "auto -> pairwise" for auto, the method's name otherwise.
std::string contender_label(const Record& record) {
  const std::string method = text_of(record, "method");
  return method == "auto" ? method + " -> " + text_of(record, "chosen") : method;
}

/// "gs_vec k=3"
std::string kind_label(const Record& record) { return text_of(record, "call") + " k=" + record.at("k").dump(); }

/// "gs_vec k=3 blocking"
std::string call_label(const Record& record) { return kind_label(record) + " " + text_of(record, "mode"); }

const Record* find(const std::vector<Record>& records, const std::function<bool(const Record&)>& wanted) {
  const auto found = std::find_if(records.begin(), records.end(), wanted);
  return found == records.end() ? nullptr : &*found;
}

const Record* find_bound(const std::vector<Record>& records, const std::string& bound, const ordered_json& k) {
  return find(records, [&](const Record& r) {
    return r.at("kind") == "bound" && r.at("bound") == bound && (k.is_null() || r.at("k") == k);
  });
}

/// Distinct values of `key(record)` over the records of `kind`, in order of appearance.
std::vector<std::string> distinct(const std::vector<Record>& records, const char* kind,
                                  const std::function<std::string(const Record&)>& key) {
  std::vector<std::string> out;
  for (const Record& r : records)
    if (r.at("kind") == kind && std::find(out.begin(), out.end(), key(r)) == out.end()) out.push_back(key(r));
  return out;
}

/// The touch bound of every contender (their index bytes differ) for the k and layout of
/// every call kind, a column each, and the share of u's lines a call touches.
std::string touch_rows(const std::vector<Record>& records) {
  std::vector<const Record*> columns;  // a call record of each call and k: its k and layout
  for (const std::string& label : distinct(records, "call", kind_label))
    columns.push_back(find(records, [&](const Record& r) { return r.at("kind") == "call" && kind_label(r) == label; }));
  std::vector<std::vector<const Record*>> rows;  // per contender, its touch bound of each column
  for (const std::string& method : distinct(records, "call", [](const Record& r) { return text_of(r, "method"); })) {
    std::vector<const Record*>& row = rows.emplace_back();
    for (const Record* column : columns)
      row.push_back(find(records, [&](const Record& r) {
        return r.at("kind") == "bound" && r.at("bound") == "touch" && text_of(r, "method") == method &&
               r.at("k") == column->at("k") && r.at("layout") == column->at("layout");
      }));
  }
  if (rows.empty() || columns.empty()) return "";
  std::string text = cell("  %-22s", "touch");
  for (const Record* column : columns) text += cell("%12s", kind_label(*column).c_str());
  text += cell("%12s", "plan KiB") + cell("\n    %-20s", "lines of u touched");
  for (const Record* touch : rows.front())  // the same for every contender
    text += cell("%11.1f%%", 100 * number(*touch, "lines") / std::max(1.0, number(*touch, "u_lines")));
  for (const std::vector<const Record*>& row : rows) {
    text += cell("\n    %-20s", contender_label(*row.front()).c_str());
    for (const Record* touch : row) text += cell("%12.2f", 1e6 * number(*touch, "median_seconds"));
    text += cell("%12.1f", number(*row.front(), "plan_bytes") / 1024);
  }
  return text +
         "\n    (the lines of u a call touches, read and written once, and the index bytes one call reads, read "
         "once, at stream's speed)\n";
}

std::string bounds_section(const std::vector<Record>& records) {
  std::vector<ordered_json> ks;
  for (const Record& r : records)
    if (r.at("kind") == "bound" && r.at("bound") == "stream") ks.push_back(r.at("k"));
  std::string text = cell("%-24s", "bounds, us per call");
  for (const ordered_json& k : ks) text += cell("%10s", ("k=" + k.dump()).c_str());
  for (const char* bound : {"stream", "wire"}) {
    text += cell("\n  %-22s", bound);
    for (const ordered_json& k : ks)
      text += cell("%10.2f", 1e6 * number(*find_bound(records, bound, k), "median_seconds"));
  }
  if (const Record* round = find_bound(records, "round", nullptr))
    text += cell("\n  %-22s%10.2f  (one value to and from each neighbour)", "round",
                 1e6 * number(*round, "median_seconds"));
  return text + "\n" + touch_rows(records);
}

/// A table of every call kind (rows) against every contender (columns of 28 characters),
/// each cell made by `cell_of` from the call's record.
std::string call_grid(const std::vector<Record>& records, const std::string& title,
                      const std::function<std::string(const Record&)>& cell_of) {
  const std::vector<std::string> labels = distinct(records, "call", call_label);
  const std::vector<std::string> contenders =
      distinct(records, "call", [](const Record& r) { return text_of(r, "method"); });
  std::string text = title + "\n" + cell("  %-24s", "kind");
  for (const std::string& c : contenders) {
    // auto's choice may differ by call size: "auto -> crystal_router/pairwise".
    std::string chosen;
    for (const Record& r : records)
      if (r.at("kind") == "call" && text_of(r, "method") == c &&
          ("/" + chosen + "/").find("/" + text_of(r, "chosen") + "/") == std::string::npos)
        chosen += (chosen.empty() ? "" : "/") + text_of(r, "chosen");
    const std::string header = c == "auto" ? c + " -> " + chosen : c;
    text += cell(header.size() < 28 ? "%28s" : " %s", header.c_str());
  }
  for (const std::string& label : labels) {
    text += cell("\n  %-24s", label.c_str());
    for (const std::string& c : contenders)
      text += cell_of(*find(records, [&](const Record& x) {
        return x.at("kind") == "call" && call_label(x) == label && text_of(x, "method") == c;
      }));
  }
  return text + "\n";
}

std::string calls_section(const std::vector<Record>& records) {
  return call_grid(records, "calls, us per call; x: ratio to stream + wire; +us: overhead over stream + wire",
                   [](const Record& r) {
                     return cell("%10.2f %7.2fx %+8.2f", 1e6 * number(r, "median_seconds"), number(r, "ratio"),
                                 1e6 * number(r, "overhead_seconds"));
                   });
}

/// The calls again, against touch + wire of their k, layout and contender.
std::string touch_calls_section(const std::vector<Record>& records) {
  return call_grid(records, "calls against touch + wire, us per call; x: ratio to touch + wire; +us: overhead over it",
                   [](const Record& r) {
                     return cell("%10.2f %7.2fx %+8.2f", 1e6 * number(r, "median_seconds"), number(r, "touch_ratio"),
                                 1e6 * number(r, "touch_overhead_seconds"));
                   });
}

/// Each contender's gs k=1 started, the caller's work, then waited for, against the two
/// apart; hidden: the share of the wire bound's time the work hid, shown within [0, 1]. Then
/// the waits themselves, and the share of the wire that none of them shows.
std::string overlap_section(const ordered_json& metadata, const std::vector<Record>& records) {
  std::string text = "overlap (igs, compute, wait)";
  if (metadata.at("ranks").get<int>() == 1) return text + ": - (one rank: no messages to hide)\n";
  text +=
      ": gs k=1 started, a stream pass about as long as the call, then waited for;\n"
      "  us per call; together: the pass alone between start and wait, or in pieces with gsr::progress between them;\n"
      "  hidden: the share of the wire bound's time hidden\n";
  text += cell("  %-22s %11s %10s %8s %10s %7s %14s %7s\n", "contender", "call alone", "compute", "wire", "together",
               "hidden", "with progress", "hidden");
  auto shown = [](const Record& r, const char* field) { return 100 * std::clamp(number(r, field), 0.0, 1.0); };
  for (const Record& r : records) {
    if (r.at("kind") != "overlap") continue;
    text += cell("  %-22s %11.2f %10.2f %8.2f %10.2f %6.0f%% %14.2f %6.0f%%\n", contender_label(r).c_str(),
                 1e6 * number(r, "alone_seconds"), 1e6 * number(r, "compute_seconds"), 1e6 * number(r, "wire_seconds"),
                 1e6 * number(r, "together_seconds"), shown(r, "hidden_fraction"),
                 1e6 * number(r, "together_progress_seconds"), shown(r, "hidden_fraction_progress"));
  }
  text +=
      "  the waits alone, us per call: after start at once, after the pass, after the pass with progress, and after\n"
      "  gsr::progress said every message is in (drained: folding and scattering only), at once and after the pass;\n"
      "  hidden at the wait: the share of the wire bound's time that the wait does not show beyond the drained one\n"
      "  on the same caches (alone: drained; together and progress: drained after the pass)\n";
  text += cell("  %-22s %11s %10s %10s %10s %11s  hidden: %6s %9s %9s\n", "contender", "wait alone", "together",
               "progress", "drained", "after pass", "alone", "together", "progress");
  for (const Record& r : records) {
    if (r.at("kind") != "overlap") continue;
    text += cell("  %-22s %11.2f %10.2f %10.2f %10.2f %11.2f %14.0f%% %8.0f%% %8.0f%%\n", contender_label(r).c_str(),
                 1e6 * number(r, "wait_alone_seconds"), 1e6 * number(r, "wait_together_seconds"),
                 1e6 * number(r, "wait_progress_seconds"), 1e6 * number(r, "wait_drained_seconds"),
                 1e6 * number(r, "wait_drained_after_pass_seconds"), shown(r, "hidden_fraction_wait_alone"),
                 shown(r, "hidden_fraction_wait"), shown(r, "hidden_fraction_wait_progress"));
  }
  return text;
}

/// The model's prediction for every call and contender, and measured / predicted. The
/// built-in defaults model messages only, not the local pass: a call that sends nothing
/// (one rank) is then predicted as nothing, shown as "-".
std::string model_section(const ordered_json& metadata, const std::vector<Record>& records) {
  const std::string model = text_of(metadata, "model");
  const std::string note =
      model == "defaults" ? " (guessed messages only: no local pass; calibrate with --calibrate)" : "";
  return call_grid(records, "the alpha-beta model (" + model + note + "), us per call; x: measured / predicted",
                   [](const Record& r) {
                     const double predicted = number(r, "predicted_seconds");
                     if (predicted <= 0) return cell("%19s %8s", "-", "-");
                     return cell("%19.2f %7.2fx", 1e6 * predicted, number(r, "measured_over_predicted"));
                   });
}

std::string setup_section(const std::vector<Record>& records) {
  std::string text = "setup (slowest rank) and memory (fullest rank)\n";
  text += cell("  %-22s %10s %10s %12s %12s\n", "contender", "setup ms", "auto ms", "handle KiB", "buffers KiB");
  for (const Record& setup : records) {
    if (setup.at("kind") != "setup") continue;
    const Record* memory = find(
        records, [&](const Record& r) { return r.at("kind") == "memory" && r.at("method") == setup.at("method"); });
    const double auto_ms = 1e3 * number(setup, "auto_seconds");
    text += cell("  %-22s %10.2f %10s %12.1f %12.1f\n", contender_label(setup).c_str(), 1e3 * number(setup, "seconds"),
                 auto_ms > 0 ? cell("%.2f", auto_ms).c_str() : "-", number(*memory, "handle_bytes") / 1024,
                 number(*memory, "buffer_bytes") / 1024);
  }
  return text;
}

std::string header(const ordered_json& metadata, const std::vector<Record>& records) {
  const int ranks = metadata.at("ranks").get<int>();
  std::string text =
      cell("gsr-bench: %d rank%s, %s\n", ranks, ranks == 1 ? "" : "s", text_of(metadata, "problem").c_str());
  if (const Record* call = find(records, [](const Record& r) { return r.at("kind") == "call"; }))
    text += cell("  %d rounds x %d calls; the slowest rank's median time per call\n", call->at("repeats").get<int>(),
                 call->at("calls").get<int>());
  return text + cell("  %s (%u CPUs), %s, gsr %s, %s\n", text_of(metadata, "cpu_model").c_str(),
                     metadata.at("cpus").get<unsigned>(), text_of(metadata, "mpi_library").c_str(),
                     text_of(metadata, "gsr_version").c_str(), text_of(metadata, "date").c_str());
}

}  // namespace

std::string table_text(const ordered_json& metadata, const std::vector<Record>& records) {
  std::string text = header(metadata, records) + "\n" + bounds_section(records) + "\n" + calls_section(records) + "\n" +
                     touch_calls_section(records) + "\n";
  if (metadata.contains("model")) text += model_section(metadata, records) + "\n";
  return text + overlap_section(metadata, records) + "\n" + setup_section(records);
}

}  // namespace gsr::tools::bench
