// A boot this program can see failing is not a silent success: absent targets, the boot's
// network, conflicts between inputs and a verify that checks nothing, through the binary
// as it is run, on fixtures.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "tests/support/fixture.h"

namespace rp {
namespace {

using testing::has;
using testing::Ran;
using testing::tool;

std::string read_file(const std::string& path) { return testing::run("cat " + path); }

// ip= names an interface nothing provides: dracut would wait for it until its own timeout.
TEST(SilentBoot, AnIpInterfaceNothingProvidesIsAWarningWithWhatIsThere) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const Ran r = tool(root,
                     "check --cmdline-string 'ip=fabric0:dhcp rd.neednet=1 "
                     "root=nfs:10.0.0.1:/srv/root'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: ip=fabric0:dhcp: the boot's network (dracut waits for it): "
                  "no interface fabric0 is present; present: ens1f0np0, ens1f1np1"))
      << r.out;
  EXPECT_TRUE(has(r.out, "check: 0 errors, 1 warning")) << r.out;
  // Under rd.rdma.required=1 apply fails the boot on it, recorded as any failed action.
  const Ran apply = tool(root,
                         "apply --log stderr --cmdline-string 'ip=fabric0:dhcp "
                         "rd.rdma.required=1'");
  EXPECT_EQ(apply.status, 1) << apply.out;
  EXPECT_TRUE(has(apply.out,
                  "failed  require interface fabric0: absent -> present (the boot's network "
                  "(dracut waits for it)): interface fabric0: no such interface is present; "
                  "present: ens1f0np0, ens1f1np1  [cmdline: ip=fabric0:dhcp]"))
      << apply.out;
  const std::string json = read_file(root + "/run/rdma-provision/state.json");
  EXPECT_TRUE(has(json, "\"exit_code\": 1")) << json;
  EXPECT_TRUE(has(json, "no such interface is present")) << json;
}

// dracut makes the interfaces bond=, team=, bridge= and vlan= name: not absent.
TEST(SilentBoot, InterfacesDracutMakesCountAsProvided) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  for (const std::string cmdline :
       {"bond=bond0:ens1f0np0,ens1f1np1:mode=active-backup ip=bond0:dhcp", "bridge ip=br0:dhcp",
        "vlan=ens1f0np0.100:ens1f0np0 "
        "ip=ens1f0np0.100:dhcp",
        "team=team0:ens1f0np0,ens1f1np1 ip=team0:dhcp"}) {
    const Ran r = tool(root, "check --cmdline-string '" + cmdline + "'");
    EXPECT_TRUE(has(r.out, "check: 0 errors, 0 warnings")) << cmdline << "\n" << r.out;
  }
  // bond alone is bond0 over eth0 and eth1 (parse-bond.sh: "bond without parameters assumes
  // bond=bond0:eth0,eth1:mode=balance-rr"): bond0 is provided, its slaves are not here.
  const Ran bare = tool(root, "check --cmdline-string 'bond ip=bond0:dhcp'");
  EXPECT_TRUE(has(bare.out,
                  "warning: cmdline: bond: bond bond0 (dracut enslaves its slaves): no "
                  "interface eth0 is present; present: ens1f0np0, ens1f1np1"))
      << bare.out;
  EXPECT_EQ(bare.out.find("bond0 is present"), std::string::npos) << bare.out;
  // A bond= of another name provides no bond0.
  const Ran r = tool(root, "check --cmdline-string 'bond=bond1 ip=bond0:dhcp'");
  EXPECT_TRUE(has(r.out, "no interface bond0 is present")) << r.out;
}

// An absent target of any setting fails apply under rd.rdma.required=1, and stays a
// warning without it.
TEST(SilentBoot, AnAbsentTargetFailsTheBootOnlyWhenRequired) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const std::string mlx4 = "rd.rdma.mlx4=0000:04:00.0/ib,ib";
  const Ran relaxed = tool(root, "apply --log stderr --cmdline-string '" + mlx4 + "'");
  EXPECT_EQ(relaxed.status, 0) << relaxed.out;
  EXPECT_TRUE(has(relaxed.out,
                  "mlx4 port types: no mlx4 PCI function 0000:04:00.0 is present; "
                  "none is present"))
      << relaxed.out;
  const Ran check = tool(root, "check --cmdline-string '" + mlx4 + " rd.rdma.required=1'");
  EXPECT_EQ(check.status, 0) << check.out;
  EXPECT_TRUE(
      has(check.out, "none is present; cmdline: rd.rdma.required=1: apply fails the boot on it"))
      << check.out;
  EXPECT_TRUE(has(check.out, "check: 0 errors, 1 warning")) << check.out;  // said once
  const Ran strict = tool(root, "apply --log stderr --metrics " + root +
                                    "/m.prom --cmdline-string '" + mlx4 + " rd.rdma.required=1'");
  EXPECT_EQ(strict.status, 1) << strict.out;
  EXPECT_TRUE(has(strict.out,
                  "failed  require mlx4 PCI function 0000:04:00.0: absent -> present (mlx4 port "
                  "types): mlx4 PCI function 0000:04:00.0: no such mlx4 PCI function is "
                  "present; none is present  [cmdline: rd.rdma.mlx4=0000:04:00.0/ib,ib]"))
      << strict.out;
  EXPECT_TRUE(has(strict.out, "1 failed")) << strict.out;
  const std::string prom = read_file(root + "/m.prom");
  EXPECT_TRUE(has(prom, "rdma_provision_actions{outcome=\"failed\"} 1")) << prom;
  EXPECT_TRUE(has(prom, "rdma_provision_exit_code 1")) << prom;
  // explain tells it from the record.
  const Ran explain = tool(root, "explain");
  EXPECT_EQ(explain.status, 1) << explain.out;
  EXPECT_TRUE(has(explain.out, "mlx4 PCI function 0000:04:00.0")) << explain.out;
}

// A node-table row missing for this node (a replaced NIC): the defaults apply, and under
// rd.rdma.required=1 the boot fails there, naming the table's words.
TEST(SilentBoot, ANodeWithoutItsRowFailsTheBootWhenRequired) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const std::string conf = "/nodes.conf";  // read under --root
  std::ofstream(root + conf) << "[nodes]\n98:03:9b:46:8a:99 name=fabric0\n";
  const Ran r =
      tool(root, "apply --log stderr --config " + conf + " --cmdline-string 'rd.rdma.required=1'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "failed  require node-table row for this node: absent -> present"))
      << r.out;
  EXPECT_TRUE(has(r.out, "has no row for this node")) << r.out;
  const Ran relaxed = tool(root, "apply --log stderr --config " + conf);
  EXPECT_EQ(relaxed.status, 0) << relaxed.out;
}

// wait=all covers the port of the boot's network: DHCP over IPoIB must not race the
// subnet manager (four-hca: ib1 is mlx4_0 port 2, INIT).
TEST(SilentBoot, WaitAllWaitsForThePortOfTheBootsNetwork) {
  const std::string root = testing::unpack_fixture("four-hca");
  const Ran r = tool(root, "plan --cmdline-string 'rd.rdma.wait=all ip=ib1:dhcp'");
  EXPECT_TRUE(has(r.out, "wait-port    mlx4_0/2: INIT -> ACTIVE  [cmdline: rd.rdma.wait=all]"))
      << r.out;
  const Ran none = tool(root, "plan --cmdline-string 'rd.rdma.wait=all'");
  EXPECT_FALSE(has(none.out, "wait-port mlx4_0/2")) << none.out;
}

// One address named twice by two inputs: said with both sources, whichever wins.
TEST(SilentBoot, ANameReplacedByALaterInputIsSaidWithBothSources) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const std::string conf = "/names.conf";  // read under --root
  std::ofstream(root + conf) << "[name fab0]\nmatch = 98:03:9b:46:8a:10\n";
  const Ran r = tool(root, "check --config " + conf +
                               " --cmdline-string 'rd.rdma.name=fabric0:98:03:9b:46:8a:10'");
  EXPECT_TRUE(has(r.out,
                  "warning: cmdline: rd.rdma.name=fabric0:98:03:9b:46:8a:10: "
                  "98:03:9b:46:8a:10 is named 'fabric0' instead of 'fab0', which " +
                      conf + ":2 gave it (the later input wins)"))
      << r.out;
  // The same name for two addresses: the earlier address keeps its kernel name.
  const Ran two = tool(
      root, "check --config " + conf + " --cmdline-string 'rd.rdma.name=fab0:98:03:9b:46:8a:11'");
  EXPECT_TRUE(has(two.out,
                  "name 'fab0' goes to 98:03:9b:46:8a:11 instead of "
                  "98:03:9b:46:8a:10, which " +
                      conf + ":2 gave it"))
      << two.out;
}

// A static address of ours and dracut's ip= on one interface end as two addresses.
TEST(SilentBoot, AStaticAddressBesideDracutsIpIsAWarning) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const std::string conf = "/addr.conf";  // read under --root
  std::ofstream(root + conf) << "[address ens1f0np0]\naddress = 10.77.0.5/24\n";
  const Ran r = tool(root, "check --config " + conf + " --cmdline-string 'ip=ens1f0np0:dhcp'");
  EXPECT_TRUE(has(r.out,
                  "ens1f0np0 gets 10.77.0.5/24 here and is configured by dracut's "
                  "ip=ens1f0np0:dhcp too: the kernel ends with both addresses"))
      << r.out;
  const Ran alone = tool(root, "check --config " + conf);
  EXPECT_TRUE(has(alone.out, "check: 0 errors, 0 warnings")) << alone.out;
}

// explain tells the whole story from the record: the action as apply printed it, the
// slowest actions, and the same as JSON.
TEST(SilentBoot, ExplainTellsEachFailedActionAndTheSlowestAndSpeaksJson) {
  const std::string root = testing::unpack_fixture("four-hca");  // mlx4_0/2 is INIT
  const Ran apply = tool(root,
                         "apply --log stderr --cmdline-string 'rd.rdma.wait=mlx4_0/2 "
                         "rd.rdma.timeout=2'");
  EXPECT_EQ(apply.status, 3) << apply.out;
  EXPECT_TRUE(std::regex_search(
      apply.out, std::regex(R"(waiting for mlx4_0/2 to become ACTIVE \(1 s / [12] s\): port 2 )"
                            R"(of mlx4_0 is INIT: no subnet manager has configured it)")))
      << apply.out;
  const Ran r = tool(root, "explain");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "exit 3: the deadline passed before everything was done")) << r.out;
  EXPECT_TRUE(has(r.out,
                  "  timed-out  wait-port mlx4_0/2: INIT -> ACTIVE: port 2 of mlx4_0 is INIT: no "
                  "subnet manager has configured it; waited "))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n  slowest: [12]\.[0-9]+ s  wait-port)")))
      << r.out;
  EXPECT_TRUE(has(r.out, " s  wait-port mlx4_0/2\n")) << r.out;
  const Ran json = tool(root, "explain --json");
  EXPECT_EQ(json.status, 1) << json.out;
  EXPECT_TRUE(has(json.out, "\"ok\": false")) << json.out;
  EXPECT_TRUE(has(json.out, "\"exit_code\": 3")) << json.out;
  EXPECT_TRUE(has(json.out, "\"actions\": [\n")) << json.out;
  EXPECT_TRUE(has(json.out, "timed-out  wait-port mlx4_0/2: INIT -> ACTIVE")) << json.out;
}

// check --json: the findings with their sources apart, for tools; plan --json of an
// invalid input prints them too instead of nothing.
TEST(SilentBoot, CheckAndAnInvalidPlanSpeakJson) {
  const std::string root = testing::unpack_fixture("cx5-roce");
  const Ran check = tool(root,
                         "check --json --cmdline-string 'ip=fabric0:dhcp "
                         "rd.rdma.roce=mlx5_0:v3'");
  EXPECT_EQ(check.status, 2) << check.out;
  EXPECT_TRUE(has(check.out, "\"valid\": false")) << check.out;
  EXPECT_TRUE(has(check.out, "\"source\": \"cmdline: rd.rdma.roce=mlx5_0:v3\"")) << check.out;
  EXPECT_TRUE(has(check.out, "\"message\": \"RoCE mode 'v3' is not one of v1, v2\"")) << check.out;
  const Ran valid = tool(root, "check --json --cmdline-string 'ip=fabric0:dhcp'");
  EXPECT_EQ(valid.status, 0) << valid.out;
  EXPECT_TRUE(has(valid.out, "\"source\": \"cmdline: ip=fabric0:dhcp\"")) << valid.out;
  EXPECT_FALSE(has(valid.out, "check:")) << valid.out;  // JSON alone
  const Ran plan = tool(root, "plan --json --cmdline-string 'rd.rdma.roce=mlx5_0:v3'");
  EXPECT_EQ(plan.status, 2) << plan.out;
  EXPECT_TRUE(has(plan.out, "\"errors\": [")) << plan.out;
  EXPECT_TRUE(has(plan.out, "is not one of v1, v2")) << plan.out;
}

// verify that checks nothing is not a pass: `verify && echo OK` on a node without HCA.
TEST(SilentBoot, VerifyThatChecksNothingHasItsOwnExitCode) {
  const std::string empty = testing::temp_dir("no-hca");
  const Ran r = tool(empty, "verify");
  EXPECT_EQ(r.status, 5) << r.out;
  EXPECT_TRUE(has(r.out, "verify: nothing was checked, so nothing is verified (exit 5)")) << r.out;
  // Soft-iWARP only: no loopback check exists for it, and nothing else was asked.
  const Ran siw = tool(testing::unpack_fixture("siw"), "verify");
  EXPECT_EQ(siw.status, 5) << siw.out;
  EXPECT_TRUE(has(siw.out, "an iWARP port has no RC loopback check")) << siw.out;
}

// A name a systemd .link file gives (Red Hat's way of naming IPoIB ports) is a name the
// boot's network may use: no "nothing provides it" warning; the plan gives it as udev
// would, from the file.
TEST(SilentBoot, ANameALinkFileGivesCountsForIp) {
  const std::string root = testing::unpack_fixture("cx5-ib");
  const std::string cmdline = " --cmdline-string 'ip=mlx5_ib0:dhcp rd.neednet=1'";
  EXPECT_TRUE(has(tool(root, "check" + cmdline).out, "no interface mlx5_ib0 is present"));
  testing::run("mkdir -p " + root + "/etc/systemd/network && printf '[Match]\\nMACAddress=" +
               "00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:16:b2:c4\\n[Link]\\n" +
               "Name=mlx5_ib0\\n' > " + root + "/etc/systemd/network/70-custom-ifnames.link");
  const Ran check = tool(root, "check" + cmdline);
  EXPECT_EQ(check.status, 0) << check.out;
  EXPECT_FALSE(has(check.out, "no interface mlx5_ib0 is present")) << check.out;
  EXPECT_TRUE(has(check.out, "the port GUID 0c42:a103:0016:b2c4, are stable")) << check.out;
  EXPECT_TRUE(has(tool(root, "plan" + cmdline).out,
                  "rename       ib0: ib0 -> mlx5_ib0  "
                  "[/etc/systemd/network/70-custom-ifnames.link:4]"));
}

}  // namespace
}  // namespace rp
