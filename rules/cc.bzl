"""Compiler options for the project's own code: warnings are errors here (not in
third-party libraries, which get -w in their BUILD files)."""

PROVISION_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wshadow",
]
