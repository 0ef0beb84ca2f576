/*
 * lib/defs.h for libnl 3.7.0, written for our Bazel build (rules/third_party/libnl.BUILD).
 *
 * Upstream generates this file with autoheader/configure. Of its macros, the libnl-3 and
 * libnl-route-3 sources only test these:
 *   HAVE_STRERROR_L   lib/utils.c: use strerror_l() (present in glibc and musl).
 *   DISABLE_PTHREADS  left undefined: caches and the ops registries keep their locks.
 *   NL_DEBUG          left undefined: NL_DBG() compiles to nothing (smaller binary, no
 *                     NLDBG environment variable handling).
 * SYSCONFDIR comes from the compiler command line, as in upstream's Makefile.am.
 */
#ifndef RDMA_PROVISION_LIBNL_DEFS_H
#define RDMA_PROVISION_LIBNL_DEFS_H

#define HAVE_STRERROR_L 1

#endif
