// The plan as text (one line per action, like iproute2) and as JSON: two walks over the
// same fields (Action::object(), wanted(), ...), so the two cannot say different things.
#include "provision/base/json.h"
#include "provision/base/strings.h"
#include "provision/plan/plan.h"

namespace rp {

std::string plan_text(const Plan& plan) {
  std::string o;
  if (!plan.enabled) {
    for (const auto& n : plan.notes) o += n + "\n";
    return o;
  }
  o += "plan: " + count_of(plan.actions.size(), "action") + " (deadline " +
       std::to_string(plan.timeout_s) + " s)\n";
  for (size_t i = 0; i < plan.actions.size(); ++i) {
    const Action& a = plan.actions[i];
    std::string kind(to_string(a.kind()));
    kind.resize(std::max<size_t>(kind.size(), 12), ' ');
    o += "  " + std::to_string(i + 1) + ". " + kind + " " + a.object() + ": " + a.current + " -> " +
         a.wanted() + "  [" + a.reason + "]";
    if (!a.after.empty()) {
      o += " after";
      for (size_t d : a.after) o += " " + std::to_string(d + 1);
    }
    o += "\n";
    if (!a.waiting_for.empty()) o += "       waiting for " + a.waiting_for + "\n";
    if (!a.never.empty()) o += "       fails at once: " + a.never + "\n";
  }
  for (const auto& n : plan.notes) o += "note: " + n + "\n";
  for (const auto& w : plan.diag.warnings) o += "warning: " + w.str() + "\n";
  for (const auto& e : plan.diag.errors) o += "error: " + e.str() + "\n";
  return o;
}

void notes_json(JsonWriter& w, const Plan& plan) {
  w.key("notes").begin_array();
  for (const auto& n : plan.notes) w.value(n);
  w.end_array();
  // Left for the real root to load (rdma-provision.service there does).
  w.key("deferred_modules").begin_array();
  for (const auto& m : plan.deferred_modules) w.value(m);
  w.end_array();
}

std::string plan_json(const Plan& plan) {
  JsonWriter w;
  w.begin_object().field("enabled", plan.enabled).field("deadline_s", plan.timeout_s);
  w.key("actions").begin_array();
  for (size_t i = 0; i < plan.actions.size(); ++i) {
    const Action& a = plan.actions[i];
    w.begin_object().field("id", static_cast<uint64_t>(i + 1)).field("kind", to_string(a.kind()));
    w.field("object", a.object()).field("current", a.current).field("wanted", a.wanted());
    w.field("reason", a.reason);
    w.key("waiting_for");
    a.waiting_for.empty() ? w.null() : w.value(a.waiting_for);
    if (!a.never.empty()) w.field("never", a.never);
    w.key("after").begin_array();
    for (size_t d : a.after) w.value(static_cast<uint64_t>(d + 1));
    w.end_array().end_object();
  }
  w.end_array();
  notes_json(w, plan);
  w.key("warnings").begin_array();
  for (const auto& e : plan.diag.warnings) w.value(e.str());
  w.end_array();
  w.key("errors").begin_array();
  for (const auto& e : plan.diag.errors) w.value(e.str());
  w.end_array();
  w.end_object();
  return w.str();
}

}  // namespace rp
