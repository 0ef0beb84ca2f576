// The plan as text (one line per action, like iproute2) and as JSON, from one walk over
// the same fields (Action::object(), wanted(), ...): the two cannot say different things.
#include "provision/base/print.h"

#include "provision/base/strings.h"
#include "provision/plan/plan.h"

namespace rp {

void notes_json(JsonWriter& w, const Plan& plan) {
  w.key("notes").begin_array();
  for (const auto& n : plan.notes) w.value(n);
  w.end_array();
  // Left for the real root to load (rdma-provision.service there does).
  w.key("deferred_modules").begin_array();
  for (const auto& m : plan.deferred_modules) w.value(m);
  w.end_array();
}

namespace {

// The walk both forms come from (base/print.h).
void print_plan(Printer& o, const Plan& plan) {
  o.open_object().json("enabled", plan.enabled).json("deadline_s", plan.timeout_s);
  if (plan.enabled) {
    o.text("plan: " + count_of(plan.actions.size(), "action") + " (deadline " +
           std::to_string(plan.timeout_s) + " s)\n");
  }
  o.open_array("actions");
  for (size_t i = 0; i < plan.actions.size(); ++i) {
    const Action& a = plan.actions[i];
    std::string kind(to_string(a.kind()));
    o.open_object().any("id", static_cast<uint64_t>(i + 1), "  " + std::to_string(i + 1) + ". ");
    o.json("kind", kind);
    kind.resize(std::max<size_t>(kind.size(), 12), ' ');
    o.text(kind + " ").any("object", a.object(), a.object() + ": ");
    o.any("current", a.current, a.current + " -> ").any("wanted", a.wanted(), a.wanted());
    o.any("reason", a.reason, "  [" + a.reason + "]");
    o.json("waiting_for", a.waiting_for.empty() ? std::nullopt : std::optional(a.waiting_for));
    if (!a.never.empty()) o.json("never", a.never);
    if (!a.after.empty()) o.text(" after");
    o.open_array("after");
    for (size_t d : a.after) o.item(static_cast<uint64_t>(d + 1)).text(" " + std::to_string(d + 1));
    o.close_array().close_object().text("\n");
    if (!a.waiting_for.empty()) o.text("       waiting for " + a.waiting_for + "\n");
    if (!a.never.empty()) o.text("       fails at once: " + a.never + "\n");
  }
  o.close_array();
  // Disabled, the notes say why, alone.
  o.open_array("notes");
  for (const auto& n : plan.notes) o.item(n).text(plan.enabled ? "note: " + n + "\n" : n + "\n");
  o.close_array();
  // Left for the real root to load (rdma-provision.service there does).
  o.open_array("deferred_modules");
  for (const auto& m : plan.deferred_modules) o.item(m);
  o.close_array();
  // Disabled, the text is the notes alone.
  o.open_array("warnings");
  for (const auto& w : plan.diag.warnings) {
    o.item(w.str());
    if (plan.enabled) o.text("warning: " + w.str() + "\n");
  }
  o.close_array().open_array("errors");
  for (const auto& e : plan.diag.errors) {
    o.item(e.str());
    if (plan.enabled) o.text("error: " + e.str() + "\n");
  }
  o.close_array().close_object();
}

}  // namespace

std::string plan_text(const Plan& plan) {
  Printer o(Printer::Mode::kText);
  print_plan(o, plan);
  return o.str();
}

std::string plan_json(const Plan& plan) {
  Printer o(Printer::Mode::kJson);
  print_plan(o, plan);
  return o.str();
}

}  // namespace rp
