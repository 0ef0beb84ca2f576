// Smoke driver for the libFuzzer targets under plain Bazel tests: feeds every corpus file
// and a fixed budget of deterministic mutations spread over them (byte flips, truncations,
// splices, inserted separators) to LLVMFuzzerTestOneInput. A crash or sanitizer report
// fails the test. The real coverage-guided run is tests/fuzz/run.sh (clang, libFuzzer,
// ASan+UBSan). An empty corpus fails too: a replay of nothing proves nothing.
#include <dirent.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::string> read_corpus(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) {
    std::fprintf(stderr, "no corpus directory %s\n", dir.c_str());
    std::exit(1);
  }
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream f(dir + "/" + e->d_name, std::ios::binary);
    out.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  closedir(d);
  return out;
}

void feed(const std::string& s) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <corpus dir> [mutations in all]\n", argv[0]);
    return 2;
  }
  auto corpus = read_corpus(argv[1]);
  if (corpus.empty()) {  // else nothing would be fed and the test would pass anyway
    std::fprintf(stderr, "no seed in %s\n", argv[1]);
    return 1;
  }
  // Every kept input is replayed; the mutations share one budget (16,000 by default), so
  // a corpus a campaign grew to a thousand inputs costs no more than a handful of seeds.
  const long budget = argc > 2 ? std::atol(argv[2]) : 16000;
  const int rounds = static_cast<int>(budget / static_cast<long>(corpus.size()));
  std::mt19937 rng(12345);
  const char kSpecial[] = "\n\r\t =:,/#\"'[]\\x0";
  size_t runs = 0;
  for (const auto& seed : corpus) {
    feed(seed);
    ++runs;
    for (int i = 0; i < rounds; ++i) {
      std::string s = seed;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
        switch (rng() % 6) {
          case 0:
            if (!s.empty() && pos < s.size()) s[pos] = static_cast<char>(rng());
            break;
          case 1:
            s.resize(pos);
            break;
          case 2:
            s.insert(pos, 1, kSpecial[rng() % (sizeof kSpecial - 1)]);
            break;
          case 3:
            if (!corpus.empty()) s.insert(pos, corpus[rng() % corpus.size()]);
            break;
          case 4:
            if (pos < s.size()) s.erase(pos, 1 + rng() % 8);
            break;
          case 5:
            s.insert(pos, std::string(1 + rng() % 300, static_cast<char>('0' + rng() % 10)));
            break;
        }
      }
      feed(s);
      ++runs;
    }
  }
  std::printf("%zu inputs from %zu seeds ran without a crash\n", runs, corpus.size());
  return 0;
}
