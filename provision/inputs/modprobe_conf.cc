// /etc/modprobe.d/*.conf, as libkmod reads it: `options`, `blacklist` and the `install`
// commands that forbid a module.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <vector>

#include "provision/base/modprobe.h"
#include "provision/base/strings.h"
#include "provision/inputs/file_lines.h"
#include "provision/inputs/kernel_args.h"
#include "provision/inputs/rdma_core_files.h"
#include "provision/inputs/record.h"
#include "provision/inputs/text.h"
#include "provision/inputs/values.h"

namespace rp {
namespace {

// Logical lines as libkmod reads them: a backslash before the newline joins the next
// physical line; a backslash before any other character stands for that character. Unlike
// libkmod, CRLF line ends are taken as line ends. Empty lines are left out.
std::vector<Line> modprobe_lines(std::string_view text) {
  auto newline_at = [&](size_t i) -> size_t {
    if (i < text.size() && text[i] == '\n') return 1;
    if (i + 1 < text.size() && text[i] == '\r' && text[i + 1] == '\n') return 2;
    return 0;
  };
  std::vector<Line> out;
  size_t physical = 1;
  Line cur{1, {}};
  for (size_t i = 0; i < text.size(); ++i) {
    if (size_t nl = newline_at(i)) {
      if (!cur.text.empty()) out.push_back(std::move(cur));
      cur = Line{++physical, {}};
      i += nl - 1;
    } else if (text[i] == '\\') {
      if (size_t nl2 = newline_at(i + 1)) {
        ++physical;
        i += nl2;
      } else if (i + 1 < text.size()) {
        cur.text += text[++i];
      }  // else: a backslash at the very end escapes nothing
    } else {
      cur.text += text[i];
    }
  }
  if (!cur.text.empty()) out.push_back(std::move(cur));
  return out;
}

// Next word of a modprobe line: libkmod splits at spaces and tabs only.
std::string_view next_word(std::string_view& rest) {
  size_t b = rest.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(b);
  size_t e = std::min(rest.find_first_of(" \t"), rest.size());
  std::string_view word = rest.substr(0, e);
  rest.remove_prefix(e);
  return word;
}

// One module parameter as the kernel splits them (kernel/params.c parse_args -> next_arg,
// kernel_args.h).
struct ModuleParam {
  std::string_view text;  // the whole "key=value" as written
  std::string_view key;
  std::optional<std::string_view> value;
};

std::vector<ModuleParam> module_params(std::string_view s) {
  std::vector<ModuleParam> out;
  for (const KernelArg& k : kernel_args(s)) out.push_back({k.raw, k.param, k.value});
  return out;
}

// The module name after `options` or `blacklist`, normalised; nullopt (reported) when it is
// missing or bad.
std::optional<std::string> module_word(std::string_view& rest, std::string_view directive,
                                       const Source& where, Diagnostics& diag) {
  std::string_view module = next_word(rest);
  if (module.empty()) {
    diag.warn(where, quote(directive) + " without a module name; modprobe ignores this line");
    return std::nullopt;
  }
  return parse_module_name(module, where, diag);
}

void modprobe_options(std::string_view rest, const Source& where, Config& cfg, Diagnostics& diag) {
  const auto module = module_word(rest, "options", where, diag);
  if (!module) return;
  const std::string& name = *module;

  std::string_view options = trim(rest);
  auto params = module_params(options);
  for (const auto& p : params) {
    if (p.text.front() != '#') continue;
    // libkmod has comments only at the start of a line (libkmod-config.c
    // kmod_config_parse): it hands every word to the module, and the kernel ignores the
    // parameters it does not know ('#' among them: kernel/params.c parse_args,
    // unknown_module_param_cb "Unknown parameter ... ignored") and applies the others,
    // those after the '#' too. Read the same way here.
    size_t cut = static_cast<size_t>(p.text.data() - options.data());
    diag.warn(where, "'#' starts a comment only at the start of a line; modprobe passes " +
                         shown(options.substr(cut)) + " to " + quote(name) +
                         " as parameters: the kernel ignores those it does not know and "
                         "applies the others");
    break;
  }
  if (options.empty()) {
    if (!starts_with(trim(rest), "#")) {
      diag.warn(where,
                "'options' for " + quote(name) + " has no parameters; modprobe ignores this line");
    }
    return;
  }

  // libkmod stores the options with every tab made a space (libkmod-config.c
  // kmod_config_add_options, strchr_replace).
  std::string stored(options);
  std::replace(stored.begin(), stored.end(), '\t', ' ');
  auto [it, fresh] = cfg.module_options.emplace(name, Sourced<std::string>{});
  Sourced<std::string>& slot = it->second;
  if (fresh) {
    slot = {stored, where};
  } else {
    // modprobe passes the options of every line naming the module, in order.
    slot.value += " " + stored;
    slot.source.also.push_back(where);
  }

  if (name != "mlx4_en") return;
  for (const auto& p : params) {
    if (p.key != "pfctx" && p.key != "pfcrx") continue;
    const std::string key(p.key);
    if (!p.value) {  // the kernel refuses a uint parameter without a value
      diag.error(where, key + " has no value (write " + key + "=0x08 for priority 3)");
      continue;
    }
    const auto dir = key == "pfctx" ? PfcDirection::kTx : PfcDirection::kRx;
    if (auto v = parse_pfc_mask(*p.value, dir, where, diag)) {
      (dir == PfcDirection::kTx ? cfg.pfc_tx : cfg.pfc_rx) = Sourced<unsigned>{*v, where};
    }
  }
}

void modprobe_blacklist(std::string_view rest, const Source& where, Config& cfg,
                        Diagnostics& diag) {
  auto module = module_word(rest, "blacklist", where, diag);
  if (!module) return;
  if (!trim(rest).empty()) {
    diag.warn(where, "text after the module name is ignored: " + shown(trim(rest)));
  }
  add_blacklist(cfg, std::move(*module), where);
}

}  // namespace

void parse_modprobe_conf(std::string_view text, const std::string& file, Config& cfg,
                         Diagnostics& diag) {
  for (const Line& line : modprobe_lines(text)) {
    std::string_view rest = line.text;
    std::string_view directive = next_word(rest);
    if (directive.empty() || directive.front() == '#') continue;
    const Source where = Source::at(Source::Origin::kModprobeD, file, line.number);
    if (directive == "options") {
      modprobe_options(rest, where, cfg, diag);
    } else if (directive == "blacklist") {
      modprobe_blacklist(rest, where, cfg, diag);
    } else if (directive == "install") {
      // `install <module> /bin/true` forbids the module (base/modprobe.h); other commands
      // are modprobe's business.
      auto module = module_word(rest, "install", where, diag);
      if (module && install_forbids(rest)) {
        cfg.forbidden.emplace(*module, Sourced<std::string>{std::string(trim(rest)), where});
      }
    } else if (directive == "remove" || directive == "softdep" || directive == "weakdep" ||
               directive == "alias") {
      // modprobe's own business: commands, soft and weak dependencies (both in
      // libkmod-config.c kmod_config_parse) and aliases.
    } else if (directive == "include" || directive == "config") {
      diag.warn(where, quote(directive) + " is no longer supported by modprobe; line ignored");
    } else {
      diag.warn(where, "unknown directive " + shown(directive) + "; modprobe ignores this line");
    }
  }
}

}  // namespace rp
