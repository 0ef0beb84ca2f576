"""fuzz_target(name, srcs, deps): a libFuzzer target (LLVMFuzzerTestOneInput in srcs)
plus a `<name>_smoke` cc_test that replays tests/fuzz/corpus/<name>/ and `smoke_mutations`
deterministic mutations of it under the normal toolchains. tests/fuzz/run.sh builds the
same sources with clang -fsanitize=fuzzer,address,undefined for coverage-guided runs."""

def fuzz_target(name, srcs, deps, smoke_mutations = 16000):
    native.cc_library(
        name = name + "_lib",
        testonly = True,
        srcs = srcs,
        deps = deps,
        alwayslink = True,
    )
    native.cc_test(
        name = name + "_smoke",
        size = "small",
        srcs = ["smoke_main.cc"],
        args = ["tests/fuzz/corpus/" + name, str(smoke_mutations)],
        data = native.glob(["corpus/" + name + "/*"]),
        deps = [":" + name + "_lib"],
    )
