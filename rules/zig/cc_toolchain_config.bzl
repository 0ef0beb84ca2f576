"""cc_toolchain_config for `zig c++ -target x86_64-linux-musl` (Bazel 4.2.3 API)."""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)

_C_COMPILE = [ACTION_NAMES.c_compile]
_CXX_COMPILE = [
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.linkstamp_compile,
]
_ALL_COMPILE = _C_COMPILE + _CXX_COMPILE + [ACTION_NAMES.assemble, ACTION_NAMES.preprocess_assemble]
_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _impl(ctx):
    # `zig c++` is compiler and linker for C and C++: it compiles *.c as C, and only the
    # c++ driver adds the libc++ headers and links libc++.
    tool_paths = [
        tool_path(name = "gcc", path = "zig-c++"),
        tool_path(name = "ld", path = "zig-c++"),
        tool_path(name = "ar", path = "zig-ar"),
        tool_path(name = "cpp", path = "/bin/false"),
        tool_path(name = "gcov", path = "/bin/false"),
        tool_path(name = "nm", path = "/usr/bin/nm"),
        tool_path(name = "objdump", path = "/usr/bin/objdump"),
        tool_path(name = "objcopy", path = "/usr/bin/objcopy"),
        tool_path(name = "strip", path = "/usr/bin/strip"),
    ]
    features = [
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(name = "fastbuild"),
        feature(name = "supports_pic", enabled = False),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                flag_set(
                    actions = _ALL_COMPILE,
                    flag_groups = [flag_group(flags = [
                        "-Wall",
                        "-Wno-builtin-macro-redefined",
                        "-D__DATE__=\"redacted\"",
                        "-D__TIMESTAMP__=\"redacted\"",
                        "-D__TIME__=\"redacted\"",
                    ])],
                ),
                # Zig without -O compiles in Debug mode, which turns UBSan on in trap mode
                # (SIGILL on any signed overflow in third-party C): always optimise, and
                # sanitize only where a test asks for it.
                flag_set(
                    actions = _ALL_COMPILE,
                    flag_groups = [flag_group(flags = ["-g", "-O1", "-fno-sanitize=undefined"])],
                    with_features = [with_feature_set(features = ["dbg"])],
                ),
                flag_set(
                    actions = _ALL_COMPILE,
                    flag_groups = [flag_group(flags = ["-O2"])],
                    with_features = [with_feature_set(features = ["fastbuild"])],
                ),
                flag_set(
                    actions = _ALL_COMPILE,
                    flag_groups = [flag_group(flags = ["-Os", "-DNDEBUG", "-ffunction-sections", "-fdata-sections", "-mllvm", "-inline-threshold=10", "-mllvm", "-enable-machine-outliner=always"])],
                    with_features = [with_feature_set(features = ["opt"])],
                ),
                # The release binary's size (tests/release: 1.5 MiB): no RTTI (nothing uses
                # typeid or dynamic_cast; 14 KB of type names and tables), and clang's inliner
                # held to small callees (-inline-threshold=10, above: 44 KB of copies of
                # string-building helpers at every message; the hot paths are file reads), and
                # LLVM's machine outliner on (-enable-machine-outliner=always: the repeated
                # instruction runs of string building and cleanup become calls, 29 KB less
                # at 1.58 MB; x86-64 outlines only runs that leave the stack alone or end in
                # a tail call, X86InstrInfo::getOutliningCandidateInfo).
                flag_set(
                    actions = _CXX_COMPILE,
                    flag_groups = [flag_group(flags = ["-fno-rtti"])],
                    with_features = [with_feature_set(features = ["opt"])],
                ),
                flag_set(
                    actions = _CXX_COMPILE,
                    flag_groups = [flag_group(flags = ["-std=c++17"])],
                ),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [
                flag_set(
                    actions = _LINK,
                    # Zig builds musl/libc++ at link time, keyed on the link's -O level and
                    # strip flags: identical flags in every mode keep one cached build; -Os
                    # builds them for size (ReleaseSmall, 12 KB less than -O2).
                    flag_groups = [flag_group(flags = ["-static", "-Os", "-Wl,--gc-sections"])],
                ),
            ],
        ),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = [ctx.attr.zig_lib_dir],
        toolchain_identifier = "zig-x86_64-linux-musl",
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = "x86_64-unknown-linux-musl",
        target_cpu = "k8",
        target_libc = "musl",
        compiler = "zig",
        abi_version = "unknown",
        abi_libc_version = "unknown",
        tool_paths = tool_paths,
    )

zig_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {"zig_lib_dir": attr.string(mandatory = True)},
    provides = [CcToolchainConfigInfo],
)
