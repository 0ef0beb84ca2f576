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
    std::string_view name = trim(strip_comment(line));
    // systemd-modules-load also takes ';' as a comment at the start of a line.
    if (name.empty() || name.front() == ';') return;
    const Source where = Source::at(Source::Origin::kRdmaCoreList, file, n);
    // The whole line is one name to systemd-modules-load: two words are two modules
    // written on one line.
    if (name.find_first_of(" \t\v\f\r") != std::string_view::npos) {
      return diag.error(
          where, "module name " + shown(name) + " contains a space: write one module per line");
    }
    if (auto module = parse_module_name(name, where, diag)) add_module(cfg, *module, where);
  });
}

}  // namespace rp
