// /etc/rdma/modules/*.conf, as systemd-modules-load reads it: one module per line.
#include "provision/base/strings.h"
#include "provision/inputs/file_lines.h"
#include "provision/inputs/rdma_core_files.h"
#include "provision/inputs/text.h"
#include "provision/inputs/values.h"

namespace rp {

void parse_modules_conf(std::string_view text, const std::string& file, Config& cfg,
                        Diagnostics& diag) {
  for_each_line(text, [&](size_t n, std::string_view line) {
    // systemd's modules-load.c apply_file: the line stripped; empty, or starting with '#'
    // or ';' (COMMENTS), it is skipped; anything else is one module name, '#' and spaces
    // inside it included. A name that names no module is logged ("Failed to find module")
    // and the rest of the file still loads: so here, a warning and the line skipped.
    std::string_view name = trim(line);
    if (name.empty() || name.front() == '#' || name.front() == ';') return;
    const Source where = Source::at(Source::Origin::kRdmaCoreList, file, n);
    std::string why;
    if (name.find_first_of(" \t\v\f#") != std::string_view::npos) {
      why = "contains a space or a '#' (comments start a line only; one module per line)";
    } else {
      Diagnostics one;
      if (auto module = parse_module_name(name, where, one)) return add_module(cfg, *module, where);
      why = one.errors.empty() ? "is no module name" : one.errors.front().what;
      return diag.warn(where, why +
                                  ": systemd-modules-load finds no such module and goes on "
                                  "with the next line (modules-load.c apply_file); skipped");
    }
    diag.warn(where, "module name " + shown(name) + " " + why +
                         ": systemd-modules-load finds no such module and goes on with the next "
                         "line (modules-load.c apply_file); skipped");
  });
}

}  // namespace rp
