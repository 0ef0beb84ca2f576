#include "provision/base/tar.h"

#include <cstdio>
#include <cstring>

namespace rp {
namespace {

constexpr size_t kBlock = 512;

// An octal field of `width` bytes: digits, zero-padded, then a NUL.
void octal(char* field, size_t width, unsigned long long v) {
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1), v);
}

// ustar's name: the last 100 bytes in `name`, what comes before the '/' that splits them
// in `prefix` (at most 155 bytes).
bool split_name(const std::string& path, std::string& prefix, std::string& name) {
  if (path.size() <= 100) {
    prefix.clear();
    name = path;
    return true;
  }
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    if (slash <= 155 && path.size() - slash - 1 <= 100 && slash + 1 < path.size()) {
      prefix = path.substr(0, slash);
      name = path.substr(slash + 1);
      return true;
    }
  }
  return false;
}

}  // namespace

Result<std::string> tar_archive(const std::vector<TarEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    std::string prefix, name;
    if (!split_name(e.path, prefix, name)) return make_error(e.path, "path too long for ustar");
    if (e.kind == TarEntry::Kind::kLink && e.data.size() > 100)
      return make_error(e.path, "link target too long for ustar");
    char h[kBlock] = {};
    std::memcpy(h, name.data(), name.size());
    octal(h + 100, 8, e.mode & 07777);
    octal(h + 108, 8, 0);  // uid
    octal(h + 116, 8, 0);  // gid
    octal(h + 124, 12, e.kind == TarEntry::Kind::kFile ? e.data.size() : 0);
    octal(h + 136, 12, 0);  // mtime
    h[156] = e.kind == TarEntry::Kind::kFile ? '0' : e.kind == TarEntry::Kind::kDir ? '5' : '2';
    if (e.kind == TarEntry::Kind::kLink) std::memcpy(h + 157, e.data.data(), e.data.size());
    std::memcpy(h + 257, "ustar", 6);  // magic with its NUL
    std::memcpy(h + 263, "00", 2);     // version
    std::memcpy(h + 345, prefix.data(), prefix.size());
    // The checksum: the sum of the header's bytes with its own field read as spaces.
    std::memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    std::snprintf(h + 148, 8, "%06o", sum);  // six digits, a NUL, and the space kept
    out.append(h, kBlock);
    if (e.kind == TarEntry::Kind::kFile) {
      out += e.data;
      out.append((kBlock - e.data.size() % kBlock) % kBlock, '\0');
    }
  }
  out.append(2 * kBlock, '\0');  // the end of the archive
  return out;
}

}  // namespace rp
