"""Compiler options for the project's own code: warnings are errors here (not in
third-party libraries, which get -w in their BUILD files). No exceptions: nothing in
provision/ throws or catches (errors travel as Result values), and the release binary
stays within 1.5 MiB without their tables. Nor unwind tables (.eh_frame): with no
exception to carry through our frames they serve nothing at run time, and they were
107 KB of the binary (1,595,560 B with them, 1,487,944 B without, stop 36)."""

PROVISION_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wshadow",
    "-fno-exceptions",
    "-fno-asynchronous-unwind-tables",
    "-fno-unwind-tables",
]
