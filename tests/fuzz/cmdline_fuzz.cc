// Fuzz target: the kernel command-line reader (provision/inputs/cmdline). Beyond "no crash":
// every message and every value kept names a token of the input as "cmdline: <token>",
// messages are one line, and nothing out of range reaches the Config.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "provision/base/strings.h"
#include "provision/inputs/cmdline.h"
#include "provision/inputs/values.h"

namespace {

void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "invariant broken: %s: %s\n", what, detail.substr(0, 200).c_str());
  std::abort();
}

// Whether the one parser of the value takes it as it was kept (its messages go nowhere).
bool module_ok(const std::string& name) {
  rp::Diagnostics scratch;
  return rp::parse_module_name(name, rp::Source{}, scratch) == name;  // valid and normalised
}
bool new_ifname_ok(const std::string& name) {
  rp::Diagnostics scratch;
  return rp::parse_new_ifname(name, rp::Source{}, scratch).has_value();
}

void check_one_line(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) fail("control character", s);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rp;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  std::set<std::string> wheres;
  for (const auto& p : split_cmdline(text)) {
    std::string q = quote(p.raw);
    wheres.insert("cmdline: " + q.substr(1, q.size() - 2));
  }
  auto from_input = [&](const std::string& source) {
    if (!wheres.count(source)) fail("source is not a token of the input", source);
  };

  Config cfg;
  Diagnostics diag;
  parse_cmdline(text, cfg, diag);

  for (const auto* list : {&diag.errors, &diag.warnings}) {
    for (const Error& e : *list) {
      from_input(e.where);
      if (e.what.empty()) fail("message without text", e.where);
      if (e.what.size() > 10 * size + 1000) fail("message out of proportion", e.what);
      check_one_line(e.where);
      check_one_line(e.what);
    }
  }

  for (const auto* s : {&cfg.enabled.source, &cfg.required.source, &cfg.timeout_s.source}) {
    if (!s->is_default()) from_input(*s);
  }
  if (cfg.timeout_s.value < 1 || cfg.timeout_s.value > 3600) fail("timeout", cfg.timeout_s.source);
  for (const auto& m : cfg.modules) {
    from_input(m.source);
    if (!module_ok(m.value)) fail("bad module kept", m.value);
  }
  for (const auto& [pci, card] : cfg.mlx4) {
    for (const auto& t : card.type)
      if (t) from_input(t->source);
  }
  for (const auto* pfc : {&cfg.pfc_tx, &cfg.pfc_rx}) {
    if (*pfc && (*pfc)->value > 0xff) fail("pfc mask", (*pfc)->source);
  }
  for (const auto& [name, key] : cfg.names) {
    from_input(key.source);
    if (!new_ifname_ok(name)) fail("bad name kept", name);
  }
  for (const auto& [ifname, s] : cfg.ipoib) {
    if (s.mtu && (s.mtu->value < 68 || s.mtu->value > 65520)) fail("mtu", ifname);
  }
  for (const auto& [id, child] : cfg.pkeys) {
    from_input(child.source);
    if ((child.pkey & 0x7fff) == 0 || id.second != child.pkey) fail("pkey", child.source);
    if (!child.name.empty() && !new_ifname_ok(child.name)) fail("child name", child.name);
  }
  for (const auto& [id, r] : cfg.roce) {
    if (id.second > 255 || (r.tos && r.tos->value > 255)) fail("roce", id.first.str());
  }
  for (const auto& [netdev, link] : cfg.soft_links) from_input(link.source);
  for (const auto& w : cfg.wait) from_input(w.source);
  return 0;
}
