// libsplit-cc: makes an OpenCL C program partition-ready and summarizes its
// kernels for the libsplit runtime. See passes/README.md.
//
//   libsplit-cc [options] input.cl [-- <app build options>]
//
// Every option lives in the one table below (name, argument, help, handler);
// --help prints the table.
#include "Cache.h"
#include "Compiler.h"
#include "TraceReport.h"
#include "libsplit/cache_dir.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace {

using namespace libsplit;

struct Settings {
  std::string input;
  std::string outDir;
  std::vector<std::string> buildOptions;
  std::vector<std::string> deviceMacroSets;  // --device-macros, in order
  bool useCache = true;
  std::string cacheDir;
  std::string resourceDir;
  bool verify = true;
  bool printSource = false;
  bool printJson = false;
  bool printTime = false;
  bool verbose = false;
  bool exitNow = false;  // --help / --version answered
  bool printsRegions = false;  // the readable summary or --regions
  // Printers an option handler registers, run in order after a successful
  // compile (e.g. a --regions row pushes one). Any of them replaces the
  // default readable summary.
  std::vector<std::function<void(const cc::CompileResult&)>> reports;
  // Passed on as CompileRequest::inspectModule (sees the IR of a fresh compile).
  std::function<void(llvm::Module&, const ProgramSummary&)> inspectModule;
};

struct Option {
  const char* name;
  const char* metavar;  // nullptr: a flag without value
  const char* help;
  void (*handle)(Settings&, const std::string& value);
};

void printHelp();
void printVersion();

const Option kOptions[] = {
    {"-o", "DIR", "write DIR/partition-ready.cl and DIR/summary.json (DIR is created)",
     [](Settings& s, const std::string& v) { s.outDir = v; }},
    {"--device-macros", "SPEC",
     "analyse with one device's predefined macros (NAME or NAME=VALUE, comma separated) instead of "
     "Clang's; repeat for devices with different sets (the summaries are merged: union of regions)",
     [](Settings& s, const std::string& v) { s.deviceMacroSets.push_back(v); }},
    {"--no-cache", nullptr, "neither read nor write the cache",
     [](Settings& s, const std::string&) { s.useCache = false; }},
    {"--cache-dir", "DIR",
     "cache location (default: $LIBSPLIT_CACHE_DIR, else $XDG_CACHE_HOME/libsplit, else "
     "~/.cache/libsplit)",
     [](Settings& s, const std::string& v) { s.cacheDir = v; }},
    {"--resource-dir", "DIR", "Clang resource directory holding opencl-c-base.h",
     [](Settings& s, const std::string& v) { s.resourceDir = v; }},
    {"--no-verify", nullptr, "do not re-parse the partition-ready program to check it compiles",
     [](Settings& s, const std::string&) { s.verify = false; }},
    {"--print-source", nullptr, "print the partition-ready program on stdout",
     [](Settings& s, const std::string&) { s.printSource = true; }},
    {"--json", nullptr, "print the summary as JSON on stdout",
     [](Settings& s, const std::string&) { s.printJson = true; }},
    {"--time", nullptr, "print on stderr the time taken and whether the result came from the cache",
     [](Settings& s, const std::string&) { s.printTime = true; }},
    {"--verbose", nullptr, "report build options ignored and cache problems on stderr",
     [](Settings& s, const std::string&) { s.verbose = true; }},
    {"--regions", nullptr, "print the read/write region of every buffer argument, simplified (or unknown + why)",
     [](Settings& s, const std::string&) {
       s.printsRegions = true;
       s.reports.push_back([](const cc::CompileResult& r) { trace::print_region_report(r.summary, std::cout); });
     }},
    {"--trace", nullptr, "print the program instrumented to record the bytes each buffer arg accesses",
     [](Settings& s, const std::string&) {
       s.reports.push_back([&s](const cc::CompileResult&) {
         std::ifstream f(s.input, std::ios::binary);
         std::stringstream src;
         src << f.rdbuf();
         // The oracle runs on one device: the first --device-macros set's.
         trace::print_traced_program(src.str(), s.buildOptions, s.resourceDir, std::cout, std::cerr,
                                     s.deviceMacroSets.empty() ? "" : s.deviceMacroSets.front());
       });
     }},
    {"--version", nullptr, "print the tool version",
     [](Settings& s, const std::string&) {
       printVersion();
       s.exitNow = true;
     }},
    {"--help", nullptr, "print this help",
     [](Settings& s, const std::string&) {
       printHelp();
       s.exitNow = true;
     }},
};

void printVersion() { std::cout << cc::toolVersion() << "\n"; }

void printHelp() {
  std::cout << "usage: libsplit-cc [options] input.cl [-- <OpenCL build options>]\n\n"
               "Rewrites an OpenCL C program into its partition-ready form (every kernel\n"
               "takes a hidden `ulong4 __libsplit_ctx` argument so that a slice of the\n"
               "NDRange sees the full launch's group ids and sizes) and summarizes its\n"
               "kernels. Without -o, --print-source or --json it prints a readable summary.\n"
               "Build options after `--` are the application's (-D, -I, -cl-std=, ...);\n"
               "options Clang does not need are ignored. Exit status: 0 ok, 1 the program\n"
               "does not compile (Clang diagnostics on stderr) or cannot be rewritten,\n"
               "2 bad usage.\n\noptions:\n";
  for (const Option& o : kOptions) {
    std::string left = std::string("  ") + o.name + (o.metavar ? std::string(" ") + o.metavar : "");
    std::cout << left;
    if (left.size() < 22) std::cout << std::string(22 - left.size(), ' ');
    else std::cout << "\n" << std::string(22, ' ');
    std::cout << o.help << "\n";
  }
  std::cout << "  -h                  same as --help\n";
}

const Option* findOption(std::string_view name) {
  if (name == "-h") name = "--help";
  for (const Option& o : kOptions)
    if (name == o.name) return &o;
  return nullptr;
}

// argv -> settings; false (message printed) on bad usage.
bool parseArgs(int argc, char** argv, Settings& s) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) s.buildOptions.push_back(argv[i]);
      break;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::string name = arg, value;
      bool inlineValue = false;
      if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inlineValue = true;
      }
      const Option* o = findOption(name);
      if (!o) {
        std::cerr << "libsplit-cc: unknown option '" << arg << "' (see --help)\n";
        return false;
      }
      if (o->metavar && !inlineValue) {
        if (i + 1 >= argc) {
          std::cerr << "libsplit-cc: option " << name << " needs " << o->metavar << "\n";
          return false;
        }
        value = argv[++i];
      } else if (!o->metavar && inlineValue) {
        std::cerr << "libsplit-cc: option " << name << " takes no value\n";
        return false;
      }
      o->handle(s, value);
      if (s.exitNow) return true;
      continue;
    }
    if (!s.input.empty()) {
      std::cerr << "libsplit-cc: more than one input file ('" << s.input << "', '" << arg
                << "')\n";
      return false;
    }
    s.input = arg;
  }
  if (s.input.empty()) {
    std::cerr << "libsplit-cc: no input file (see --help)\n";
    return false;
  }
  return true;
}

bool readFile(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

bool writeFile(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f || !f.write(text.data(), std::streamsize(text.size())) || !f.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

const char* spaceName(AddressSpace a) {
  switch (a) {
    case AddressSpace::Global: return "global";
    case AddressSpace::Constant: return "constant";
    case AddressSpace::Local: return "local";
    default: return "private";
  }
}

void printReadable(const std::string& input, const ProgramSummary& s) {
  std::cout << input << ": " << s.kernels.size() << " kernel" << (s.kernels.size() == 1 ? "" : "s")
            << " (" << s.tool << ")\n";
  for (const KernelSummary& k : s.kernels) {
    std::cout << "\nkernel " << k.name << ": "
              << (k.splittable ? "splittable" : "NOT splittable: " + k.not_splittable_reason)
              << "\n";
    auto triple = [](const uint64_t t[3]) {
      return std::to_string(t[0]) + "," + std::to_string(t[1]) + "," + std::to_string(t[2]);
    };
    if (k.reqd_work_group_size[0])
      std::cout << "  reqd_work_group_size(" << triple(k.reqd_work_group_size) << ")\n";
    if (k.work_group_size_hint[0])
      std::cout << "  work_group_size_hint(" << triple(k.work_group_size_hint) << ")\n";
    std::string uses;
    auto add = [&](bool on, const char* what) {
      if (on) uses += uses.empty() ? what : std::string(", ") + what;
    };
    add(k.uses_barrier, "barriers");
    add(k.uses_local_memory, "local memory");
    add(k.uses_images, "images");
    add(k.uses_global_atomics, "global atomics");
    std::cout << "  uses: " << (uses.empty() ? "-" : uses) << "\n";
    for (const ArgSummary& a : k.args) {
      std::cout << "  arg " << a.index << " " << a.name << ": ";
      if (a.is_pointer) {
        std::cout << spaceName(a.address_space) << " " << (a.is_const ? "const " : "") << a.type
                  << (a.is_restrict ? " restrict" : "");
        std::string acc;
        if (a.reads) acc += " reads";
        if (a.writes) acc += " writes";
        if (a.atomics) acc += " atomics";
        if (a.reduction != ReductionOp::None)
          acc += std::string(" (reduction ") + reduction_op_name(a.reduction) + " " +
                 std::to_string(a.reduction_bits) + "-bit)";
        std::cout << " --" << (acc.empty() ? " not accessed" : acc) << "\n";
        if (a.writes && a.address_space != AddressSpace::Local)
          std::cout << "      stores: whole " << a.store_unit << "-byte units\n";
        if (a.address_space != AddressSpace::Local) {
          if (a.reads) std::cout << "      read region:  " << print_region(a.read_region) << "\n";
          if (a.writes) std::cout << "      write region: " << print_region(a.write_region) << "\n";
        }
      } else {
        std::cout << (a.is_const ? "const " : "") << a.type << " (" << a.size << " bytes"
                  << (a.is_image ? ", image" : "") << ")\n";
      }
    }
    for (const auto& h : k.hidden_args)
      std::cout << "  hidden: " << h.type << " " << h.name << " = " << h.meaning << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  if (!parseArgs(argc, argv, s)) return 2;
  if (s.exitNow) return 0;

  auto start = std::chrono::steady_clock::now();
  cc::CompileRequest req;
  req.inputPath = s.input;
  if (!readFile(s.input, req.source)) {
    std::cerr << "libsplit-cc: cannot read " << s.input << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  req.buildOptions = s.buildOptions;
  req.deviceMacroSets = s.deviceMacroSets;
  req.resourceDir = s.resourceDir;
  req.useCache = s.useCache;
  req.cacheDir = s.cacheDir;
  req.verifyRewrite = s.verify;
  req.inspectModule = s.inspectModule;
  cc::CompileResult r = cc::compileProgram(req);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();

  std::cerr << r.diagnostics;
  if (s.verbose) {
    for (const auto& o : r.ignoredOptions) std::cerr << "libsplit-cc: ignored build option " << o << "\n";
    if (!r.cacheWarning.empty()) std::cerr << "libsplit-cc: cache not written: " << r.cacheWarning << "\n";
  }
  if (s.printTime)
    std::fprintf(stderr, "libsplit-cc: %.1f ms, %s\n", ms,
                 r.fromCache ? "from cache" : (r.ok ? "compiled" : "failed"));
  if (!r.ok) {
    std::cerr << "libsplit-cc: " << s.input << ": " << r.error << "\n";
    return 1;
  }

  if (!s.outDir.empty()) {
    if (!make_directories(s.outDir, 0755) || !writeFile(s.outDir + "/partition-ready.cl", r.partitionReady) ||
        !writeFile(s.outDir + "/summary.json", r.summaryJson)) {
      std::cerr << "libsplit-cc: cannot write into " << s.outDir << ": " << std::strerror(errno)
                << "\n";
      return 1;
    }
  }
  // The runtime analyses with each device's own predefined macros; without
  // them the regions printed here may differ from those it uses.
  const bool readable = s.outDir.empty() && !s.printSource && !s.printJson && s.reports.empty();
  if (s.deviceMacroSets.empty() && (s.printsRegions || readable))
    std::cerr << "libsplit-cc: note: analysed with Clang's predefined OpenCL macros; the shim passes each "
                 "device's own (--device-macros SPEC; LIBSPLIT_LOG=2 prints the sets it uses)\n";
  if (s.printSource) std::cout << r.partitionReady;
  if (s.printJson) std::cout << r.summaryJson;
  for (const auto& report : s.reports) report(r);
  if (s.outDir.empty() && !s.printSource && !s.printJson && s.reports.empty())
    printReadable(s.input, r.summary);
  return 0;
}
