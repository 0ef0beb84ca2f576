// systemd .link files as udev's net_setup_link reads them (link-config.c, conf-parser.c):
// the names they give by address, what udev drops, what it never matches. Rows follow
// systemd's own tests and documentation (test/test-network/conf/*.link, man/systemd.link,
// src/test/test-ether-addr-util.c) and Red Hat's guide for IPoIB names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/inputs/rdma_core_files.h"

namespace rp {
namespace {

const std::string kEtc = "/etc/systemd/network/";

struct Read {
  Config cfg;
  Diagnostics diag;
  std::vector<std::string> warnings() const {
    std::vector<std::string> out;
    for (const auto& w : diag.warnings) out.push_back(w.str());
    return out;
  }
  std::string names() const {
    std::string out;
    for (const auto& [n, k] : cfg.names) out += (out.empty() ? "" : " ") + n + "=" + k.value.str();
    return out;
  }
};

Read read(const std::vector<LinkFileText>& files) {
  Read r;
  parse_link_files(files, r.cfg, r.diag);
  EXPECT_TRUE(r.diag.errors.empty()) << "udev's files are never refused";
  return r;
}

Read read_one(const std::string& text, const std::string& name = "70-custom-ifnames.link") {
  return read({{kEtc + name, text}});
}

bool has(const std::vector<std::string>& ws, const std::string& s) {
  for (const auto& w : ws)
    if (w.find(s) != std::string::npos) return true;
  return false;
}

// RHEL 9 "Configuring InfiniBand and RDMA networks" (and RHEL 10's networking guide): the
// whole 20-byte address in MACAddress=. udev matches all 20 bytes; only the last 8 stay.
TEST(LinkFiles, RedHatsIpoibExampleNamesThePortWithTheFix) {
  const Read r = read_one(
      "[Match]\nMACAddress=80:00:0a:28:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:e1:b1\n"
      "[Link]\nName=mlx4_ib0\n");
  EXPECT_EQ(r.names(), "mlx4_ib0=f452:1403:007b:e1b1");
  ASSERT_EQ(r.warnings().size(), 1u);
  EXPECT_EQ(r.warnings()[0],
            kEtc +
                "70-custom-ifnames.link:2: the whole 20-byte IPoIB address is matched: its "
                "first 12 bytes (QPN, subnet prefix) change from boot to boot (only the last "
                "8, the port GUID f452:1403:007b:e1b1, are stable: ipoib_main.c), so udev "
                "stops naming the port when they do; name it by its GUID instead "
                "(70-persistent-ipoib.rules ATTR{address}==\"?*f4:52:14:03:00:7b:e1:b1\", "
                "or rd.rdma.name=mlx4_ib0:f452:1403:007b:e1b1)");
  EXPECT_EQ(r.cfg.names.at("mlx4_ib0").source.str(), kEtc + "70-custom-ifnames.link:4");
}

// man systemd.link, "10-dmz.link"; the MACAddress= forms of its reference
// (ether-addr-util.c parse_hw_addr_full: ':', '-', and '.' with 2 bytes a field).
TEST(LinkFiles, AMacNamesAnEthernetPortInEveryWrittenForm) {
  EXPECT_EQ(read_one("[Match]\nMACAddress=00:a0:de:63:7a:e6\n\n[Link]\nName=dmz0\n").names(),
            "dmz0=00:a0:de:63:7a:e6");
  EXPECT_EQ(read_one("[Match]\nMACAddress=00-A0-DE-63-7A-E6\n[Link]\nName=dmz0\n").names(),
            "dmz0=00:a0:de:63:7a:e6");
  EXPECT_EQ(read_one("[Match]\nMACAddress=00a0.de63.7ae6\n[Link]\nName=dmz0\n").names(),
            "dmz0=00:a0:de:63:7a:e6");
  EXPECT_EQ(read_one("[Match]\nMACAddress=0:a0:de:63:7a:e6\n[Link]\nName=dmz0\n").names(),
            "dmz0=00:a0:de:63:7a:e6");
  // Several addresses for one name: udev gives it to the first that appears, fails the
  // other; only the first is named here, said.
  const Read two = read_one(
      "[Match]\nMACAddress=01:23:45:67:89:ab 00-11-22-33-44-55 AABB.CCDD.EEFF\n[Link]\nName=x0\n");
  EXPECT_EQ(two.names(), "x0=01:23:45:67:89:ab");
  EXPECT_EQ(two.warnings().size(), 2u);
}

// test-ether-addr-util.c: "12:34:56:78:90:ab:cd:ef" is IPv6 (16 bytes), "12:34" and
// "12-34-56-78-90-ab-cd-ef" are no address: a port GUID alone never matches.
TEST(LinkFiles, APortGuidAloneNeverMatches) {
  const Read r = read_one("[Match]\nMACAddress=00:02:c9:03:00:31:78:f2\n[Link]\nName=ib_a\n");
  EXPECT_EQ(r.names(), "");
  EXPECT_TRUE(has(r.warnings(),
                  ":2: an address of 16 bytes (an IP address form: a port "
                  "GUID's 8 groups read as IPv6) is no interface's address"));
  const Read bad = read_one("[Match]\nMACAddress=12-34-56-78-90-ab-cd-ef 12:34\n[Link]\nName=a\n");
  EXPECT_EQ(bad.names(), "");
  EXPECT_TRUE(has(bad.warnings(), "invalid MACAddress '12-34-56-78-90-ab-cd-ef'"));
  EXPECT_TRUE(has(bad.warnings(), "invalid MACAddress '12:34'"));
}

// link_load_one: an empty [Match] ignores the file (test/fuzz/fuzz-link-parser's
// 99-default.link has none); an invalid section header drops the whole file.
TEST(LinkFiles, FilesUdevDropsNameNothing) {
  const Read empty = read_one("[Link]\nName=fab0\n");
  EXPECT_EQ(empty.names(), "");
  EXPECT_TRUE(has(empty.warnings(), "no valid settings in [Match]: udev ignores the file"));
  const Read header = read_one("[Match\nMACAddress=52:54:00:12:34:56\n[Link]\nName=fab0\n");
  EXPECT_EQ(header.names(), "");
  EXPECT_TRUE(has(header.warnings(),
                  ":1: invalid section header '[Match': udev ignores the "
                  "whole file"));
  const Read utf8 = read_one("[Match]\nMACAddress=52:54:00:12:34:56\n[Link]\nName=f\xff\n");
  EXPECT_EQ(utf8.names(), "");
}

// conf-parser.c: comments ('#', ';'), a continued line (its backslash a space, comment
// lines inside skipped), a later assignment replaces Name=, an empty one resets a list,
// keys are case-sensitive, unknown sections are ignored with a warning.
TEST(LinkFiles, TheIniGrammarAsConfParserReadsIt) {
  EXPECT_EQ(read_one("; header\n[Match]\nMACAddress=52:54:00:12:34:56 \\\n# note\n"
                     "  52:54:00:12:34:57\n[Link]\nName=a0\nName=b0\n")
                .names(),
            "b0=52:54:00:12:34:56");
  EXPECT_EQ(read_one("[Match]\nMACAddress=52:54:00:12:34:56\nMACAddress=\n"
                     "MACAddress=52:54:00:12:34:57\n[Link]\nName=a0\n")
                .names(),
            "a0=52:54:00:12:34:57");
  const Read lower = read_one("[match]\nmacaddress=52:54:00:12:34:56\n[Link]\nName=a0\n");
  EXPECT_EQ(lower.names(), "");
  EXPECT_TRUE(has(lower.warnings(), "unknown section 'match'"));
  // A name ifname_valid refuses is dropped, the earlier one kept (config_parse_ifname).
  EXPECT_EQ(read_one("[Match]\nMACAddress=52:54:00:12:34:56\n[Link]\nName=a0\nName=all\n"
                     "Name=name_of_sixteen0\n")
                .names(),
            "a0=52:54:00:12:34:56");
  // No inline comments: "a0 # x" is the value, not a valid name.
  EXPECT_EQ(read_one("[Match]\nMACAddress=52:54:00:12:34:56\n[Link]\nName=a0 # x\n").names(), "");
}

// link_get_config: the first file in name order whose [Match] passes is the port's only
// one; link_generate_new_name: NamePolicy= comes before Name=.
TEST(LinkFiles, TheFirstMatchingFileWinsAndPoliciesComeFirst) {
  const std::string naming = "[Match]\nMACAddress=52:54:00:12:34:56\n[Link]\nName=a0\n";
  const Read all = read({{kEtc + "10-all.link", "[Match]\nOriginalName=*\n[Link]\nMTUBytes=9000\n"},
                         {kEtc + "70-names.link", naming}});
  EXPECT_EQ(all.names(), "");
  EXPECT_TRUE(has(all.warnings(),
                  "10-all.link matches 52:54:00:12:34:56 first: udev uses only "
                  "the first matching file"));
  // A first file that matches only IPoIB ports (Type=), or names another address, is no
  // obstacle; one whose Driver= is not known here may be.
  EXPECT_EQ(read({{kEtc + "10-ib.link", "[Match]\nType=infiniband\n[Link]\nMTUBytes=4092\n"},
                  {kEtc + "70-names.link", naming}})
                .names(),
            "a0=52:54:00:12:34:56");
  const Read drv =
      read({{kEtc + "10-drv.link", "[Match]\nDriver=mlx5_core\n[Link]\nMTUBytes=9000\n"},
            {kEtc + "70-names.link", naming}});
  EXPECT_EQ(drv.names(), "a0=52:54:00:12:34:56");
  EXPECT_TRUE(has(drv.warnings(),
                  "10-drv.link comes first and may match 52:54:00:12:34:56 (not "
                  "checked here: Driver=mlx5_core)"));
  const Read policy = read_one(
      "[Match]\nMACAddress=52:54:00:12:34:56\n[Link]\nNamePolicy=path\n"
      "Name=a0\n");
  EXPECT_EQ(policy.names(), "");
  EXPECT_TRUE(has(policy.warnings(), "NamePolicy=path comes before Name="));
}

// A name by other matches than MACAddress= (PermanentMACAddress=, Path=, OriginalName=...)
// is not given here, and said: udev gives it to whatever matches.
TEST(LinkFiles, ANameByOtherMatchesIsSaidNotGiven) {
  for (const char* match :
       {"PermanentMACAddress=52:54:00:12:34:56", "Path=pci-0000:3b:00.0", "OriginalName=ib0"}) {
    const Read r = read_one(std::string("[Match]\n") + match + "\n[Link]\nName=a0\n");
    EXPECT_EQ(r.names(), "") << match;
    EXPECT_TRUE(has(r.warnings(), "Name=a0 is given by matches other than MACAddress=")) << match;
  }
}

// Its own other matches: Type= and OriginalName= against what the port shows
// (netif-util.c net_get_type_string; ipoib_main.c names ports ib<N>).
TEST(LinkFiles, OtherMatchesOfTheFileItself) {
  const std::string ib = "MACAddress=80:00:0a:28:fe:80:00:00:00:00:00:00:f4:52:14:03:00:7b:e1:b1\n";
  EXPECT_EQ(read_one("[Match]\n" + ib + "Type=ether\n[Link]\nName=a0\n").names(), "");
  EXPECT_EQ(read_one("[Match]\n" + ib + "Type=infiniband\n[Link]\nName=a0\n").names(),
            "a0=f452:1403:007b:e1b1");
  EXPECT_EQ(read_one("[Match]\n" + ib + "OriginalName=eth*\n[Link]\nName=a0\n").names(), "");
  EXPECT_EQ(read_one("[Match]\n" + ib + "OriginalName=!eth*\n[Link]\nName=a0\n").names(),
            "a0=f452:1403:007b:e1b1");
}

// The [Match] keys not checked here are named in the warning, not quoted whole: four at
// most, each cut at 64 bytes (a file of many long lines stays one readable line; the fuzz
// run found a warning of several kilobytes).
TEST(LinkFiles, UncheckedMatchesAreNamedBriefly) {
  std::string text = "[Match]\nMACAddress=52:54:00:77:00:05\n";
  for (int i = 0; i < 6; ++i) text += "Driver=" + std::string(100, char('a' + i)) + "\n";
  Read r = read_one(text + "[Link]\nName=a0\n");
  ASSERT_EQ(r.warnings().size(), 1u);
  const std::string w = r.warnings()[0];
  EXPECT_NE(w.find("not checked here: Driver=" + std::string(54, 'a') + "... Driver="),
            std::string::npos)
      << w;
  EXPECT_NE(w.find(" and 2 more"), std::string::npos) << w;
  EXPECT_EQ(w.find(std::string(55, 'a')), std::string::npos) << w;
  EXPECT_LT(w.size(), 500u) << w;
}

}  // namespace
}  // namespace rp
