// Fuzz target: the state-file writer's escaping (base/json.cc json_escape, what
// state.json, plan --json and status --json are made of). Whatever bytes a value holds
// (read from sysfs, a file or the command line), the result must be valid JSON that a
// strict parser (nlohmann, which refuses invalid UTF-8 as jq and Python do) reads back as
// a string; a value that is well-formed UTF-8 must read back exactly.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "provision/base/json.h"

namespace {

bool well_formed_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();  // dump() throws on invalid UTF-8
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string s(reinterpret_cast<const char*>(data), size);
  const std::string escaped = rp::json_escape(s);
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(escaped);
  } catch (const nlohmann::json::exception&) {
    std::abort();  // not valid JSON
  }
  if (!parsed.is_string()) std::abort();
  if (well_formed_utf8(s) && parsed.get<std::string>() != s) std::abort();
  // The writer's objects too: a key and a value, compact and pretty.
  for (bool pretty : {false, true}) {
    rp::JsonWriter w(pretty);
    w.begin_object().field(s, s).end_object();
    try {
      if (!nlohmann::json::parse(w.str()).is_object()) std::abort();
    } catch (const nlohmann::json::exception&) {
      std::abort();
    }
  }
  return 0;
}
