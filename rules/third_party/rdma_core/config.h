/*
 * config.h for rdma-core 56.1, written for our Bazel build (rules/third_party/rdma_core.BUILD).
 *
 * Replaces the header cmake makes from buildlib/config.h.in. Only the macros read by the
 * sources we compile (ccan/, util/, libibverbs/ and the mlx4, mlx5, rxe and siw providers)
 * are defined. Target: x86_64 Linux, static, glibc (host g++) or musl (zig); both compilers
 * (gcc 12, clang 16) have every feature claimed here.
 */
#ifndef RDMA_PROVISION_RDMA_CORE_CONFIG_H
#define RDMA_PROVISION_RDMA_CORE_CONFIG_H

/* Compiler features, read by ccan/ and util/compiler.h. */
#define HAVE_STATEMENT_EXPR 1
#define HAVE_BUILTIN_TYPES_COMPATIBLE_P 1
#define HAVE_TYPEOF 1
#define HAVE_ISBLANK 1
#define HAVE_BUILTIN_CLZ 1
#define HAVE_BUILTIN_CLZL 1
#define HAVE_FUNC_ATTRIBUTE_ALWAYS_INLINE 1

/* providers/mlx5/dr_dbg.c writes it into steering dumps. */
#define PACKAGE_VERSION "56.1"

/* fopen() mode flag for O_CLOEXEC (glibc and musl both accept "e"). */
#define STREAM_CLOEXEC "e"

/* Where the uverbs character devices live (util/open_cdev.c, libibverbs/init.c). */
#define RDMA_CDEV_DIR "/dev/infiniband"

/* Provider ABI version: names the registration symbol verbs_register_driver_34. */
#define IBVERBS_PABI_VERSION 34

/* <net/if.h> and <netlink/route/link.h> can be included together (libibverbs/neigh.c). */
#define HAVE_WORKING_IF_H 1

/* util/mmio.h: x86_64 has native 64-bit MMIO writes. */
#define SIZEOF_LONG 8

/* Support both the ioctl() and the write() verbs command paths (cmake's IOCTL_MODE=both). */
#define VERBS_IOCTL_ONLY 0
#define VERBS_WRITE_ONLY 0

/* ibacm's files, where librdmacm's acm.c looks for a running ibacm (IB path records for
 * rdma_resolve_route); Debian's rdma-core runs it under /run. */
#define IBACM_PORT_FILE "/run/ibacm.port"
#define IBACM_SERVER_PATH "/run/ibacm.sock"

/*
 * Deliberately left undefined:
 * - IBV_CONFIG_DIR, VERBS_PROVIDER_DIR, VERBS_PROVIDER_SUFFIX: only the dlopen() provider
 *   loader (libibverbs/dynamic_driver.c) reads them, and -D_STATIC_LIBRARY_BUILD_=1
 *   compiles it out.
 * - HAVE_FUNC_ATTRIBUTE_IFUNC: util/mmio.c only uses ifuncs on s390x and 32-bit targets,
 *   and musl's static startup does not process IRELATIVE relocations anyway.
 * - HAVE_FUNC_ATTRIBUTE_SYMVER, HAVE_FULL_SYMBOL_VERSIONS, HAVE_LIMITED_SYMBOL_VERSIONS:
 *   symbol versions only exist in the shared libraries.
 */

#endif
