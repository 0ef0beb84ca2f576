// A POSIX ustar archive (pax's base format, IEEE Std 1003.1 "ustar Interchange Format"),
// written whole in memory: what `capture` bundles, unpacked by any tar into a tree that
// --root reads. Regular files, directories and symbolic links only.
#pragma once

#include <string>
#include <vector>

#include "provision/base/result.h"

namespace rp {

struct TarEntry {
  enum class Kind { kFile, kDir, kLink };
  Kind kind = Kind::kFile;
  std::string path;  // relative, '/'-separated, no leading '/' ("sys/class/net/ib0")
  unsigned mode = 0644;
  std::string data;  // kFile: the contents; kLink: the target
};

// The archive, the entries in the order given, or an error naming the entry that does not
// fit the format (a path over 255 bytes that cannot be split at a '/' into 155 + 100, a
// link target over 100 bytes).
Result<std::string> tar_archive(const std::vector<TarEntry>& entries);

}  // namespace rp
