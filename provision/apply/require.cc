// require: an object the configuration asks for under rd.rdma.required=1 that was absent
// after udev's coldplug and that nothing in the plan makes appear (plan/builder.cc
// PlanBuilder::absent). The planner marks the action Action::never, so the engine fails it
// with the planner's text (what is present instead); run alone, it fails the same way.
#include "provision/apply/context.h"

namespace rp {

Outcome exec_require(ApplyContext&, const Action& a, const Require& p) {
  return Outcome::failed(make_error(a.object(), "no " + p.noun + " " + p.wanted +
                                                    " is present, and rd.rdma.required=1 "
                                                    "asks for it (" +
                                                    p.what + ")"));
}

}  // namespace rp
