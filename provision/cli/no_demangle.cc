// libc++abi's demangler in the release binary would be 98 KB (6% of it) for one caller:
// the default terminate handler, which demangles the type of an uncaught exception for its
// message (libcxxabi cxa_default_handlers.cpp demangling_terminate_handler). This
// definition keeps the archive's cxa_demangle.o out of the link; such a message then shows
// the mangled name. Nothing else in the program demangles.
#include <cstddef>

extern "C" char* __cxa_demangle(const char*, char*, std::size_t*, int* status) {
  if (status) *status = -2;  // "not a valid name under the C++ ABI mangling rules" (cxxabi.h)
  return nullptr;
}
