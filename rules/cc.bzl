"""Compiler options for the project's own code: warnings are errors here (not in
third-party libraries, which get -w in their BUILD files). No exceptions: nothing in
provision/ throws or catches (errors travel as Result values), and the release binary
stays within 1.5 MiB without their tables."""

PROVISION_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wshadow",
    "-fno-exceptions",
]
