// apply --metrics: the outcome in Prometheus' text exposition format (0.0.4), checked by a
// strict reader of that format (prometheus.io "Exposition formats": # HELP and # TYPE once
// per family and before its samples, metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names
// [a-zA-Z_][a-zA-Z0-9_]*, label values with only \\, \" and \n escaped, a float value),
// on a real run of the binary over a fixture tree.
#include "provision/report/metrics.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/fixture.h"

namespace rp {
namespace {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Parses the exposition text; ADD_FAILURE for each line a scraper would refuse.
std::vector<Sample> read_exposition(const std::string& text) {
  static const std::regex kName("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static const std::regex kLabelName("[a-zA-Z_][a-zA-Z0-9_]*");
  std::vector<Sample> out;
  std::set<std::string> typed, helped;
  std::string current;  // the family of the last TYPE line
  std::istringstream in(text);
  EXPECT_TRUE(text.empty() || text.back() == '\n') << "the last line must end";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# ", 0) == 0) {
      std::istringstream f(line.substr(2));
      std::string kind, name;
      f >> kind >> name;
      EXPECT_TRUE(std::regex_match(name, kName)) << line;
      if (kind == "TYPE") {
        std::string type;
        f >> type;
        EXPECT_TRUE(type == "gauge" || type == "counter" || type == "untyped") << line;
        EXPECT_TRUE(typed.insert(name).second) << "second TYPE for " << name;
        current = name;
      } else if (kind == "HELP") {
        EXPECT_TRUE(helped.insert(name).second) << "second HELP for " << name;
      }
      continue;
    }
    EXPECT_FALSE(line.empty()) << "empty line";
    Sample s;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    EXPECT_TRUE(std::regex_match(s.name, kName)) << line;
    EXPECT_EQ(s.name, current) << "a sample outside its family's TYPE: " << line;
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        size_t eq = line.find('=', i);
        EXPECT_NE(eq, std::string::npos) << line;
        if (eq == std::string::npos) return out;
        const std::string key = line.substr(i, eq - i);
        EXPECT_TRUE(std::regex_match(key, kLabelName)) << line;
        EXPECT_EQ(line[eq + 1], '"') << line;
        std::string value;
        size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\') {
            ++j;
            EXPECT_TRUE(line[j] == '\\' || line[j] == '"' || line[j] == 'n') << line;
            value += line[j] == 'n' ? '\n' : line[j];
          } else {
            value += line[j];
          }
        }
        EXPECT_TRUE(s.labels.emplace(key, value).second) << "label twice: " << line;
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      ++i;  // '}'
    }
    EXPECT_EQ(line[i], ' ') << line;
    char* end = nullptr;
    const std::string number = line.substr(i + 1);
    s.value = std::strtod(number.c_str(), &end);
    EXPECT_TRUE(end && *end == '\0' && !number.empty()) << "not a float: " << line;
    out.push_back(s);
  }
  return out;
}

double value_of(const std::vector<Sample>& v, const std::string& name,
                const std::map<std::string, std::string>& labels = {}) {
  for (const auto& s : v) {
    bool match = s.name == name;
    for (const auto& [k, want] : labels)
      match = match && s.labels.count(k) && s.labels.at(k) == want;
    if (match) return s.value;
  }
  ADD_FAILURE() << "no sample " << name;
  return -1;
}

TEST(Metrics, LabelValuesAreEscapedAsTheFormatSays) {
  EXPECT_EQ(prometheus_label("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  Inventory inv;
  RdmaDevice d;
  d.name = "we\"ird\\dev\n";
  RdmaPort p;
  p.num = 1;
  p.state = PortState::kActive;
  d.ports.push_back(p);
  inv.rdma.push_back(d);
  Config cfg;
  Plan plan;
  auto samples = read_exposition(metrics_text(0, cfg, plan, nullptr, inv, 1700000000));
  EXPECT_EQ(value_of(samples, "rdma_provision_port_state", {{"device", d.name}}), 4);
}

// rd.rdma.verify's checks, one sample each: 1 passed (checked), 0 failed, skipped or timed
// out.
TEST(Metrics, EachDataPathCheckIsASample) {
  Plan plan;
  plan.actions.emplace_back(VerifyPort{"rxe0", 1, RoceMode::kV2}, "not verified", "cmdline");
  plan.actions.emplace_back(VerifyPeer{*IpAddress::parse("10.77.0.1"), 7472}, "not verified",
                            "cmdline");
  plan.actions.emplace_back(VerifyPort{"rxe1", 1, RoceMode::kV2}, "not verified", "cmdline");
  plan.actions.emplace_back(VerifyPort{"rxe2", 1, RoceMode::kV2}, "not verified", "cmdline");
  ApplyReport report;
  report.outcomes = {Outcome::checked("GID ::ffff:10.77.0.2"),
                     Outcome::failed(make_error("10.77.0.1:7472: connect", "rejected")),
                     Outcome::skipped("needs action 1, which failed"),
                     Outcome::timed_out(make_error("rxe2/1", "not ACTIVE"))};
  report.checked = report.failed = report.skipped = report.timed_out = 1;
  auto samples = read_exposition(metrics_text(1, Config{}, plan, &report, Inventory{}, 1700000000));
  // A check that passed is counted as checked, not as a change.
  EXPECT_EQ(value_of(samples, "rdma_provision_actions", {{"outcome", "checked"}}), 1);
  EXPECT_EQ(value_of(samples, "rdma_provision_actions", {{"outcome", "done"}}), 0);
  EXPECT_EQ(value_of(samples, "rdma_provision_verify", {{"check", "port"}, {"object", "rxe0/1"}}),
            1);
  EXPECT_EQ(
      value_of(samples, "rdma_provision_verify", {{"check", "peer"}, {"object", "10.77.0.1:7472"}}),
      0);
  // A check that was skipped or ran out of time did not pass.
  EXPECT_EQ(value_of(samples, "rdma_provision_verify", {{"check", "port"}, {"object", "rxe1/1"}}),
            0);
  EXPECT_EQ(value_of(samples, "rdma_provision_verify", {{"check", "port"}, {"object", "rxe2/1"}}),
            0);
}

// rd.rdma.expect's checks, one sample per port or HCA: 1 as expected, 0 degraded.
TEST(Metrics, EachExpectedLinkIsASample) {
  Plan plan;
  ExpectedLink rate;
  rate.rate = 4000;
  ExpectedLink pcie;
  pcie.pcie_width = 0;
  plan.actions.emplace_back(CheckLink{"mlx5_0", 1, rate}, "not checked", "cmdline");
  plan.actions.emplace_back(CheckLink{"mlx5_0", 0, pcie}, "not checked", "cmdline");
  ApplyReport report;
  report.outcomes = {Outcome::failed(make_error("mlx5_0/1", "degraded: rate ...")),
                     Outcome::checked("PCIe 16.0 GT/s PCIe x16: as expected")};
  auto samples = read_exposition(metrics_text(1, Config{}, plan, &report, Inventory{}, 1700000000));
  EXPECT_EQ(value_of(samples, "rdma_provision_link_expected",
                     {{"device", "mlx5_0"}, {"port", "1"}, {"expected", "400 Gb/sec"}}),
            0);
  EXPECT_EQ(value_of(samples, "rdma_provision_link_expected",
                     {{"device", "mlx5_0"}, {"port", "0"}, {"expected", "PCIe max_link_width"}}),
            1);
}

// NVMe over Fabrics controllers over RDMA (a root on NVMe/RDMA): 1 live, 0 reconnecting;
// those over another transport are not this program's.
TEST(Metrics, EachNvmeControllerOverRdmaIsASample) {
  Inventory after;
  after.nvme = {{1, "rdma", "traddr=10.77.0.1,trsvcid=4420", "nqn.a", "live", {"/dev/nvme0n1"}},
                {2, "rdma", "traddr=10.77.0.1,trsvcid=4421", "nqn.b", "connecting", {}},
                {3, "tcp", "traddr=10.77.0.1,trsvcid=4420", "nqn.c", "live", {}}};
  auto samples = read_exposition(metrics_text(0, Config{}, Plan{}, nullptr, after, 1700000000));
  EXPECT_EQ(value_of(samples, "rdma_provision_nvmf_controller",
                     {{"controller", "nvme1"},
                      {"address", "traddr=10.77.0.1,trsvcid=4420"},
                      {"subsysnqn", "nqn.a"},
                      {"state", "live"}}),
            1);
  EXPECT_EQ(value_of(samples, "rdma_provision_nvmf_controller",
                     {{"controller", "nvme2"},
                      {"address", "traddr=10.77.0.1,trsvcid=4421"},
                      {"subsysnqn", "nqn.b"},
                      {"state", "connecting"}}),
            0);
  for (const auto& s : samples)
    EXPECT_EQ(s.labels.count("controller") && s.labels.at("controller") == "nvme3", false);
}

// The binary on a fixture: every family, the run's figures, and the file replaced whole.
TEST(MetricsCli, ApplyWritesTheOutcomeForTheTextfileCollector) {
  const std::string root = testing::unpack_fixture("rxe-virtio");
  const std::string dir = root + "/../textfile";
  testing::run("mkdir -p '" + dir + "'");
  const std::string file = dir + "/rdma_provision.prom";
  int st = -1;
  const std::string out = testing::run(
      testing::tool_binary() + " apply --log stderr --root '" + root +
          "' --cmdline-string 'rd.rdma.roce=rxe0/1:v2:106 rd.rdma.wait=rxe0/1' --metrics '" + file +
          "' 2>&1",
      &st);
  EXPECT_EQ(st, 0) << out;
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto samples = read_exposition(text.str());
  EXPECT_EQ(value_of(samples, "rdma_provision_exit_code"), 0);
  EXPECT_EQ(value_of(samples, "rdma_provision_enabled"), 1);
  EXPECT_EQ(value_of(samples, "rdma_provision_actions", {{"outcome", "done"}}), 1) << text.str();
  // The mode is v2 already and the port ACTIVE: nothing planned for them.
  EXPECT_NE(out.find("summary: 1 done, 0 already, 0 checked, 0 skipped, 0 failed"),
            std::string::npos)
      << out;
  EXPECT_EQ(value_of(samples, "rdma_provision_actions", {{"outcome", "already"}}), 0);
  EXPECT_EQ(value_of(samples, "rdma_provision_actions", {{"outcome", "failed"}}), 0);
  EXPECT_EQ(value_of(samples, "rdma_provision_deadline_seconds"), 60);
  EXPECT_GT(value_of(samples, "rdma_provision_last_run_timestamp_seconds"), 1.7e9);
  EXPECT_EQ(value_of(samples, "rdma_provision_port_state", {{"device", "rxe0"}, {"port", "1"}}), 4);
  EXPECT_EQ(value_of(samples, "rdma_provision_port_roce_mode",
                     {{"device", "rxe0"}, {"port", "1"}, {"mode", "RoCE v2"}}),
            1);
  EXPECT_EQ(testing::run("ls '" + dir + "'"), "rdma_provision.prom\n") << "no temporary left";

  // Invalid input: exit code 2 in the file too; a missing directory: a note, exit unchanged.
  testing::run(testing::tool_binary() + " apply --log stderr --root '" + root +
                   "' --cmdline-string 'rd.rdma.wiat=x' --metrics '" + file + "' 2>&1",
               &st);
  EXPECT_EQ(st, 2);
  std::ifstream again(file);
  std::stringstream t2;
  t2 << again.rdbuf();
  EXPECT_EQ(value_of(read_exposition(t2.str()), "rdma_provision_exit_code"), 2);
  const std::string none = testing::run(
      testing::tool_binary() + " apply --log stderr --root '" + root +
          "' --cmdline-string '' --metrics /nonexistent/node-exporter/rdma_provision.prom 2>&1",
      &st);
  EXPECT_EQ(st, 0) << none;
  EXPECT_NE(none.find("metrics: /nonexistent/node-exporter does not exist: "
                      "/nonexistent/node-exporter/rdma_provision.prom not written"),
            std::string::npos)
      << none;
}

TEST(ListenMetrics, EveryCountAsPrometheusText) {
  ListenStats s;
  s.sessions = 12;
  s.refused = 3;
  s.busy = 4;
  s.passed = 10;
  s.failed = 2;
  s.expired = 1;
  s.active = 0;
  s.max_sessions = 16;
  const std::string t = listen_metrics_text(s);
  for (const char* line :
       {"\nrdma_provision_listener_sessions_total 12\n",
        "\nrdma_provision_listener_refusals_total 3\n", "\nrdma_provision_listener_busy_total 4\n",
        "\nrdma_provision_listener_checks_total{result=\"passed\"} 10\n",
        "\nrdma_provision_listener_checks_total{result=\"failed\"} 2\n",
        "\nrdma_provision_listener_expired_total 1\n",
        "\nrdma_provision_listener_relistens_total 0\n",
        "\nrdma_provision_listener_active_sessions 0\n",
        "\nrdma_provision_listener_max_sessions 16\n",
        "# TYPE rdma_provision_listener_active_sessions gauge\n"}) {
    EXPECT_NE(t.find(line), std::string::npos) << line << "\n" << t;
  }
}

}  // namespace
}  // namespace rp
