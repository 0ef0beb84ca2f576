/*
 * glibc/musl compatibility for libkmod (Debian kmod 30+20221128-1), included at
 * the end of our config.h, so before any of libkmod's own #includes. Fixes the
 * libc differences without touching kmod's sources.
 */
#pragma once

#include <endian.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* strndupa() is a glibc macro; musl has none, so shared/missing.h supplies it. */
#ifdef strndupa
#  define HAVE_DECL_STRNDUPA 1
#else
#  define HAVE_DECL_STRNDUPA 0
#endif

/* be32toh() is a macro in both libcs' <endian.h> (with _GNU_SOURCE). */
#ifdef be32toh
#  define HAVE_DECL_BE32TOH 1
#else
#  define HAVE_DECL_BE32TOH 0
#endif

/*
 * basename(): kmod calls it on `const char *` paths and expects the GNU
 * version from <string.h> (last component after '/', "" for a trailing slash,
 * argument never modified). musl only has the POSIX one (declared without a
 * prototype in <string.h>, `char *basename(char *)` in <libgen.h>), which
 * strips trailing slashes by writing into the argument -- e.g. into a config
 * path like "/etc/modprobe.d/" given to kmod_new(), or a string literal. Use
 * a GNU-compatible inline on both libcs so behaviour does not depend on libc.
 */
static inline char *kmod_compat_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return (char *)(slash != NULL ? slash + 1 : path);
}
#define basename(path) kmod_compat_basename(path)

/*
 * init_module(2) / delete_module(2): libkmod-module.c declares them itself as
 * `extern long ...(...)`, matching glibc's raw syscall stubs. musl defines
 * them as returning int, so the call goes through an incompatible type and a
 * -1 from musl may reach kmod as 0x00000000ffffffff, a positive "success".
 * (zig 0.11's musl happens to return a sign-extended -1 today; nothing
 * guarantees it.) Route both through syscall(), which returns long on both
 * libcs. kmod's own extern declarations then re-declare these static
 * functions, which C allows. finit_module(), the path used for uncompressed
 * modules, already goes through syscall() in shared/missing.h.
 */
static inline long kmod_compat_init_module(const void *mem, unsigned long len,
					   const char *args)
{
	return syscall(SYS_init_module, mem, len, args);
}
#define init_module kmod_compat_init_module

static inline long kmod_compat_delete_module(const char *name,
					     unsigned int flags)
{
	return syscall(SYS_delete_module, name, flags);
}
#define delete_module kmod_compat_delete_module
