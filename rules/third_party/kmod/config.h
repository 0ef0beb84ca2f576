/*
 * config.h for libkmod (Debian kmod 30+20221128-1), written for our Bazel build
 * (rules/third_party/kmod.BUILD) in place of the one autotools' configure makes.
 * It only defines the macros that the libkmod and shared C sources test.
 * Force-included into every libkmod source file with `-include`, as kmod's own
 * Makefile.am does.
 *
 * The same file serves glibc (host g++ toolchain) and musl (zig toolchain): the
 * few facts that differ between the two are detected in kmod_compat.h.
 */
#pragma once

/* AC_USE_SYSTEM_EXTENSIONS / AC_SYS_LARGEFILE */
#define _GNU_SOURCE 1
#define _FILE_OFFSET_BITS 64

/* Paths. The module directory, /lib/modules/`uname -r`, is fixed in libkmod.c;
 * callers pass their own root through kmod_new(dirname, config_paths). */
#define SYSCONFDIR "/etc"

/* Features. Logging (to stderr unless the caller sets a log function; level
 * from $KMOD_LOG) is on, as in Debian's build. Debug messages are off.
 * Off on purpose: module decompression (ENABLE_ZLIB, ENABLE_XZ, ENABLE_ZSTD) --
 * Debian 12's 6.1 kernels ship uncompressed .ko files -- and ENABLE_OPENSSL,
 * which only decodes PKCS#7 signatures for kmod_module_get_info(); the kernel
 * checks signatures itself. */
#define ENABLE_LOGGING 1
/* #undef ENABLE_DEBUG */
/* #undef ENABLE_ZLIB */
/* #undef ENABLE_XZ */
/* #undef ENABLE_ZSTD */
/* #undef ENABLE_OPENSSL */

/* Compiler: gcc >= 5 and clang (zig) have all of these. */
#define HAVE_STATIC_ASSERT 1
#define HAVE_NORETURN 1
#define HAVE___BUILTIN_UADDL_OVERFLOW 1
#define HAVE___BUILTIN_UADDLL_OVERFLOW 1

/* libc: glibc >= 2.17 and musl >= 1.1 both have secure_getenv() and st_mtim. */
#define HAVE_SECURE_GETENV 1
#define HAVE_STRUCT_STAT_ST_MTIM 1

/* Neither glibc 2.36 nor musl wraps finit_module(2): shared/missing.h then
 * calls it through syscall(__NR_finit_module, ...). */
/* #undef HAVE_FINIT_MODULE */

/* Kernel UAPI header (MODULE_INIT_IGNORE_*); missing.h has fallbacks. */
#if defined(__has_include)
#  if __has_include(<linux/module.h>)
#    define HAVE_LINUX_MODULE_H 1
#  endif
#endif

/* HAVE_DECL_STRNDUPA, HAVE_DECL_BE32TOH and the glibc/musl fixes. */
#include "kmod_compat.h"
